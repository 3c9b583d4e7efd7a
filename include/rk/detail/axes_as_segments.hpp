#pragma once
// rk::reduce_axes on every policy, as a fixed-size segmented reduce over the virtual array of the
// outputs' items (rk/detail/axes_map.hpp): read as a plain array where it is one (a row-major
// matrix's rows), through axes_input otherwise. The segment engine gives each output
// rk::reduce's bits over its items, on every order-preserving policy.

#include <rk/detail/axes_map.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/segmented_reduce.hpp>

#include <type_traits>
#include <utility>

namespace rk::detail
{
/// Calls `f` with `input` (a reader of x's items) under the call's transform, if it has one.
template <class T, class U, class Transform, class Input, class F>
void with_transform(const axes_source<U, Transform>& source, Input input, F&& f)
{
  if constexpr (std::is_same_v<Transform, untransformed>)
  {
    f(input);
  }
  else
  {
    f(transformed_input<Input, Transform, T>(input, source.transform));
  }
}

/// Calls `f(input, rows_are_dense)` with what the segments are read from, x's pointer or
/// axes_input, under the transform; `rows_are_dense` is std::true_type for x's pointer, so a caller
/// can choose per reader at compile time.
template <class T, class U, class Transform, class F>
void with_axes_input(const axes_source<U, Transform>& source, const axes_plan& plan, F&& f)
{
  if (plan.rows_are_dense())
  {
    with_transform<T>(source, source.data, [&](auto input) { f(input, std::true_type{}); });
  }
  else
  {
    with_transform<T>(source, axes_input<U>{{}, source.data, plan.kept, plan.reduced, plan.reduced_items, 0},
                      [&](auto input) { f(input, std::false_type{}); });
  }
}

/// The reduction, with `out` written through `output` (a T* where the output is dense, or
/// axes_output).
template <class Policy, class U, class Transform, class Output, class T, class BinaryOp>
void reduce_axes_as_segments(const Policy& policy, const axes_source<U, Transform>& source, const axes_plan& plan,
                             Output output, T init, BinaryOp op)
{
  with_axes_input<T>(source, plan, [&](auto input, auto) {
    segmented_reduce(policy, input, plan.outputs, plan.reduced_items, output, init, op);
  });
}
} // namespace rk::detail

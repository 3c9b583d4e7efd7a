#pragma once
// rk::transform_reduce, on every policy: rk::reduce over a transformed_input
// (rk/detail/input_adaptors.hpp), so the transform is fused into the loads and the result has
// rk::reduce's tree, counted in input items.

#include <rk/detail/input_adaptors.hpp>
#include <rk/device_count.hpp>
#include <rk/flat_reduce.hpp>

#include <type_traits>
#include <utility>

namespace rk
{
/// Reduces `transform_op(x)` over [first, last) with `reduce_op`, starting from `init`, as
/// std::transform_reduce's unary form and thrust::transform_reduce do; rk::reduce's guarantees
/// otherwise (order kept, `init` once on the left, an empty range returns `init`, no identity
/// assumed). No temporary array: GPU policies apply `transform_op` to what their loads bring in,
/// and the tree's tiles are counted in input items. For GPU policies `transform_op` must be
/// callable on the device (a functor with a __device__ operator(), or an extended lambda).
///
/// \code
/// float sum_sq = rk::transform_reduce(rk::device, v.begin(), v.end(), 0.0f, rk::plus{},
///                                     [] __device__(float x) { return x * x; });
/// \endcode
template <class Policy, class InputIt, class T, class BinaryOp, class UnaryOp,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
T transform_reduce(Policy&& policy, InputIt first, InputIt last, T init, BinaryOp reduce_op, UnaryOp transform_op)
{
  using input = detail::transformed_input<InputIt, UnaryOp, T>;
  return reduce_dispatch(policy.derived(), input(first, transform_op), input(last, transform_op), std::move(init),
                         std::move(reduce_op));
}

/// Stream-ordered form for GPU policies: writes the result to device memory `out` (a `T*` or
/// thrust::device_ptr<T>) and returns without waiting, as rk::reduce_into.
template <class Policy, class InputIt, class OutputPtr, class T, class BinaryOp, class UnaryOp,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
void transform_reduce_into(Policy&& policy, InputIt first, InputIt last, OutputPtr out, T init, BinaryOp reduce_op,
                           UnaryOp transform_op)
{
  using input = detail::transformed_input<InputIt, UnaryOp, T>;
  reduce_into(policy.derived(), input(first, transform_op), input(last, transform_op), out, std::move(init),
              std::move(reduce_op));
}

/// The same over the `*n.count` items from `first`, a count in device memory (rk::device_count).
template <class Policy, class InputIt, class Integer, class OutputPtr, class T, class BinaryOp, class UnaryOp,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
void transform_reduce_into(Policy&& policy, InputIt first, device_count_t<Integer> n, OutputPtr out, T init,
                           BinaryOp reduce_op, UnaryOp transform_op)
{
  using input = detail::transformed_input<InputIt, UnaryOp, T>;
  reduce_into(policy.derived(), input(first, transform_op), n, out, std::move(init), std::move(reduce_op));
}
} // namespace rk

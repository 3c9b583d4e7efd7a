#pragma once
// rk::reduce_axes for the host policies: the segmented reduce of rk/detail/axes_as_segments.hpp,
// out written where its layout keeps each output.

#include <rk/detail/axes_as_segments.hpp>
#include <rk/explain.hpp>
#include <rk/host/dispatch.hpp>
#include <rk/policy.hpp>
#include <rk/reduce_axes.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace rk
{
template <class Policy, class U, class Transform, class T, class BinaryOp,
          class = std::enable_if_t<std::is_same_v<Policy, seq_policy> || std::is_same_v<Policy, host_policy>>>
void axes_dispatch(const Policy& policy, const detail::axes_source<U, Transform>& source, const detail::axes_plan& plan,
                   T* out, T init, BinaryOp op)
{
  detail::reduce_axes_as_segments(policy, source, plan, detail::axes_output<T>{out, plan.out, 0}, std::move(init),
                                  std::move(op));
}

template <class Policy, class U, class T, class BinaryOp,
          class = std::enable_if_t<std::is_same_v<Policy, seq_policy> || std::is_same_v<Policy, host_policy>>>
explanation explain_axes_dispatch(const Policy&, const detail::axes_plan& plan, const U*, const T&, const BinaryOp&)
{
  constexpr bool seq = std::is_same_v<Policy, seq_policy>;
  const char* name   = seq ? "seq" : "host";
  std::string why    = "a fixed-size segmented reduce on the host over the " + std::to_string(plan.outputs)
                  + " outputs' items (" + std::to_string(plan.reduced_items) + " each), read "
                  + (plan.rows_are_dense() ? "as x's rows" : "through an index map of the reduced axes")
                  + (seq ? ": each output the left fold of its items" : ": each output gets rk::reduce's tree");
  return {name, name, name, plan.outputs * plan.reduced_items, why, !seq};
}
} // namespace rk

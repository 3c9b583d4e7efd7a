#pragma once
// rk::reduce_axes for the host policies: the segmented reduce of rk/detail/axes_as_segments.hpp,
// out written where its layout keeps each output.

#include <rk/detail/axes_as_segments.hpp>
#include <rk/host/dispatch.hpp>
#include <rk/policy.hpp>
#include <rk/reduce_axes.hpp>

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
} // namespace rk

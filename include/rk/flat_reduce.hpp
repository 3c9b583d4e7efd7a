#pragma once
// rk::reduce, rk::reduce_into's policy-generic part and rk::explain: the flat reduction's
// policy-generic entry points. Each policy header adds its own `reduce_dispatch` and
// `explain_dispatch` overloads in namespace rk; argument-dependent lookup on the policy type finds
// them at instantiation, as Thrust finds its backends.

#include <rk/detail/range.hpp>
#include <rk/explain.hpp>
#include <rk/functional.hpp>
#include <rk/policy.hpp>

#include <type_traits>
#include <utility>

namespace rk
{
template <class Policy>
inline constexpr bool is_execution_policy_v =
  std::is_base_of_v<execution_policy<std::decay_t<Policy>>, std::decay_t<Policy>>;

/// Fallback: the policy has no reduce backend.
template <class Derived, class InputIt, class T, class BinaryOp>
T reduce_dispatch(const execution_policy<Derived>&, InputIt, InputIt, T, BinaryOp)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::reduce is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
  return {};
}

/// The in-order fold of a non-empty range with no init (the core of rk::arg_min and friends):
/// the root of rk::reduce's tree, so op(init, result) has rk::reduce's bits.
template <class T, class Derived, class InputIt, class BinaryOp>
T reduce_nonempty_dispatch(const execution_policy<Derived>&, InputIt, InputIt, BinaryOp)
{
  static_assert(detail::dependent_false_v<Derived>,
                "this rk algorithm is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
  return {};
}

template <class Derived, class InputIt, class T, class BinaryOp>
explanation explain_dispatch(const execution_policy<Derived>&, InputIt, InputIt, const T&, const BinaryOp&)
{
  static_assert(detail::dependent_false_v<Derived>, "rk::explain is not implemented for this execution policy");
  return {};
}

/// Reduces [first, last) with `op`, starting from `init`.
///
/// The result is `op(init, op(x0, op(x1, ...)))` regrouped as the backend likes but never
/// reordered, except by rk::atomic (which needs rk::is_commutative<BinaryOp>): every other policy
/// gives the exact answer for associative, non-commutative operators. The accumulator and the
/// return type are `T`, the type of `init`, as in std::reduce; each element is converted to `T`
/// before it is combined. `init` is combined exactly once, as the leftmost operand, and an empty
/// range returns `init` without calling `op`. No identity element is assumed. A range whose
/// `last` precedes `first` throws rk::invalid_range.
///
/// \code
/// thrust::device_vector<float> v(1 << 20, 1.0f);
/// float s  = rk::reduce(rk::device, v.begin(), v.end(), 0.0f, rk::plus{});
/// int   mx = rk::reduce(rk::host, h.begin(), h.end(), INT_MIN, rk::maximum{});
/// \endcode
template <class Policy, class InputIt, class T, class BinaryOp, class = std::enable_if_t<is_execution_policy_v<Policy>>>
T reduce(Policy&& policy, InputIt first, InputIt last, T init, BinaryOp op)
{
  return reduce_dispatch(policy.derived(), std::move(first), std::move(last), std::move(init), std::move(op));
}

/// `rk::reduce(policy, first, last, init, rk::plus{})`.
template <class Policy, class InputIt, class T, class = std::enable_if_t<is_execution_policy_v<Policy>>>
T reduce(Policy&& policy, InputIt first, InputIt last, T init)
{
  return reduce_dispatch(policy.derived(), std::move(first), std::move(last), std::move(init), plus{});
}

/// Describes the backend `rk::reduce(policy, first, last, init, op)` would run, and why.
/// Runs nothing; GPU policies read (cached) properties of the current device.
template <class Policy, class InputIt, class T, class BinaryOp, class = std::enable_if_t<is_execution_policy_v<Policy>>>
explanation explain(Policy&& policy, InputIt first, InputIt last, const T& init, const BinaryOp& op)
{
  return explain_dispatch(policy.derived(), first, last, init, op);
}

template <class Policy, class InputIt, class T, class = std::enable_if_t<is_execution_policy_v<Policy>>>
explanation explain(Policy&& policy, InputIt first, InputIt last, const T& init)
{
  return explain_dispatch(policy.derived(), first, last, init, plus{});
}
} // namespace rk

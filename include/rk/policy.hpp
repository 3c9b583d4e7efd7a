#pragma once
/// \file
/// Execution policies: small value types that name where and how rk::reduce runs.
/// The host policies are here; the GPU policies (rk::device, rk::two_pass, rk::atomic,
/// rk::single_pass) are in rk/cuda/policy.cuh.

namespace rk
{
/// CRTP base of every rk policy. rk::reduce accepts any type derived from it and finds the
/// backend by overload resolution on the derived type.
template <class Derived>
struct execution_policy
{
  constexpr const Derived& derived() const noexcept
  {
    return static_cast<const Derived&>(*this);
  }
};

/// Host, one thread, strictly left to right: `op(...op(op(init, x0), x1)..., xn-1)`.
struct seq_policy : execution_policy<seq_policy>
{};

/// Host, several std::threads, computing the reduction tree the GPU backends compute
/// (rk/detail/tree.hpp): in order, so associative but non-commutative operators get the exact
/// answer, and with the same grouping, so the bits match rk::two_pass and rk::single_pass for
/// operators that compute the same function on host and device. The thread count never changes
/// the bits. Small ranges run on the calling thread.
struct host_policy : execution_policy<host_policy>
{
  /// 0 means std::thread::hardware_concurrency().
  unsigned max_threads = 0;

  /// A copy limited to `n` threads (0: hardware concurrency).
  constexpr host_policy with_threads(unsigned n) const noexcept
  {
    host_policy copy = *this;
    copy.max_threads = n;
    return copy;
  }
};

inline constexpr seq_policy seq{};
inline constexpr host_policy host{};
} // namespace rk

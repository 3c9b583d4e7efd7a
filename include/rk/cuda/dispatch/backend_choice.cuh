#pragma once
// rk::device's rules, stated once for every algorithm: which backend it runs for a call, and why
// (rk::explain and rk::explain_segmented print the same words). The figures behind them are in
// perf/RESULTS.md.

#include <rk/cuda/policy.cuh>
#include <rk/cuda/primitives/atomic_combine.cuh>

#include <thrust/type_traits/is_contiguous_iterator.h>

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace rk::detail
{
/// rk::device runs rk::atomic for integer T with a hardware atomic (add, min, max, and, or, xor:
/// exact and deterministic, like single_pass) on ranges in [automatic_atomic_min_items,
/// automatic_atomic_max_items), where it measured up to 5 % faster than single_pass (H200, 2^16 to
/// 2^20; within ~1 % above that: perf/RESULTS.md). The range starts just past 2^16: up to 2^16
/// 4-byte items single_pass's grid is one thread block cluster (single_pass_cluster_max_blocks),
/// which at 2^16 int32 took 11 % less time than atomic (5.9 against 6.6 us, H200).
/// Floating-point T always gets single_pass: atomic float sums vary from run to run.
inline constexpr std::int64_t automatic_atomic_min_items = (std::int64_t{1} << 16) + 1;
inline constexpr std::int64_t automatic_atomic_max_items = std::int64_t{1} << 27;

template <class T, class Op>
inline constexpr bool prefers_atomic_v = std::is_integral_v<T> && atomic_kind_v<Op, T> != atomic_kind::compare_and_swap;

template <class T, class Op>
inline constexpr bool atomic_eligible_v = is_commutative_v<Op> && has_atomic_route_v<T, Op>;

/// Where rk::device may run rk::atomic at all, for every algorithm: an integer T whose
/// commutative op has a hardware atomic, where atomics are exact and so as deterministic as
/// single_pass. Each algorithm adds its own conditions below (sizes, where the result goes).
template <class T, class Op>
inline constexpr bool device_may_run_atomic_v = atomic_eligible_v<T, Op> && prefers_atomic_v<T, Op>;

/// The rules rk::device follows, stated once; `reason` is a static string, so the choice costs
/// nothing on the hot path and rk::explain prints the same words.
struct backend_choice
{
  gpu_backend backend;
  const char* reason;
};

/// `atomic_usable`: the result goes to device memory aligned for atomics. Not so for the
/// value-returning rk::reduce, whose single-pass final block stores straight into pinned host
/// memory (rk::atomic would need a copy back, ~8 µs of round trip measured on the H200), nor for an
/// rk::reduce_into output misaligned for sizeof(T).
template <class T, class Op>
constexpr backend_choice choose_backend(std::int64_t n, bool atomic_usable = true)
{
  if (n == 0)
  {
    return {gpu_backend::automatic, "empty range: returns init, launches nothing, never calls op"};
  }
  if constexpr (!is_commutative_v<Op>)
  {
    return {gpu_backend::single_pass, "op is not known to be commutative (rk::is_commutative is false), so "
                                      "rk::atomic is out; single_pass keeps input order in one launch"};
  }
  else if constexpr (!has_atomic_route_v<T, Op>)
  {
    return {gpu_backend::single_pass, "T has no atomic route (needs a 4- or 8-byte trivially copyable T), so "
                                      "rk::atomic is out; single_pass needs one launch"};
  }
  else
  {
    if (device_may_run_atomic_v<T, Op> && atomic_usable && n >= automatic_atomic_min_items
        && n < automatic_atomic_max_items)
    {
      return {gpu_backend::atomic, "integer T with a hardware atomic, at a size where atomic measured fastest "
                                   "(exact and deterministic for integers)"};
    }
    return {gpu_backend::single_pass, prefers_atomic_v<T, Op>
                                        ? "single_pass measured at least as fast as atomic at this size"
                                        : "single_pass is deterministic (atomic is not, for floating point or "
                                          "compare-and-swap ops) and at least as fast"};
  }
}

/// rk::atomic combines into the output in place: it must be contiguous memory holding T itself.
template <gpu_backend Backend, class OutputIt, class T>
inline constexpr bool segmented_output_fits_v =
  Backend != gpu_backend::atomic
  || (thrust::is_contiguous_iterator_v<OutputIt>
      && std::is_same_v<typename std::iterator_traits<OutputIt>::value_type, T>);

/// What rk::device runs for segmented reduce: rk::atomic for an integer T whose op has a hardware
/// atomic, into contiguous memory of T (exact, so the bits are single_pass's), single_pass
/// otherwise. The long segments' parts then skip the reproducible tree's node stores and the
/// per-segment last-block pass. H100, rk_perf_segmented, int32 2^26 (perf/RESULTS.md): one segment
/// 112.1 -> 105.0 us, 65536-item segments 118.5 -> 110.4, power law 149.1 -> 141.5; rows without
/// long segments unchanged (all 1: 455.8 / 454.7).
template <gpu_backend Backend, class T, class Op, class OutputIt>
inline constexpr gpu_backend segmented_backend_v = Backend == gpu_backend::automatic && device_may_run_atomic_v<T, Op>
                                                    && segmented_output_fits_v<gpu_backend::atomic, OutputIt, T>
                                                   ? gpu_backend::atomic
                                                   : Backend;
} // namespace rk::detail

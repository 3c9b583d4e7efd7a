#pragma once
// The policy-generic entry points of rk::segmented_reduce, in its three forms. Each form builds a
// segment source (rk/detail/segments.hpp) and calls `segmented_dispatch` / `explain_segmented_dispatch`,
// which each policy header overloads; argument-dependent lookup finds them, as for rk::reduce.

#include <rk/detail/segments.hpp>
#include <rk/flat_reduce.hpp>
#include <rk/functional.hpp>

#include <type_traits>
#include <utility>

namespace rk
{
namespace detail
{
template <class OutputIt, class T>
constexpr void check_segmented_output()
{
  static_assert(output_takes<OutputIt, T>(),
                "rk::segmented_reduce: out cannot take a T, the type of init, which is the accumulator type (as in "
                "rk::reduce). Pass init of out's element type, e.g. 0.0f for a float output");
}
} // namespace detail

template <class Derived, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const execution_policy<Derived>&, InputIt, const Segments&, OutputIt, T, BinaryOp)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::segmented_reduce is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
}

template <class Derived, class InputIt, class OutputIt, class T, class BinaryOp>
explanation explain_segmented_dispatch(const execution_policy<Derived>&, InputIt, std::int64_t, OutputIt, const T&,
                                       const BinaryOp&)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::explain_segmented is not implemented for this execution policy");
  return {};
}

/// Describes what rk::segmented_reduce(policy, first, <segments>, out, init, op) runs for
/// `num_segments` segments, and whether its results are reproducible (each segment gets
/// rk::reduce's bits). It takes the call's input, output, init and operator because rk::device's
/// choice depends on them (rk::atomic for an integer T with a hardware atomic into contiguous
/// memory of T); how the segments are described does not matter. Runs nothing.
///
/// \code
/// std::cout << rk::explain_segmented(rk::device, v.begin(), rows, sums.begin(), 0, rk::plus{}) << '\n';
/// \endcode
template <class Policy, class InputIt, class Count, class OutputIt, class T, class BinaryOp = plus,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
explanation explain_segmented(Policy&& policy, InputIt first, Count num_segments, OutputIt out, const T& init,
                              const BinaryOp& op = {})
{
  return explain_segmented_dispatch(policy.derived(), first, detail::checked_count(num_segments, "num_segments"), out,
                                    init, op);
}

/// Reduces every segment of a CSR layout: segment i is [first + offsets[i], first + offsets[i+1]),
/// for the offsets_last - offsets_first - 1 segments the offsets (non-decreasing, none negative)
/// describe, and
/// writes `out[i] = init ⊕ x_begin ⊕ … ⊕ x_end-1` in order, init once on the left. An empty segment
/// gets `init` and `op` is never called for it. Every order-preserving policy gives each segment
/// rk::reduce's bits over the same items. GPU policies enqueue on their stream and return.
///
/// \code
/// rk::segmented_reduce(rk::device, v.begin(), offsets.begin(), offsets.end(), sums.begin(), 0.0f, rk::plus{});
/// \endcode
template <class Policy, class InputIt, class OffsetIt, class OutputIt, class T, class BinaryOp>
std::enable_if_t<is_execution_policy_v<Policy> && !detail::is_number_v<OffsetIt>> segmented_reduce(
  Policy&& policy, InputIt first, OffsetIt offsets_first, OffsetIt offsets_last, OutputIt out, T init, BinaryOp op)
{
  detail::check_segmented_output<OutputIt, T>();
  segmented_dispatch(policy.derived(), first, detail::make_csr_segments(offsets_first, offsets_last), out,
                     std::move(init), std::move(op));
}

template <class Policy, class InputIt, class OffsetIt, class OutputIt, class T>
std::enable_if_t<is_execution_policy_v<Policy> && !detail::is_number_v<OffsetIt>>
segmented_reduce(Policy&& policy, InputIt first, OffsetIt offsets_first, OffsetIt offsets_last, OutputIt out, T init)
{
  detail::check_segmented_output<OutputIt, T>();
  segmented_dispatch(policy.derived(), first, detail::make_csr_segments(offsets_first, offsets_last), out,
                     std::move(init), plus{});
}

/// CUB's form: segment i is [first + begin_offsets[i], first + end_offsets[i]); segments may come
/// in any order, overlap or leave gaps. A segment whose end precedes its begin, or whose begin is
/// negative, is an error.
template <class Policy, class InputIt, class Count, class BeginIt, class EndIt, class OutputIt, class T, class BinaryOp>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && !detail::is_number_v<BeginIt>>
segmented_reduce(Policy&& policy, InputIt first, Count num_segments, BeginIt begin_offsets, EndIt end_offsets,
                 OutputIt out, T init, BinaryOp op)
{
  detail::check_segmented_output<OutputIt, T>();
  segmented_dispatch(policy.derived(), first, detail::make_bounded_segments(num_segments, begin_offsets, end_offsets),
                     out, std::move(init), std::move(op));
}

template <class Policy, class InputIt, class Count, class BeginIt, class EndIt, class OutputIt, class T>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && !detail::is_number_v<BeginIt>>
segmented_reduce(Policy&& policy, InputIt first, Count num_segments, BeginIt begin_offsets, EndIt end_offsets,
                 OutputIt out, T init)
{
  segmented_reduce(std::forward<Policy>(policy), first, num_segments, begin_offsets, end_offsets, out, std::move(init),
                   plus{});
}

/// Fixed-size segments: segment i is [first + i * segment_size, first + (i + 1) * segment_size).
template <class Policy, class InputIt, class Count, class Size, class OutputIt, class T, class BinaryOp>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && detail::is_number_v<Size>>
segmented_reduce(Policy&& policy, InputIt first, Count num_segments, Size segment_size, OutputIt out, T init,
                 BinaryOp op)
{
  detail::check_segmented_output<OutputIt, T>();
  segmented_dispatch(policy.derived(), first, detail::make_fixed_segments(num_segments, segment_size), out,
                     std::move(init), std::move(op));
}

template <class Policy, class InputIt, class Count, class Size, class OutputIt, class T>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && detail::is_number_v<Size>>
segmented_reduce(Policy&& policy, InputIt first, Count num_segments, Size segment_size, OutputIt out, T init)
{
  detail::check_segmented_output<OutputIt, T>();
  segmented_dispatch(policy.derived(), first, detail::make_fixed_segments(num_segments, segment_size), out,
                     std::move(init), plus{});
}
} // namespace rk

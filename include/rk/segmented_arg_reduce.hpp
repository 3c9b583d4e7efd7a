#pragma once
// rk::segmented_arg_min and rk::segmented_arg_max on every policy, in rk::segmented_reduce's three
// forms: segmented reduce over indexed_input (items {value, position}) with the arg operators of
// rk/arg_reduce.hpp, written through segment_relative_output so that each index counts from
// its segment's first item. Every segment is seeded with the empty result {value_type(), -1},
// which the operator passes over, so an empty segment stores it and no comparator ever sees it.

#include <rk/arg_reduce.hpp>
#include <rk/detail/segments.hpp>
#include <rk/segmented_reduce.hpp>

#include <type_traits>
#include <utility>

namespace rk
{
namespace detail
{
/// An arg operator over results that may be the empty result (index -1): the empty one gives way
/// to the other, so seeding a segment with it adds nothing and calls no comparator.
template <class ArgOp>
struct or_empty_result
{
  ArgOp op;
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return a.index < 0 ? b : b.index < 0 ? a : op(a, b);
  }
};

template <class Derived, class InputIt, class Segments, class OutputIt, class ArgOp>
void segmented_arg(const execution_policy<Derived>& policy, InputIt first, const Segments& segments, OutputIt out,
                   ArgOp op)
{
  segmented_dispatch(policy.derived(), indexed(first), segments,
                     segment_relative_output<OutputIt, Segments>{out, segments}, empty_arg_result<InputIt>(),
                     or_empty_result<ArgOp>{op});
}
} // namespace detail

/// For every segment of a CSR layout (as rk::segmented_reduce's: segment i is
/// [first + offsets[i], first + offsets[i+1])), the first minimum under `comp` and its position
/// counted from the segment's first item: `out[i] = {value, index}`, an
/// rk::arg_result<value_type, difference_type> (CUB's DeviceSegmentedReduce::ArgMin, with rk's
/// empty result). An empty segment gets `{value_type(), -1}`. Ties, NaN and `comp` as for
/// rk::arg_min. GPU policies enqueue on their stream and return.
///
/// \code
/// rk::segmented_arg_min(rk::device, v.begin(), offsets.begin(), offsets.end(), mins.begin());
/// \endcode
template <class Policy, class InputIt, class OffsetIt, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && !detail::is_number_v<OffsetIt>> segmented_arg_min(
  Policy&& policy, InputIt first, OffsetIt offsets_first, OffsetIt offsets_last, OutputIt out, Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first, detail::make_csr_segments(offsets_first, offsets_last), out,
                        detail::first_minimum<Compare>{comp});
}

/// CUB's form: segment i is [first + begin_offsets[i], first + end_offsets[i]).
template <class Policy, class InputIt, class Count, class BeginIt, class EndIt, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && !detail::is_number_v<BeginIt>>
segmented_arg_min(Policy&& policy, InputIt first, Count num_segments, BeginIt begin_offsets, EndIt end_offsets,
                  OutputIt out, Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first,
                        detail::make_bounded_segments(num_segments, begin_offsets, end_offsets), out,
                        detail::first_minimum<Compare>{comp});
}

/// Fixed-size segments: segment i is [first + i * segment_size, first + (i + 1) * segment_size).
template <class Policy, class InputIt, class Count, class Size, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && detail::is_number_v<Size>>
segmented_arg_min(Policy&& policy, InputIt first, Count num_segments, Size segment_size, OutputIt out,
                  Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first, detail::make_fixed_segments(num_segments, segment_size), out,
                        detail::first_minimum<Compare>{comp});
}

/// The first maximum of every segment, in the CSR form; otherwise as rk::segmented_arg_min.
template <class Policy, class InputIt, class OffsetIt, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && !detail::is_number_v<OffsetIt>> segmented_arg_max(
  Policy&& policy, InputIt first, OffsetIt offsets_first, OffsetIt offsets_last, OutputIt out, Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first, detail::make_csr_segments(offsets_first, offsets_last), out,
                        detail::first_maximum<Compare>{comp});
}

/// The first maximum of every segment, in CUB's form.
template <class Policy, class InputIt, class Count, class BeginIt, class EndIt, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && !detail::is_number_v<BeginIt>>
segmented_arg_max(Policy&& policy, InputIt first, Count num_segments, BeginIt begin_offsets, EndIt end_offsets,
                  OutputIt out, Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first,
                        detail::make_bounded_segments(num_segments, begin_offsets, end_offsets), out,
                        detail::first_maximum<Compare>{comp});
}

/// The first maximum of every fixed-size segment.
template <class Policy, class InputIt, class Count, class Size, class OutputIt, class Compare = less>
std::enable_if_t<is_execution_policy_v<Policy> && detail::is_number_v<Count> && detail::is_number_v<Size>>
segmented_arg_max(Policy&& policy, InputIt first, Count num_segments, Size segment_size, OutputIt out,
                  Compare comp = {})
{
  detail::segmented_arg(policy.derived(), first, detail::make_fixed_segments(num_segments, segment_size), out,
                        detail::first_maximum<Compare>{comp});
}
} // namespace rk

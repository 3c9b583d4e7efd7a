#pragma once
/// \file
/// How rk::segmented_reduce is told where its segments are, for every policy: three "segment
/// sources" with one interface, `count`, `begin(s)` and `end(s)` (item indices from `first`, as
/// 64-bit integers). The GPU kernels and the host loops read segments only through it.
///
/// Every segment is reduced with rk::reduce's tree (rk/detail/tree.hpp) counted from the
/// segment's own first item, so out[s] has the bits rk::reduce gives over the same items, on
/// every order-preserving policy.

#include <rk/detail/config.hpp>
#include <rk/detail/store.hpp>
#include <rk/detail/tree.hpp>
#include <rk/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>

namespace rk::detail
{
template <class It, class = void>
struct iterator_reference
{
  using type = void; // not an iterator Thrust and the standard library describe: not checked
};
template <class It>
struct iterator_reference<It, std::void_t<typename std::iterator_traits<It>::reference>>
{
  using type = typename std::iterator_traits<It>::reference;
};

/// Whether `out` can take a result of type T: where its reference is known (not void, as it is for
/// output-only iterators), a T must be assignable to it.
template <class OutputIt, class T>
constexpr bool output_takes()
{
  using reference = typename iterator_reference<OutputIt>::type;
  if constexpr (std::is_void_v<reference>)
  {
    return true;
  }
  else
  {
    return std::is_assignable_v<reference, const T&>;
  }
}

/// Segment s's length given its first item `begin`, or -1 for a bad segment: one that begins
/// before `first` (offsets count items from it) or ends before it begins. Every policy's check.
template <class Segments>
RK_HOST_DEVICE offset_t checked_segment_items(const Segments& segments, offset_t s, offset_t begin)
{
  const offset_t n = begin < 0 ? offset_t{-1} : segments.end(s) - begin;
  return n < 0 ? offset_t{-1} : n;
}

/// CSR form: segment s is [offsets[s], offsets[s + 1]).
template <class OffsetIt>
struct csr_segments
{
  OffsetIt offsets;
  offset_t count;

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE offset_t begin(offset_t s) const
  {
    return static_cast<offset_t>(offsets[s]);
  }
  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE offset_t end(offset_t s) const
  {
    return static_cast<offset_t>(offsets[s + 1]);
  }
};

/// CUB's form: segment s is [begin_offsets[s], end_offsets[s]), in any order, overlapping or not.
template <class BeginIt, class EndIt>
struct bounded_segments
{
  BeginIt begins;
  EndIt ends;
  offset_t count;

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE offset_t begin(offset_t s) const
  {
    return static_cast<offset_t>(begins[s]);
  }
  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE offset_t end(offset_t s) const
  {
    return static_cast<offset_t>(ends[s]);
  }
};

/// Fixed-size form: segment s is [s * size, (s + 1) * size); no offsets are read.
struct fixed_segments
{
  offset_t size;
  offset_t count;

  RK_HOST_DEVICE offset_t begin(offset_t s) const
  {
    return s * size;
  }
  RK_HOST_DEVICE offset_t end(offset_t s) const
  {
    return (s + 1) * size;
  }
};

/// A plain number (a count or size), as opposed to an iterator: what tells the segmented forms
/// apart, so that a floating-point count still reaches the check below and its message.
template <class X>
inline constexpr bool is_number_v = std::is_arithmetic_v<std::remove_cv_t<std::remove_reference_t<X>>>;

template <class Integer>
offset_t checked_count(Integer value, const char* what)
{
  static_assert(std::is_integral_v<Integer>,
                "rk::segmented_reduce: segment counts and sizes must be integers (CUB refuses others too): pass "
                "num_segments and segment_size as an integer type, e.g. std::int64_t");
  if constexpr (std::is_signed_v<Integer>)
  {
    if (value < 0)
    {
      throw error(std::string("rk::segmented_reduce: ") + what + " is negative (" + std::to_string(value) + ")");
    }
  }
  if (static_cast<std::uint64_t>(value) > static_cast<std::uint64_t>(INT64_MAX))
  {
    throw error(std::string("rk::segmented_reduce: ") + what + " does not fit in 64 signed bits");
  }
  return static_cast<offset_t>(value);
}

/// Offsets must be integers: converting 2.5 to an item position would silently drop a fraction.
template <class OffsetIt>
inline constexpr bool has_integral_offsets_v =
  std::is_integral_v<std::remove_cv_t<typename std::iterator_traits<OffsetIt>::value_type>>;

template <class OffsetIt>
csr_segments<OffsetIt> make_csr_segments(OffsetIt offsets_first, OffsetIt offsets_last)
{
  static_assert(has_integral_offsets_v<OffsetIt>,
                "rk::segmented_reduce: segment offsets must be integers (CUB refuses others too): pass offsets of an "
                "integer type, or convert them on the fly with a thrust::transform_iterator to std::int64_t");
  const auto n = static_cast<offset_t>(offsets_last - offsets_first);
  if (n < 0)
  {
    throw invalid_range("rk::segmented_reduce: reversed offsets range, offsets_last precedes offsets_first by "
                        + std::to_string(-n));
  }
  return {offsets_first, n > 0 ? n - 1 : 0};
}

template <class Count, class BeginIt, class EndIt>
bounded_segments<BeginIt, EndIt> make_bounded_segments(Count num_segments, BeginIt begin_offsets, EndIt end_offsets)
{
  static_assert(has_integral_offsets_v<BeginIt> && has_integral_offsets_v<EndIt>,
                "rk::segmented_reduce: segment offsets must be integers (CUB refuses others too): pass offsets of an "
                "integer type, or convert them on the fly with a thrust::transform_iterator to std::int64_t");
  return {begin_offsets, end_offsets, checked_count(num_segments, "num_segments")};
}

template <class Count, class Size>
fixed_segments make_fixed_segments(Count num_segments, Size segment_size)
{
  const offset_t count = checked_count(num_segments, "num_segments");
  const offset_t size  = checked_count(segment_size, "segment_size");
  if (size > 0 && count > INT64_MAX / size)
  {
    throw error("rk::segmented_reduce: num_segments * segment_size does not fit in 64 signed bits");
  }
  return {size, count};
}

/// The left operand of every segment: the call's init (a T), or none (rk::reduce_by_key without
/// init, whose segments are never empty). A type, so the common case pays nothing for the choice.
struct no_segment_init
{};

template <class Init>
inline constexpr bool has_segment_init_v = !std::is_same_v<Init, no_segment_init>;

RK_EXEC_CHECK_DISABLE
template <class T, class Op>
RK_HOST_DEVICE T apply_init(const T& init, const T& total, Op& op)
{
  return op(init, total);
}
template <class T, class Op>
RK_HOST_DEVICE T apply_init(no_segment_init, const T& total, Op&)
{
  return total;
}

/// The segmented arg forms' output (rk::segmented_arg_min and kin): the reduction gives each
/// segment's extreme with its position in the whole input, and `out[s] = r` stores it with the
/// position counted from the segment's first item instead (CUB's DeviceSegmentedReduce::ArgMin).
/// An empty segment's index, -1, stays -1. The kernels and host loops write it as any output.
template <class OutputIt, class Segments>
struct segment_relative_output
{
  struct reference;
  // An output iterator's traits (Thrust's and rk's checks read them); it is written only as out[s].
  using value_type        = void;
  using difference_type   = std::ptrdiff_t;
  using pointer           = void;
  using iterator_category = std::output_iterator_tag;

  OutputIt out;
  Segments segments;

  struct reference
  {
    OutputIt at;
    offset_t segment_first;

    RK_EXEC_CHECK_DISABLE
    template <class R>
    RK_HOST_DEVICE const reference& operator=(const R& r) const
    {
      const R relative{r.value, r.index < 0 ? r.index : static_cast<decltype(r.index)>(r.index - segment_first)};
      if constexpr (std::is_same_v<OutputIt, R*> && std::is_trivially_copyable_v<R>)
      {
        store_every_byte(at, relative);
      }
      else
      {
        *at = relative;
      }
      return *this;
    }
  };

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE reference operator[](offset_t s) const
  {
    return {out + s, segments.begin(s)};
  }
};

template <class OutputIt>
struct is_segment_relative_output : std::false_type
{};
template <class OutputIt, class Segments>
struct is_segment_relative_output<segment_relative_output<OutputIt, Segments>> : std::true_type
{};

/// What a bad segment is reported as: end < begin (decreasing CSR offsets, or a CUB-form segment
/// whose end precedes its begin), or begin < 0 (offsets count items from `first`, so a negative
/// one would read before it).
inline std::string bad_segment_message(offset_t s, offset_t begin, offset_t end)
{
  const std::string bounds = " (begin " + std::to_string(begin) + ", end " + std::to_string(end) + ")";
  if (end < begin)
  {
    return "rk::segmented_reduce: segment " + std::to_string(s) + " ends before it begins" + bounds;
  }
  return "rk::segmented_reduce: segment " + std::to_string(s) + " begins before the first item" + bounds
       + "; offsets count items from `first` and cannot be negative";
}
} // namespace rk::detail

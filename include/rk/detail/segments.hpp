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
#include <rk/detail/tree.hpp>
#include <rk/error.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace rk::detail
{
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

template <class Integer>
offset_t checked_count(Integer value, const char* what)
{
  static_assert(std::is_integral_v<Integer>, "rk::segmented_reduce: segment counts and sizes must be integers");
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

template <class OffsetIt>
csr_segments<OffsetIt> make_csr_segments(OffsetIt offsets_first, OffsetIt offsets_last)
{
  const auto n = static_cast<offset_t>(offsets_last - offsets_first);
  if (n < 0)
  {
    throw invalid_range("rk::segmented_reduce: reversed offsets range, offsets_last precedes offsets_first by "
                        + std::to_string(-n));
  }
  return {offsets_first, n > 0 ? n - 1 : 0};
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

/// What a bad segment is reported as (end < begin: decreasing CSR offsets, or a CUB-form segment
/// whose end precedes its begin).
inline std::string bad_segment_message(offset_t s, offset_t begin, offset_t end)
{
  return "rk::segmented_reduce: segment " + std::to_string(s) + " ends before it begins (begin " + std::to_string(begin)
       + ", end " + std::to_string(end) + ")";
}
} // namespace rk::detail

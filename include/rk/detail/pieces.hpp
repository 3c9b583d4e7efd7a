#pragma once
// A piece [offset, offset + length) of a sequence as rk::reduce's tree sees it (rk/detail/tree.hpp,
// one dyadic tree over lanes of tile_lane_items items): its cut lanes at both ends and the largest
// tree nodes over its full lanes. What rk::partial records (rk/partial.hpp), on host and device.

#include <rk/detail/config.hpp>
#include <rk/detail/tree.hpp>

#include <cstdint>

namespace rk::detail
{
/// Lanes of the tree, and the piece's full lanes [first_full_lane, end_full_lane) between its cut
/// lanes.
struct piece_lanes
{
  offset_t offset, length, lane_items;

  RK_HOST_DEVICE constexpr offset_t end() const
  {
    return offset + length;
  }
  RK_HOST_DEVICE constexpr offset_t first_full_lane() const
  {
    return (offset + lane_items - 1) / lane_items;
  }
  RK_HOST_DEVICE constexpr offset_t end_full_lane() const
  {
    return end() / lane_items;
  }
  /// Raw items at the front: from a start inside a lane to that lane's end or the piece's.
  RK_HOST_DEVICE constexpr offset_t head_count() const
  {
    if (offset % lane_items == 0)
    {
      return 0;
    }
    const offset_t lane_end = first_full_lane() * lane_items;
    return (lane_end < end() ? lane_end : end()) - offset;
  }
  /// The piece ends inside a lane whose first item it holds.
  RK_HOST_DEVICE constexpr bool has_tail() const
  {
    return end() % lane_items != 0 && end_full_lane() * lane_items >= offset;
  }
  RK_HOST_DEVICE constexpr offset_t tail_begin() const
  {
    return end_full_lane() * lane_items;
  }
};

constexpr int lowest_set_bit(std::uint64_t x)
{
  int l = 0;
  while (((x >> l) & 1u) == 0)
  {
    ++l;
  }
  return l;
}

/// Calls f(first_lane, level) for the largest tree nodes inside the lanes [p, q), left to right:
/// ascending levels from p (each as large as p's alignment allows), then descending to q.
template <class F>
void for_each_node(offset_t p, offset_t q, F&& f)
{
  auto x         = static_cast<std::uint64_t>(p);
  const auto end = static_cast<std::uint64_t>(q);
  while (x < end && x != 0)
  {
    const int l = lowest_set_bit(x);
    if (end - x < (std::uint64_t{1} << l))
    {
      break;
    }
    f(static_cast<offset_t>(x), l);
    x += std::uint64_t{1} << l;
  }
  while (x < end)
  {
    const int l = floor_log2(static_cast<offset_t>(end - x));
    f(static_cast<offset_t>(x), l);
    x += std::uint64_t{1} << l;
  }
}

} // namespace rk::detail

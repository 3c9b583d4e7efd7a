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
  // Neither this nor head_count forms offset + lane_items - 1 or the start lane's end: a piece in
  // the last lane below 2^63 would overflow them.
  RK_HOST_DEVICE constexpr offset_t first_full_lane() const
  {
    return offset / lane_items + (offset % lane_items != 0 ? 1 : 0);
  }
  RK_HOST_DEVICE constexpr offset_t end_full_lane() const
  {
    return end() / lane_items;
  }
  /// Raw items at the front: from a start inside a lane to that lane's end or the piece's.
  RK_HOST_DEVICE constexpr offset_t head_count() const
  {
    const offset_t into_lane = offset % lane_items;
    if (into_lane == 0)
    {
      return 0;
    }
    const offset_t to_lane_end = lane_items - into_lane;
    return to_lane_end < length ? to_lane_end : length;
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

/// One of a piece's largest tree nodes: 2^level lanes from first_lane.
struct piece_node
{
  offset_t first_lane;
  int level;
};

/// The largest tree nodes inside the lanes [p, q), left to right, in closed form, so that a GPU
/// thread finds node k without walking the k before it (rk::nccl plans a shard's partial on the
/// GPU from an offset only the GPU knows). Walking from p, each node is as large as its start's
/// alignment allows until the walk reaches m, q with the bits below the highest bit where p and q
/// differ cleared (a multiple of that bit's value, so no node crosses it); from m each node is as
/// large as what is left allows. So the nodes before m are the set bits of m - p from the lowest,
/// those after it the set bits of q - m from the highest.
struct piece_nodes
{
  std::uint64_t p;       ///< the first lane
  std::uint64_t m;       ///< where the rising nodes end and the falling ones begin
  std::uint64_t rising;  ///< m - p: a node per set bit, lowest first
  std::uint64_t falling; ///< q - m: a node per set bit, highest first
  int rising_count;
  int count;

  RK_HOST_DEVICE constexpr piece_nodes(offset_t first, offset_t end)
      : p(static_cast<std::uint64_t>(first))
      , m(split_point(static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(end)))
      , rising(m - p)
      , falling(static_cast<std::uint64_t>(end > first ? end : first) - m)
      , rising_count(set_bits(rising))
      , count(rising_count + set_bits(falling))
  {}

  RK_HOST_DEVICE constexpr piece_node operator[](int k) const
  {
    if (k < rising_count)
    {
      const int level = nth_set_bit_from_low(rising, k);
      return {static_cast<offset_t>(p + (rising & ((std::uint64_t{1} << level) - 1))), level};
    }
    const int level = nth_set_bit_from_low(falling, set_bits(falling) - 1 - (k - rising_count));
    return {static_cast<offset_t>(m + ((falling >> level) >> 1 << 1 << level)), level};
  }

private:
  RK_HOST_DEVICE static constexpr std::uint64_t split_point(std::uint64_t first, std::uint64_t end)
  {
    if (first >= end)
    {
      return first;
    }
    const int d = highest_set_bit(first ^ end);
    return end >> d << d;
  }
  RK_HOST_DEVICE static constexpr int highest_set_bit(std::uint64_t x)
  {
    int l = 0;
    while (x >> l > 1)
    {
      ++l;
    }
    return l;
  }
  RK_HOST_DEVICE static constexpr int set_bits(std::uint64_t x)
  {
    int c = 0;
    for (; x != 0; x &= x - 1)
    {
      ++c;
    }
    return c;
  }
  RK_HOST_DEVICE static constexpr int nth_set_bit_from_low(std::uint64_t x, int n)
  {
    for (; n > 0; --n)
    {
      x &= x - 1;
    }
    int l = 0;
    while (((x >> l) & 1u) == 0)
    {
      ++l;
    }
    return l;
  }
};

} // namespace rk::detail

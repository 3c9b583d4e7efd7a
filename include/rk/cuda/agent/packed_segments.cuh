#pragma once
// Packed lanes: a warp's batch of segments of at most a tile each, their lanes packed whole
// segments to a round of 32, one warp_reduce a round stopped at each segment's end, so each
// segment gets tile_value's tree (rk/detail/tree.hpp) whatever the lengths around it. The short
// segments' block body (rk/cuda/agent/segment_groups.cuh) runs it on every batch.

#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/integer.hpp>
#include <rk/detail/segments.hpp>

#include <type_traits>

namespace rk::detail
{
/// Where a segment of at most a tile sits in a round of packed lanes (below): written by the lane
/// that holds the segment, at the round lane of its first item, read by every lane of it.
struct packed_segment
{
  offset_t begin;
  int items;
  int place; ///< the segment's place in the warp's batch
};

/// One lane's share of a round of packed lanes: `count` items (0: an idle lane) from `at`, the
/// round lane where its segment's lanes end (its tree combines no lane at or past it), and, in the
/// segment's first lane, the segment's place in the batch (-1 in every other lane).
struct packed_lane
{
  offset_t at;
  int count;
  int end;
  int head;
};

/// The chunks of a round of packed lanes [r0, r1) of the warp's batch (every segment of at most a
/// tile, in batch order, its lanes numbered from the batch's first: `chunk` is this lane's segment's
/// first, `lanes` its count, 0 for any other segment): no segment crosses a round, so each is one
/// subtree of the round's warp. Returns this lane's share; `slots` is the warp's 32 entries.
template <int LaneItems>
__device__ __forceinline__ packed_lane lane_of_round(packed_segment* slots, offset_t begin, int items, int chunk,
                                                     int lanes, int r0, int r1, int lane)
{
  const bool starts = lanes > 0 && chunk >= r0 && chunk < r1;
  if (starts)
  {
    slots[chunk - r0] = {begin, items, lane};
  }
  const unsigned heads = warp_or(starts ? 1u << (chunk - r0) : 0u);
  __syncwarp();
  packed_lane mine{0, 0, 0, -1};
  if (lane < r1 - r0)
  {
    const int head           = 31 - __clz(heads & (0xffffffffu >> (warp_threads - 1 - lane)));
    const packed_segment seg = slots[head];
    const int k              = lane - head;
    const int left           = seg.items - k * LaneItems;
    mine.at                  = seg.begin + offset_t{k} * LaneItems;
    mine.count               = left < LaneItems ? left : LaneItems;
    mine.end                 = head + static_cast<int>(ceil_div<LaneItems>(seg.items));
    mine.head                = k == 0 ? seg.place : -1;
  }
  __syncwarp(); // the slots serve the next round
  return mine;
}

/// The end of the round of packed lanes that starts at lane `r0` of the batch: as many whole
/// segments as fit 32 lanes (`chunks_end`: this lane's segment's last lane + 1, nondecreasing over
/// the warp).
__device__ __forceinline__ int round_end(int chunks_end, int r0)
{
  const int fit = __popc(__ballot_sync(0xffffffffu, chunks_end <= r0 + warp_threads));
  return __shfl_sync(0xffffffffu, chunks_end, fit - 1);
}

/// A warp's batch of segments of at most a tile each (this lane's: `items` from `begin`, 0 for a
/// segment reduced elsewhere), packed lane by lane: a round of the warp takes the lanes of as many
/// whole segments as fit 32, each lane folds up to LaneItems items (counted from its segment's first),
/// and the round's warp_reduce stops every lane at its segment's end, so a segment's first lane
/// gets tile_value's tree (rk::reduce's bits) whatever the lengths around it. The loads of
/// packed_rounds_in_flight rounds are issued together. Before, a segment went to a group of 4, 8 or
/// 16 lanes or a warp, each size a queue of the block's behind its barriers, and a round of mixed
/// lengths left most lanes idle: packed lanes took 2^26 int32 items in segments half empty, half of
/// 1-300 items from 188.5 to 162.2 us, on a power law from 155.9 to 141.6, of 32 items from 135.4
/// to 125.8 (H100).
template <int LaneItems, class T, class Input, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_packed_segments(const Input& first, offset_t batch, offset_t begin, int items,
                                                       packed_segment* slots, Out& out, const Init& init, Op& op,
                                                       int lane)
{
  using item      = std::remove_cv_t<iterator_item_t<Input>>;
  const int lanes = static_cast<int>(ceil_div<LaneItems>(offset_t{items}));
  int chunks_end  = lanes; // inclusive scan: this segment's last lane + 1 in the batch
#pragma unroll
  for (int d = 1; d < warp_threads; d *= 2)
  {
    const int left = __shfl_up_sync(0xffffffffu, chunks_end, d);
    if (lane >= d)
    {
      chunks_end += left;
    }
  }
  const int chunk      = chunks_end - lanes;
  const int total      = __shfl_sync(0xffffffffu, chunks_end, warp_threads - 1);
  constexpr int rounds = packed_rounds_in_flight;
  for (int r0 = 0; r0 < total;)
  {
    packed_lane mine[rounds];
#pragma unroll
    for (int u = 0; u < rounds; ++u)
    {
      const int r1 = r0 < total ? round_end(chunks_end, r0) : r0;
      mine[u]      = lane_of_round<LaneItems>(slots, begin, items, chunk, lanes, r0, r1, lane);
      r0           = r1;
    }
    uninitialized<item> v[rounds][LaneItems];
#pragma unroll
    for (int u = 0; u < rounds; ++u)
    {
      if constexpr (std::is_trivially_default_constructible_v<item>)
      {
        if (mine[u].count == LaneItems)
        {
          // A full lane as load_lane reads it: 16-byte vectors where it lies on their grid.
          item w[LaneItems];
          load_lane<LaneItems>(first, mine[u].at, w);
#pragma unroll
          for (int i = 0; i < LaneItems; ++i)
          {
            v[u][i].emplace(w[i]);
          }
          continue;
        }
      }
#pragma unroll
      for (int i = 0; i < LaneItems; ++i)
      {
        if (i < mine[u].count)
        {
          v[u][i].emplace(read_item(first, mine[u].at + i));
        }
      }
    }
#pragma unroll
    for (int u = 0; u < rounds; ++u)
    {
      uninitialized<T> acc;
      if (mine[u].count > 0)
      {
        acc.emplace(T(v[u][0].value));
#pragma unroll
        for (int i = 1; i < LaneItems; ++i)
        {
          if (i < mine[u].count)
          {
            acc.value = op(acc.value, static_cast<T>(v[u][i].value));
          }
        }
      }
      const T all = warp_reduce(acc.value, op, lane, mine[u].end);
      if (mine[u].head >= 0)
      {
        out[batch + mine[u].head] = apply_init(init, all, op);
      }
    }
  }
}
} // namespace rk::detail

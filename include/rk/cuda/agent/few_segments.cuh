#pragma once
// The few-segments layout of rk::segmented_reduce's CSR and CUB forms: a call of at most
// few_segments_max segments is cut as the fixed-size form cuts its long rows
// (rk/cuda/agent/segment_rows.cuh), each segment into parts of rk::reduce's block body in
// proportion to its tiles, about one part per block of the grid. The host knows the count but not
// the lengths, so every block reads every segment's bounds and makes the same layout in shared
// memory: no plan kernel, no list and no queue, and parts as long as a block's share of the items,
// where the long list cuts 128-tile parts whose every boundary drains the block's loads.

#include <rk/cuda/agent/tile_tree.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/few_segments.hpp>
#include <rk/detail/integer.hpp>
#include <rk/detail/tree.hpp>

namespace rk::detail
{
/// Every block's copy of the call's layout (in shared memory). Segment s is the `plan[s].items`
/// items from `first[s]`, cut into jobs [first_part[s], first_part[s + 1]) of plan[s].split; its
/// node values and pieces start at first_value[s] of the scratch.
struct few_segments_layout
{
  static constexpr int capacity = few_segments_max;
  static_assert(capacity <= 2 * warp_threads, "warp 0 lays out two segments a lane");

  tree_plan plan[capacity];          ///< its length (negative: a bad segment) and its parts' split
  offset_t first[capacity];          ///< its first item
  offset_t first_part[capacity + 1]; ///< its first job; first_part[count] is every job
  offset_t first_value[capacity];    ///< its values' place in the scratch
  bool by_warp[capacity];            ///< too long for its parts' nodes: a warp reduces it
  int count;

  __device__ offset_t jobs() const
  {
    return first_part[count];
  }
  __device__ offset_t parts(int s) const
  {
    return first_part[s + 1] - first_part[s];
  }
  /// The segment of job `job` < jobs(): the last one whose first job is at most `job` (segments
  /// without parts share their first job with the next).
  __device__ int segment_of(offset_t job) const
  {
    int lo = 0, hi = count;
    while (hi - lo > 1)
    {
      const int mid                      = (lo + hi) / 2;
      (first_part[mid] <= job ? lo : hi) = mid;
    }
    return lo;
  }
};

/// Lays out the `segments.count` <= few_segments_max segments in `layout` for a grid of `blocks`
/// blocks: each cut by cut_few_segment, its parts about ceil(all tiles / blocks) tiles. Every
/// thread of the block calls it; warp 0 reads the bounds (two segments a lane) and scans the parts
/// and values.
template <class Item, class Segments>
__device__ void lay_out_few_segments(const Segments& segments, offset_t blocks, offset_t min_part_tiles,
                                     few_segments_layout& layout)
{
  if (threadIdx.x < warp_threads)
  {
    const int lane  = static_cast<int>(threadIdx.x);
    const int count = static_cast<int>(segments.count);
    offset_t tiles[2];
    for (int k = 0; k < 2; ++k)
    {
      const int s = 2 * lane + k;
      tiles[k]    = 0;
      if (s < count)
      {
        const offset_t b = segments.begin(s), n = checked_segment_items(segments, s, b); // < 0: bad
        layout.first[s] = b;
        tiles[k]        = n > 0 ? ceil_div(n, offset_t{tile_items<Item>}) : 0;
        layout.plan[s]  = {n, tile_split{}};
      }
    }
    offset_t all = tiles[0] + tiles[1];
    for (int delta = 1; delta < warp_threads; delta *= 2)
    {
      all += __shfl_xor_sync(0xffffffffu, all, delta);
    }
    const offset_t per_part = all > blocks ? ceil_div(all, blocks) : 1;
    offset_t parts[2], values[2];
#pragma unroll 1 // one cut's registers at a time: unrolled, the layout made the block body spill
    for (int k = 0; k < 2; ++k)
    {
      const int s = 2 * lane + k;
      if (s < count)
      {
        const few_segment_cut cut = cut_few_segment(tiles[k], per_part, min_part_tiles);
        layout.plan[s].split      = cut.split;
        layout.by_warp[s]         = cut.by_warp;
        parts[k]                  = cut.parts;
        values[k]                 = cut.values;
      }
      else
      {
        parts[k]  = 0;
        values[k] = 0;
      }
    }
    // Exclusive scans of the parts and the values over the segments in order (lane l holds 2l and
    // 2l + 1).
    offset_t part_scan = parts[0] + parts[1], value_scan = values[0] + values[1];
    for (int delta = 1; delta < warp_threads; delta *= 2)
    {
      const offset_t p = __shfl_up_sync(0xffffffffu, part_scan, delta);
      const offset_t v = __shfl_up_sync(0xffffffffu, value_scan, delta);
      if (lane >= delta)
      {
        part_scan += p;
        value_scan += v;
      }
    }
    offset_t part_at  = part_scan - parts[0] - parts[1];
    offset_t value_at = value_scan - values[0] - values[1];
    for (int k = 0; k < 2; ++k)
    {
      const int s = 2 * lane + k;
      if (s < count)
      {
        layout.first_part[s]  = part_at;
        layout.first_value[s] = value_at;
      }
      part_at += parts[k];
      value_at += values[k];
    }
    const offset_t jobs = __shfl_sync(0xffffffffu, part_scan, warp_threads - 1);
    if (lane == 0)
    {
      layout.first_part[count] = jobs;
      layout.count             = count;
    }
  }
  __syncthreads();
}
} // namespace rk::detail

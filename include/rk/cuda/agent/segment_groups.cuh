#pragma once
// The short segments' block body: a segment of at most one lane's items is folded by one thread,
// one of up to 4, 8 or 16 lanes' worth by a group of that many lanes (several segments per
// warp), a longer one by a warp, tile by tile, all with rk::reduce's tree counted from the
// segment's first item (rk/detail/tree.hpp). Segments longer than long_segment_min_tiles tiles go
// on the long list (rk/cuda/agent/segment_planner.cuh) while it has room; past it, a warp takes
// them too: slower, never wrong.

#include <rk/cuda/agent/segment_planner.cuh>
#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/segments.hpp>

#include <type_traits>

namespace rk::detail
{
/// What an empty segment gets: init (no_segment_init has no empty segments to give anything).
template <class T>
__device__ __forceinline__ const T& empty_segment_value(const T& init)
{
  return init;
}
template <class T>
__device__ __forceinline__ T empty_segment_value(no_segment_init)
{
  return uninitialized<T>{}.value;
}

/// The tree over at most two lanes' items (1 <= count <= 2 * LaneItems) from `first + begin`, by
/// one thread: one lane's fold, or the two lanes' folds combined, as a tile's first step combines
/// lanes 0 and 1.
template <int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ T two_lane_tree(const Input& first, offset_t begin, int count, Op& op)
{
  if (count <= LaneItems)
  {
    return lane_fold<LaneItems, T>(first, begin, count, op);
  }
  const T left = lane_fold<LaneItems, T>(first, begin, LaneItems, op);
  return op(left, lane_fold<LaneItems, T>(first, begin + LaneItems, count - LaneItems, op));
}

/// Records the first bad segment in the device's error word (rk::check_device_errors).
__device__ inline void report_bad_segment(unsigned long long* error_word, offset_t s)
{
  atomicCAS(error_word, 0ull, static_cast<unsigned long long>(s) + 1);
}

/// Full tiles k, k + 1, ... of a window (from `window_at`) below `full`, Trees at a time, then in
/// batches of half as many down to InFlight (each of those runs at most once). A batch's trees are
/// built together by warp_reduce_tiles (the same nodes as a tree a tile, fewer combines a lane),
/// InFlight tiles' loads issued at once. Tile k's value goes to lane k's `held_tile`. Returns the
/// first tile left.
template <int Trees, int InFlight, int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ int batched_tile_trees(const Input& first, offset_t window_at, int k, int full,
                                                  uninitialized<T>& held_tile, Op& op, int lane)
{
  static_assert(Trees % InFlight == 0);
  using item              = std::remove_cv_t<iterator_item_t<Input>>;
  constexpr offset_t tile = offset_t{warp_threads} * LaneItems;
  for (; k + Trees <= full; k += Trees)
  {
    uninitialized<T> lane_values[Trees];
#pragma unroll
    for (int u0 = 0; u0 < Trees; u0 += InFlight)
    {
      item v[InFlight][LaneItems];
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        load_lane<LaneItems>(first, window_at + (k + u0 + u) * tile + offset_t{lane} * LaneItems, v[u]);
      }
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        lane_values[u0 + u].emplace(fold_lane<T>(v[u], op));
      }
    }
    const T mine = warp_reduce_tiles(lane_values, op, lane, k);
    if (lane >= k && lane < k + Trees)
    {
      held_tile.emplace(mine);
    }
  }
  if constexpr (Trees / 2 >= InFlight)
  {
    return batched_tile_trees<Trees / 2, InFlight, LaneItems, T>(first, window_at, k, full, held_tile, op, lane);
  }
  else
  {
    return k;
  }
}

/// The node over window `w` (32 tiles, a level-5 node of the tree counted from the segment's
/// first item, truncated at the segment's end) of the `n` items from `begin`, by a whole warp.
/// Tile k's value waits in lane k until the window is complete. Result valid in lane 0.
template <int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ T window_node(const Input& first, offset_t begin, offset_t n, offset_t w, Op& op, int lane)
{
  constexpr offset_t tile = offset_t{warp_threads} * LaneItems;
  const offset_t tiles    = ceil_div<tile>(n);
  const int in_window     = static_cast<int>(tiles - w * warp_threads < warp_threads ? tiles - w * warp_threads
                                                                                     : warp_threads);
  uninitialized<T> held_tile; // tile k's value, in lane k
  int k      = 0;
  using item = std::remove_cv_t<iterator_item_t<Input>>;
  if constexpr (std::is_trivially_default_constructible_v<item> && window_tiles_in_flight > 1)
  {
    // Full tiles, window_tiles_in_flight at a time: every lane's loads first, then the trees.
    constexpr int batch      = window_tiles_in_flight;
    const offset_t window_at = begin + w * warp_threads * tile;
    const offset_t full_left = n / tile - w * warp_threads;
    const int full_in_window = full_left < in_window ? static_cast<int>(full_left) : in_window;
    if constexpr (sizeof(T) >= split_tile_trees_min_bytes)
    {
      k = batched_tile_trees<window_tree_batch_tiles, batch, LaneItems, T>(first, window_at, k, full_in_window,
                                                                           held_tile, op, lane);
    }
    else
    {
      for (; k + batch <= full_in_window; k += batch)
      {
        item v[batch][LaneItems];
#pragma unroll
        for (int u = 0; u < batch; ++u)
        {
          load_lane<LaneItems>(first, window_at + (k + u) * tile + offset_t{lane} * LaneItems, v[u]);
        }
#pragma unroll
        for (int u = 0; u < batch; ++u)
        {
          const T all = broadcast_lane0(warp_reduce(fold_lane<T>(v[u], op), op, lane, warp_threads));
          if (lane == k + u)
          {
            held_tile.emplace(all);
          }
        }
      }
    }
  }
  for (; k < in_window; ++k)
  {
    const offset_t t       = w * warp_threads + k;
    const offset_t in_tile = n - t * tile < tile ? n - t * tile : tile;
    const T v              = tile_value<LaneItems, T>(first, begin + t * tile, in_tile, op, lane);
    if (in_window == 1)
    {
      return v;
    }
    const T all = broadcast_lane0(v);
    if (lane == k)
    {
      held_tile.emplace(all);
    }
  }
  return warp_reduce(held_tile.value, op, lane, in_window);
}

/// Windows [w_begin, w_end) of the `n` items from `begin`, their nodes (window_node) pushed in
/// order into lane 0's `fold` (a pairwise_fold or register_fold: its carries are the tree's
/// combines of the windows). By a whole warp.
template <int LaneItems, class T, class Fold, class Input, class Op>
__device__ __forceinline__ void fold_windows(Fold& fold, const Input& first, offset_t begin, offset_t n,
                                             offset_t w_begin, offset_t w_end, Op& op, int lane)
{
  for (offset_t w = w_begin; w < w_end; ++w)
  {
    const T node = window_node<LaneItems, T>(first, begin, n, w, op, lane);
    if (lane == 0)
    {
      fold.push(node, op);
    }
  }
}

/// The tree over a segment of any length by a whole warp: its windows fold in lane 0 (result
/// valid there).
template <int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ T warp_windows_root(const Input& first, offset_t begin, offset_t n, Op& op, int lane)
{
  constexpr offset_t window = offset_t{warp_threads} * warp_threads * LaneItems;
  pairwise_fold<T, 40 - window_level> windows;
  fold_windows<LaneItems, T>(windows, first, begin, n, 0, ceil_div<window>(n), op, lane);
  uninitialized<T> root;
  if (lane == 0)
  {
    root.emplace(windows.finish(op));
  }
  return root.value;
}

/// A segment of more than one window (only segments the full long list left to the warps):
/// warp_windows_root, kept out of line, so that its fold's stack frame costs the common path
/// nothing.
template <int LaneItems, class T, class Input, class Op>
__device__ __noinline__ T many_windows(Input first, offset_t begin, offset_t n, Op op, int lane)
{
  return warp_windows_root<LaneItems, T>(first, begin, n, op, lane);
}

/// The tree over `n` items from `begin` by a group of Width lanes: a group of fewer than 32 lanes
/// holds at most one tile; a warp walks the tiles. Result valid in the group's lane 0. All lanes
/// of the warp call it; `n` == 0 marks a group without a segment.
template <int Width, int LaneItems, class T, class Input, class Op>
__device__ T group_tree(const Input& first, offset_t begin, offset_t n, Op& op, int rel)
{
  if constexpr (Width < warp_threads)
  {
    return tile_value<LaneItems, T, Width>(first, begin, n, op, rel);
  }
  else
  {
    if (n <= offset_t{warp_threads} * warp_threads * LaneItems)
    {
      return window_node<LaneItems, T>(first, begin, n, 0, op, rel);
    }
    return many_windows<LaneItems, T>(first, begin, n, op, rel);
  }
}

/// A block's queue of segments for one group width: each segment's place in the batch, its
/// first item and its length (32 bits where the class bounds it: shared memory the L1 keeps).
template <int BlockThreads, class Length>
struct segment_queue
{
  offset_t first[BlockThreads];
  Length items[BlockThreads];
  short place[BlockThreads];
  int count;
};

/// Reduces the queued segments, one per group of Width lanes, and stores op(init, tree).
template <int Width, int BlockThreads, int LaneItems, class T, class Input, class Length, class Out, class Init,
          class Op>
__device__ void reduce_queue(const Input& first, const segment_queue<BlockThreads, Length>& q, offset_t batch, Out& out,
                             const Init& init, Op& op)
{
  constexpr int groups = BlockThreads / Width;
  const int rel        = static_cast<int>(threadIdx.x) % Width;
  const int group      = static_cast<int>(threadIdx.x) / Width;
  for (int base = 0; base < q.count; base += groups)
  {
    const int i    = base + group;
    const bool has = i < q.count;
    if (Width == warp_threads && !has)
    {
      break; // the whole warp: no later round has a segment for it either
    }
    const T v = group_tree<Width, LaneItems, T>(first, has ? q.first[i] : 0, has ? q.items[i] : 0, op, rel);
    if (has && rel == 0)
    {
      out[batch + q.place[i]] = apply_init(init, v, op);
    }
  }
}

/// Offers a segment of more than long_segment_min_tiles tiles to the long list; a run of owner
/// marks too long for this thread goes to the block's `wide` runs. Returns whether it was listed.
template <class Item>
__device__ __forceinline__ bool offer_long_segment(const long_segment_list& list, offset_t s, offset_t b, offset_t n,
                                                   long_segment_list::owner_run* wide, int& wide_count)
{
  long_segment_list::owner_run run;
  const bool listed = list.append(s, b, n, ceil_div<tile_items<Item>>(n), run);
  if (run.count > 0)
  {
    wide[atomicAdd(&wide_count, 1)] = run;
  }
  return listed;
}

/// Segments by the group that reduces them: up to 4, 8 and 16 lanes' worth share a warp with
/// others (8, 4, 2 per warp); longer ones take a warp each.
inline constexpr int group_classes = 4;

/// The short-segment kernel's block: its equal run of the segments, a batch of segment_block_threads
/// at a time. Each segment goes to a thread, a group of 4, 8 or 16 lanes, or a warp, by its length;
/// one longer than long_segment_min_tiles tiles goes on the long list while it has room. A bad
/// segment (it ends before it begins, or begins before `first`) is reported and gets init. `SeedListed` (rk::atomic): a
/// listed segment's output gets `init`, which its parts then combine into.
template <class Item, class T, bool SeedListed, class Input, class Segments, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_short_segments(const Input& first, const Segments& segments, Out& out,
                                                      const Init& init, const long_segment_list& list,
                                                      unsigned long long* error_word, Op& op)
{
  constexpr int block_threads = segment_block_threads;
  constexpr int lane_items    = tile_lane_items<Item>;
  constexpr int tiny_lanes    = tiny_segment_lanes<Item>;
  __shared__ segment_queue<block_threads, int> groups[group_classes - 1]; // one tile at most
  __shared__ segment_queue<block_threads, offset_t> warps;
  __shared__ long_segment_list::owner_run wide[block_threads]; // listed segments of many parts
  __shared__ int wide_count;
  const offset_t count = segments.count;
  const offset_t begin = count * blockIdx.x / gridDim.x, end = count * (blockIdx.x + 1) / gridDim.x;
  for (offset_t batch = begin; batch < end;)
  {
    // A run of up to tiny_batches full batches whose segments all fit tiny_segment_lanes lanes
    // (1-8 int32 items, 1-8 doubles) is reduced in one step, each thread with a segment of each
    // batch in flight: a batch at a time, this path waits on a round trip per segment and is
    // latency-bound. The run stops at the block's last full batch, so blocks of a few batches
    // (calls of 2^20 short segments) take it too. A shorter run reads its last batch again in the
    // slots past its end, so every load is unconditional and issued together; its reductions and stores stop.
    const offset_t full_batches = (end - batch) / block_threads;
    if (full_batches > 0)
    {
      const int run = full_batches < tiny_batches ? static_cast<int>(full_batches) : tiny_batches;
      offset_t b[tiny_batches];
      int n[tiny_batches]; // clamped: a longer segment only makes the run not tiny; -1: bad
      bool tiny = true;
#pragma unroll
      for (int k = 0; k < tiny_batches; ++k)
      {
        const offset_t s     = batch + (k < run ? k : run - 1) * block_threads + threadIdx.x;
        b[k]                 = segments.begin(s);
        const offset_t items = checked_segment_items(segments, s, b[k]);
        n[k]                 = static_cast<int>(items <= tiny_lanes * lane_items ? items : tiny_lanes * lane_items + 1);
        tiny                 = tiny && n[k] >= 0 && n[k] <= tiny_lanes * lane_items; // a bad one is reported below
      }
      if (__syncthreads_and(tiny))
      {
        uninitialized<T> value[tiny_batches];
#pragma unroll
        for (int k = 0; k < tiny_batches; ++k)
        {
          if (k < run && n[k] > 0)
          {
            if constexpr (tiny_lanes == 2)
            {
              value[k].emplace(apply_init(init, two_lane_tree<lane_items, T>(first, b[k], n[k], op), op));
            }
            else
            {
              value[k].emplace(apply_init(init, lane_fold<lane_items, T>(first, b[k], n[k], op), op));
            }
          }
        }
#pragma unroll
        for (int k = 0; k < tiny_batches; ++k)
        {
          if (k < run)
          {
            out[batch + k * block_threads + threadIdx.x] = n[k] > 0 ? value[k].value : empty_segment_value<T>(init);
          }
        }
        batch += offset_t{run} * block_threads;
        continue;
      }
    }
    if (threadIdx.x < group_classes - 1)
    {
      groups[threadIdx.x].count = 0;
    }
    if (threadIdx.x == 0)
    {
      warps.count = 0;
      wide_count  = 0;
    }
    __syncthreads();
    const offset_t s = batch + threadIdx.x;
    if (s < end)
    {
      const offset_t b = segments.begin(s), n = checked_segment_items(segments, s, b);
      if (n <= 0)
      {
        if (n < 0)
        {
          report_bad_segment(error_word, s);
        }
        out[s] = empty_segment_value<T>(init);
      }
      else if (n <= lane_items)
      {
        out[s] = apply_init(init, lane_fold<lane_items, T>(first, b, static_cast<int>(n), op), op);
      }
      else if (n <= long_segment_min_tiles * tile_items<Item>
               || !offer_long_segment<Item>(list, s, b, n, wide, wide_count))
      {
        const offset_t lanes = ceil_div<lane_items>(n);
        if (lanes <= 16)
        {
          auto& q      = groups[lanes <= 4 ? 0 : lanes <= 8 ? 1 : 2];
          const int at = atomicAdd(&q.count, 1);
          q.first[at]  = b;
          q.items[at]  = static_cast<int>(n);
          q.place[at]  = static_cast<short>(threadIdx.x);
        }
        else
        {
          const int at    = atomicAdd(&warps.count, 1);
          warps.first[at] = b;
          warps.items[at] = n;
          warps.place[at] = static_cast<short>(threadIdx.x);
        }
      }
      else if constexpr (SeedListed)
      {
        out[s] = init;
      }
    }
    __syncthreads();
    list.mark_wide<block_threads>(wide, wide_count);
    reduce_queue<4, block_threads, lane_items, T>(first, groups[0], batch, out, init, op);
    reduce_queue<8, block_threads, lane_items, T>(first, groups[1], batch, out, init, op);
    reduce_queue<16, block_threads, lane_items, T>(first, groups[2], batch, out, init, op);
    reduce_queue<warp_threads, block_threads, lane_items, T>(first, warps, batch, out, init, op);
    __syncthreads();
    batch += block_threads;
  }
}
} // namespace rk::detail

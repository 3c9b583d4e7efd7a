#pragma once
// The short segments' block body, a warp at a time: 32 segments, a lane each. A run of batches
// whose segments all fit one lane (two for items of 8 bytes or more) is folded a thread a
// segment; otherwise the batch's segments of at most a tile are packed lane by lane into rounds
// of the warp, whole segments to a round, and one longer goes to the whole warp, tile by tile.
// All get rk::reduce's tree counted from the segment's first item (rk/detail/tree.hpp). Segments
// longer than long_segment_min_tiles tiles go on the long list (rk/cuda/agent/segment_planner.cuh)
// while it has room; past it, a warp takes them too: slower, never wrong.

#include <rk/cuda/agent/packed_segments.cuh>
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

/// The tree over a segment of more than a tile by a whole warp: its windows (window_node), a segment
/// of more than one window out of line (many_windows). Result valid in lane 0.
template <int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ T warp_segment_tree(const Input& first, offset_t begin, offset_t n, Op& op, int lane)
{
  if (n <= offset_t{warp_threads} * warp_threads * LaneItems)
  {
    return window_node<LaneItems, T>(first, begin, n, 0, op, lane);
  }
  return many_windows<LaneItems, T>(first, begin, n, op, lane);
}

/// Offers a segment of more than long_segment_min_tiles tiles to the long list. Returns whether it
/// was listed; `wide` gets a run of owner marks too long for this thread (count 0 if none).
template <class Item>
__device__ __forceinline__ bool offer_long_segment(const long_segment_list& list, offset_t s, offset_t b, offset_t n,
                                                   long_segment_list::owner_run& wide)
{
  return list.append(s, b, n, ceil_div<tile_items<Item>>(n), wide);
}

/// The short-segment kernel's block: its equal run of the segments, in an equal run per warp, 32
/// segments (a lane each) at a time. Runs of batches whose segments all fit tiny_segment_lanes
/// lanes take one step, a lane each; otherwise a segment of at most a tile goes on the batch's
/// packed lanes (reduce_packed_segments), a longer one to the whole warp, one longer than
/// long_segment_min_tiles tiles on the long list while it has room. No step waits for another
/// warp. A bad segment (it ends before it begins, or begins before `first`) is reported and gets
/// init. `SeedListed` (rk::atomic): a listed segment's output gets `init`, which its parts then
/// combine into.
template <class Item, class T, bool SeedListed, class Input, class Segments, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_short_segments(const Input& first, const Segments& segments, Out& out,
                                                      const Init& init, const long_segment_list& list,
                                                      unsigned long long* error_word, Op& op)
{
  constexpr int warps      = segment_block_threads / warp_threads;
  constexpr int lane_items = tile_lane_items<Item>;
  constexpr int tiny_lanes = tiny_segment_lanes<Item>;
  __shared__ packed_segment slots[warps][warp_threads];
  const int lane         = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp         = static_cast<int>(threadIdx.x) / warp_threads;
  const offset_t count   = segments.count;
  const offset_t b_begin = count * blockIdx.x / gridDim.x, b_end = count * (blockIdx.x + 1) / gridDim.x;
  const offset_t begin = b_begin + (b_end - b_begin) * warp / warps,
                 end   = b_begin + (b_end - b_begin) * (warp + 1) / warps;
  for (offset_t batch = begin; batch < end;)
  {
    // A run of up to tiny_batches full batches whose segments all fit tiny_segment_lanes lanes
    // (1-8 int32 items, 1-8 doubles) is reduced in one step, each lane with a segment of each
    // batch in flight: a batch at a time, this path waits on a round trip per segment and is
    // latency-bound. A shorter run reads its last batch again in the slots past its end, so every
    // load is unconditional and issued together; its reductions and stores stop.
    const offset_t full_batches = (end - batch) / warp_threads;
    if (full_batches > 0)
    {
      const int run = full_batches < tiny_batches ? static_cast<int>(full_batches) : tiny_batches;
      offset_t b[tiny_batches];
      int n[tiny_batches]; // clamped: a longer segment only makes the run not tiny; -1: bad
      bool tiny = true;
#pragma unroll
      for (int k = 0; k < tiny_batches; ++k)
      {
        const offset_t s     = batch + (k < run ? k : run - 1) * warp_threads + lane;
        b[k]                 = segments.begin(s);
        const offset_t items = checked_segment_items(segments, s, b[k]);
        n[k]                 = static_cast<int>(items <= tiny_lanes * lane_items ? items : tiny_lanes * lane_items + 1);
        tiny                 = tiny && n[k] >= 0 && n[k] <= tiny_lanes * lane_items; // a bad one is reported below
      }
      if (__all_sync(0xffffffffu, tiny))
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
            out[batch + k * warp_threads + lane] = n[k] > 0 ? value[k].value : empty_segment_value<T>(init);
          }
        }
        batch += offset_t{run} * warp_threads;
        continue;
      }
    }
    const offset_t s = batch + lane;
    offset_t b = 0, n = 0;
    bool by_warp = false;
    long_segment_list::owner_run wide{0, 0, 0};
    if (s < end)
    {
      b = segments.begin(s);
      n = checked_segment_items(segments, s, b);
      if (n <= 0)
      {
        if (n < 0)
        {
          report_bad_segment(error_word, s);
        }
        out[s] = empty_segment_value<T>(init);
        n      = 0;
      }
      else if (n > tile_items<Item>)
      {
        by_warp = n <= long_segment_min_tiles * tile_items<Item> || !offer_long_segment<Item>(list, s, b, n, wide);
        if constexpr (SeedListed)
        {
          if (!by_warp)
          {
            out[s] = init;
          }
        }
      }
    }
    const int packed_items = n > 0 && n <= tile_items<Item> ? static_cast<int>(n) : 0;
    // Runs of owner marks too long for their lane, the warp's lanes together.
    for (unsigned pending = __ballot_sync(0xffffffffu, wide.count > 0); pending != 0; pending &= pending - 1)
    {
      const int from            = __ffs(pending) - 1;
      const unsigned first_mark = __shfl_sync(0xffffffffu, wide.begin, from);
      const unsigned marks      = __shfl_sync(0xffffffffu, wide.count, from);
      const unsigned owner      = __shfl_sync(0xffffffffu, wide.owner, from);
      for (unsigned k = static_cast<unsigned>(lane); k < marks; k += warp_threads)
      {
        list.owner[first_mark + k] = owner;
      }
    }
    reduce_packed_segments<lane_items, T>(first, batch, b, packed_items, slots[warp], out, init, op, lane);
    for (unsigned pending = __ballot_sync(0xffffffffu, by_warp); pending != 0; pending &= pending - 1)
    {
      const int from = __ffs(pending) - 1;
      const T v      = warp_segment_tree<lane_items, T>(first, shuffle_from(b, from), shuffle_from(n, from), op, lane);
      if (lane == 0)
      {
        out[batch + from] = apply_init(init, v, op);
      }
    }
    batch += warp_threads;
  }
}
} // namespace rk::detail

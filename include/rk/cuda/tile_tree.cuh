#pragma once
// The block body of the reproducible tree (rk/detail/tree.hpp) and the final pass over its node
// values, shared by rk::two_pass and rk::single_pass; they differ only in who finishes the nodes
// that a block boundary cuts and who runs the final pass (rk/cuda/kernels.cuh).
//
// A block owns the tiles of one part of the tile_split. It walks them in groups of whole,
// 32-aligned windows: every warp loads and reduces its tiles of the group (InFlight at a time),
// one value per tile goes to shared memory, and warp 0 runs the tree over each window with one
// shuffle per level. Where the window's nodes reach the part's node level they are stored as node
// values; nodes above a window (levels 5 and up) are built by warp 0's lane 0 from window values,
// with the pending left children kept in shared memory. The largest nodes that lie inside the
// part but inside no node of the part's own are "pieces": they are stored per part boundary and
// level, and whoever finishes the cut node puts them together (assemble_node).

#include <rk/cuda/block_reduce.cuh>
#include <rk/cuda/input.cuh>
#include <rk/cuda/warp_reduce.cuh>
#include <rk/detail/tree.hpp>

#include <cuda/atomic>

#include <type_traits>

namespace rk::detail
{
/// Where a grid's tree results go: one value per node of the split, and the pieces of the nodes
/// that part boundaries cut.
template <class T>
struct tree_outputs
{
  T* nodes;
  T* pieces;
};

/// What the kernels need to know of the tree: the item count and how the tiles are split.
struct tree_plan
{
  offset_t items;
  tile_split split;
};

inline int grid_size(const tree_plan& plan)
{
  return static_cast<int>(plan.split.parts);
}

/// A full lane's items, loaded before any is combined (lane_fold, the segmented warps).
template <int LaneItems, class It>
__device__ __forceinline__ void load_lane(const It& first, offset_t begin,
                                          std::remove_cv_t<iterator_item_t<It>> (&v)[LaneItems])
{
#pragma unroll
  for (int i = 0; i < LaneItems; ++i)
  {
    v[i] = first[begin + i];
  }
}

/// The left fold of a full lane's loaded items.
template <class T, int LaneItems, class Item, class Op>
__device__ __forceinline__ T fold_lane(const Item (&v)[LaneItems], Op& op)
{
  T acc(v[0]);
#pragma unroll
  for (int i = 1; i < LaneItems; ++i)
  {
    acc = op(acc, static_cast<T>(v[i]));
  }
  return acc;
}

/// One lane of the tree: the left fold of `count` (1..LaneItems) items from `begin`. A full lane
/// issues all its loads before the first combine.
template <int LaneItems, class T, class It, class Op>
__device__ __forceinline__ T lane_fold(const It& first, offset_t begin, int count, Op& op)
{
  using item = std::remove_cv_t<iterator_item_t<It>>;
  if constexpr (std::is_trivially_default_constructible_v<item>)
  {
    if (count == LaneItems)
    {
      item v[LaneItems];
      load_lane<LaneItems>(first, begin, v);
      return fold_lane<T>(v, op);
    }
  }
  T acc(first[begin]);
  for (int i = 1; i < count; ++i)
  {
    acc = op(acc, static_cast<T>(first[begin + i]));
  }
  return acc;
}

/// The value of tile `tile` when it is the short last tile: each lane folds its items, lanes
/// without items drop out. Result valid in lane 0.
template <int LaneItems, class T, class It, class Op>
__device__ T short_tile_value(It first, offset_t items, offset_t tile, Op& op, int lane)
{
  const offset_t tile_first = tile * (offset_t{warp_threads} * LaneItems);
  const offset_t count      = items - tile_first;
  const offset_t lane_first = tile_first + offset_t{lane} * LaneItems;
  uninitialized<T> mine;
  if (lane_first < items)
  {
    const int take = items - lane_first < LaneItems ? static_cast<int>(items - lane_first) : LaneItems;
    mine.emplace(lane_fold<LaneItems, T>(first, lane_first, take, op));
  }
  const int valid_lanes = static_cast<int>((count + LaneItems - 1) / LaneItems);
  return warp_reduce(mine.value, op, lane, valid_lanes);
}

/// Stores the tree results of one part (the block's), seen from that part: a node of the split's
/// level, or a piece of a node cut at either end of the part.
template <class T>
struct part_results
{
  tree_outputs<T> out;
  tile_split split;
  tile_span span;
  offset_t part;
  maybe<T>* single_root; ///< where the only node goes when the split has one (thread 0's), else null

  __device__ void node(offset_t a, const T& v) const
  {
    if (single_root != nullptr)
    {
      single_root->set(v);
      return;
    }
    ::new (static_cast<void*>(out.nodes + (a >> split.node_level))) T(v);
  }
  __device__ void piece(offset_t a, int level, const T& v) const
  {
    // A piece of the node the part starts in lies right of the part's first boundary; any other
    // lies left of its last.
    const bool first_node = (a >> split.node_level) == (span.begin >> split.node_level) && split.cuts_node(part);
    const offset_t slot   = first_node ? piece_slot(part, piece_side::right, level)
                                       : piece_slot(part + 1, piece_side::left, level);
    ::new (static_cast<void*>(out.pieces + slot)) T(v);
  }
};

inline constexpr int window_level = 5; // a window is one warp's worth of tiles: 2^5
static_assert(warp_threads == 1 << window_level);

/// Builds the nodes of levels 5 and up from window values, in window order (warp 0's lane 0).
/// `pending[l]` holds a node of level l waiting for its right sibling.
template <class T, class Op>
__device__ void climb_from_window(offset_t a, T v, const part_results<T>& results, T* pending, Op& op)
{
  const tile_span& span = results.span;
  const int top         = results.split.node_level;
  for (int level = window_level;; ++level)
  {
    if (level == top)
    {
      results.node(a, v);
      return;
    }
    const offset_t width = offset_t{1} << level;
    if ((a >> level) & 1)
    {
      if (!span.complete(a - width, level))
      {
        results.piece(a, level, v); // its left sibling reaches out of the part
        return;
      }
      v = op(pending[level], v);
      a -= width;
    }
    else if (span.right_sibling_exists(a, level))
    {
      if (!span.complete(a + width, level))
      {
        results.piece(a, level, v); // its right sibling reaches out of the part
        return;
      }
      ::new (static_cast<void*>(pending + level)) T(v);
      return;
    }
    // else: no right sibling, so the node stands for its parent
  }
}

/// Warp 0's tree over one window of 32 tiles (lane i holds tile w0 + i where that tile is in the
/// part). Levels below min(node level, 5) are done with shuffles; their largest nodes in the part
/// are stored, and a whole window climbs on.
template <class T, class Op>
__device__ void window_tree(T x, offset_t w0, const part_results<T>& results, T* pending, Op& op, int lane)
{
  const tile_span& span = results.span;
  const int node_level  = results.split.node_level;
  const int top         = node_level < window_level ? node_level : window_level;
  const offset_t a      = w0 + lane;
  for (int level = 0; level < top; ++level)
  {
    const int width = 1 << level;
    const T right   = shuffle_down(x, static_cast<unsigned>(width));
    if (lane % (2 * width) == 0 && span.right_sibling_exists(a, level))
    {
      const bool left_in  = span.complete(a, level);
      const bool right_in = span.complete(a + width, level);
      if (left_in && right_in)
      {
        x = op(x, right);
      }
      else if (left_in)
      {
        results.piece(a, level, x);
      }
      else if (right_in)
      {
        results.piece(a + width, level, right);
      }
    }
  }
  if (lane % (1 << top) == 0 && span.complete(a, top))
  {
    if (top == node_level)
    {
      results.node(a, x);
    }
    else
    {
      climb_from_window(a, x, results, pending, op); // lane 0: the whole window is in the part
    }
  }
}

/// The shared body: block `part` reduces its tiles and stores its node values and pieces. When the
/// split has a single node, thread 0 also returns it (the caller can finish without a round trip
/// through memory).
template <int BlockThreads, int InFlight, int LaneItems, class T, class It, class Chunks, class Op>
__device__ maybe<T> tree_reduce_part(It first, const Chunks& chunks, const tree_plan& plan, offset_t part,
                                     const tree_outputs<T>& out, Op& op)
{
  constexpr int warps             = BlockThreads / warp_threads;
  constexpr int step_tiles        = warps * InFlight;
  constexpr int windows_per_group = step_tiles > warp_threads ? step_tiles / warp_threads : 1;
  constexpr int group_tiles       = windows_per_group * warp_threads;
  const int lane = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp = static_cast<int>(threadIdx.x) / warp_threads;

  maybe<T> root;
  const tile_split& split = plan.split;
  const part_results<T> results{out, split, split.span(part), part, split.nodes() == 1 ? &root : nullptr};
  const tile_span& span     = results.span;
  const offset_t full_tiles = plan.items / (offset_t{warp_threads} * LaneItems);

  // Double-buffered so the warps fill the next group while warp 0 runs this one's trees.
  __shared__ alignas(T) unsigned char tiles_raw[2][group_tiles * sizeof(T)];
  __shared__ alignas(T) unsigned char pending_raw[max_node_level * sizeof(T)];
  T* pending = reinterpret_cast<T*>(pending_raw);

  int buffer = 0;
  for (offset_t group = span.begin / warp_threads * warp_threads; group < span.end; group += group_tiles, buffer ^= 1)
  {
    T* tile_values = reinterpret_cast<T*>(tiles_raw[buffer]);
    for (int t = warp * InFlight; t < group_tiles; t += step_tiles)
    {
      typename Chunks::fragment f[InFlight];
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        const offset_t tile = group + t + u;
        if (t + u < group_tiles && tile >= span.begin && tile < span.end && tile < full_tiles)
        {
          chunks.load(tile, lane, f[u], op);
        }
      }
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        const offset_t tile = group + t + u;
        if (t + u < group_tiles && tile >= span.begin && tile < span.end)
        {
          const T value = tile < full_tiles ? warp_reduce(chunks.reduce(f[u], op), op, lane)
                                            : short_tile_value<LaneItems, T>(first, plan.items, tile, op, lane);
          if (lane == 0)
          {
            ::new (static_cast<void*>(tile_values + t + u)) T(value);
          }
        }
      }
    }
    __syncthreads();
    if (warp == 0)
    {
      for (int w = 0; w < windows_per_group; ++w)
      {
        const offset_t w0   = group + offset_t{w} * warp_threads;
        const offset_t tile = w0 + lane;
        if (w0 >= span.end)
        {
          break;
        }
        uninitialized<T> x;
        if (tile >= span.begin && tile < span.end)
        {
          x.emplace(tile_values[w * warp_threads + lane]);
        }
        window_tree(x.value, w0, results, pending, op, lane);
      }
    }
  }
  return root;
}
} // namespace rk::detail

namespace rk::detail
{
/// Puts together the node that the boundary before part `boundary` cuts, from the pieces both
/// parts stored, and stores it among the node values (one thread).
template <class T, class Op>
__device__ void finish_cut_node(const tile_split& split, offset_t boundary, const tree_outputs<T>& out, Op& op)
{
  const T node = assemble_node<T>(split, boundary, op, [&](offset_t slot) { return out.pieces[slot]; });
  ::new (static_cast<void*>(out.nodes + (split.part_begin(boundary) >> split.node_level))) T(node);
}

/// Levels of the per-thread fold in final_tree: up to 2^10 node values per thread.
inline constexpr int final_fold_levels = 11;

/// The top of the tree: the pairwise tree over `count` >= 1 node values, with one block. Each
/// thread folds an aligned run of a power-of-two count of them; the runs then combine through
/// the warp and block levels of the same tree. Result valid in thread 0.
template <int BlockThreads, class T, class Op>
__device__ T final_tree(const T* values, offset_t count, Op& op)
{
  offset_t per_thread = 1;
  while (per_thread * BlockThreads < count)
  {
    per_thread *= 2;
  }
  const offset_t begin = offset_t{threadIdx.x} * per_thread;
  uninitialized<T> mine;
  if (begin < count)
  {
    const offset_t end = begin + per_thread < count ? begin + per_thread : count;
    pairwise_fold<T, final_fold_levels> fold;
    for (offset_t i = begin; i < end; ++i)
    {
      fold.push(values[i], op);
    }
    mine.emplace(fold.finish(op));
  }
  return block_combine_prefix<BlockThreads>(mine.value, (count + per_thread - 1) / per_thread, op);
}

/// rk::single_pass, thread 0 of the block that owns `part`, once a barrier has ordered the block's
/// stores of nodes and pieces before it: arrives at the cuts at both ends of the part
/// (`cut_arrivals[b]` counts the blocks at boundary b); the second block at a cut finishes that
/// node and resets the counter for the next call. acq_rel pairs the first block's pieces with the
/// second's reads.
template <class T, class Op>
__device__ void arrive_at_cuts(const tile_split& split, offset_t part, const tree_outputs<T>& out,
                               unsigned* cut_arrivals, Op& op)
{
  for (offset_t boundary = part; boundary <= part + 1; ++boundary)
  {
    if (split.cuts_node(boundary))
    {
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> cut(cut_arrivals[boundary]);
      if (cut.fetch_add(1u, ::cuda::std::memory_order_acq_rel) == 1u)
      {
        finish_cut_node(split, boundary, out, op);
        cut.store(0u, ::cuda::std::memory_order_relaxed);
      }
    }
  }
}

/// rk::two_pass's second step, by one block: finishes every cut node of the split, then runs the
/// final tree over the node values. Result valid in thread 0.
template <int BlockThreads, class T, class Op>
__device__ T finish_split(const tile_split& split, const tree_outputs<T>& out, Op& op)
{
  for (offset_t boundary = 1 + threadIdx.x; boundary < split.parts; boundary += BlockThreads)
  {
    if (split.cuts_node(boundary))
    {
      finish_cut_node(split, boundary, out, op);
    }
  }
  __syncthreads();
  return final_tree<BlockThreads, T>(out.nodes, split.nodes(), op);
}
} // namespace rk::detail

#pragma once
// The block body of the reproducible tree (rk/detail/tree.hpp) and the final pass over its node
// values, shared by rk::two_pass and rk::single_pass; they differ only in who finishes the nodes
// that a block boundary cuts and who runs the final pass (rk/cuda/kernels/reduce.cuh). The end
// of the tree, which that block runs, is in rk/cuda/agent/tile_tree_finish.cuh.
//
// A block owns the tiles of one part of the tile_split. It walks them from its first tile in
// rounds: every warp loads InFlight tiles and reduces each to one value, which goes to a ring in
// shared memory; after a few rounds (a batch) a barrier, and warp 0 runs the tree over each window
// (32 aligned tiles) whose tiles are all in, with one shuffle per level. Where the window's nodes
// reach the part's node level they are stored as node values; nodes above a window (levels 5 and
// up) are built by warp 0's lane 0 from window values, with the pending left children kept in
// shared memory. The largest nodes that lie inside the part but inside no node of the part's own
// are "pieces": they are stored per part boundary and level, and the block that finishes the
// split puts each cut node together from them (assemble_cut_node).

#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/tree.hpp>

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

__host__ __device__ inline int grid_size(const tree_plan& plan)
{
  return static_cast<int>(plan.split.parts);
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
  T* node_values; ///< out.nodes, or shared memory when the split has one node (the caller returns it)

  __device__ void node(offset_t a, const T& v) const
  {
    // With one node, a >> node_level is 0 for every tile: no branch on the critical path.
    ::new (static_cast<void*>(node_values + (a >> split.node_level))) T(v);
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

/// Where tile `x` lies relative to the window starting at tile w0, clamped to [0, 32]: a window's
/// tree needs the tree's end only to that precision, and in 32 bits its per-level tests are a few
/// instructions (64-bit ones made warp 0's tree over a window several hundred cycles longer).
__device__ __forceinline__ int window_offset(offset_t x, offset_t w0)
{
  return x <= w0 ? 0 : x - w0 >= warp_threads ? warp_threads : static_cast<int>(x - w0);
}

/// The top level of a window's tree: the split's node level, or the window's own.
__device__ __forceinline__ int window_top(const tile_split& split)
{
  return split.node_level < window_level ? split.node_level : window_level;
}

/// The end of a window's tree for a lane holding a whole node of the window's top level, the one
/// starting at tile `a`: a node of the split's level is stored; a whole window (lane 0, where the
/// split's nodes are larger than a window) climbs on.
template <class T, class Op>
__device__ __forceinline__ void finish_window_node(offset_t a, const T& x, const part_results<T>& results, T* pending,
                                                   Op& op)
{
  if (window_top(results.split) == results.split.node_level)
  {
    results.node(a, x);
  }
  else
  {
    climb_from_window(a, x, results, pending, op);
  }
}

/// Warp 0's tree over a window whose nodes below the top level a part bound cuts (lanes [lo, hi)
/// hold the part's tiles): the largest nodes in the part are stored as pieces. Only splits with cut
/// nodes take it.
template <class T, class Op>
__device__ void window_tree_with_pieces(T x, offset_t w0, int lo, int hi, int top, const part_results<T>& results,
                                        T* pending, Op& op, int lane)
{
  const int end = window_offset(results.span.tiles, w0);
  // tile_span::complete, for the node of `width` tiles at window offset l.
  const auto complete = [&](int l, int width) {
    return l >= lo && l < end && (l + width < end ? l + width : end) <= hi;
  };
#pragma unroll
  for (int level = 0; level < window_level; ++level)
  {
    if (level < top)
    {
      const int width = 1 << level;
      const T right   = shuffle_down(x, static_cast<unsigned>(width));
      if ((lane & (2 * width - 1)) == 0 && lane + width < end) // the right sibling has a tile
      {
        const bool left_in  = complete(lane, width);
        const bool right_in = complete(lane + width, width);
        if (left_in && right_in)
        {
          x = op(x, right);
        }
        else if (left_in)
        {
          results.piece(w0 + lane, level, x);
        }
        else if (right_in)
        {
          results.piece(w0 + lane + width, level, right);
        }
      }
    }
  }
  if ((lane & ((1 << top) - 1)) == 0 && complete(lane, 1 << top))
  {
    finish_window_node(w0 + lane, x, results, pending, op);
  }
}

/// Warp 0's tree over a window without pieces (window_tree says which): lanes [lo, hi) hold the
/// part's tiles w0 + lo ... Every node below the top level lies wholly inside the part or wholly
/// outside it, and a node of the part combines with its right sibling wherever that has a tile (a
/// whole window: the warp reduction's tree). The top-level nodes are stored, or a whole window
/// climbs on. This is the tree of every window at mid sizes, run after the block's last barrier on
/// the critical path of the call, so it is kept to the shuffles, one predicate per level and a
/// store.
template <class T, class Op>
__device__ __forceinline__ void window_tree_without_pieces(T x, offset_t w0, int lo, int hi,
                                                           const part_results<T>& results, T* pending, Op& op, int lane)
{
  const int top      = window_top(results.split);
  const bool in_part = lane >= lo && lane < hi;
  // Every level's shuffle runs, as in warp_reduce: a branch per level on `top` cost more than the
  // shuffle it saves (H100, float 2^20, globaltimer stamps in warp 0: 4 levels took ~400 cycles
  // with the branches, ~270 without).
#pragma unroll
  for (int level = 0; level < window_level; ++level)
  {
    const int width = 1 << level;
    const T right   = shuffle_down(x, static_cast<unsigned>(width));
    if (level < top && (lane & (2 * width - 1)) == 0 && in_part && lane + width < hi)
    {
      x = op(x, right);
    }
  }
  // A top-level node that starts in the part ends in it: hi is a top-level boundary or the end.
  if ((lane & ((1 << top) - 1)) == 0 && in_part)
  {
    finish_window_node(w0 + lane, x, results, pending, op);
  }
}

/// Warp 0's tree over one window of 32 tiles starting at tile w0; lanes [lo, hi) hold the part's
/// tiles. Levels below min(node level, 5) are done with shuffles; their largest nodes in the part
/// are stored, and a whole window climbs on.
///
/// Measured on an H100 (float 2^20, globaltimer stamps per block, mean from block start to thread
/// 0's arrival): 1887 ns when every window took one path with 64-bit tree-end tests, a branch per
/// level and a branch per node store; 1671 ns split in two like this; 1656 ns for the grid-ordered
/// body.
template <class T, class Op>
__device__ __forceinline__ void window_tree(T x, offset_t w0, int lo, int hi, const part_results<T>& results,
                                            T* pending, Op& op, int lane)
{
  const int top      = window_top(results.split);
  const int top_mask = (1 << top) - 1;
  // The part's bounds within the window are boundaries of top-level nodes (or the end of the
  // tiles): always so for a node-aligned split or a window inside the part.
  if ((lo & top_mask) == 0 && ((hi & top_mask) == 0 || results.span.end == results.span.tiles))
  {
    window_tree_without_pieces(x, w0, lo, hi, results, pending, op, lane);
  }
  else
  {
    window_tree_with_pieces(x, w0, lo, hi, top, results, pending, op, lane);
  }
}

/// Shared memory the block body's tile values may take where it has a choice (64 values of the
/// largest T, rk::detail::max_value_bytes).
inline constexpr int staging_bytes = 16384;

/// How the block body (tree_reduce_part) stages tile values for warp 0's window trees: tiles are
/// loaded in rounds of `warps * InFlight` (every warp issues InFlight tiles' loads, then reduces
/// them), `rounds` rounds between two barriers (a batch), into a ring of shared memory that holds
/// a batch being written while warp 0 reads the windows of the batch before it.
template <int BlockThreads, int InFlight, class T>
struct tile_staging
{
  static constexpr int round_tiles = BlockThreads / warp_threads * InFlight;
  /// Ring slots `batch_tiles` need: a batch being written, the batch before it and the head of
  /// the window that batch began in.
  static constexpr int ring_for(int batch_tiles)
  {
    int ring = warp_threads;
    while (ring < warp_threads - 1 + 2 * batch_tiles)
    {
      ring *= 2;
    }
    return ring;
  }
  /// Rounds per barrier: 64 tiles' worth (the grid-ordered body has a barrier every 64 chunks),
  /// fewer where the ring would outgrow staging_bytes.
  static constexpr int pick_rounds()
  {
    int r = round_tiles >= 64 ? 1 : 64 / round_tiles;
    while (r > 1 && ring_for(r * round_tiles) * sizeof(T) > staging_bytes)
    {
      r /= 2;
    }
    return r;
  }
  static constexpr int rounds      = pick_rounds();
  static constexpr int batch_tiles = rounds * round_tiles;
  static constexpr int ring_tiles  = ring_for(batch_tiles);
  static_assert(ring_tiles * sizeof(T) <= 3 * staging_bytes,
                "rk tuning: the block body keeps about 2 * block_threads / 32 * chunks_in_flight values of T in "
                "shared memory, more than fits: lower chunks_in_flight or block_threads, or reduce a smaller T");
};

/// Warp 0: runs the tree of every window from `next_window` on whose tiles in the part are all in
/// the ring (`loaded_end` is the end of the tiles stored so far), and moves `next_window` past them.
template <class T, class Op>
__device__ __forceinline__ void run_loaded_windows(offset_t& next_window, offset_t loaded_end, const T* ring,
                                                   offset_t ring_mask, const part_results<T>& results, T* pending,
                                                   Op& op, int lane)
{
  const tile_span& span = results.span;
  for (; next_window < loaded_end && (next_window + warp_threads <= loaded_end || loaded_end == span.end);
       next_window += warp_threads)
  {
    // The part's tiles in the window: lanes [lo, hi).
    const int lo = window_offset(span.begin, next_window);
    const int hi = window_offset(span.end, next_window);
    uninitialized<T> x;
    if (lane >= lo && lane < hi)
    {
      x.emplace(ring[(next_window + lane) & ring_mask]);
    }
    window_tree(x.value, next_window, lo, hi, results, pending, op, lane);
  }
}

/// The shared body: block `part` reduces its tiles and stores its node values and pieces. When the
/// split has a single node, every thread returns it instead (the caller can finish without a round
/// trip through memory).
///
/// The block walks its tiles from the first, whatever their alignment, so a part of r rounds' worth
/// of tiles costs r memory round trips; warp 0 runs the tree of every window whose tiles are all
/// in after each batch.
template <int BlockThreads, int InFlight, int LaneItems, class T, class It, class Chunks, class Op>
__device__ maybe<T> tree_reduce_part(It first, const Chunks& chunks, const tree_plan& plan, offset_t part,
                                     const tree_outputs<T>& out, Op& op)
{
  using staging                = tile_staging<BlockThreads, InFlight, T>;
  constexpr int round_tiles    = staging::round_tiles;
  constexpr offset_t ring_mask = staging::ring_tiles - 1;
  const int lane               = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp               = static_cast<int>(threadIdx.x) / warp_threads;

  __shared__ alignas(T) unsigned char ring_raw[staging::ring_tiles * sizeof(T)];
  __shared__ alignas(T) unsigned char pending_raw[max_node_level * sizeof(T)];
  __shared__ alignas(T) unsigned char root_raw[sizeof(T)]; // in shared memory: a local's address spills it
  T* ring    = reinterpret_cast<T*>(ring_raw);
  T* pending = reinterpret_cast<T*>(pending_raw);
  T* root    = reinterpret_cast<T*>(root_raw);

  const tile_split& split = plan.split;
  const bool single_node  = split.nodes() == 1;
  const part_results<T> results{out, split, split.span(part), part, single_node ? root : out.nodes};
  const tile_span& span     = results.span;
  const offset_t full_tiles = plan.items / (offset_t{warp_threads} * LaneItems);

  // The short last tile, if the part has it, is reduced after the full ones (by warp 0, into the
  // ring, before its window's tree): the rounds then need no per-tile test of it.
  const offset_t full_end = span.end < full_tiles ? span.end : full_tiles;
  offset_t next_window    = span.begin / warp_threads * warp_threads; // warp 0's: the first window not yet run
  for (offset_t batch = span.begin; batch < span.end; batch += staging::batch_tiles)
  {
    const offset_t batch_end      = batch + staging::batch_tiles < span.end ? batch + staging::batch_tiles : span.end;
    const offset_t full_batch_end = batch_end < full_end ? batch_end : full_end;
    for (offset_t round = batch; round < full_batch_end; round += round_tiles)
    {
      const offset_t mine = round + warp * InFlight;
      typename Chunks::fragment f[InFlight];
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        if (mine + u < full_batch_end)
        {
          chunks.load(mine + u, lane, f[u], op);
        }
      }
#pragma unroll
      for (int u = 0; u < InFlight; ++u)
      {
        if (mine + u < full_batch_end)
        {
          const T value = warp_reduce(chunks.reduce(f[u], op), op, lane);
          if (lane == 0)
          {
            ::new (static_cast<void*>(ring + ((mine + u) & ring_mask))) T(value);
          }
        }
      }
    }
    if (batch_end == span.end && full_end < span.end && warp == 0)
    {
      const T value = tile_value<LaneItems, T>(first, full_end * (offset_t{warp_threads} * LaneItems),
                                               plan.items - full_end * (offset_t{warp_threads} * LaneItems), op, lane);
      if (lane == 0)
      {
        ::new (static_cast<void*>(ring + (full_end & ring_mask))) T(value);
      }
    }
    __syncthreads();
    if (warp == 0)
    {
      run_loaded_windows(next_window, batch_end, ring, ring_mask, results, pending, op, lane);
    }
  }
  maybe<T> whole;
  if (single_node)
  {
    __syncthreads(); // thread 0 stored the only node (it starts at tile 0): every thread reads it
    whole.set(*root);
  }
  return whole;
}
} // namespace rk::detail

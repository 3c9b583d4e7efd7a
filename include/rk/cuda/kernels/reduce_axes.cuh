#pragma once
// rk::reduce_axes's column engine: the __global__ entry points. Both kernels give a block `width`
// adjacent outputs and `runs` threads per output, each folding a run of 2^run_level aligned leaves
// of its output with the binary counter, and combine an output's runs in the block
// (combine_column_runs), so a block's value for an output is one tree node. column_nodes_kernel's
// leaves are lanes of x's items (column_node); with one chunk per output it writes op(init, node)
// to the output, otherwise the chunk's node to scratch, and column_finish_kernel's leaves are
// those chunk nodes (2^chunk_level lanes each, aligned: the tree's nodes at that level).
// Narrow outputs (a tall matrix's few columns) thus get many threads each, wide ones one. Where a
// column is one run of an output's items (column_layout), the nodes go where the output's tree
// has them, and a block whose columns are consecutive runs of one output combines them too.

#include <rk/cuda/agent/column_tree.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_layouts.hpp>
#include <rk/detail/input_adaptors.hpp>

#include <cuda/std/bit>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

namespace rk::detail
{
/// How a column kernel's block covers its outputs: `width` adjacent outputs (a power of two), and
/// for each `runs` threads (a power of two; width * runs <= column_block_threads) that fold runs of
/// 2^run_level leaves one after another before the block combines them.
struct column_threads
{
  int width;
  int runs;
  int run_level;

  RK_HOST_DEVICE constexpr int width_level() const
  {
    return cuda::std::countr_zero(static_cast<unsigned>(width));
  }
  RK_HOST_DEVICE constexpr int runs_level() const
  {
    return cuda::std::countr_zero(static_cast<unsigned>(runs));
  }
  /// Leaves one block combines per output: 2^(run_level + log2 runs).
  RK_HOST_DEVICE constexpr int block_level() const
  {
    return run_level + runs_level();
  }
};

/// How the column nodes kernel covers x: blocks of column_threads (each thread `vector` adjacent
/// outputs) over `column_tiles` tiles of adjacent outputs in each group, times `chunks` chunks of
/// 2^block_level() lanes.
struct column_grid
{
  column_threads threads;
  int vector;            ///< adjacent outputs per thread, read as one vector per item row (or 1)
  offset_t column_tiles; ///< ceil(columns / (width * vector))
  offset_t lanes;        ///< lanes of each column
  offset_t chunks;       ///< chunks of each column
  /// The block's adjacent columns are consecutive runs of one output, whole (one chunk each), and
  /// the block combines them into one node (column_layout::nodes_at).
  bool across;
};

/// Where output o's chunk node c lies in the finish's scratch: nodes[c * chunk_step + o * output_step].
/// Chunk-major (chunk_step = outputs, output_step = 1) where a warp of the finish reads adjacent
/// outputs, so each of its loads is one run; output-major (chunk_step = 1, output_step the chunks
/// rounded up to column_finish_batch) where a warp reads runs of a few outputs' chunks, so each
/// thread's batch is one run of bytes, read as 16-byte vectors (column_finish_kernel).
struct chunk_node_layout
{
  offset_t chunk_step;
  offset_t output_step;

  RK_HOST_DEVICE constexpr offset_t at(offset_t output, offset_t chunk) const
  {
    return chunk * chunk_step + output * output_step;
  }
};

/// The items of one output: x's, a step apart, under the call's transform.
template <class T, class U, class Transform>
__device__ __forceinline__ auto column_items(const U* column, offset_t step, const Transform& transform)
{
  if constexpr (std::is_same_v<Transform, untransformed>)
  {
    return strided_column<U>{{}, column, step};
  }
  else
  {
    return transformed_input<strided_column<U>, Transform, T>(strided_column<U>{{}, column, step}, transform);
  }
}

/// A thread's output and run in a block of `threads`, and how many of the block's runs of an
/// output's `leaves` leaves starting at `first_leaf` hold any.
struct column_place
{
  int run;
  int busy_runs;
  offset_t run_begin;
  offset_t run_end;
};

__device__ __forceinline__ column_place place_in_block(const column_threads& threads, offset_t first_leaf,
                                                       offset_t leaves)
{
  // Shifts, not divisions: every extent here is a power of two, and the finish is short enough
  // that a division's chain before its first load shows.
  const int run           = static_cast<int>(threadIdx.x) >> threads.width_level();
  const offset_t in_block = leaves - first_leaf;
  const offset_t block    = offset_t{1} << threads.block_level();
  const offset_t held     = in_block < block ? in_block : block;
  const offset_t run_mask = (offset_t{1} << threads.run_level) - 1;
  const offset_t begin    = first_leaf + (offset_t{run} << threads.run_level);
  const offset_t end      = begin + run_mask + 1;
  return {run, static_cast<int>((held + run_mask) >> threads.run_level), begin, end < leaves ? end : leaves};
}

/// The block's node per output from its threads' run nodes (`mine`, valid where the thread's run
/// is busy): valid in each output's run-0 thread. Every thread calls it.
template <class T, class Op>
__device__ __forceinline__ T block_column_node(const column_threads& threads, const column_place& at, bool column_busy,
                                               const T& mine, Op& op)
{
  if constexpr (column_runs_fit<T, column_block_threads>)
  {
    if (threads.runs > 1)
    {
      return combine_column_runs<column_block_threads>(mine, threads.width, threads.runs, at.run, at.busy_runs,
                                                       column_busy, op);
    }
  }
  return mine;
}

/// What the tree combines for an item of x: the item, or its transform as T, settled as
/// transformed_input settles it (unsettled, nvcc fused a square's multiply into the sum's add in
/// the vector path's short-lane fold: other bits than rk::host's).
template <class T, class Transform>
struct column_value
{
  Transform transform;
  template <class U>
  __device__ __forceinline__ T operator()(const U& u) const
  {
    return settled(static_cast<T>(transform(u)));
  }
};
template <class T>
struct column_value<T, untransformed>
{
  untransformed transform;
  template <class U>
  __device__ __forceinline__ const U& operator()(const U& u) const
  {
    return u;
  }
};

/// op(init, value[c]) into out[output + c] for the V outputs of a thread. Into a plain array, on the
/// vector's alignment, as one store of all V: stores of one output each wrote a quarter of each
/// sector they touched (ncu, 8 x 2^23 float columns).
template <int V, class T, class Output, class Op>
__device__ __forceinline__ void write_column_outputs(Output out, offset_t output, const T& init,
                                                     const uninitialized<T> (&value)[V], Op& op)
{
  constexpr std::size_t bytes = V * sizeof(T);
  if constexpr (std::is_pointer_v<Output> && V > 1 && (bytes == 8 || bytes == 16))
  {
    using word = std::conditional_t<bytes == 16, uint4, uint2>;
    if (reinterpret_cast<std::uintptr_t>(out + output) % bytes == 0)
    {
      alignas(word) unsigned char results[bytes];
#pragma unroll
      for (int c = 0; c < V; ++c)
      {
        ::new (static_cast<void*>(results + c * sizeof(T))) T(op(init, value[c].value));
      }
      word w;
      __builtin_memcpy(&w, results, bytes);
      *reinterpret_cast<word*>(out + output) = w;
      return;
    }
  }
#pragma unroll
  for (int c = 0; c < V; ++c)
  {
    out[output + c] = op(init, value[c].value);
  }
}

/// Where a block's node over its columns' runs goes (grid.across): the columns of a block are
/// consecutive runs of one output, aligned on the block's width, so their nodes combined by the
/// tree's pairwise rule are the node over those runs. Written by thread 0, into out (op(init,
/// node)) where that node is the whole output (no scratch), else into the nodes. Every thread calls
/// it.
template <class T, class Output, class Op>
__device__ __forceinline__ void write_across_columns(const column_layout& layout, const column_grid& grid,
                                                     offset_t group, offset_t tile, T* nodes, chunk_node_layout node_at,
                                                     Output out, const T& init, const T& value, Op& op)
{
  const offset_t left = layout.columns - tile * grid.threads.width;
  const int busy      = left < grid.threads.width ? static_cast<int>(left) : grid.threads.width;
  const int t         = static_cast<int>(threadIdx.x);
  const T node        = combine_column_runs<column_block_threads>(value, 1, grid.threads.width, t, busy, true, op);
  if (t == 0)
  {
    if (nodes == nullptr)
    {
      out[group] = op(init, node);
    }
    else
    {
      nodes[layout.nodes_at.offset(group) + tile * node_at.chunk_step] = node;
    }
  }
}

/// V adjacent outputs per thread (column_vector_outputs, where the layout allows it and no output
/// has more than column_vector_lanes lanes of items; 1 otherwise). With Runs, a column is one run
/// of an output's items and its chunk nodes (or, across, its block's node) go where
/// layout.nodes_at says; out then takes an output per group, written only when a block's node is
/// the whole output. With V > 1 an output's node is its lanes' values (column_lanes_vector) folded
/// in order, with no counter: counters sized for runs of 64 lanes had 8 x 2^23 float columns issue
/// 26 instructions an item at 112 registers (103.1 us, against 87.4 without them, H200).
template <int V, bool Runs, class T, class U, class Transform, class Output, class Op>
__global__ void __launch_bounds__(column_block_threads, column_nodes_min_blocks(sizeof(T)))
  column_nodes_kernel(const U* x, Transform transform, column_layout layout, column_grid grid, T* nodes,
                      chunk_node_layout node_at, Output out, T init, Op op)
{
  // 32-bit divisions: the grid has fewer than 2^31 blocks (plan_columns), so each factor fits.
  const unsigned block   = blockIdx.x;
  const auto tiles       = static_cast<unsigned>(grid.column_tiles);
  const auto groups      = static_cast<unsigned>(layout.groups);
  const offset_t tile    = block % tiles;
  const unsigned rest    = block / tiles;
  const offset_t group   = rest % groups;
  const offset_t chunk   = rest / groups;
  const offset_t col     = (tile * grid.threads.width + (static_cast<int>(threadIdx.x) & (grid.threads.width - 1))) * V;
  const bool column_busy = col < layout.columns;
  const column_place at  = place_in_block(grid.threads, chunk << grid.threads.block_level(), grid.lanes);
  uninitialized<T> node[V];
  if (column_busy && at.run < at.busy_runs)
  {
    const U* first = x + (layout.outer.offset(group) + col);
    if constexpr (V == 1)
    {
      // Across, a thread's run may be longer (column_across_max_run_level): more counter levels.
      constexpr int levels = (Runs ? column_across_max_run_level : column_max_run_level) + 1;
      node[0].emplace(column_node<T, levels>(column_items<T>(first, layout.step, transform), layout.items, at.run_begin,
                                             at.run_end, op));
    }
    else
    {
      // At most column_vector_lanes lanes an output, all in this run: two lanes folded left to right
      // are their pairwise node.
      constexpr int lanes = column_vector_lanes<std::remove_cv_t<U>>;
      static_assert(lanes >= 1 && lanes <= 2, "a left fold of the lanes is their node");
      column_lanes_vector<V, T>(first, layout.step, column_value<T, Transform>{transform}, layout.items, at.run_begin,
                                op, node);
#pragma unroll
      for (int l = 1; l < lanes; ++l)
      {
        if (at.run_begin + l < at.run_end)
        {
          uninitialized<T> right[V];
          column_lanes_vector<V, T>(first, layout.step, column_value<T, Transform>{transform}, layout.items,
                                    at.run_begin + l, op, right);
#pragma unroll
          for (int c = 0; c < V; ++c)
          {
            node[c].emplace(op(node[c].value, right[c].value));
          }
        }
      }
    }
  }
  const offset_t output = group * layout.columns + col;
  uninitialized<T> value[V];
#pragma unroll
  for (int c = 0; c < V; ++c)
  {
    value[c].emplace(block_column_node(grid.threads, at, column_busy, node[c].value, op));
  }
  if constexpr (Runs)
  {
    static_assert(V == 1, "a run's column is read item by item");
    if (grid.across)
    {
      if constexpr (column_runs_fit<T, column_block_threads>)
      {
        write_across_columns(layout, grid, group, tile, nodes, node_at, out, init, value[0].value, op);
      }
    }
    else if (column_busy && at.run == 0)
    {
      nodes[layout.nodes_at.offset(output) + chunk * node_at.chunk_step] = value[0].value;
    }
    return;
  }
  if (column_busy && at.run == 0)
  {
    if (nodes == nullptr)
    {
      write_column_outputs(out, output, init, value, op);
    }
    else
    {
#pragma unroll
      for (int c = 0; c < V; ++c)
      {
        nodes[node_at.at(output + c, chunk)] = value[c].value;
      }
    }
  }
}

/// Chunk nodes [first, first + count) of one output, count at most column_finish_batch, all loaded
/// before any is used: one round trip for the batch. A full batch that is one aligned run of bytes
/// (output-major nodes) is read as 16-byte vectors.
template <class T>
__device__ __forceinline__ void load_chunk_nodes(const T* nodes, chunk_node_layout node_at, offset_t output,
                                                 offset_t first, int count,
                                                 uninitialized<T> (&batch)[column_finish_batch])
{
  const T* run                = nodes + node_at.at(output, first);
  constexpr std::size_t bytes = column_finish_batch * sizeof(T);
  if constexpr (bytes % vector_bytes == 0)
  {
    if (node_at.chunk_step == 1 && count == column_finish_batch
        && reinterpret_cast<std::uintptr_t>(run) % vector_bytes == 0)
    {
      alignas(T) unsigned char raw[bytes];
#pragma unroll
      for (std::size_t w = 0; w < bytes / vector_bytes; ++w)
      {
        const uint4 word = reinterpret_cast<const uint4*>(run)[w];
        __builtin_memcpy(raw + w * vector_bytes, &word, vector_bytes);
      }
#pragma unroll
      for (int i = 0; i < column_finish_batch; ++i)
      {
        batch[i].emplace(*reinterpret_cast<const T*>(raw + i * sizeof(T)));
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < column_finish_batch; ++i)
  {
    if (i < count)
    {
      batch[i].emplace(run[i * node_at.chunk_step]);
    }
  }
}

/// The node over chunk nodes [begin, end) of one output through `fold` (a pairwise counter), a
/// batch of loads at a time.
template <class T, class Fold, class Op>
__device__ __forceinline__ T fold_chunk_nodes(const T* nodes, chunk_node_layout node_at, offset_t output,
                                              offset_t begin, offset_t end, Fold& fold, Op& op)
{
  for (offset_t chunk = begin; chunk < end; chunk += column_finish_batch)
  {
    const int count = end - chunk < column_finish_batch ? static_cast<int>(end - chunk) : column_finish_batch;
    uninitialized<T> batch[column_finish_batch];
    load_chunk_nodes(nodes, node_at, output, chunk, count, batch);
#pragma unroll
    for (int i = 0; i < column_finish_batch; ++i)
    {
      if (i < count)
      {
        fold.push(batch[i].value, op);
      }
    }
  }
  return fold.finish(op);
}

/// The finish's body: op(init, root) per output from its `chunks` chunk nodes
/// (nodes[node_at.at(output, chunk)]), each thread's run of them folded by `fold_run(output,
/// place)` and the runs combined in the block.
template <class T, class Output, class Op, class FoldRun>
__device__ __forceinline__ void finish_columns(offset_t outputs, offset_t chunks, const column_threads& threads,
                                               Output out, const T& init, Op& op, FoldRun fold_run)
{
  const offset_t output = (offset_t{blockIdx.x} << threads.width_level())
                        + (static_cast<int>(threadIdx.x) & (threads.width - 1));
  const bool column_busy = output < outputs;
  const column_place at  = place_in_block(threads, 0, chunks);
  uninitialized<T> node;
  if (column_busy && at.run < at.busy_runs)
  {
    node.emplace(fold_run(output, at));
  }
  const T value = block_column_node(threads, at, column_busy, node.value, op);
  if (column_busy && at.run == 0)
  {
    out[output] = op(init, value);
  }
}

/// The finish where each thread's run is at most column_finish_batch nodes (every output of up to
/// 2,048 chunks): loaded at once and combined by an unrolled tree (pairwise_batch). The finish is
/// a short chain of dependent steps in a few blocks, so its instructions are its time: this path
/// is a kernel of its own (224 SASS instructions for float sums, against 2,856 with the long-run
/// paths beside it) and every extent a shift (place_in_block). With both, 2^23 x 8 float column
/// sums took 69.9-70.2 us against 71.4-71.6 (H200, CUDA events).
template <class T, class Output, class Op>
__global__ void __launch_bounds__(column_block_threads)
  column_finish_kernel(const T* nodes, chunk_node_layout node_at, offset_t outputs, offset_t chunks,
                       column_threads threads, Output out, T init, Op op)
{
  finish_columns(outputs, chunks, threads, out, init, op, [&](offset_t output, const column_place& at) {
    const int count = static_cast<int>(at.run_end - at.run_begin);
    uninitialized<T> batch[column_finish_batch];
    load_chunk_nodes(nodes, node_at, output, at.run_begin, count, batch);
    pairwise_batch(batch, count, op);
    return batch[0].value;
  });
}

/// The finish where runs are longer: batch by batch, through the register counter for T of up to 8
/// bytes (pairwise_fold's levels in local memory had made a tall matrix's finish a 10.4 us chain,
/// ncu), through pairwise_fold for larger T.
template <class T, class Output, class Op>
__global__ void __launch_bounds__(column_block_threads)
  column_finish_long_kernel(const T* nodes, chunk_node_layout node_at, offset_t outputs, offset_t chunks,
                            column_threads threads, Output out, T init, Op op)
{
  finish_columns(outputs, chunks, threads, out, init, op, [&](offset_t output, const column_place& at) {
    if constexpr (sizeof(T) <= 8)
    {
      if (threads.run_level <= column_max_run_level)
      {
        register_fold<T, column_max_run_level + 1> fold;
        return fold_chunk_nodes(nodes, node_at, output, at.run_begin, at.run_end, fold, op);
      }
    }
    pairwise_fold<T, column_fold_levels> fold;
    return fold_chunk_nodes(nodes, node_at, output, at.run_begin, at.run_end, fold, op);
  });
}
} // namespace rk::detail

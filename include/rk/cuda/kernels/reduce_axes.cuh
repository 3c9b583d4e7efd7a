#pragma once
// rk::reduce_axes's column engine: the __global__ entry points. column_nodes_kernel gives each
// (output, chunk of its lanes) a thread that computes the chunk's tree node (column_node); with
// one chunk per output it writes op(init, node) to the output, otherwise the node to scratch,
// and column_finish_kernel folds each output's chunk nodes with the same binary counter (the
// chunks are 2^k lanes each, aligned, so their nodes are the tree's nodes at level k).

#include <rk/cuda/agent/column_tree.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_map.hpp>
#include <rk/detail/input_adaptors.hpp>

#include <type_traits>

namespace rk::detail
{
/// How the column engine's threads cover the outputs and their lanes.
struct column_grid
{
  int width;             ///< adjacent outputs per block row (a power of two, 32 to 256)
  int rows;              ///< chunks per block: column_block_threads / width
  offset_t column_tiles; ///< ceil(columns / width)
  offset_t chunk_blocks; ///< ceil(chunks / rows)
  offset_t lanes;        ///< lanes of each output
  int chunk_level;       ///< a chunk is 2^chunk_level lanes
  offset_t chunks;       ///< chunks of each output
};

/// The items of one output: x's, a step apart, under the call's transform.
template <class T, class U, class Transform>
__device__ __forceinline__ auto column_items(const U* column, offset_t step, const Transform& transform)
{
  if constexpr (std::is_same_v<Transform, untransformed>)
  {
    return strided_items<U>{{}, column, step};
  }
  else
  {
    return transformed_input<strided_items<U>, Transform, T>(strided_items<U>{{}, column, step}, transform);
  }
}

template <class T, class U, class Transform, class Output, class Op>
__global__ void __launch_bounds__(column_block_threads)
  column_nodes_kernel(const U* x, Transform transform, column_layout layout, column_grid grid, T* nodes, Output out,
                      T init, Op op)
{
  const offset_t block = blockIdx.x;
  const offset_t tile  = block % grid.column_tiles;
  const offset_t rest  = block / grid.column_tiles;
  const offset_t group = rest % layout.groups;
  const offset_t chunk = (rest / layout.groups) * grid.rows + threadIdx.x / grid.width;
  const offset_t col   = tile * grid.width + threadIdx.x % grid.width;
  if (col >= layout.columns || chunk >= grid.chunks)
  {
    return;
  }
  const auto items          = column_items<T>(x + (layout.outer.offset(group) + col), layout.step, transform);
  const offset_t lane_begin = chunk << grid.chunk_level;
  const offset_t lane_end   = lane_begin + (offset_t{1} << grid.chunk_level);
  const T node = column_node<T>(items, layout.items, lane_begin, lane_end < grid.lanes ? lane_end : grid.lanes, op);
  const offset_t output = group * layout.columns + col;
  if (grid.chunks == 1)
  {
    out[output] = op(init, node);
  }
  else
  {
    nodes[chunk * (layout.groups * layout.columns) + output] = node;
  }
}

template <class T, class Output, class Op>
__global__ void __launch_bounds__(column_block_threads)
  column_finish_kernel(const T* nodes, offset_t outputs, offset_t chunks, Output out, T init, Op op)
{
  const offset_t output = offset_t{blockIdx.x} * column_block_threads + threadIdx.x;
  if (output >= outputs)
  {
    return;
  }
  // Loads a batch of nodes before it combines them: one round trip per batch, not per node.
  pairwise_fold<T, column_fold_levels> fold;
  for (offset_t chunk = 0; chunk < chunks; chunk += column_finish_batch)
  {
    uninitialized<T> batch[column_finish_batch];
#pragma unroll
    for (int i = 0; i < column_finish_batch; ++i)
    {
      if (chunk + i < chunks)
      {
        batch[i].emplace(nodes[(chunk + i) * outputs + output]);
      }
    }
#pragma unroll
    for (int i = 0; i < column_finish_batch; ++i)
    {
      if (chunk + i < chunks)
      {
        fold.push(batch[i].value, op);
      }
    }
  }
  out[output] = op(init, fold.finish(op));
}
} // namespace rk::detail

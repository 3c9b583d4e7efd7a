#pragma once
// rk::reduce_axes's column engine on the host side: how a column reduction (rk/detail/
// axes_layouts.hpp's column_layout) is cut into blocks, chunks and runs of lanes (plan_columns),
// where the nodes go between its two kernels, and their launches (rk/cuda/kernels/reduce_axes.cuh).
// rk/cuda/dispatch/reduce_axes.cuh picks this route; the runs route borrows its finish.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/kernels/reduce_axes.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_layouts.hpp>
#include <rk/detail/integer.hpp>

#include <cuda/std/bit>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// Runs of 2^level leaves of one output: the smallest level with at most `runs` runs.
inline int run_level_for(offset_t leaves, offset_t runs)
{
  const offset_t per_run = ceil_div(leaves, runs < 1 ? offset_t{1} : runs);
  int level              = 0;
  while ((offset_t{1} << level) < per_run)
  {
    ++level;
  }
  return level;
}

/// `runs` threads per output in a block (at most max_runs, and no more than the runs that hold
/// leaves), the rest of the block's threads side by side over adjacent outputs.
inline column_threads threads_for(offset_t width, offset_t leaves, int run_level, int max_runs)
{
  const offset_t needed = ceil_div(leaves, offset_t{1} << run_level);
  int runs              = 1;
  while (runs < max_runs && runs < needed)
  {
    runs *= 2;
  }
  return {static_cast<int>(width), runs, run_level};
}

/// Whether each thread may read `vector` adjacent outputs' items of a row as one aligned load: the
/// columns, the step and every other kept axis's stride in whole vectors, x on the vector's grid.
template <class U>
bool columns_as_vectors(const column_layout& layout, const U* data, int vector)
{
  if (vector == 1 || layout.columns % vector != 0 || layout.step % vector != 0
      || reinterpret_cast<std::uintptr_t>(data) % (vector * sizeof(U)) != 0)
  {
    return false;
  }
  for (int k = 0; k < layout.outer.rank; ++k)
  {
    if (layout.outer.extent[k] != 1 && layout.outer.stride[k] % vector != 0)
    {
      return false;
    }
  }
  return true;
}

/// The grid of a reduction of runs whose blocks combine their columns (column_grid::across): the
/// narrowest block whose rows are column_across_row_bytes wide and whose threads each fold at
/// least 2^column_across_min_run_level lanes, every run in one chunk. Narrow blocks give the most threads
/// (a run's items lie a step apart, so a thread folds them one load at a time), and a block's
/// columns are a node of the output's runs only where the runs' other axes leave the columns
/// axis whole blocks.
template <class T, class U>
bool plan_across(const column_layout& layout, const column_axes& axes, column_grid& grid)
{
  constexpr offset_t row_items = sizeof(U) >= column_across_row_bytes
                                 ? 1
                                 : column_across_row_bytes / static_cast<int>(sizeof(U));
  if (!axes.side_by_side || !column_runs_fit<T, column_block_threads>)
  {
    return false;
  }
  offset_t width = 1;
  while (width < column_block_threads
         && (width < row_items || grid.lanes * width < (offset_t{column_block_threads} << column_across_min_run_level)))
  {
    width *= 2;
  }
  const int block_runs = static_cast<int>(column_block_threads / width);
  const int run_level  = run_level_for(grid.lanes, block_runs);
  if (run_level > column_across_max_run_level || (axes.runs != layout.columns && layout.columns % width != 0))
  {
    return false;
  }
  grid.vector       = 1;
  grid.column_tiles = ceil_div(layout.columns, width);
  grid.threads = threads_for(width, grid.lanes, run_level < column_min_run_level ? column_min_run_level : run_level,
                             block_runs);
  grid.chunks  = 1;
  grid.across  = true;
  return true;
}

/// The column engine's grid for `plan`, if the plan is a column reduction (as_columns): false
/// sends the call on to the other routes. A block's threads cover up to column_block_threads
/// adjacent groups of `vector` columns, and the threads left over when there are fewer take runs
/// of the same columns' lanes; runs are as long as the thread target (column_waves) allows.
/// Columns that are runs of an output combine across the block where they can (plan_across).
template <class T, class U>
bool plan_columns(const axes_plan& plan, const U* data, const device_facts& device, column_layout& layout,
                  column_axes& axes, column_grid& grid)
{
  using item = std::remove_cv_t<U>;
  if (!as_columns(plan, tile_lane_items<item>, layout, axes))
  {
    return false;
  }
  constexpr int max_runs = column_runs_fit<T, column_block_threads> ? column_block_threads : 1;
  grid.lanes             = ceil_div(layout.items, offset_t{tile_lane_items<item>});
  grid.across            = false;
  if (axes.runs > 1 && plan_across<T, item>(layout, axes, grid))
  {
    return grid.column_tiles * layout.groups <= INT_MAX;
  }
  // Vectors only where each output has at most column_vector_lanes lanes (a wide array's few rows):
  // there four outputs a thread read 16 bytes a load instead of 4, and 8 x 2^23 floats took 126 us
  // instead of 146. For longer columns the four counters cost more occupancy than the wide loads
  // gain (8192 x 8192: 150 us against 112; H100, rk_perf_axes). A run is read item by item.
  grid.vector                   = axes.runs == 1 && grid.lanes <= column_vector_lanes<item>
                 && columns_as_vectors(layout, data, column_vector_outputs<item>)
                                  ? column_vector_outputs<item>
                                  : 1;
  const offset_t threads_across = ceil_div(layout.columns, offset_t{grid.vector});
  offset_t width                = 1;
  while (width < threads_across && width < column_block_threads)
  {
    width *= 2;
  }
  grid.column_tiles              = ceil_div(threads_across, width);
  const offset_t threads_per_run = grid.column_tiles * width * layout.groups;
  const offset_t target = offset_t{column_waves} * device.multiprocessors * device.max_threads_per_multiprocessor;
  int run_level         = run_level_for(grid.lanes, target / threads_per_run);
  run_level             = run_level < column_min_run_level ? column_min_run_level : run_level;
  run_level             = run_level > column_max_run_level ? column_max_run_level : run_level;
  const int block_runs  = static_cast<int>(column_block_threads / width);
  grid.threads          = threads_for(width, grid.lanes, run_level, max_runs < block_runs ? max_runs : block_runs);
  grid.chunks           = ceil_div(grid.lanes, offset_t{1} << grid.threads.block_level());
  return grid.column_tiles * layout.groups * grid.chunks <= INT_MAX;
}

/// The finish's blocks: each output's chunk nodes over enough threads that each folds at most
/// column_finish_batch of them (one round of loads), when T fits the block's exchange.
template <class T>
column_threads finish_threads(offset_t chunks)
{
  constexpr int max_runs = column_runs_fit<T, column_block_threads> ? column_block_threads : 1;
  column_threads threads =
    threads_for(1, chunks, run_level_for(chunks, ceil_div(chunks, offset_t{column_finish_batch})), max_runs);
  // A run no longer than the block allows once the runs are capped.
  threads.run_level = run_level_for(chunks, threads.runs);
  threads.width     = column_block_threads / threads.runs;
  return threads;
}

/// Where the column nodes kernel leaves its chunk nodes for the finish: output-major where a
/// chunk-major read would use less than half of each 32-byte sector the finish's warps fetch (a
/// warp spans width outputs, so width * sizeof(T) bytes of a sector), chunk-major otherwise, where
/// the nodes kernel's stores of adjacent outputs stay whole sectors. Float column sums, the nodes
/// kernel and the finish (H200, CUDA events): one output a finish block (2^23 x 8 to 2^18 x 256)
/// 70.8-73.4 us chunk-major against 69.8-72.3 output-major; four (65536 x 1024) 71.2 against 72.3;
/// 32 (8192 x 8192) 69.7 against 74.0.
template <class T>
chunk_node_layout chunk_nodes_for(offset_t outputs, offset_t chunks)
{
  if (static_cast<std::size_t>(finish_threads<T>(chunks).width) * sizeof(T) < 16)
  {
    return {1, ceil_div(chunks, offset_t{column_finish_batch}) * column_finish_batch};
  }
  return {outputs, 1};
}

/// Enqueues op(init, root) per output from its `chunks` nodes (nodes[node_at.at(output, chunk)]):
/// the column engine's chunk nodes, or the runs route's run nodes. An ordinary launch: starting
/// the finish early (programmatic dependent launch) took room from the nodes kernel's last wave
/// and cost 4-12 % (H200, rk_perf_axes: 2^20 x 64 86.2 against 77.4 us, 8192 x 8192 85.6 against
/// 82.0).
template <class T, class Output, class Op>
void enqueue_column_finish(cudaStream_t stream, const T* nodes, chunk_node_layout node_at, offset_t outputs,
                           offset_t chunks, Output out, const T& init, const Op& op)
{
  const column_threads finish = finish_threads<T>(chunks);
  constexpr int batch_level   = cuda::std::bit_width(static_cast<unsigned>(column_finish_batch)) - 1;
  const auto kernel           = finish.run_level <= batch_level ? column_finish_kernel<T, Output, Op>
                                                                : column_finish_long_kernel<T, Output, Op>;
  launch_kernel(kernel, static_cast<unsigned>(ceil_div(outputs, offset_t{finish.width})), column_block_threads, stream,
                "rk::reduce_axes", nodes, node_at, outputs, chunks, finish, out, init, op);
}

/// The column engine over columns that are whole outputs: output g * columns + c of `out` (x's
/// outputs in their own order, or out's walk over the column axes where they are in another). With
/// one chunk per output the nodes kernel writes op(init, node) itself, else its chunk nodes go to
/// scratch for the column finish.
template <class T, class U, class Transform, class Output, class Op>
void run_columns(cudaStream_t stream, const device_facts& device, const axes_source<U, Transform>& source,
                 const column_layout& layout, const column_grid& grid, Output out, const T& init, const Op& op)
{
  const offset_t outputs = layout.groups * layout.columns;
  const auto blocks      = static_cast<unsigned>(grid.column_tiles * layout.groups * grid.chunks);
  constexpr int vector   = column_vector_outputs<std::remove_cv_t<U>>;
  auto nodes_kernel      = column_nodes_kernel<1, false, T, U, Transform, Output, Op>;
  if constexpr (vector > 1)
  {
    if (grid.vector == vector)
    {
      nodes_kernel = column_nodes_kernel<vector, false, T, U, Transform, Output, Op>;
    }
  }
  if (grid.chunks == 1)
  {
    launch_kernel(nodes_kernel, blocks, column_block_threads, stream, "rk::reduce_axes", source.data, source.transform,
                  layout, grid, static_cast<T*>(nullptr), chunk_node_layout{}, out, init, op);
    return;
  }
  const chunk_node_layout node_at = chunk_nodes_for<T>(outputs, grid.chunks);
  scratch_lease scratch =
    lease_scratch(device.ordinal, stream, 0, sizeof(T),
                  static_cast<std::size_t>(node_at.at(outputs - 1, grid.chunks - 1) + 1) * sizeof(T));
  T* nodes = static_cast<T*>(scratch.partials);
  launch_kernel(nodes_kernel, blocks, column_block_threads, stream, "rk::reduce_axes", source.data, source.transform,
                layout, grid, nodes, node_at, out, init, op);
  enqueue_column_finish(stream, static_cast<const T*>(nodes), node_at, outputs, grid.chunks, out, init, op);
  scratch.close();
}

/// The nodes the column engine leaves per output where its columns are runs (axes.runs > 1), in
/// the output's tree's order: a node per block of each run's columns and per run of the other
/// runs' axes (across), else a node per chunk of each run. One means the nodes kernel writes out.
inline offset_t column_nodes_per_output(const column_layout& layout, const column_axes& axes, const column_grid& grid)
{
  return grid.across ? axes.runs / layout.columns * grid.column_tiles : axes.runs * grid.chunks;
}

/// The column engine over columns that are runs of the outputs: every output's nodes, in its
/// tree's order (its runs', each run's chunks' or its blocks'), go to scratch where
/// column_layout::nodes_at puts them, and the column finish combines them and applies init; where
/// a block's node is a whole output, the nodes kernel writes op(init, node) into out itself.
template <class T, class U, class Transform, class Output, class Op>
void run_column_runs(cudaStream_t stream, const device_facts& device, const axes_source<U, Transform>& source,
                     column_layout layout, const column_axes& axes, const column_grid& grid, T* out_data, Output out,
                     const T& init, const Op& op)
{
  const offset_t outputs = layout.groups * layout.columns / axes.runs;
  const offset_t per_run = grid.across ? grid.column_tiles : grid.chunks;
  const offset_t per_out = column_nodes_per_output(layout, axes, grid);
  const auto blocks      = static_cast<unsigned>(grid.column_tiles * layout.groups * grid.chunks);
  const int digits       = grid.across ? axes.output_of.rank - 1 : axes.output_of.rank;
  if (per_out == 1)
  {
    // Each group's block holds an output, and the groups are the kept axes: out's walk over them.
    axis_walk out_at = axes.out_at;
    out_at.rank      = digits;
    const axes_output<T> group_out{out_data, out_at, 0};
    launch_kernel(column_nodes_kernel<1, true, T, U, Transform, axes_output<T>, Op>, blocks, column_block_threads,
                  stream, "rk::reduce_axes", source.data, source.transform, layout, grid, static_cast<T*>(nullptr),
                  chunk_node_layout{}, group_out, init, op);
    return;
  }
  const chunk_node_layout node_at = chunk_nodes_for<T>(outputs, per_out);
  layout.nodes_at.rank            = digits;
  for (int k = 0; k < digits; ++k)
  {
    // A run's weight counts runs of every column axis; across, the columns axis's runs are the
    // block's, so the other axes' weights count columns-extent runs at a time.
    const offset_t run_weight = grid.across ? axes.run_of.stride[k] / layout.columns : axes.run_of.stride[k];
    layout.nodes_at.extent[k] = axes.output_of.extent[k];
    layout.nodes_at.stride[k] = axes.output_of.stride[k] * node_at.output_step
                              + run_weight * per_run * node_at.chunk_step;
  }
  scratch_lease scratch = lease_scratch(device.ordinal, stream, 0, sizeof(T),
                                        static_cast<std::size_t>(node_at.at(outputs - 1, per_out - 1) + 1) * sizeof(T));
  T* nodes              = static_cast<T*>(scratch.partials);
  launch_kernel(column_nodes_kernel<1, true, T, U, Transform, axes_output<T>, Op>, blocks, column_block_threads, stream,
                "rk::reduce_axes", source.data, source.transform, layout, grid, nodes, node_at,
                axes_output<T>{out_data, axis_walk{}, 0}, init, op);
  enqueue_column_finish(stream, static_cast<const T*>(nodes), node_at, outputs, per_out, out, init, op);
  scratch.close();
}
} // namespace rk::detail

#pragma once
// rk::reduce_axes for the GPU policies: both views checked to be device memory, then one of three
// routes on the policy's stream (stream-ordered: enqueues and returns). Columns (outputs, or runs
// of an output's items that are whole nodes of its tree, side by side in x, their items a fixed
// step apart: column sums, and layout_left's reductions over several axes) go to the column engine
// (rk/cuda/kernels/reduce_axes.cuh); runs (each output's items whole tree nodes of adjacent items,
// the runs of all outputs end to end in x: batch norm's axes) to the row engine over the runs
// (rk/cuda/dispatch/row_engine.cuh) and the column engine's finish; everything else to the segment
// engine over the outputs' items (rk/detail/axes_as_segments.hpp), where rk::atomic combines into
// out with atomics and so needs out dense. Every route gives every output rk::reduce's bits over
// its items.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/explain.cuh>
#include <rk/cuda/dispatch/flat_engine.cuh>
#include <rk/cuda/dispatch/row_engine.cuh>
#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/cuda/kernels/reduce_axes.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_as_segments.hpp>
#include <rk/detail/integer.hpp>
#include <rk/reduce_axes.hpp>

#include <cuda/std/bit>

#include <climits>
#include <cstdint>
#include <string>
#include <utility>

namespace rk
{
namespace detail
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
  const offset_t runs    = grid.across ? axes.runs / layout.columns : axes.runs;
  const offset_t per_out = runs * per_run;
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

/// Whether `plan` is a reduction of runs (as_runs) whose runs are each one node of the tree: a
/// power-of-two number of whole tiles, so each starts on a node boundary of its output's tree.
template <class U>
bool plan_runs(const axes_plan& plan, run_layout& layout)
{
  constexpr offset_t tile = tile_items<std::remove_cv_t<U>>;
  return as_runs(plan, layout) && layout.run_items % tile == 0
      && (layout.run_items / tile & (layout.run_items / tile - 1)) == 0;
}

/// Runs of whole tree nodes: the fixed-size form's row kernels over x as runs end to end, with no
/// init, give each run's node (every backend runs rk::reduce's tree on rows), and the column
/// finish combines each output's run nodes pairwise, as it does chunk nodes, and applies init.
/// One scratch lease holds the nodes and the rows' own scratch, so the nodes outlive the rows.
template <class Provider, class U, class Transform, class Output, class T, class Op>
void run_runs(cudaStream_t stream, const device_facts& device, const axes_source<U, Transform>& source,
              const axes_plan& plan, const run_layout& layout, Output out, const T& init, const Op& op)
{
  const fixed_segments runs{layout.run_items, layout.runs * plan.outputs};
  with_transform<T>(source, static_cast<const std::remove_cv_t<U>*>(source.data), [&](auto input) {
    using launch = rows_launch<gpu_backend::single_pass, Provider, decltype(input), T*, T, Op, no_segment_init>;
    const launch rows(runs, device);
    const std::size_t nodes_bytes = align_up(static_cast<std::size_t>(runs.count) * sizeof(T), 256);
    scratch_lease scratch         = lease_scratch(device.ordinal, stream, rows.counter_words(), sizeof(T),
                                                  nodes_bytes + rows.scratch_bytes());
    T* nodes                      = static_cast<T*>(scratch.partials);
    rows.enqueue(input, nodes, no_segment_init{}, op, static_cast<unsigned char*>(scratch.partials) + nodes_bytes,
                 scratch.counters, stream);
    enqueue_column_finish(stream, static_cast<const T*>(nodes), chunk_node_layout{plan.outputs, 1}, plan.outputs,
                          layout.runs, out, init, op);
    scratch.close();
  });
}

/// The segment engine over the outputs' items (rk/detail/axes_as_segments.hpp).
template <gpu_backend Backend, class Provider, class U, class Transform, class Output, class T, class BinaryOp>
void enqueue_axes_as_segments(const gpu_policy<Backend, Provider>& policy, const axes_source<U, Transform>& source,
                              const axes_plan& plan, Output output, const T& init, const BinaryOp& op)
{
  with_axes_input<T>(source, plan, [&](auto input) {
    enqueue_segmented_reduce(policy, input, fixed_segments{plan.reduced_items, plan.outputs}, output, init, op);
  });
}
} // namespace detail

template <gpu_backend Backend, class Provider, class U, class Transform, class T, class BinaryOp>
void axes_dispatch(const gpu_policy<Backend, Provider>& policy, const detail::axes_source<U, Transform>& source,
                   const detail::axes_plan& plan, T* out, T init, BinaryOp op)
{
  if (plan.outputs == 0)
  {
    return;
  }
  const detail::device_facts& device = detail::current_device_facts();
  if (plan.reduced_items > 0)
  {
    detail::check_device_accessible(source.data, "the view x", device);
  }
  detail::check_device_accessible(out, "the view out", device);
  // One rule for every shape, though the column and run routes combine no atomics.
  if (Backend == gpu_backend::atomic && !plan.output_is_dense())
  {
    throw error("rk::reduce_axes with rk::atomic combines into out with atomics: out must be one dense run in "
                "row-major order of its axes (a layout_right view with no gaps); use rk::single_pass for others");
  }
  if (plan.outputs == 1 && plan.reduced_items > 0 && plan.rows_are_dense())
  {
    // One output over one dense run of x: rk::reduce_into's flat engine, whose bits these are. The
    // segment engine's one segment took 1.12x the probe's time (8192 x 8192 floats, H200).
    detail::with_transform<T>(source, source.data, [&](auto input) {
      const auto flat_op = detail::gpu_operator<Backend, decltype(input), T>(op);
      detail::with_kernel_input(input, &device, [&](auto kernel_input) {
        detail::enqueue_reduction<Backend, true, Provider>(kernel_input, plan.reduced_items, detail::with_init(init),
                                                           out, flat_op, policy.stream, device);
      });
    });
    return;
  }
  detail::column_layout columns{};
  detail::column_axes column_axes{};
  detail::column_grid grid{};
  if (detail::plan_columns<T>(plan, source.data, device, columns, column_axes, grid))
  {
    // The tree's own bits, on every backend: rk::atomic's rule allows them too.
    const auto device_op = detail::gpu_operator<Backend, const std::remove_cv_t<U>*, T>(op);
    if (column_axes.runs > 1)
    {
      if (plan.output_is_dense())
      {
        detail::run_column_runs(policy.stream, device, source, columns, column_axes, grid, out, out, init, device_op);
      }
      else
      {
        detail::run_column_runs(policy.stream, device, source, columns, column_axes, grid, out,
                                detail::axes_output<T>{out, plan.out, 0}, init, device_op);
      }
    }
    else if (column_axes.in_order && plan.output_is_dense())
    {
      detail::run_columns(policy.stream, device, source, columns, grid, out, init, device_op);
    }
    else
    {
      detail::run_columns(policy.stream, device, source, columns, grid,
                          detail::axes_output<T>{out, column_axes.in_order ? plan.out : column_axes.out_at, 0}, init,
                          device_op);
    }
    return;
  }
  detail::run_layout runs{};
  if (detail::plan_runs<U>(plan, runs))
  {
    const auto device_op = detail::gpu_operator<Backend, const std::remove_cv_t<U>*, T>(op);
    if (plan.output_is_dense())
    {
      detail::run_runs<Provider>(policy.stream, device, source, plan, runs, out, init, device_op);
    }
    else
    {
      detail::run_runs<Provider>(policy.stream, device, source, plan, runs, detail::axes_output<T>{out, plan.out, 0},
                                 init, device_op);
    }
    return;
  }
  if constexpr (Backend == gpu_backend::atomic)
  {
    detail::enqueue_axes_as_segments(policy, source, plan, out, init, op);
  }
  else
  {
    detail::enqueue_axes_as_segments(policy, source, plan, detail::axes_output<T>{out, plan.out, 0}, init, op);
  }
}
namespace detail
{
template <gpu_backend Backend, class Provider, class U, class T, class BinaryOp>
explanation explain_axes_route(const gpu_policy<Backend, Provider>& policy, const axes_plan& plan, const U* data,
                               const T& init, const BinaryOp& op)
{
  using item                = std::remove_cv_t<U>;
  const std::string outputs = std::to_string(plan.outputs);
  const std::string items   = std::to_string(plan.reduced_items);
  if (plan.outputs == 0)
  {
    return {to_string(Backend), "none", "none", 0, "no outputs: launches nothing, never calls op", true};
  }
  if (plan.outputs == 1 && plan.reduced_items > 0 && plan.rows_are_dense())
  {
    explanation e = rk::explain_dispatch(policy, data, data + plan.reduced_items, init, op);
    e.reason      = "one output over one dense run of x: rk::reduce_into's engine. " + e.reason;
    return e;
  }
  column_layout columns{};
  column_axes axes{};
  column_grid grid{};
  if (plan_columns<T>(plan, data, current_device_facts(), columns, axes, grid))
  {
    const auto& t         = grid.threads;
    const std::string per = axes.runs == 1 ? "output" : "run";
    std::string why =
      axes.runs == 1
        ? "the column engine: the " + outputs + " outputs lie side by side in x (" + std::to_string(columns.columns)
            + " adjacent, " + std::to_string(columns.groups) + (columns.groups == 1 ? " group" : " groups")
            + "), each output's " + items + " items " + std::to_string(columns.step) + " apart"
        : "the column engine over runs: each of the " + outputs + " outputs' " + items + " items are "
            + std::to_string(axes.runs) + " runs of " + std::to_string(columns.items) + " items "
            + std::to_string(columns.step) + " apart (whole nodes of its tree), the runs side by side in x ("
            + std::to_string(columns.columns) + " adjacent, " + std::to_string(columns.groups)
            + (columns.groups == 1 ? " group" : " groups") + ")";
    why += "; a block takes " + std::to_string(t.width)
         + (grid.vector == 1 ? " adjacent " + per + "s"
                             : " x " + std::to_string(grid.vector)
                                 + " adjacent outputs (each thread reads its outputs' items of a row as one vector)")
         + " and " + std::to_string(t.runs) + (t.runs == 1 ? " run" : " runs") + " of "
         + std::to_string(std::int64_t{1} << t.run_level) + " lanes of each, "
         + (t.runs == 1 ? "folded by one thread" : "one thread a run, combined in the block");
    if (grid.across)
    {
      why += ", then its " + per + "s combined in the block (consecutive runs of one output)";
      why += grid.column_tiles == 1 && axes.runs == columns.columns
             ? std::string(", written by the block")
             : "; a second kernel combines each output's block nodes";
    }
    else if (grid.chunks == 1 && axes.runs == 1)
    {
      why += "; one chunk per output, written by the block";
    }
    else
    {
      why += "; " + std::to_string(grid.chunks) + (grid.chunks == 1 ? " chunk per " : " chunks per ") + per
           + ", combined by a second kernel";
    }
    why += ". Every backend gives each output rk::reduce's tree over its items (tiles of "
         + std::to_string(tile_items<item>) + " items counted from its first)";
    return {to_string(Backend), "columns", "columns", plan.outputs * plan.reduced_items, why, true};
  }
  run_layout runs{};
  if (plan_runs<U>(plan, runs))
  {
    std::string why = "runs: each of the " + outputs + " outputs' " + items + " items are " + std::to_string(runs.runs)
                    + " runs of " + std::to_string(runs.run_items)
                    + " adjacent items (whole nodes of its tree); the segment engine's row kernels reduce every run "
                      "of x in place to its node (no init), and a second kernel combines each output's run nodes "
                      "pairwise and applies init. Every backend gives each output rk::reduce's tree over its items";
    return {to_string(Backend), "runs", "runs", plan.outputs * plan.reduced_items, why, true};
  }
  const std::string route =
    "the segment engine's fixed-size form over the " + outputs + " outputs' items (" + items + " each), read "
    + (plan.rows_are_dense() ? std::string("as x's rows in place")
                             : std::string("through an index map of the reduced axes (a division per item and axis: "
                                           "the slowest route)"))
    + ". ";
  const axes_source<U, untransformed> source{nullptr, {}};
  explanation e;
  with_axes_input<T>(source, plan, [&](auto input) {
    e = plan.output_is_dense() || Backend == gpu_backend::atomic
        ? explain_segmented_dispatch(policy, input, plan.outputs, static_cast<T*>(nullptr), init, op)
        : explain_segmented_dispatch(policy, input, plan.outputs, axes_output<T>{nullptr, plan.out, 0}, init, op);
  });
  e.size   = plan.outputs * plan.reduced_items;
  e.reason = route + e.reason;
  return e;
}
} // namespace detail

template <gpu_backend Backend, class Provider, class U, class T, class BinaryOp>
explanation explain_axes_dispatch(const gpu_policy<Backend, Provider>& policy, const detail::axes_plan& plan,
                                  const U* data, const T& init, const BinaryOp& op)
{
  explanation e = detail::explain_axes_route(policy, plan, data, init, op);
  if (Backend == gpu_backend::atomic && !plan.output_is_dense())
  {
    e.reason = "rk::atomic needs a dense out (a layout_right view with no gaps): the call throws rk::error. "
             + e.reason;
  }
  return e;
}
} // namespace rk

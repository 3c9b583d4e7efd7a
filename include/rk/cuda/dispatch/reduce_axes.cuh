#pragma once
// rk::reduce_axes for the GPU policies: both views checked to be device memory, then one of two
// engines on the policy's stream (stream-ordered: enqueues and returns). Columns (outputs side by
// side in x, their items a fixed step apart, enough of them) go to the column engine
// (rk/cuda/kernels/reduce_axes.cuh); everything else to the segment engine over the outputs'
// items (rk/detail/axes_as_segments.hpp), where rk::atomic combines into out with atomics and so
// needs out dense. Both give every output rk::reduce's bits over its items.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/cuda/kernels/reduce_axes.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_as_segments.hpp>
#include <rk/detail/integer.hpp>
#include <rk/reduce_axes.hpp>

#include <climits>
#include <utility>

namespace rk
{
namespace detail
{
/// The column engine's grid for `plan`, if the plan is a column reduction with enough outputs
/// (column_min_outputs): false sends the call to the segment engine.
inline bool plan_columns(const axes_plan& plan, int lane_items, const device_facts& device, column_layout& layout,
                         column_grid& grid)
{
  if (!as_columns(plan, layout) || plan.outputs < column_min_outputs)
  {
    return false;
  }
  grid.width = 32;
  while (grid.width < layout.columns && grid.width < column_block_threads)
  {
    grid.width *= 2;
  }
  grid.rows                        = column_block_threads / grid.width;
  grid.column_tiles                = ceil_div(layout.columns, offset_t{grid.width});
  grid.lanes                       = ceil_div(layout.items, offset_t{lane_items});
  const offset_t threads_per_chunk = grid.column_tiles * grid.width * layout.groups;
  const offset_t target = offset_t{column_waves} * device.multiprocessors * device.max_threads_per_multiprocessor;
  offset_t wanted       = target / threads_per_chunk;
  wanted                = wanted < 1 ? 1 : wanted > column_max_chunks ? column_max_chunks : wanted;
  offset_t chunk_lanes  = ceil_div(grid.lanes, wanted);
  chunk_lanes           = chunk_lanes < column_min_chunk_lanes ? column_min_chunk_lanes : chunk_lanes;
  grid.chunk_level      = 0;
  while ((offset_t{1} << grid.chunk_level) < chunk_lanes)
  {
    ++grid.chunk_level;
  }
  grid.chunks       = ceil_div(grid.lanes, offset_t{1} << grid.chunk_level);
  grid.chunk_blocks = ceil_div(grid.chunks, offset_t{grid.rows});
  return grid.column_tiles * layout.groups * grid.chunk_blocks <= INT_MAX;
}

template <class T, class U, class Transform, class Output, class Op>
void run_columns(cudaStream_t stream, const device_facts& device, const axes_source<U, Transform>& source,
                 const column_layout& layout, const column_grid& grid, Output out, const T& init, const Op& op)
{
  const offset_t outputs = layout.groups * layout.columns;
  const auto blocks      = static_cast<unsigned>(grid.column_tiles * layout.groups * grid.chunk_blocks);
  if (grid.chunks == 1)
  {
    launch_kernel(column_nodes_kernel<T, U, Transform, Output, Op>, blocks, column_block_threads, stream,
                  "rk::reduce_axes", source.data, source.transform, layout, grid, static_cast<T*>(nullptr), out, init,
                  op);
    return;
  }
  scratch_lease scratch = lease_scratch(device.ordinal, stream, 0, sizeof(T),
                                        static_cast<std::size_t>(grid.chunks * outputs) * sizeof(T));
  T* nodes              = static_cast<T*>(scratch.partials);
  launch_kernel(column_nodes_kernel<T, U, Transform, Output, Op>, blocks, column_block_threads, stream,
                "rk::reduce_axes", source.data, source.transform, layout, grid, nodes, out, init, op);
  launch_kernel(column_finish_kernel<T, Output, Op>,
                static_cast<unsigned>(ceil_div(outputs, offset_t{column_block_threads})), column_block_threads, stream,
                "rk::reduce_axes", static_cast<const T*>(nodes), outputs, grid.chunks, out, init, op);
  scratch.close();
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
  detail::column_layout columns{};
  detail::column_grid grid{};
  if (detail::plan_columns(plan, detail::tile_lane_items<std::remove_cv_t<U>>, device, columns, grid))
  {
    // The tree's own bits, on every backend: rk::atomic's rule allows them too.
    const auto device_op = detail::gpu_operator<Backend, const std::remove_cv_t<U>*, T>(op);
    if (plan.output_is_dense())
    {
      detail::run_columns(policy.stream, device, source, columns, grid, out, init, device_op);
    }
    else
    {
      detail::run_columns(policy.stream, device, source, columns, grid, detail::axes_output<T>{out, plan.out, 0}, init,
                          device_op);
    }
    return;
  }
  if constexpr (Backend == gpu_backend::atomic)
  {
    if (!plan.output_is_dense())
    {
      throw error("rk::reduce_axes with rk::atomic combines into out with atomics: out must be one dense run in "
                  "row-major order of its axes (a layout_right view with no gaps); use rk::single_pass for others");
    }
    detail::enqueue_axes_as_segments(policy, source, plan, out, init, op);
  }
  else
  {
    detail::enqueue_axes_as_segments(policy, source, plan, detail::axes_output<T>{out, plan.out, 0}, init, op);
  }
}
} // namespace rk

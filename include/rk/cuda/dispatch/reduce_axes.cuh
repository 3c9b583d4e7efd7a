#pragma once
// rk::reduce_axes for the GPU policies: both views checked to be device memory, then one of three
// routes on the policy's stream (stream-ordered: enqueues and returns). Columns (outputs, or runs
// of an output's items that are whole nodes of its tree, side by side in x, their items a fixed
// step apart: column sums, and layout_left's reductions over several axes) go to the column engine
// (rk/cuda/dispatch/reduce_axes_columns.cuh); runs (each output's items whole tree nodes of adjacent items,
// the runs of all outputs end to end in x: batch norm's axes) to the row engine over the runs
// (rk/cuda/dispatch/row_engine.cuh) and the column engine's finish; everything else to the segment
// engine over the outputs' items (rk/detail/axes_as_segments.hpp), where rk::atomic combines into
// out with atomics and so needs out dense. Every route gives every output rk::reduce's bits over
// its items.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/explain.cuh>
#include <rk/cuda/dispatch/flat_engine.cuh>
#include <rk/cuda/dispatch/reduce_axes_columns.cuh>
#include <rk/cuda/dispatch/row_engine.cuh>
#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_as_segments.hpp>
#include <rk/detail/integer.hpp>
#include <rk/reduce_axes.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace rk
{
namespace detail
{
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

/// Calls `f` with what the segment route writes out through: out itself where out is dense and
/// x's rows are read in place (axes_output's index arithmetic made the long-row kernels spill
/// there: double rows of 8192 x 8192 took 204 us through it against 189 through a pointer, H100),
/// and always under rk::atomic, which combines into out and so requires it dense; axes_output
/// otherwise. Deciding per reader at compile time keeps axes_input from meeting a plain out off
/// rk::atomic, an instantiation no route needs.
template <gpu_backend Backend, bool RowsAreDense, class T, class F>
void with_segment_output(const axes_plan& plan, T* out, F&& f)
{
  if constexpr (Backend == gpu_backend::atomic)
  {
    f(out);
  }
  else if constexpr (RowsAreDense)
  {
    if (plan.output_is_dense())
    {
      f(out);
    }
    else
    {
      f(axes_output<T>{out, plan.out, 0});
    }
  }
  else
  {
    f(axes_output<T>{out, plan.out, 0});
  }
}

/// The segment engine's fixed-size form over the outputs' items (rk/detail/axes_as_segments.hpp).
template <gpu_backend Backend, class Provider, class U, class Transform, class T, class BinaryOp>
void enqueue_axes_as_segments(const gpu_policy<Backend, Provider>& policy, const axes_source<U, Transform>& source,
                              const axes_plan& plan, T* out, const T& init, const BinaryOp& op)
{
  with_axes_input<T>(source, plan, [&](auto input, auto rows_are_dense) {
    with_segment_output<Backend, decltype(rows_are_dense)::value>(plan, out, [&](auto output) {
      enqueue_segmented_reduce(policy, input, fixed_segments{plan.reduced_items, plan.outputs}, output, init, op);
    });
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
  if (plan.is_one_dense_run())
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
  detail::enqueue_axes_as_segments(policy, source, plan, out, init, op);
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
  if (plan.is_one_dense_run())
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
      why += column_nodes_per_output(columns, axes, grid) == 1 ? std::string(", written by the block")
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
  with_axes_input<T>(source, plan, [&](auto input, auto rows_are_dense) {
    with_segment_output<Backend, decltype(rows_are_dense)::value>(plan, static_cast<T*>(nullptr), [&](auto output) {
      e = explain_segmented_dispatch(policy, input, plan.outputs, output, init, op);
    });
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

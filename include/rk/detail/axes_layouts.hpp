#pragma once
// How rk::reduce_axes's GPU engines see a checked call (rk/detail/axes_map.hpp's axes_plan):
// as columns side by side in x, each a whole output or a run of one (the column engine), or as
// runs of adjacent items end to end in x (the runs route). Host-side planning only: the dispatch
// (rk/cuda/dispatch/reduce_axes.cuh) picks the route, the kernels read these layouts.

#include <rk/detail/axes_map.hpp>

namespace rk::detail
{
/// A reduction the column engine runs: its items in columns, each `items` items a fixed step apart,
/// the columns side by side in x. Column (g, c) (group g of the column axes but the columns axis,
/// c along that axis, whose stride is 1) holds the items x[outer.offset(g) + c + r * step] for r in
/// [0, items). A column is a whole output (the columns of a row-major matrix, a middle axis of a
/// 3-D array; under layout_left, too, whose stride-1 axis comes first) or one run of an output's
/// items (layout_left over axes (0, 2): each output's items are runs along axis 2, one run per
/// index of axis 0), runs whose items are a whole node of the output's tree each.
struct column_layout
{
  offset_t columns; ///< the columns axis's extent (stride 1 in x)
  offset_t groups;  ///< columns / that extent
  axis_walk outer;  ///< x's offset of each group: the other column axes
  offset_t step;
  offset_t items; ///< items of a column: an output's, or one run's
  /// Where the column engine leaves column (g, c)'s chunk nodes (runs of outputs, or the columns
  /// of an output in an order other than its own): nodes[nodes_at.offset(g * columns + c) + chunk *
  /// chunk_step]; or, with `across`, the node of a block's adjacent columns, nodes[nodes_at.offset(g)
  /// + tile * chunk_step]. Set by the dispatch once it knows the node layout.
  axis_walk nodes_at;
};

/// How the column axes map to the outputs and the runs: axis_walks over the column axes (the
/// outer axes, then the columns axis) whose strides are each axis's weight in the output's
/// row-major index (output_of; 0 for a reduced axis), in the run's row-major index (run_of; 0 for
/// a kept axis), and its stride in out (out_at; 0 for a reduced axis).
struct column_axes
{
  axis_walk output_of;
  axis_walk run_of;
  axis_walk out_at;
  offset_t runs;     ///< runs of each output (1: a column is an output)
  bool in_order;     ///< column g * columns + c is output g * columns + c
  bool side_by_side; ///< runs > 1 and the columns axis is the runs' last: adjacent columns are
                     ///< consecutive runs of one output
};

namespace axes_detail
{
/// Removes the axes of extent 1 (which never move an offset) from a walk, keeping the order.
inline axis_walk without_unit_axes(const axis_walk& w)
{
  axis_walk out{};
  for (int k = 0; k < w.rank; ++k)
  {
    if (w.extent[k] != 1)
    {
      out.extent[out.rank]   = w.extent[k];
      out.stride[out.rank++] = w.stride[k];
    }
  }
  return out;
}
} // namespace axes_detail

/// Whether `plan` is a column reduction (column_layout), and its layout and axes if so. The
/// reduced axes split into the runs' axes (the leading ones, possibly none) and the axes of a run
/// (the trailing ones, dense in steps of the last one's stride, which is not 1: items one apart are
/// rows, which the segment engine reads as a plain array). With runs, a run's items must be a
/// power-of-two number of whole lanes of `lane_items`, so that each run starts and ends on nodes of
/// its output's tree. One of the kept axes or the runs' axes must have stride 1: the columns axis.
inline bool as_columns(const axes_plan& plan, offset_t lane_items, column_layout& layout, column_axes& axes)
{
  if (plan.outputs == 0 || plan.reduced_items == 0)
  {
    return false;
  }
  // The planning works on the axes that move an offset; out's strides follow the kept axes'.
  axis_walk kept{}, kept_out{};
  for (int k = 0; k < plan.kept.rank; ++k)
  {
    if (plan.kept.extent[k] != 1)
    {
      kept.extent[kept.rank]           = plan.kept.extent[k];
      kept.stride[kept.rank++]         = plan.kept.stride[k];
      kept_out.extent[kept_out.rank]   = plan.out.extent[k];
      kept_out.stride[kept_out.rank++] = plan.out.stride[k];
    }
  }
  const axis_walk red = axes_detail::without_unit_axes(plan.reduced);
  if (red.rank == 0)
  {
    return false;
  }
  for (int split = 0; split < red.rank; ++split)
  {
    axis_walk inner{};
    for (int k = split; k < red.rank; ++k)
    {
      inner.extent[inner.rank]   = red.extent[k];
      inner.stride[inner.rank++] = red.stride[k];
    }
    const offset_t step = inner.stride[inner.rank - 1];
    if (step == 1 || step == 0 || !inner.is_dense(step))
    {
      continue;
    }
    const offset_t items = inner.items();
    if (split > 0 && (items % lane_items != 0 || ((items / lane_items) & (items / lane_items - 1)) != 0))
    {
      continue;
    }
    // The column axes: the kept ones, then the runs' ones; which of them is the columns axis.
    constexpr int none = -1;
    int columns_axis   = none;
    const int count    = kept.rank + split;
    auto extent_of     = [&](int a) { return a < kept.rank ? kept.extent[a] : red.extent[a - kept.rank]; };
    auto stride_of     = [&](int a) { return a < kept.rank ? kept.stride[a] : red.stride[a - kept.rank]; };
    for (int a = 0; a < count && columns_axis == none; ++a)
    {
      columns_axis = stride_of(a) == 1 ? a : none;
    }
    if (columns_axis == none)
    {
      continue;
    }
    // The other column axes, largest stride first: consecutive groups then lie in x's order.
    int order[max_view_rank] = {};
    int others               = 0;
    for (int a = 0; a < count; ++a)
    {
      if (a != columns_axis)
      {
        int at = others++;
        for (; at > 0 && stride_of(order[at - 1]) < stride_of(a); --at)
        {
          order[at] = order[at - 1];
        }
        order[at] = a;
      }
    }
    order[others] = columns_axis;
    // Each column axis's weight in its output's index (kept) or its run's (reduced), row-major.
    offset_t weight[max_view_rank] = {};
    offset_t w                     = 1;
    for (int a = kept.rank; a-- > 0;)
    {
      weight[a] = w;
      w *= kept.extent[a];
    }
    w = 1;
    for (int a = count; a-- > kept.rank;)
    {
      weight[a] = w;
      w *= red.extent[a - kept.rank];
    }
    axes              = column_axes{};
    axes.runs         = w;
    layout            = column_layout{};
    layout.columns    = extent_of(columns_axis);
    layout.groups     = plan.outputs * axes.runs / layout.columns;
    layout.step       = step;
    layout.items      = items;
    layout.outer.rank = others;
    axes.in_order     = axes.runs == 1;
    for (int k = 0; k <= others; ++k)
    {
      const int a = order[k];
      if (k < others)
      {
        layout.outer.extent[k] = extent_of(a);
        layout.outer.stride[k] = stride_of(a);
      }
      for (axis_walk* walk : {&axes.output_of, &axes.run_of, &axes.out_at})
      {
        walk->extent[k] = extent_of(a);
      }
      axes.output_of.stride[k] = a < kept.rank ? weight[a] : 0;
      axes.run_of.stride[k]    = a < kept.rank ? 0 : weight[a];
      axes.out_at.stride[k]    = a < kept.rank ? kept_out.stride[a] : 0;
      axes.in_order            = axes.in_order && a == k;
    }
    axes.output_of.rank = axes.run_of.rank = axes.out_at.rank = others + 1;
    // Adjacent columns are consecutive runs when the columns axis is the runs' last axis.
    axes.side_by_side = axes.runs > 1 && columns_axis == count - 1;
    return true;
  }
  return false;
}

/// A reduction whose every output's items are `runs` runs of `run_items` adjacent items of x, run r
/// of output o starting at item (r * outputs + o) * run_items: x's leading and trailing axes
/// reduced and the axes between them kept, all dense in row-major order (the batch and the pixels
/// of every channel in batch norm).
struct run_layout
{
  offset_t runs;
  offset_t run_items;
};

/// Whether `plan` is such a reduction with more than one run, and its layout if so.
inline bool as_runs(const axes_plan& plan, run_layout& layout)
{
  const axis_walk& red = plan.reduced;
  if (plan.outputs == 0 || plan.reduced_items == 0)
  {
    return false;
  }
  for (int split = red.rank - 1; split >= 1; --split)
  {
    axis_walk outer{}, inner{};
    outer.rank = split;
    inner.rank = red.rank - split;
    for (int k = 0; k < red.rank; ++k)
    {
      axis_walk& part                        = k < split ? outer : inner;
      part.extent[k < split ? k : k - split] = red.extent[k];
      part.stride[k < split ? k : k - split] = red.stride[k];
    }
    const offset_t run_items = inner.items();
    if (inner.is_dense(1) && plan.kept.is_dense(run_items) && outer.is_dense(run_items * plan.outputs))
    {
      layout = {outer.items(), run_items};
      return layout.runs > 1;
    }
  }
  return false;
}
} // namespace rk::detail

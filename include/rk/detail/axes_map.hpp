#pragma once
// rk::reduce_axes as many reductions over one sequence: output o (in row-major order of the kept
// axes) reduces the items of x at every position of the reduced axes, in row-major order of those
// axes. Laid end to end, the outputs' items form a virtual array of `outputs` fixed-size segments
// of `reduced_items` items each; item j of it is x's item at kept position j / reduced_items and
// reduced position j % reduced_items. axes_input reads that array straight from x, axes_output
// writes output o where `out`'s layout keeps it, and axes_plan checks a call and decides both.
// Segment o then has rk::reduce's bits over its items, whatever x's layout (rk/detail/segments.hpp).

#include <rk/detail/config.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/tree.hpp>
#include <rk/error.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

namespace rk::detail
{
inline constexpr int max_view_rank = 8;

/// Some axes of a strided array, walked in row-major order (the last axis fastest): position p,
/// written in the mixed radix of the extents, has the digits (i_0, ..., i_{rank-1}) and lies at
/// sum(i_k * stride_k) elements from the start.
struct axis_walk
{
  int rank                       = 0;
  offset_t extent[max_view_rank] = {};
  offset_t stride[max_view_rank] = {};

  /// The offset of position p, 0 <= p < items() (so no extent is zero here).
  RK_HOST_DEVICE offset_t offset(offset_t p) const
  {
    offset_t at = 0;
    for (int k = rank - 1; k > 0; --k)
    {
      const offset_t next = p / extent[k];
      at += (p - next * extent[k]) * stride[k];
      p = next;
    }
    return rank > 0 ? at + p * stride[0] : at;
  }
  offset_t items() const
  {
    offset_t n = 1;
    for (int k = 0; k < rank; ++k)
    {
      n *= extent[k];
    }
    return n;
  }
  /// Whether position p lies at p * unit for every p: the walk is one dense run of `unit` steps.
  bool is_dense(offset_t unit) const
  {
    offset_t expected = unit;
    for (int k = rank - 1; k >= 0; --k)
    {
      if (extent[k] != 1 && stride[k] != expected)
      {
        return false;
      }
      expected *= extent[k];
    }
    return true;
  }
};

/// What rk's readers of a view are as iterators: random access, reading items of type U by value.
template <class U>
struct view_reader
{
  using value_type         = std::remove_cv_t<U>;
  using reference          = value_type;
  using difference_type    = std::ptrdiff_t;
  using pointer            = void;
  using iterator_category  = std::random_access_iterator_tag;
  using rk_iterator_memory = over_checked_pointer;
};

/// The virtual array of every output's items, read from x (see the top of this file).
template <class U>
struct axes_input : view_reader<U>
{
  using typename view_reader<U>::value_type;
  using typename view_reader<U>::difference_type;

  const value_type* data;
  axis_walk kept;
  axis_walk reduced;
  offset_t reduced_items;
  offset_t position;

  RK_HOST_DEVICE value_type operator[](offset_t i) const
  {
    const offset_t p      = position + i;
    const offset_t output = p / reduced_items;
    return data[kept.offset(output) + reduced.offset(p - output * reduced_items)];
  }
  RK_HOST_DEVICE value_type operator*() const
  {
    return (*this)[0];
  }
  RK_HOST_DEVICE axes_input operator+(offset_t n) const
  {
    axes_input moved = *this;
    moved.position += n;
    return moved;
  }
  RK_HOST_DEVICE axes_input& operator+=(offset_t n)
  {
    position += n;
    return *this;
  }
  RK_HOST_DEVICE axes_input& operator++()
  {
    ++position;
    return *this;
  }
  RK_HOST_DEVICE friend difference_type operator-(const axes_input& a, const axes_input& b)
  {
    return static_cast<difference_type>(a.position - b.position);
  }
  RK_HOST_DEVICE friend bool operator==(const axes_input& a, const axes_input& b)
  {
    return a.position == b.position;
  }
  RK_HOST_DEVICE friend bool operator!=(const axes_input& a, const axes_input& b)
  {
    return a.position != b.position;
  }
};

/// Output o, in row-major order of the kept axes, where `out`'s layout keeps it.
template <class T>
struct axes_output
{
  using value_type         = T;
  using reference          = T&;
  using difference_type    = std::ptrdiff_t;
  using pointer            = T*;
  using iterator_category  = std::random_access_iterator_tag;
  using rk_iterator_memory = over_checked_pointer;

  T* data;
  axis_walk walk;
  offset_t position;

  RK_HOST_DEVICE T& operator[](offset_t i) const
  {
    return data[walk.offset(position + i)];
  }
  RK_HOST_DEVICE T& operator*() const
  {
    return (*this)[0];
  }
  RK_HOST_DEVICE axes_output operator+(offset_t n) const
  {
    axes_output moved = *this;
    moved.position += n;
    return moved;
  }
  RK_HOST_DEVICE axes_output& operator++()
  {
    ++position;
    return *this;
  }
  RK_HOST_DEVICE friend difference_type operator-(const axes_output& a, const axes_output& b)
  {
    return static_cast<difference_type>(a.position - b.position);
  }
};

/// What rk::reduce_axes reads: the view's elements, and what it does to each one first.
template <class U, class Transform>
struct axes_source
{
  const std::remove_cv_t<U>* data;
  Transform transform;
};

/// rk::reduce_axes's Transform: the items as they are.
struct untransformed
{};

/// "(3, 0, 5)"
inline std::string shape_string(const offset_t* extents, int rank)
{
  std::string s = "(";
  for (int k = 0; k < rank; ++k)
  {
    s += (k ? ", " : "") + std::to_string(extents[k]);
  }
  return s + (rank == 1 ? ",)" : ")");
}
/// A checked rk::reduce_axes call: the walks over x's kept and reduced axes, and over out.
struct axes_plan
{
  axis_walk kept;    ///< x's kept axes, in their order
  axis_walk reduced; ///< x's reduced axes, in their order
  axis_walk out;     ///< out's axes
  offset_t outputs;
  offset_t reduced_items;

  /// Whether every output's items are one dense run of x, output after output: x can then be read
  /// as a plain array of `outputs` segments of `reduced_items` items (a row-major matrix's rows).
  bool rows_are_dense() const
  {
    return reduced.is_dense(1) && (outputs <= 1 || kept.is_dense(reduced_items));
  }
  bool output_is_dense() const
  {
    return out.is_dense(1);
  }
};

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

/// Checks the axes (`axis_list[0..axis_count)`) against x's rank, and out's rank and extents
/// against x's kept axes; throws rk::error naming the fault before anything runs. `x_extent` and
/// `x_stride` are x's, `out_extent` and `out_stride` out's.
inline axes_plan plan_axes(const char* who, const offset_t* x_extent, const offset_t* x_stride, int x_rank,
                           const int* axis_list, int axis_count, const offset_t* out_extent, const offset_t* out_stride,
                           int out_rank)
{
  bool reduce_axis[max_view_rank] = {};
  for (int i = 0; i < axis_count; ++i)
  {
    const int a = axis_list[i];
    if (a < 0 || a >= x_rank)
    {
      throw error(std::string(who) + ": axis " + std::to_string(a) + " is out of range for an array of rank "
                  + std::to_string(x_rank) + " (axes count from 0; negative axes do not wrap around)");
    }
    if (reduce_axis[a])
    {
      throw error(std::string(who) + ": axis " + std::to_string(a) + " is given twice");
    }
    reduce_axis[a] = true;
  }
  axes_plan plan{};
  for (int k = 0; k < x_rank; ++k)
  {
    axis_walk& walk          = reduce_axis[k] ? plan.reduced : plan.kept;
    walk.extent[walk.rank]   = x_extent[k];
    walk.stride[walk.rank++] = x_stride[k];
  }
  const std::string x_shape = shape_string(x_extent, x_rank);
  if (out_rank != plan.kept.rank)
  {
    throw error(std::string(who) + ": out has rank " + std::to_string(out_rank) + ", but reducing "
                + std::to_string(axis_count) + " of the " + std::to_string(x_rank) + " axes of x (shape " + x_shape
                + ") keeps " + std::to_string(plan.kept.rank));
  }
  for (int k = 0; k < out_rank; ++k)
  {
    if (out_extent[k] != plan.kept.extent[k])
    {
      throw error(std::string(who) + ": out has shape " + shape_string(out_extent, out_rank)
                  + ", but the kept axes of x (shape " + x_shape + ") have shape "
                  + shape_string(plan.kept.extent, plan.kept.rank));
    }
    plan.out.extent[k] = out_extent[k];
    plan.out.stride[k] = out_stride[k];
  }
  plan.out.rank      = out_rank;
  plan.outputs       = plan.kept.items();
  plan.reduced_items = plan.reduced.items();
  if (plan.outputs == 0)
  {
    plan.reduced_items = 0; // no output, so no item is read: keep the segment source trivially valid
  }
  return plan;
}
} // namespace rk::detail

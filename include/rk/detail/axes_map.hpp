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
  /// Whether the call is one output over one dense run of x (every axis of a dense array): what
  /// rk::reduce reads.
  bool is_one_dense_run() const
  {
    return outputs == 1 && reduced_items > 0 && rows_are_dense();
  }
};

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
    // Each output needs an element of its own: a layout_stride out with a zero stride (a
    // broadcast view) would have several outputs race for one. (Negative strides break
    // layout_stride's preconditions; positive ones that overlap are left to the caller.) An out
    // with no elements has none to share, and layout_right gives it zero strides (5 x 0: 0, 1).
    if (out_extent[k] > 1 && out_stride[k] <= 0 && plan.kept.items() > 0)
    {
      throw error(std::string(who) + ": out's stride along its axis " + std::to_string(k) + " is "
                  + std::to_string(out_stride[k])
                  + ", so its outputs would share elements: give out a positive stride there");
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

#pragma once
/// \file
/// rk::reduce_axes and rk::transform_reduce_axes: reductions over some axes of a dense array, a
/// `cuda::std::mdspan` of rank 1 to 8 in layout_right, layout_left or layout_stride (column sums,
/// row maxima, a middle axis of a 3-D tensor, the statistics of every channel). Each output gets
/// exactly what rk::reduce (rk::transform_reduce) gives over its items copied into a contiguous
/// array in row-major order of the reduced axes, so its bits do not depend on x's layout, on the
/// kept axes, the GPU or the policy.
///
/// \code
/// // Column sums of a rows x cols row-major matrix in device memory:
/// cuda::std::mdspan x(thrust::raw_pointer_cast(m.data()), rows, cols);
/// cuda::std::mdspan sums(thrust::raw_pointer_cast(s.data()), cols);
/// rk::reduce_axes(rk::device, x, rk::axes{0}, sums, 0.0f);
/// \endcode

#include <rk/detail/axes_map.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/range.hpp>
#include <rk/explain.hpp>
#include <rk/flat_reduce.hpp>
#include <rk/functional.hpp>
#include <rk/policy.hpp>

#include <cuda/std/mdspan>

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

namespace rk
{
/// The axes to reduce: up to 8 distinct axes, in any order (rk::axes{2, 0} is rk::axes{0, 2}).
/// Checked against the array at the call: an axis out of range or given twice throws rk::error.
class axes
{
public:
  /// No axis: every output reduces one item (out(k...) = init ⊕ x(k...)).
  axes() = default;
  axes(std::initializer_list<int> list)
  {
    if (list.size() > static_cast<std::size_t>(detail::max_view_rank))
    {
      throw error("rk::axes: at most " + std::to_string(detail::max_view_rank) + " axes (an array has rank 8 at most)");
    }
    for (int a : list)
    {
      list_[count_++] = a;
    }
  }
  int size() const noexcept
  {
    return count_;
  }
  const int* begin() const noexcept
  {
    return list_;
  }
  const int* end() const noexcept
  {
    return list_ + count_;
  }

private:
  int list_[detail::max_view_rank] = {};
  int count_                       = 0;
};

template <class Derived, class Input, class Output, class T, class BinaryOp>
void axes_dispatch(const execution_policy<Derived>&, const Input&, const detail::axes_plan&, const Output&, T, BinaryOp)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::reduce_axes is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
}

template <class Derived, class U, class T, class BinaryOp>
explanation explain_axes_dispatch(const execution_policy<Derived>&, const detail::axes_plan&, const U*, const T&,
                                  const BinaryOp&)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::explain_axes is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
  return {};
}

namespace detail
{
template <class Layout>
inline constexpr bool is_rk_layout_v = std::is_same_v<Layout, cuda::std::layout_right>
                                    || std::is_same_v<Layout, cuda::std::layout_left>
                                    || std::is_same_v<Layout, cuda::std::layout_stride>;

template <class U, class XExtents, class XLayout, class XAccessor, class V, class OutExtents, class OutLayout,
          class OutAccessor, class T>
constexpr void check_axes_call()
{
  static_assert(XExtents::rank() >= 1 && XExtents::rank() <= max_view_rank,
                "rk::reduce_axes reduces arrays of rank 1 to 8 (a rank-0 view has one item: use it directly)");
  static_assert(OutExtents::rank() <= XExtents::rank(),
                "rk::reduce_axes: out keeps the axes of x that are not reduced, so its rank is at most x's: pass an "
                "out of rank rank(x) - count(axes)");
  static_assert(is_rk_layout_v<XLayout> && is_rk_layout_v<OutLayout>,
                "rk::reduce_axes takes views in cuda::std::layout_right, layout_left or layout_stride; make a "
                "layout_stride view of other strided layouts");
  static_assert(std::is_same_v<XAccessor, cuda::std::default_accessor<U>>
                  && std::is_same_v<OutAccessor, cuda::std::default_accessor<V>>,
                "rk::reduce_axes reads and writes views through cuda::std::default_accessor: make views of the same "
                "data with the default accessor (cuda::std::mdspan<T, Extents, Layout>(ptr, mapping))");
  static_assert(std::is_same_v<V, T>,
                "rk::reduce_axes: out's element type must be T, the type of init, which is the accumulator type (as in "
                "rk::reduce). Pass init as out's element type, e.g. 0.0f for a view of float");
  static_assert(!std::is_const_v<V>, "rk::reduce_axes: out is a view of const elements");
}

template <class View>
void view_shape(const View& v, offset_t* extent, offset_t* stride)
{
  if constexpr (View::rank() > 0) // a rank-0 layout_right or layout_left mapping has no stride()
  {
    for (std::size_t k = 0; k < View::rank(); ++k)
    {
      extent[k] = static_cast<offset_t>(v.extent(k));
      stride[k] = static_cast<offset_t>(v.stride(k));
    }
  }
}

template <class XView, class OutView>
axes_plan plan_axes(const char* who, const XView& x, const axes& reduced, const OutView& out)
{
  offset_t x_extent[max_view_rank] = {}, x_stride[max_view_rank] = {};
  offset_t out_extent[max_view_rank] = {}, out_stride[max_view_rank] = {};
  view_shape(x, x_extent, x_stride);
  view_shape(out, out_extent, out_stride);
  return plan_axes(who, x_extent, x_stride, static_cast<int>(XView::rank()), reduced.begin(), reduced.size(),
                   out_extent, out_stride, static_cast<int>(OutView::rank()));
}
} // namespace detail

/// Reduces `x` over the axes `reduced` into `out`, whose extents are x's kept axes in their order
/// (rank 0 when every axis is reduced): out(k...) = init ⊕ x(i...) ⊕ ... over the reduced indices
/// in row-major order of the reduced axes (the last reduced axis fastest), init once on the left.
/// An empty reduced extent writes `init` everywhere and never calls `op`. On rk::two_pass,
/// rk::single_pass, rk::device and rk::host each output has the bits rk::reduce gives over its
/// items copied, in that order, into a contiguous array; rk::seq folds left. GPU policies read
/// and write device memory, enqueue on their stream and return.
template <class Policy, class U, class XExtents, class XLayout, class XAccessor, class V, class OutExtents,
          class OutLayout, class OutAccessor, class T, class BinaryOp = plus,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
void reduce_axes(Policy&& policy, cuda::std::mdspan<U, XExtents, XLayout, XAccessor> x, const axes& reduced,
                 cuda::std::mdspan<V, OutExtents, OutLayout, OutAccessor> out, T init, BinaryOp op = {})
{
  detail::check_axes_call<U, XExtents, XLayout, XAccessor, V, OutExtents, OutLayout, OutAccessor, T>();
  const detail::axes_plan plan = detail::plan_axes("rk::reduce_axes", x, reduced, out);
  axes_dispatch(policy.derived(), detail::axes_source<U, detail::untransformed>{x.data_handle(), {}}, plan,
                out.data_handle(), std::move(init), std::move(op));
}

/// Describes what rk::reduce_axes(policy, x, reduced, out, init, op) runs (the column engine, or the
/// segment engine on x's rows or through an index map; the backend, and whether each output gets
/// rk::reduce's bits), after the same checks of the axes and of out's shape as the call, which
/// throw the same rk::error. `size` is the number of items reduced. Runs nothing; reads no item.
///
/// \code
/// std::cout << rk::explain_axes(rk::device, x, rk::axes{0}, sums, 0.0f) << '\n';
/// \endcode
template <class Policy, class U, class XExtents, class XLayout, class XAccessor, class V, class OutExtents,
          class OutLayout, class OutAccessor, class T, class BinaryOp = plus,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
explanation explain_axes(Policy&& policy, cuda::std::mdspan<U, XExtents, XLayout, XAccessor> x, const axes& reduced,
                         cuda::std::mdspan<V, OutExtents, OutLayout, OutAccessor> out, const T& init,
                         const BinaryOp& op = {})
{
  detail::check_axes_call<U, XExtents, XLayout, XAccessor, V, OutExtents, OutLayout, OutAccessor, T>();
  const detail::axes_plan plan = detail::plan_axes("rk::explain_axes", x, reduced, out);
  return explain_axes_dispatch(policy.derived(), plan, x.data_handle(), init, op);
}

/// rk::reduce_axes over `transform_op(x(i...))`: each output has rk::transform_reduce's bits over
/// its items copied into a contiguous array (the tree's tiles counted in x's items).
template <class Policy, class U, class XExtents, class XLayout, class XAccessor, class V, class OutExtents,
          class OutLayout, class OutAccessor, class T, class BinaryOp, class UnaryOp,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
void transform_reduce_axes(Policy&& policy, cuda::std::mdspan<U, XExtents, XLayout, XAccessor> x, const axes& reduced,
                           cuda::std::mdspan<V, OutExtents, OutLayout, OutAccessor> out, T init, BinaryOp reduce_op,
                           UnaryOp transform_op)
{
  detail::check_axes_call<U, XExtents, XLayout, XAccessor, V, OutExtents, OutLayout, OutAccessor, T>();
  const detail::axes_plan plan = detail::plan_axes("rk::transform_reduce_axes", x, reduced, out);
  axes_dispatch(policy.derived(), detail::axes_source<U, UnaryOp>{x.data_handle(), std::move(transform_op)}, plan,
                out.data_handle(), std::move(init), std::move(reduce_op));
}
} // namespace rk

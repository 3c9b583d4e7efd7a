// The soak's axis reductions: rk::reduce_axes and rk::transform_reduce_axes over arrays of rank 1
// to 3 in three layouts, any subset of the axes in any order, every output checked against
// rk::seq (exact kinds) or rk::host (float sums) over the same view of the host's copy.

#include "soak_run.cuh"

#include <cuda/std/mdspan>

#include <cuda/std/array>

namespace soak
{
namespace
{
template <int Rank>
using dims = cuda::std::dextents<std::int64_t, Rank>;

/// Calls f(x) with the call's array over `data` as an mdspan in the shape's layout.
template <int Rank, class E, class F>
void with_x_view(const axes_shape& s, E* data, F&& f)
{
  cuda::std::array<std::int64_t, Rank> e{};
  for (int k = 0; k < Rank; ++k)
  {
    e[k] = s.extent[k];
  }
  switch (s.x_view)
  {
    case axes_shape::view::right:
      f(cuda::std::mdspan<E, dims<Rank>>(data, dims<Rank>(e)));
      break;
    case axes_shape::view::left:
      f(cuda::std::mdspan<E, dims<Rank>, cuda::std::layout_left>(data, dims<Rank>(e)));
      break;
    default: {
      // Axis k strides as axis Rank - 1 - k of a layout_right array of the reversed extents.
      cuda::std::array<std::int64_t, Rank> stride{};
      std::int64_t step = 1;
      for (int k = 0; k < Rank; ++k)
      {
        stride[k] = step;
        step *= e[k];
      }
      f(cuda::std::mdspan<E, dims<Rank>, cuda::std::layout_stride>(
        data, cuda::std::layout_stride::mapping<dims<Rank>>(dims<Rank>(e), stride)));
    }
  }
}

rk::axes axes_of(const axes_shape& s)
{
  switch (s.axis_count)
  {
    case 0:
      return rk::axes{};
    case 1:
      return rk::axes{s.axes[0]};
    case 2:
      return rk::axes{s.axes[0], s.axes[1]};
    default:
      return rk::axes{s.axes[0], s.axes[1], s.axes[2]};
  }
}

/// The kept axes' extents, in order: out's shape.
template <int OutRank>
dims<OutRank> out_extents(const axes_shape& s)
{
  cuda::std::array<std::int64_t, OutRank> e{};
  int k = 0;
  for (int axis = 0; axis < s.rank; ++axis)
  {
    bool reduced = false;
    for (int j = 0; j < s.axis_count; ++j)
    {
      reduced = reduced || s.axes[j] == axis;
    }
    if (!reduced)
    {
      e[k++] = s.extent[axis];
    }
  }
  return dims<OutRank>(e);
}

/// How many outputs: the product of the kept extents.
std::int64_t out_items(const axes_shape& s)
{
  std::int64_t m = 1;
  for (int axis = 0; axis < s.rank; ++axis)
  {
    bool reduced = false;
    for (int j = 0; j < s.axis_count; ++j)
    {
      reduced = reduced || s.axes[j] == axis;
    }
    m *= reduced ? 1 : s.extent[axis];
  }
  return m;
}

template <kind K, algorithm A, int Rank, int OutRank>
void check_axes_shape(const call& c, const axes_shape& s, cudaStream_t stream, outcome& o)
{
  using C    = typename kind_of<K>::type;
  using T    = typename C::T;
  using item = typename C::item;
  const host_items<C> host(c);
  const std::int64_t outs = out_items(s);
  const auto run          = [&](auto policy, const item* x_data, T* out_data) {
    with_x_view<Rank>(s, x_data, [&](auto x) {
      const cuda::std::mdspan<T, dims<OutRank>> out(out_data, out_extents<OutRank>(s));
      if constexpr (A == algorithm::transform_reduce_axes)
      {
        rk::transform_reduce_axes(policy, x, axes_of(s), out, C::init(), typename C::op{}, transform_of<C>{});
      }
      else
      {
        rk::reduce_axes(policy, x, axes_of(s), out, C::init(), typename C::op{});
      }
    });
  };
  std::vector<unsigned char> want(static_cast<std::size_t>(outs) * sizeof(T) + 16, 0xcd);
  with_reference<C>(c, [&](auto ref) { run(ref, host.begin(), reinterpret_cast<T*>(want.data())); });
  std::vector<unsigned char> got;
  with_policy<K, A>(c.p, stream, [&](auto p) {
    if constexpr (is_gpu_policy_v<decltype(p)>)
    {
      const device_items<C> items(c, host, stream);
      const device_array<T> out(static_cast<std::size_t>(outs), stream);
      run(p, thrust::raw_pointer_cast(items.begin()), out.get());
      got = out.download(static_cast<std::size_t>(outs));
    }
    else
    {
      got.assign(static_cast<std::size_t>(outs) * sizeof(T) + 16, 0xcd);
      run(p, host.begin(), reinterpret_cast<T*>(got.data()));
    }
  });
  for (std::int64_t k = 0; k < outs; ++k)
  {
    const T g = at<T>(got, static_cast<std::size_t>(k)), w = at<T>(want, static_cast<std::size_t>(k));
    ++o.checks;
    if (!agrees<C>(g, w, c.p, 0, 0))
    {
      o.fail("output " + std::to_string(k) + ": " + show(g) + ", the host's " + show(w));
      return;
    }
  }
}

template <kind K, algorithm A>
void check_axes(const call& c, cudaStream_t stream, outcome& o)
{
  const axes_shape s = make_axes_shape(c);
  const int out_rank = s.rank - s.axis_count;
  // Each (rank, out rank) pair is its own host code; the kernels depend on the kind alone.
  switch (s.rank * 4 + out_rank)
  {
    case 1 * 4 + 0:
      return check_axes_shape<K, A, 1, 0>(c, s, stream, o);
    case 1 * 4 + 1:
      return check_axes_shape<K, A, 1, 1>(c, s, stream, o);
    case 2 * 4 + 0:
      return check_axes_shape<K, A, 2, 0>(c, s, stream, o);
    case 2 * 4 + 1:
      return check_axes_shape<K, A, 2, 1>(c, s, stream, o);
    case 2 * 4 + 2:
      return check_axes_shape<K, A, 2, 2>(c, s, stream, o);
    case 3 * 4 + 0:
      return check_axes_shape<K, A, 3, 0>(c, s, stream, o);
    case 3 * 4 + 1:
      return check_axes_shape<K, A, 3, 1>(c, s, stream, o);
    case 3 * 4 + 2:
      return check_axes_shape<K, A, 3, 2>(c, s, stream, o);
    default:
      return check_axes_shape<K, A, 3, 3>(c, s, stream, o);
  }
}
} // namespace

outcome run_axes(const call& c, cudaStream_t stream)
{
  outcome o;
  with_kind(c.k, [&](auto k) {
    constexpr kind K = decltype(k)::value;
    if (c.a == algorithm::transform_reduce_axes)
    {
      if constexpr (kind_allowed(K, algorithm::transform_reduce_axes))
      {
        check_axes<K, algorithm::transform_reduce_axes>(c, stream, o);
      }
    }
    else if constexpr (kind_allowed(K, algorithm::reduce_axes))
    {
      check_axes<K, algorithm::reduce_axes>(c, stream, o);
    }
  });
  return o;
}
} // namespace soak

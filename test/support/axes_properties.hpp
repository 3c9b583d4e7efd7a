#pragma once
// The property bodies of rk::reduce_axes and rk::transform_reduce_axes, for every policy (host and
// GPU suites). A harness H supplies, beyond properties.hpp's: `E* raw(container&)`, the pointer a
// view of the uploaded items is made from. The reference is independent of rk's index arithmetic:
// nested loops over the multi-indices, items copied out and reduced with rk::reduce (rk::host for
// the tree policies, rk::seq for rk::seq).

#include "properties.hpp"
#include "test_types.hpp"

#include <rk/reduce.hpp>

#include <cuda/std/mdspan>
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rk_test
{
enum class view_layout
{
  right,
  left,
  strided // axes stored in a rotated order, every item two apart and every axis padded: gaps everywhere
};

inline const char* name(view_layout l)
{
  return l == view_layout::right ? "layout_right" : l == view_layout::left ? "layout_left" : "layout_stride";
}

/// The extents of an array and where each of its items is stored.
template <std::size_t R>
struct view_shape
{
  std::array<std::int64_t, R> extent{};
  std::array<std::int64_t, R> stride{};
  std::int64_t storage = 1; ///< elements the storage needs
  view_layout layout   = view_layout::right;

  view_shape() = default;
  view_shape(std::array<std::int64_t, R> e, view_layout l)
      : extent(e)
      , layout(l)
  {
    std::array<std::size_t, R> order{}; // storage order, outermost first
    for (std::size_t k = 0; k != R; ++k)
    {
      order[k] = l == view_layout::right ? k : l == view_layout::left ? R - 1 - k : (k + 1 == R ? 0 : k + 1);
    }
    std::int64_t step = l == view_layout::strided ? 2 : 1;
    for (std::size_t k = R; k-- > 0;)
    {
      stride[order[k]] = step;
      step *= extent[order[k]] + (l == view_layout::strided ? 1 : 0);
    }
    storage    = 1;
    bool empty = false;
    for (std::size_t k = 0; k != R; ++k)
    {
      empty = empty || extent[k] == 0;
      storage += extent[k] > 0 ? (extent[k] - 1) * stride[k] : 0;
    }
    storage = empty ? 1 : storage;
  }
  /// A layout_stride view with no gaps whose axes are stored in `order` (outermost first).
  static view_shape stored_in(std::array<std::int64_t, R> e, std::array<std::size_t, R> order)
  {
    view_shape s;
    s.extent          = e;
    s.layout          = view_layout::strided;
    std::int64_t step = 1;
    for (std::size_t k = R; k-- > 0;)
    {
      s.stride[order[k]] = step;
      step *= e[order[k]];
    }
    s.storage = step > 0 ? step : 1;
    return s;
  }
  std::int64_t items() const
  {
    std::int64_t n = 1;
    for (auto e : extent)
    {
      n *= e;
    }
    return n;
  }
};

/// Calls f with a view of `data` in the shape's layout, as that layout's own mdspan type.
template <std::size_t R, class E, class F>
void with_view(E* data, const view_shape<R>& s, F&& f)
{
  using extents = cuda::std::dextents<std::int64_t, R>;
  cuda::std::array<std::int64_t, R> e{}, st{};
  for (std::size_t k = 0; k != R; ++k)
  {
    e[k]  = s.extent[k];
    st[k] = s.stride[k];
  }
  if (s.layout == view_layout::right)
  {
    f(cuda::std::mdspan<E, extents, cuda::std::layout_right>(data, extents(e)));
  }
  else if (s.layout == view_layout::left)
  {
    f(cuda::std::mdspan<E, extents, cuda::std::layout_left>(data, extents(e)));
  }
  else
  {
    f(cuda::std::mdspan<E, extents, cuda::std::layout_stride>(
      data, cuda::std::layout_stride::mapping<extents>(extents(e), st)));
  }
}

/// For every output (row-major over the kept axes), the storage offsets of its items in row-major
/// order of the reduced axes: nested counting, no division.
template <std::size_t R>
std::vector<std::vector<std::int64_t>> items_of_outputs(const view_shape<R>& s, const std::vector<int>& axes)
{
  std::array<bool, R> reduced{};
  for (int a : axes)
  {
    reduced[static_cast<std::size_t>(a)] = true;
  }
  auto walk = [&](bool want_reduced, auto&& visit) {
    std::array<std::int64_t, R> index{};
    for (std::size_t k = 0; k != R; ++k)
    {
      if (reduced[k] == want_reduced && s.extent[k] == 0)
      {
        return;
      }
    }
    while (true)
    {
      visit(index);
      std::size_t k = R;
      while (k-- > 0)
      {
        if (reduced[k] != want_reduced)
        {
          continue;
        }
        if (++index[k] < s.extent[k])
        {
          break;
        }
        index[k] = 0;
      }
      if (k == static_cast<std::size_t>(-1))
      {
        return;
      }
    }
  };
  std::vector<std::vector<std::int64_t>> outputs;
  walk(false, [&](const std::array<std::int64_t, R>& kept) {
    std::vector<std::int64_t> offsets;
    walk(true, [&](const std::array<std::int64_t, R>& red) {
      std::int64_t at = 0;
      for (std::size_t k = 0; k != R; ++k)
      {
        at += (reduced[k] ? red[k] : kept[k]) * s.stride[k];
      }
      offsets.push_back(at);
    });
    outputs.push_back(std::move(offsets));
  });
  return outputs;
}

/// The kept axes' shape in `layout`.
template <std::size_t K, std::size_t R>
view_shape<K> kept_shape(const view_shape<R>& s, const std::vector<int>& axes, view_layout layout)
{
  std::array<std::int64_t, K> e{};
  std::size_t j = 0;
  for (std::size_t k = 0; k != R; ++k)
  {
    bool is_reduced = false;
    for (int a : axes)
    {
      is_reduced = is_reduced || a == static_cast<int>(k);
    }
    if (!is_reduced)
    {
      e[j++] = s.extent[k];
    }
  }
  return view_shape<K>(e, layout);
}

/// x * x: a transform that ends in a multiply (rk keeps it apart from the sum on the GPU).
struct square_item
{
  RK_HOST_DEVICE float operator()(float v) const
  {
    return v * v;
  }
};

template <class T, class = void>
inline constexpr bool has_equality_v = false;
template <class T>
inline constexpr bool has_equality_v<T, std::void_t<decltype(std::declval<const T&>() == std::declval<const T&>())>> =
  true;

/// Exact equality: the same bits for floating point and for types without ==.
template <class T>
bool bits_equal(const T& a, const T& b)
{
  if constexpr (std::is_floating_point_v<T> || !has_equality_v<T>)
  {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
  else
  {
    return a == b;
  }
}

template <class H>
using reference_policy_t =
  std::conditional_t<std::is_same_v<typename H::policy_type, rk::seq_policy>, rk::seq_policy, rk::host_policy>;

/// One call of rk::reduce_axes (Transform void) or rk::transform_reduce_axes against the reference:
/// every output compared exactly (bits, for floating point).
template <std::size_t R, std::size_t K, class H, class E, class T, class Op, class F = void>
void check_axes_call(const H& h, const view_shape<R>& s, const std::vector<E>& storage, const std::vector<int>& axes,
                     view_layout out_layout, T init, Op op, F* transform = nullptr)
{
  CAPTURE(name(s.layout));
  CAPTURE(name(out_layout));
  const auto outputs      = items_of_outputs(s, axes);
  const view_shape<K> out = kept_shape<K>(s, axes, out_layout);
  REQUIRE(static_cast<std::int64_t>(outputs.size()) == out.items());
  std::vector<T> expected(outputs.size(), init);
  for (std::size_t o = 0; o < outputs.size(); ++o)
  {
    std::vector<E> items;
    for (std::int64_t at : outputs[o])
    {
      items.push_back(storage[static_cast<std::size_t>(at)]);
    }
    if constexpr (std::is_void_v<F>)
    {
      expected[o] = rk::reduce(reference_policy_t<H>{}, items.begin(), items.end(), init, op);
    }
    else
    {
      expected[o] = rk::transform_reduce(reference_policy_t<H>{}, items.begin(), items.end(), init, op, *transform);
    }
  }
  auto x      = h.upload(storage);
  auto result = h.upload(std::vector<T>(static_cast<std::size_t>(out.storage), init));
  rk::axes list{};
  {
    std::array<int, 8> a{};
    for (std::size_t i = 0; i < axes.size(); ++i)
    {
      a[i] = axes[i];
    }
    // rk::axes is made from a braced list; build it from this one.
    switch (axes.size())
    {
      case 0:
        list = rk::axes{};
        break;
      case 1:
        list = rk::axes{a[0]};
        break;
      case 2:
        list = rk::axes{a[0], a[1]};
        break;
      case 3:
        list = rk::axes{a[0], a[1], a[2]};
        break;
      case 4:
        list = rk::axes{a[0], a[1], a[2], a[3]};
        break;
      default:
        list = rk::axes{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]};
        break;
    }
  }
  with_view(static_cast<const E*>(h.raw(x)), s, [&](auto xv) {
    with_view(h.raw(result), out, [&](auto ov) {
      if constexpr (std::is_void_v<F>)
      {
        rk::reduce_axes(h.policy, xv, list, ov, init, op);
      }
      else
      {
        rk::transform_reduce_axes(h.policy, xv, list, ov, init, op, *transform);
      }
    });
  });
  const std::vector<T> got = h.download(result);
  // Read each output where out's layout keeps it, in row-major order of the kept axes.
  const auto places = items_of_outputs(out, {});
  std::size_t wrong = 0, first_wrong = 0;
  for (std::size_t o = 0; o < outputs.size(); ++o)
  {
    const T& value = got[static_cast<std::size_t>(places[o][0])];
    if (!(bits_equal(value, expected[o])) && wrong++ == 0)
    {
      first_wrong = o;
    }
  }
  const std::string call = std::is_void_v<F> ? "reduce_axes" : "transform_reduce_axes";
  CAPTURE(call);
  CAPTURE(sizeof(T));
  CAPTURE(first_wrong);
  CAPTURE(outputs.size());
  CHECK(wrong == 0);
}

/// Every subset of the axes of `s`, in a scrambled order, as lists.
template <std::size_t R>
std::vector<std::vector<int>> axis_subsets()
{
  std::vector<std::vector<int>> subsets;
  for (unsigned mask = 0; mask < (1u << R); ++mask)
  {
    std::vector<int> list;
    for (int k = static_cast<int>(R) - 1; k >= 0; --k) // descending: rk::axes{2, 0} means {0, 2}
    {
      if (mask & (1u << k))
      {
        list.push_back(k);
      }
    }
    subsets.push_back(list);
  }
  return subsets;
}

/// Runs `check.template run<K>(axes, out_layout)` with the out rank K = R - axes.size().
template <std::size_t R, class Check, std::size_t... K>
void for_out_rank_in(const std::vector<int>& axes, view_layout out_layout, Check& check, std::index_sequence<K...>)
{
  const std::size_t kept = R - axes.size();
  ((kept == K ? check.template run<K>(axes, out_layout) : void()), ...);
}
template <std::size_t R, class Check>
void for_out_rank(const std::vector<int>& axes, view_layout out_layout, Check& check)
{
  for_out_rank_in<R>(axes, out_layout, check, std::make_index_sequence<R + 1>{});
}

/// Items whose sums round differently under every other grouping: random magnitudes over binades.
inline std::vector<float> spread_floats(std::int64_t n, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v)
  {
    const int binade = static_cast<int>(rng() % 24) - 12;
    x = std::ldexp(static_cast<float>(rng() % 1000000) / 1000000.0f, binade) * ((rng() & 1) ? 1.0f : -1.0f);
  }
  return v;
}

/// The checks of one shape and axis list, for an out of rank K.
template <std::size_t R, class H>
struct axes_checks
{
  const H& h;
  const view_shape<R>& s;
  const std::vector<std::int64_t>& ints;
  const std::vector<float>& floats;
  const std::vector<std::int64_t>& positions;
  const std::vector<affine>& maps;
  const std::vector<mat2>& matrices;

  template <std::size_t K>
  void run(const std::vector<int>& axes, view_layout out_layout)
  {
    check_axes_call<R, K>(h, s, ints, axes, out_layout, std::int64_t{7}, rk::plus{});
    if constexpr (!H::commutative_only)
    {
      check_axes_call<R, K>(h, s, floats, axes, out_layout, 0.5f, rk::plus{});
      to_segment ranges;
      check_axes_call<R, K>(h, s, positions, axes, out_layout, segment{-3, 0}, segment_merge{}, &ranges);
      square_item square;
      check_axes_call<R, K>(h, s, floats, axes, out_layout, 0.0f, rk::plus{}, &square);
      // The suites' other two non-commutative operators: where out keeps its outputs does not
      // change the order of the items, so one layout of out is enough.
      if (out_layout == view_layout::right)
      {
        check_axes_call<R, K>(h, s, maps, axes, out_layout, affine{3u, 5u}, affine_compose{});
        check_axes_call<R, K>(h, s, matrices, axes, out_layout, mat2{1u, 2u, 3u, 4u}, mat2_multiply{});
      }
    }
  }
};

/// Every axis subset in `subsets` of one view of x, every layout of out: int64 sums, float sums
/// (bits), index-range merges (order and init once), affine maps and 2x2 matrices (the other two
/// non-commutative operators), transform_reduce_axes to ranges and to squares.
template <std::size_t R, class H>
void axes_properties_for_view(const H& h, const view_shape<R>& s, const std::vector<std::vector<int>>& subsets)
{
  CAPTURE(s.items());
  CAPTURE(name(s.layout));
  std::vector<std::int64_t> ints(static_cast<std::size_t>(s.storage));
  for (std::size_t i = 0; i < ints.size(); ++i)
  {
    ints[i] = static_cast<std::int64_t>(i * 2654435761u % 2001) - 1000;
  }
  const std::vector<float> floats  = spread_floats(s.storage, 77 + R);
  const std::vector<affine> maps   = drawn_items<affine>(s.storage, random_affine{}, 78 + R);
  const std::vector<mat2> matrices = drawn_items<mat2>(s.storage, random_mat2{}, 79 + R);
  for (const auto& axes : subsets)
  {
    CAPTURE(axes.size());
    CAPTURE(axes.empty() ? -1 : axes[0]);
    CAPTURE(axes.size() > 1 ? axes[1] : -1);
    // The positions of the items in row-major order of the reduced axes, stored where x keeps
    // them: segment merges over them check order and init once.
    std::vector<std::int64_t> positions(static_cast<std::size_t>(s.storage), 0);
    for (const auto& items : items_of_outputs(s, axes))
    {
      for (std::size_t r = 0; r < items.size(); ++r)
      {
        positions[static_cast<std::size_t>(items[r])] = static_cast<std::int64_t>(r);
      }
    }
    axes_checks<R, H> check{h, s, ints, floats, positions, maps, matrices};
    // rk::atomic combines into out with atomics: only a dense out (the others are an error,
    // which the GPU suite checks on its own). An out of rank 0 or 1 in layout_left is the same
    // mapping as in layout_right.
    const bool left_differs = R - axes.size() >= 2;
    for (view_layout out_layout : {view_layout::right, view_layout::left, view_layout::strided})
    {
      if ((!H::commutative_only || out_layout == view_layout::right)
          && (out_layout != view_layout::left || left_differs))
      {
        for_out_rank<R>(axes, out_layout, check);
      }
    }
  }
}

/// axes_properties_for_view over x in each of the three layouts.
template <std::size_t R, class H>
void axes_properties_for_shape(const H& h, std::array<std::int64_t, R> extent,
                               const std::vector<std::vector<int>>& subsets = axis_subsets<R>())
{
  for (view_layout layout : {view_layout::right, view_layout::left, view_layout::strided})
  {
    axes_properties_for_view(h, view_shape<R>(extent, layout), subsets);
  }
}
} // namespace rk_test

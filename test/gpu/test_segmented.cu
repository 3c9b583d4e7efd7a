// rk::segmented_reduce on the GPU policies: every layout of the segmented issue against rk::host
// (bit for bit: both compute rk::reduce's tree per segment), the three forms, non-commutative
// operators, init once, empty segments, a type without a default constructor, > 2^31 items in a
// segment, and bad input.

#include "../support/segments.hpp"
#include "../support/spread.hpp"
#include "gpu_harness.cuh"
#include "segmented_suite.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

using rk_test::segment_layout;

namespace
{
using rk_test::layout_items;
using rk_test::spread_item;

/// `n` items make(0), make(1), ... (spread_item<Item> unless told) in device memory, and their
/// copy on the host.
template <class Item, class Make = spread_item<Item>>
std::pair<thrust::device_vector<Item>, std::vector<Item>> spread_items(std::size_t n, Make make = {})
{
  thrust::device_vector<Item> items(n);
  thrust::transform(thrust::counting_iterator<std::int64_t>(0),
                    thrust::counting_iterator<std::int64_t>(static_cast<std::int64_t>(n)), items.begin(), make);
  std::vector<Item> host_items(n);
  thrust::copy(items.begin(), items.end(), host_items.begin());
  return {std::move(items), std::move(host_items)};
}

/// Every layout of test/support/segments.hpp over the items `make` computes, reduced by `policy`
/// and by rk::host with `init` and `op`; `check(expected, got)` compares the results.
template <class T, class Item, class Policy, class Check, class Make = spread_item<Item>, class Op = rk::plus>
void every_layout(Policy policy, Check check, T init = T(3), Make make = {}, Op op = {})
{
  for (segment_layout layout : rk_test::all_layouts())
  {
    CAPTURE(rk_test::name(layout));
    const auto offsets  = rk_test::make_offsets(layout, layout_items());
    const std::size_t n = static_cast<std::size_t>(offsets.back()), segments = offsets.size() - 1;
    const auto [items, host_items] = spread_items<Item>(n, make);
    const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
    std::vector<T> expected(segments, init);
    rk::segmented_reduce(rk::host, host_items.begin(), offsets.begin(), offsets.end(), expected.begin(), init, op);
    thrust::device_vector<T> out(segments, init);
    rk::segmented_reduce(policy, items.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init, op);
    std::vector<T> got(segments, init);
    thrust::copy(out.begin(), out.end(), got.begin());
    check(expected, got);
  }
}

template <class T>
void same_bits(const std::vector<T>& expected, const std::vector<T>& got)
{
  std::size_t wrong = 0, first = expected.size();
  for (std::size_t s = 0; s < expected.size(); ++s)
  {
    if (!rk_test::same_bytes(expected[s], got[s]))
    {
      first = wrong++ == 0 ? s : first;
    }
  }
  CAPTURE(first);
  CHECK(wrong == 0);
}

template <class Policy>
void layouts_on(Policy policy)
{
  every_layout<int, int>(policy, same_bits<int>);
  every_layout<float, float>(policy, same_bits<float>);
  every_layout<double, double>(policy, same_bits<double>);
  every_layout<std::int64_t, std::int8_t>(policy, same_bits<std::int64_t>);
}
} // namespace

RK_GPU_TEST_CASE("segmented_reduce: every layout, int/float/double/int8->int64, rk::host's bits (single_pass)")
{
  layouts_on(rk::single_pass);
}

RK_GPU_TEST_CASE("segmented_reduce: every layout, int/float/double/int8->int64, rk::host's bits (two_pass)")
{
  layouts_on(rk::two_pass);
}

RK_GPU_TEST_CASE("segmented_reduce: every layout, rk::device, and tunings that change the grid")
{
  every_layout<float, float>(rk::device, same_bits<float>);
  every_layout<float, float>(rk::single_pass.tuned<rk::fixed_tuning<128, 1, 1, 1, 1, 7>>(), same_bits<float>);
  every_layout<double, double>(rk::two_pass.tuned<rk::fixed_tuning<512, 1, 4, 2>>(), same_bits<double>);
}

RK_GPU_TEST_CASE("segmented_reduce: one segment equals rk::reduce, off the 16-byte grid too")
{
  const std::int64_t n = rk_test::quick_mode() ? 300001 : 5000001;
  thrust::device_vector<float> items(static_cast<std::size_t>(n) + 1);
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n + 1),
                    items.begin(), spread_item<float>{});
  for (std::int64_t start : {0, 1})
  {
    CAPTURE(start);
    const float expected = rk::reduce(rk::single_pass, items.begin() + start, items.begin() + start + n - start, 1.5f);
    thrust::device_vector<std::int64_t> offsets{start, n};
    thrust::device_vector<float> out(1);
    rk::segmented_reduce(rk::single_pass, items.begin(), offsets.begin(), offsets.end(), out.begin(), 1.5f);
    CHECK(rk_test::bits_of(static_cast<float>(out[0])) == rk_test::bits_of(expected));
    rk::segmented_reduce(rk::two_pass, items.begin() + start, 1, n - start, out.begin(), 1.5f, rk::plus{});
    CHECK(rk_test::bits_of(static_cast<float>(out[0])) == rk_test::bits_of(expected));
  }
}

RK_GPU_TEST_CASE("segmented_reduce: long segments on and off the 16-byte grid, few and many in a call, rk::host's bits")
{
  // Odd lengths put every other segment's first double off the 16-byte grid: lengths of one part
  // and of many (their nodes joined by the last block or by rk::two_pass's finish kernel), with
  // empty and short segments between them. One round of them is a call of few segments (no list:
  // every block lays them out), six rounds one of more than rk::detail::few_segments_max (the
  // long list, one list for both block bodies).
  const std::vector<std::int64_t> lengths{8193, 40001, 65537, 300001, 3, 16385, 16383, 131073, 0, 1000001, 4097, 8191};
  for (int rounds : {1, 6})
  {
    std::vector<std::int64_t> offsets{0};
    for (int round = 0; round < rounds; ++round)
    {
      for (std::int64_t length : lengths)
      {
        offsets.push_back(offsets.back() + length + round);
      }
    }
    const std::size_t n = static_cast<std::size_t>(offsets.back()), segments = offsets.size() - 1;
    CAPTURE(segments);
    CHECK((segments <= static_cast<std::size_t>(rk::detail::few_segments_max)) == (rounds == 1));
    const auto check = [&](auto item, auto policy) {
      using T                        = decltype(item);
      const auto [items, host_items] = spread_items<T>(n);
      std::vector<T> expected(segments);
      rk::segmented_reduce(rk::host, host_items.begin(), offsets.begin(), offsets.end(), expected.begin(), T(3));
      const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
      thrust::device_vector<T> out(segments);
      rk::segmented_reduce(policy, items.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), T(3), rk::plus{});
      std::vector<T> got(segments);
      thrust::copy(out.begin(), out.end(), got.begin());
      same_bits(expected, got);
      // The CUB form over the same segments, last to first.
      const std::vector<std::int64_t> host_begins(offsets.rbegin() + 1, offsets.rend());
      const std::vector<std::int64_t> host_ends(offsets.rbegin(), offsets.rend() - 1);
      const thrust::device_vector<std::int64_t> begins(host_begins.begin(), host_begins.end());
      const thrust::device_vector<std::int64_t> ends(host_ends.begin(), host_ends.end());
      rk::segmented_reduce(policy, items.begin(), static_cast<std::int64_t>(segments), begins.begin(), ends.begin(),
                           out.begin(), T(3), rk::plus{});
      thrust::copy(out.begin(), out.end(), got.begin());
      std::reverse(got.begin(), got.end());
      same_bits(expected, got);
    };
    check(double{}, rk::single_pass);
    check(double{}, rk::two_pass);
    check(float{}, rk::device);
    check(std::int64_t{}, rk::atomic);
  }
}

RK_GPU_TEST_CASE("segmented_reduce: the fixed-size form, and the CUB form out of order, overlapping, with gaps")
{
  rk_test::fixed_and_cub_forms(rk::single_pass, rk::two_pass);
}

namespace
{
/// Fixed-size rows of `size` items from `start` items into a float array, on `policy`, against
/// rk::host bit for bit, and the first and last rows against rk::reduce over the same items.
template <class Policy>
void fixed_rows_on(Policy policy, const thrust::device_vector<float>& items, const std::vector<float>& host_items,
                   std::int64_t start, std::int64_t size)
{
  const std::int64_t available = static_cast<std::int64_t>(items.size()) - start;
  const std::int64_t rows      = size == 0 ? 1000 : std::min<std::int64_t>(available / size, 20000);
  CAPTURE(start);
  CAPTURE(size);
  CAPTURE(rows);
  std::vector<float> expected(static_cast<std::size_t>(rows));
  rk::segmented_reduce(rk::host, host_items.begin() + start, rows, size, expected.begin(), 0.25f, rk::plus{});
  thrust::device_vector<float> out(static_cast<std::size_t>(rows));
  rk::segmented_reduce(policy, items.begin() + start, rows, size, out.begin(), 0.25f, rk::plus{});
  std::vector<float> got(static_cast<std::size_t>(rows));
  thrust::copy(out.begin(), out.end(), got.begin());
  same_bits(expected, got);
  for (std::int64_t r : {std::int64_t{0}, rows - 1})
  {
    const auto row = items.begin() + start + r * size;
    CHECK(rk_test::bits_of(got[static_cast<std::size_t>(r)])
          == rk_test::bits_of(rk::reduce(rk::single_pass, row, row + size, 0.25f)));
  }
}
} // namespace

RK_GPU_TEST_CASE("segmented_reduce: the fixed-size form's every way of reading a row, rk::reduce's bits per row")
{
  // float: 8 items a lane, 256 a tile. Row lengths on each side of every path's bounds: empty, one
  // lane (a thread a row), 2 to 16 lanes (lane groups of 2, 4, 8, 16), 17 lanes to 32 tiles (a
  // warp), longer (parts of rk::reduce's block body, one or several per row, joined by the last
  // block or by rk::two_pass's second kernel); on and off the 16-byte grid.
  const std::int64_t n = rk_test::quick_mode() ? (1 << 20) : (1 << 23);
  thrust::device_vector<float> items(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    items.begin(), spread_item<float>{});
  std::vector<float> host_items(static_cast<std::size_t>(n));
  thrust::copy(items.begin(), items.end(), host_items.begin());
  for (std::int64_t size : {0,   1,   5,   8,   9,    16,   17,   33,   64,   65,   127,   128,   129,
                            136, 255, 256, 257, 1000, 4095, 4096, 4097, 8192, 8193, 16384, 65536, 300007})
  {
    // Long rows start 1 to 3 words past the grid too (read as shifted vectors).
    for (std::int64_t start : size < 8192 ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{0, 1, 2, 3})
    {
      fixed_rows_on(rk::single_pass, items, host_items, start, size);
      fixed_rows_on(rk::two_pass, items, host_items, start, size);
      fixed_rows_on(rk::device, items, host_items, start, size);
    }
  }
  // Few long rows: many parts per row.
  for (std::int64_t size : {n / 3, n - 5})
  {
    fixed_rows_on(rk::single_pass, items, host_items, 3, size);
    fixed_rows_on(rk::two_pass, items, host_items, 0, size);
  }
}

namespace
{
/// Item i as rk::mean_var's state, computed where it is read: long rows with no memory behind them.
struct spread_state
{
  __host__ __device__ rk::mean_var<double> operator()(std::int64_t i) const
  {
    return rk::to_mean_var<double>{}(spread_item<double>{}(i));
  }
};

/// `rows` fixed-size rows of `size` of `items`' items on every reproducible GPU policy against
/// rk::host, bit for bit, and the last row against rk::reduce over its items.
template <class T, class Items, class Op>
void window_rows_match(Items items, std::int64_t rows, std::int64_t size, T init, Op op)
{
  CAPTURE(rows);
  CAPTURE(size);
  std::vector<T> expected(static_cast<std::size_t>(rows));
  rk::segmented_reduce(rk::host, items, rows, size, expected.begin(), init, op);
  const auto last = items + (rows - 1) * size;
  CHECK(rk_test::same_bytes(expected.back(), rk::reduce(rk::single_pass, last, last + size, init, op)));
  const auto on = [&](auto policy) {
    thrust::device_vector<T> out(static_cast<std::size_t>(rows));
    rk::segmented_reduce(policy, items, rows, size, out.begin(), init, op);
    const std::vector<T> got(out.begin(), out.end());
    std::size_t wrong = 0;
    for (std::size_t r = 0; r < got.size(); ++r)
    {
      wrong += rk_test::same_bytes(got[r], expected[r]) ? 0 : 1;
    }
    CHECK(wrong == 0);
  };
  on(rk::single_pass);
  on(rk::two_pass);
  on(rk::device);
}
} // namespace

RK_GPU_TEST_CASE("segmented_reduce: the fixed-size form's warps over windows, rows cut into chunks")
{
  // rk::mean_var<double>'s states (24 bytes: a lane is one item, a window 1024 items) go a warp
  // per chunk of windows at any row count, the chunks halved until they fill the GPU's warps:
  // few rows of many windows give chunks of one window, and rows of 2000 windows chunks of
  // several (two on a GPU of 132 SMs), joined by the last warp to finish or by rk::two_pass's
  // second kernel, a row's last chunk cut short; 4000 rows of 3 windows are a chunk each on any
  // GPU of up to 160 SMs.
  const auto states = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), spread_state{});
  const rk::mean_var<double> empty{};
  for (auto [rows, size] : {std::pair<std::int64_t, std::int64_t>{3, 1025},
                            {5, 2048},
                            {2, 129 * 1024 + 7},
                            {3, 2000 * 1024 + 1},
                            {4000, 3000}})
  {
    window_rows_match(states, rows, size, empty, rk::mean_var_op<double>{});
  }
  // Double sums over as many rows (at most 64 warps a SM: 9000 rows cover 140 SMs) once went a
  // warp a row; they take parts of rk::reduce's block body now, whose bits the windows' must
  // match: rows of two windows of 4096 doubles, the second cut short.
  const auto doubles = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                       spread_item<double>{});
  window_rows_match(doubles, 9000, 4097, 0.25, rk::plus{});
}

RK_GPU_TEST_CASE("segmented_reduce: runs of segments of up to two lanes, rk::host's bits")
{
  // Lengths 0 to 8 doubles (one or two lanes: the short-segment kernel's four-batch step, a thread
  // a segment) and 0 to 16 floats (one lane there, two on lane groups), then one longer segment
  // that ends the runs.
  const auto on = [](auto item, int max_length) {
    using T = decltype(item);
    std::vector<std::int64_t> offsets{0};
    for (int s = 0; s < 300000; ++s)
    {
      offsets.push_back(offsets.back() + (s * 7 + s / 5) % (max_length + 1));
    }
    offsets.push_back(offsets.back() + 5000);
    const std::int64_t n = offsets.back();
    thrust::device_vector<T> items(static_cast<std::size_t>(n));
    thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                      items.begin(), spread_item<T>{});
    std::vector<T> host_items(static_cast<std::size_t>(n));
    thrust::copy(items.begin(), items.end(), host_items.begin());
    std::vector<T> expected(offsets.size() - 1);
    rk::segmented_reduce(rk::host, host_items.begin(), offsets.begin(), offsets.end(), expected.begin(), T(2));
    const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
    for (int backend = 0; backend < 2; ++backend)
    {
      CAPTURE(backend);
      thrust::device_vector<T> out(expected.size());
      if (backend == 0)
      {
        rk::segmented_reduce(rk::single_pass, items.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), T(2));
      }
      else
      {
        rk::segmented_reduce(rk::two_pass, items.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), T(2));
      }
      std::vector<T> got(expected.size());
      thrust::copy(out.begin(), out.end(), got.begin());
      same_bits(expected, got);
    }
  };
  on(0.0f, 16);
  on(0.0, 8);
}

RK_GPU_TEST_CASE("segmented_reduce: float affine maps (8 bytes, not commutative) over every layout, rk::host's bits")
{
  // Composition is associative only up to rounding and does not commute, so a segment's bits
  // follow its tree and its order: segments that share a warp's rounds of packed lanes (power law,
  // half empty, 32 items) must each keep their own tree, as must those of 2 to 32 tiles.
  using rk_test::float_affine;
  const float_affine init{1.5f, 0.25f};
  const auto on = [&](auto policy) {
    every_layout<float_affine, float_affine>(policy, same_bits<float_affine>, init, rk_test::to_float_affine{},
                                             rk_test::float_affine_compose{});
  };
  on(rk::single_pass);
  on(rk::two_pass);
  on(rk::device);
}

namespace
{
struct is_expected_segment
{
  __host__ __device__ int operator()(const rk_test::segment& s) const
  {
    // Written through a transform output iterator: 1 if the segment is a well-formed result.
    return s.begin != rk_test::segment_merge::poison ? 1 : 0;
  }
};
} // namespace

RK_GPU_TEST_CASE("segmented_reduce: non-commutative marker merge gives exactly begin to end per segment")
{
  for (segment_layout layout : {segment_layout::half_empty, segment_layout::huge_plus_tiny, segment_layout::power_law,
                                segment_layout::all_4096, segment_layout::all_65536})
  {
    CAPTURE(rk_test::name(layout));
    const auto offsets = rk_test::make_offsets(layout, layout_items());
    const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
    auto items = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::to_segment{});
    for (int pass = 0; pass < 2; ++pass)
    {
      thrust::device_vector<rk_test::segment> out(offsets.size() - 1, rk_test::segment{0, 0});
      if (pass == 0)
      {
        rk::segmented_reduce(rk::single_pass, items, d_offsets.begin(), d_offsets.end(), out.begin(),
                             rk_test::marker_merge::marker(), rk_test::marker_merge{});
      }
      else
      {
        rk::segmented_reduce(rk::two_pass, items, d_offsets.begin(), d_offsets.end(), out.begin(),
                             rk_test::marker_merge::marker(), rk_test::marker_merge{});
      }
      std::vector<rk_test::segment> got(out.size(), rk_test::segment{0, 0});
      thrust::copy(out.begin(), out.end(), got.begin());
      std::size_t wrong = 0;
      for (std::size_t s = 0; s < got.size(); ++s)
      {
        const auto expected = offsets[s] == offsets[s + 1]
                              ? rk_test::marker_merge::marker()
                              : rk_test::segment{offsets[s] - rk_test::marker_merge::start_shift, offsets[s + 1]};
        wrong += got[s] == expected ? 0 : 1;
      }
      CHECK(wrong == 0);
    }
  }
}

RK_GPU_TEST_CASE("segmented_reduce: no default constructor, fancy output iterator")
{
  const auto offsets = rk_test::make_offsets(segment_layout::power_law, 1 << 20);
  const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
  auto items = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::to_no_default{});
  thrust::device_vector<rk_test::no_default> out(offsets.size() - 1, rk_test::no_default(0));
  rk::segmented_reduce(rk::device, items, d_offsets.begin(), d_offsets.end(), out.begin(), rk_test::no_default(2),
                       rk_test::no_default_plus{});
  std::vector<rk_test::no_default> got(out.size(), rk_test::no_default(0));
  thrust::copy(out.begin(), out.end(), got.begin());
  std::size_t wrong = 0;
  for (std::size_t s = 0; s < got.size(); ++s)
  {
    std::int32_t expected = 2;
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
    {
      expected += static_cast<std::int32_t>(i % 7) - 3;
    }
    wrong += got[s].value == expected ? 0 : 1;
  }
  CHECK(wrong == 0);

  // A transform output iterator: 1 per well-formed marker-merge result.
  auto segments = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::to_segment{});
  thrust::device_vector<int> flags(offsets.size() - 1, 0);
  rk::segmented_reduce(rk::single_pass, segments, d_offsets.begin(), d_offsets.end(),
                       thrust::make_transform_output_iterator(flags.begin(), is_expected_segment{}),
                       rk_test::marker_merge::marker(), rk_test::marker_merge{});
  CHECK(thrust::reduce(flags.begin(), flags.end(), 0) == static_cast<int>(flags.size()));
}

// Skipped, and reported so, in quick mode (RK_TEST_QUICK: minutes under the sanitizers).
TEST_CASE("segmented_reduce: a segment of 2^31 + 5 items through an iterator"
          * doctest::skip(!rk_test::gpu_available() || rk_test::quick_mode()))
{
  const std::int64_t big = (std::int64_t{1} << 31) + 5;
  thrust::device_vector<std::int64_t> offsets{0, 7, big + 7, big + 7, big + 1007};
  auto items = thrust::counting_iterator<std::int64_t>(0);
  thrust::device_vector<std::int64_t> out(4);
  for (int pass = 0; pass < 2; ++pass)
  {
    if (pass == 0)
    {
      rk::segmented_reduce(rk::single_pass, items, offsets.begin(), offsets.end(), out.begin(), std::int64_t{1});
    }
    else
    {
      rk::segmented_reduce(rk::two_pass, items, offsets.begin(), offsets.end(), out.begin(), std::int64_t{1});
    }
    auto sum = [](std::int64_t b, std::int64_t e) { return (e - b) * (b + e - 1) / 2; };
    CHECK(static_cast<std::int64_t>(out[0]) == 1 + sum(0, 7));
    CHECK(static_cast<std::int64_t>(out[1]) == 1 + sum(7, big + 7));
    CHECK(static_cast<std::int64_t>(out[2]) == 1);
    CHECK(static_cast<std::int64_t>(out[3]) == 1 + sum(big + 7, big + 1007));
  }
}

RK_GPU_TEST_CASE("segmented_reduce: bad segments are reported, host offsets are refused")
{
  thrust::device_vector<int> items(1000, 1);
  thrust::device_vector<int> offsets{0, 10, 5, 20};
  thrust::device_vector<int> out(3, -1);
  rk::segmented_reduce(rk::single_pass, items.begin(), offsets.begin(), offsets.end(), out.begin(), 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK_THROWS_WITH_AS(rk::check_device_errors(), doctest::Contains("was given segment 1, which ends before it begins"),
                       rk::error);
  CHECK_NOTHROW(rk::check_device_errors()); // the report is cleared
  CHECK(static_cast<int>(out[0]) == 10);
  CHECK(static_cast<int>(out[1]) == 0); // init
  CHECK(static_cast<int>(out[2]) == 15);

  // A segment that begins before `first` (here in the middle of the items, so nothing faults if it
  // were read): reported, init, the others reduced. Three segments take the few-segments kernel;
  // 100 under rk::atomic take the short-segment kernel.
  thrust::device_vector<int> negative{-4, 10, 20, 30};
  rk::segmented_reduce(rk::single_pass, items.begin() + 500, negative.begin(), negative.end(), out.begin(), 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK_THROWS_WITH_AS(rk::check_device_errors(),
                       doctest::Contains("was given segment 0, which ends before it begins "
                                         "or begins before the first item"),
                       rk::error);
  CHECK(static_cast<int>(out[0]) == 0); // init
  CHECK(static_cast<int>(out[1]) == 10);
  CHECK(static_cast<int>(out[2]) == 10);
  std::vector<int> begins(100), ends(100);
  for (int s = 0; s < 100; ++s)
  {
    begins[static_cast<std::size_t>(s)] = s == 50 ? -3 : 4 * s;
    ends[static_cast<std::size_t>(s)]   = 4 * s + 4;
  }
  const thrust::device_vector<int> d_begins(begins), d_ends(ends);
  thrust::device_vector<int> many(100, -1);
  rk::segmented_reduce(rk::atomic, items.begin() + 500, 100, d_begins.begin(), d_ends.begin(), many.begin(), 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK_THROWS_WITH_AS(rk::check_device_errors(), doctest::Contains("was given segment 50"), rk::error);
  const thrust::host_vector<int> got(many);
  CHECK(got[50] == 0); // init
  CHECK(got[49] == 4);
  CHECK(got[51] == 4);
  // 2^20 one-item segments: the short kernel's blocks take runs of tiny batches, which a negative
  // begin must leave.
  const int tiny_count = 1 << 20;
  thrust::device_vector<int> ones(tiny_count + 8, 1);
  thrust::device_vector<int> tiny_begins(tiny_count), tiny_ends(tiny_count), tiny_out(tiny_count, -1);
  thrust::sequence(tiny_begins.begin(), tiny_begins.end(), 0);
  thrust::sequence(tiny_ends.begin(), tiny_ends.end(), 1);
  tiny_begins[12345] = -1;
  rk::segmented_reduce(rk::atomic, ones.begin() + 8, tiny_count, tiny_begins.begin(), tiny_ends.begin(),
                       tiny_out.begin(), 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK_THROWS_WITH_AS(rk::check_device_errors(), doctest::Contains("was given segment 12345"), rk::error);
  const thrust::host_vector<int> tiny_got(tiny_out);
  CHECK(tiny_got[12345] == 0); // init
  CHECK(std::count(tiny_got.begin(), tiny_got.end(), 1) == tiny_count - 1);

  std::vector<int> host_offsets{0, 10, 20};
  if (rk::detail::current_device_facts().pageable_memory_access)
  {
    return; // HMM or ATS: the GPU reads pageable memory, so rk accepts it
  }
  CHECK_THROWS_AS(rk::segmented_reduce(rk::single_pass, items.begin(), host_offsets.data(),
                                       host_offsets.data() + host_offsets.size(), out.begin(), 0),
                  rk::host_memory_error);
}

RK_GPU_TEST_CASE("segmented_reduce: rk::explain_segmented names the backend and the reproducible bits")
{
  thrust::device_vector<double> items(10);
  const rk::explanation d = rk::explain_segmented(rk::device, items.begin(), 1000, items.begin(), 0.0, rk::plus{});
  CHECK(d.policy == "device");
  CHECK(d.backend == "single_pass");
  CHECK(d.size == 1000);
  CHECK(d.reproducible);
  CHECK(d.reason.find("last block of each segment") != std::string::npos);
  const rk::explanation t = rk::explain_segmented(rk::two_pass, items.begin(), 5, items.begin(), 0.0);
  CHECK(t.backend == "two_pass");
  CHECK(t.reason.find("second kernel") != std::string::npos);
}

namespace
{
/// Counts the outputs written and sums them, spread over 4096 words so that 2^31 writes do not
/// queue on one address.
struct tally_output
{
  unsigned long long* writes;
  unsigned long long* sums;
  __device__ std::int64_t operator()(std::int64_t v) const
  {
    const unsigned slot = (blockIdx.x * blockDim.x + threadIdx.x) % 4096u;
    atomicAdd(writes + slot, 1ull);
    atomicAdd(sums + slot, static_cast<unsigned long long>(v));
    return v;
  }
};

struct one_item
{
  __host__ __device__ std::int64_t operator()(std::int64_t) const
  {
    return 1;
  }
};

struct half_index
{
  __host__ __device__ std::int64_t operator()(std::int64_t i) const
  {
    return (i + 1) / 2; // offsets 0, 1, 1, 2, 2, ...: segments of 1 and 0 items in turn
  }
};
} // namespace

// Skipped, and reported so, in quick mode (RK_TEST_QUICK: minutes under the sanitizers).
TEST_CASE("segmented_reduce: more than 2^31 segments of 0 or 1 items through iterators"
          * doctest::skip(!rk_test::gpu_available() || rk_test::quick_mode()))
{
  const std::int64_t segments = (std::int64_t{1} << 31) + 7;
  const auto ones             = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), one_item{});
  thrust::device_vector<unsigned long long> writes(4096), sums(4096);
  auto out   = thrust::make_transform_output_iterator(thrust::make_discard_iterator(),
                                                      tally_output{thrust::raw_pointer_cast(writes.data()),
                                                                 thrust::raw_pointer_cast(sums.data())});
  auto total = [](const thrust::device_vector<unsigned long long>& v) {
    return static_cast<std::int64_t>(thrust::reduce(v.begin(), v.end(), 0ull));
  };
  // CSR form: segment i has (i + 1) % 2 items; init 5, so the outputs alternate 6 and 5.
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), half_index{});
  rk::segmented_reduce(rk::device, ones, offsets, offsets + segments + 1, out, std::int64_t{5});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::int64_t with_item = (segments + 1) / 2;
  CHECK(total(writes) == segments);
  CHECK(total(sums) == 5 * segments + with_item);
  // Fixed-size form: every segment one item.
  thrust::fill(writes.begin(), writes.end(), 0ull);
  thrust::fill(sums.begin(), sums.end(), 0ull);
  rk::segmented_reduce(rk::two_pass, ones, segments, 1, out, std::int64_t{5});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(total(writes) == segments);
  CHECK(total(sums) == 6 * segments);
}

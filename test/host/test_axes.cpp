// rk::reduce_axes, rk::transform_reduce_axes, rk::fuse and rk::mean_var on the host policies:
// every layout and axis subset (bits of rk::reduce over the copied items), the bad inputs, and
// the accuracy of the variance.

#include "../support/axes_properties.hpp"
#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace
{
using seq_harness  = rk_test::host_harness<rk::seq_policy>;
using host_harness = rk_test::host_harness<rk::host_policy>;

template <class H>
void shapes(const H& h)
{
  rk_test::axes_properties_for_shape<1>(h, {257});
  rk_test::axes_properties_for_shape<1>(h, {0});
  rk_test::axes_properties_for_shape<2>(h, {33, 31});
  rk_test::axes_properties_for_shape<2>(h, {1, 257});
  rk_test::axes_properties_for_shape<3>(h, {2, 31, 33});
  rk_test::axes_properties_for_shape<3>(h, {5, 0, 3});
  rk_test::axes_properties_for_shape<4>(h, {2, 3, 1, 33});
  rk_test::axes_properties_for_shape<8>(h, {2, 1, 3, 2, 1, 2, 3, 2},
                                        {{}, {7}, {0}, {3, 5}, {6, 4, 2, 0}, {0, 1, 2, 3, 4, 5, 6, 7}});
}

// x: 2 x 3 x 4 of int, out: the sums over axis 1, 2 x 4.
struct small_call
{
  std::vector<int> data = std::vector<int>(24, 1);
  std::vector<int> out  = std::vector<int>(8, -1);
  cuda::std::mdspan<const int, cuda::std::dextents<int, 3>> x{data.data(), 2, 3, 4};
  cuda::std::mdspan<int, cuda::std::dextents<int, 2>> o{out.data(), 2, 4};
};

std::string message_of(const std::function<void()>& f)
{
  try
  {
    f();
  }
  catch (const rk::error& e)
  {
    return e.what();
  }
  return "no rk::error";
}
} // namespace

TEST_CASE("rk::reduce_axes (host policies): every layout and axis subset, ranks 1-4 and 8, bits of rk::reduce")
{
  shapes(seq_harness{});
  shapes(host_harness{});
}

TEST_CASE("rk::reduce_axes: an empty reduced extent writes init everywhere and never calls op")
{
  std::vector<float> data(1);
  std::vector<float> out(5, 1.0f);
  cuda::std::mdspan<const float, cuda::std::dextents<int, 2>> x(data.data(), 0, 5);
  cuda::std::mdspan<float, cuda::std::dextents<int, 1>> o(out.data(), 5);
  rk::reduce_axes(rk::host, x, rk::axes{0}, o, 2.5f, rk_test::must_not_be_called{});
  CHECK(out == std::vector<float>(5, 2.5f));
  std::fill(out.begin(), out.end(), 1.0f);
  rk::reduce_axes(rk::seq, x, rk::axes{0}, o, 2.5f, rk_test::must_not_be_called{});
  CHECK(out == std::vector<float>(5, 2.5f));
}

TEST_CASE("rk::reduce_axes: bad axes and shapes throw rk::error naming them, before anything is written")
{
  small_call c;
  CHECK(message_of([&] { rk::reduce_axes(rk::host, c.x, rk::axes{3}, c.o, 0); }).find("axis 3 is out of range")
        != std::string::npos);
  CHECK(message_of([&] { rk::reduce_axes(rk::host, c.x, rk::axes{-1}, c.o, 0); }).find("axis -1 is out of range")
        != std::string::npos);
  CHECK(message_of([&] { rk::reduce_axes(rk::host, c.x, rk::axes{1, 1}, c.o, 0); }).find("axis 1 is given twice")
        != std::string::npos);
  CHECK(message_of([&] {
          rk::reduce_axes(rk::host, c.x, rk::axes{0, 1}, c.o, 0);
        }).find("out has rank 2, but reducing 2 of the 3 axes of x (shape (2, 3, 4)) keeps 1")
        != std::string::npos);
  CHECK(message_of([&] {
          rk::reduce_axes(rk::host, c.x, rk::axes{0}, c.o, 0);
        }).find("out has shape (2, 4), but the kept axes of x (shape (2, 3, 4)) have shape (3, 4)")
        != std::string::npos);
  CHECK(message_of([] { rk::axes too_many{0, 1, 2, 3, 4, 5, 6, 7, 0}; }).find("at most 8 axes") != std::string::npos);
  // A broadcast out (stride 0 along an axis of 4): four outputs would share one element.
  using stride_map = cuda::std::layout_stride::mapping<cuda::std::dextents<int, 2>>;
  const cuda::std::mdspan<int, cuda::std::dextents<int, 2>, cuda::std::layout_stride> broadcast(
    c.out.data(), stride_map(cuda::std::dextents<int, 2>(2, 4), cuda::std::array<int, 2>{4, 0}));
  CHECK(message_of([&] {
          rk::reduce_axes(rk::host, c.x, rk::axes{1}, broadcast, 0);
        }).find("out's stride along its axis 1 is 0")
        != std::string::npos);
  // An out with no elements has layout_right strides of 0 (5 x 0: strides 0, 1): nothing to share.
  std::vector<int> none(1);
  const cuda::std::mdspan<const int, cuda::std::dextents<int, 3>> x_empty(none.data(), 5, 0, 3);
  const cuda::std::mdspan<int, cuda::std::dextents<int, 2>> out_empty(none.data(), 5, 0);
  CHECK(message_of([&] { rk::reduce_axes(rk::host, x_empty, rk::axes{2}, out_empty, 0); }) == "no rk::error");
  CHECK(c.out == std::vector<int>(8, -1));
  rk::reduce_axes(rk::host, c.x, rk::axes{1}, c.o, 0);
  CHECK(c.out == std::vector<int>(8, 3));
}

TEST_CASE("rk::explain_axes (host policies): the route and the bits, after the call's own checks")
{
  small_call c;
  const rk::explanation host = rk::explain_axes(rk::host, c.x, rk::axes{1}, c.o, 0);
  CHECK(host.backend == "host");
  CHECK(host.reproducible);
  CHECK(host.size == 24);
  CHECK(host.reason.find("index map") != std::string::npos); // axis 1 of three: not x's rows
  cuda::std::mdspan<int, cuda::std::dextents<int, 2>> rows(c.out.data(), 2, 3);
  CHECK(rk::explain_axes(rk::host, c.x, rk::axes{2}, rows, 0).reason.find("as x's rows") != std::string::npos);
  const rk::explanation seq = rk::explain_axes(rk::seq, c.x, rk::axes{1}, c.o, 0, rk::plus{});
  CHECK(seq.backend == "seq");
  CHECK_FALSE(seq.reproducible);
  CHECK(message_of([&] { rk::explain_axes(rk::host, c.x, rk::axes{3}, c.o, 0); }).find("axis 3 is out of range")
        != std::string::npos);
  CHECK(c.out == std::vector<int>(8, -1)); // runs nothing
}

TEST_CASE("rk::fuse: several results in one pass, each with the bits it has alone")
{
  const auto items = rk_test::spread_floats(100003, 5);
  using triple     = cuda::std::tuple<float, float, float>;
  auto as_triple   = [](float v) { return triple{v, v, v}; };
  const triple r   = rk::transform_reduce(rk::host, items.begin(), items.end(), triple{0.0f, 1e30f, -1e30f},
                                          rk::fuse(rk::plus{}, rk::minimum{}, rk::maximum{}), as_triple);
  CHECK(rk_test::bits_equal(cuda::std::get<0>(r), rk::reduce(rk::host, items.begin(), items.end(), 0.0f)));
  CHECK(cuda::std::get<1>(r) == rk::reduce(rk::host, items.begin(), items.end(), 1e30f, rk::minimum{}));
  CHECK(cuda::std::get<2>(r) == rk::reduce(rk::host, items.begin(), items.end(), -1e30f, rk::maximum{}));
  static_assert(rk::is_commutative_v<decltype(rk::fuse(rk::plus{}, rk::minimum{}))>);
  static_assert(!rk::is_commutative_v<decltype(rk::fuse(rk::plus{}, rk_test::segment_merge{}))>);
}

TEST_CASE("rk::mean_var: the empty state merges exactly, variance of nothing is NaN")
{
  const rk::mean_var<float> empty{};
  const rk::mean_var<float> some{3, 1.25f, 0.5f};
  const rk::mean_var_op<float> op;
  CHECK(rk_test::bits_equal(op(empty, some), some));
  CHECK(rk_test::bits_equal(op(some, empty), some));
  CHECK(std::isnan(empty.variance()));
  CHECK(std::isnan(rk::mean_var<double>{1, 2.0, 0.0}.sample_variance()));
  CHECK(some.variance() == doctest::Approx(0.5 / 3));
  CHECK(some.sample_variance() == doctest::Approx(0.25));
  const std::vector<float> none;
  const auto s = rk::transform_reduce(rk::host, none.begin(), none.end(), rk::mean_var<float>{},
                                      rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  CHECK(s.count == 0);
}

// The operator chooses its result instead of branching to it (rk/statistics.hpp says why): an
// empty side must still give the other side's bits whatever its own fields hold, and a merge of
// two non-empty states must be Chan's formula with each product rounded on its own.
TEST_CASE(
  "rk::mean_var_op: an empty side gives the other's bits, whatever it holds; two states merge by Chan's formula")
{
  const rk::mean_var_op<double> op;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const rk::mean_var<double> some{5, -2.5, 3.0};
  const rk::mean_var<double> empty_with_garbage{0, nan, -7.0};
  CHECK(rk_test::bits_equal(op(empty_with_garbage, some), some));
  CHECK(rk_test::bits_equal(op(some, empty_with_garbage), some));
  CHECK(rk_test::bits_equal(op(empty_with_garbage, rk::mean_var<double>{}), empty_with_garbage));
  CHECK(rk_test::bits_equal(op(rk::mean_var<double>{}, empty_with_garbage), rk::mean_var<double>{}));
  const auto chan = [](const rk::mean_var<double>& a, const rk::mean_var<double>& b) {
    const std::int64_t n = a.count + b.count;
    const double delta   = b.mean - a.mean;
    volatile double w    = static_cast<double>(b.count) / static_cast<double>(n);
    volatile double dw   = delta * w;
    volatile double dd   = delta * delta;
    volatile double aw   = static_cast<double>(a.count) * w;
    volatile double s    = dd * aw;
    return rk::mean_var<double>{n, a.mean + dw, (a.m2 + b.m2) + s};
  };
  std::mt19937_64 rng(33);
  std::uniform_real_distribution<double> value(-1e3, 1e3);
  std::uniform_int_distribution<std::int64_t> count(1, std::int64_t{1} << 40);
  for (int i = 0; i < 1000; ++i)
  {
    const rk::mean_var<double> a{count(rng), value(rng), std::abs(value(rng))};
    const rk::mean_var<double> b{i % 3 == 0 ? 1 : count(rng), value(rng), i % 3 == 0 ? 0.0 : std::abs(value(rng))};
    REQUIRE(rk_test::bits_equal(op(a, b), chan(a, b)));
  }
}

// Float data of mean 1000 and deviation 1, a count that is not a power of two: the variance
// against a long double two-pass reference, within the bounds docs/design.md ("Statistics")
// derives: 2 ceil(log2 n) eps kappa on the tree policies (pairwise merges), sqrt(n) eps kappa for
// rk::seq's left fold, with kappa = sqrt(1 + mean^2 / variance), the condition number of the
// variance. The naive formula in float (mean of squares minus square of the mean) misses the
// tree's bound by more than 10x, which the test checks too; the tree's measured error is far
// inside its worst-case bound (printed).
TEST_CASE("rk::mean_var: accurate variance of float data with mean 1000 and deviation 1 (3,000,007 items)")
{
  const std::int64_t n = 3000007;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(1000.0, 1.0);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v)
  {
    x = static_cast<float>(normal(rng));
  }
  long double mean = 0;
  for (float x : v)
  {
    mean += x;
  }
  mean /= n;
  long double m2 = 0;
  for (float x : v)
  {
    m2 += (x - mean) * (x - mean);
  }
  const double variance   = static_cast<double>(m2 / n);
  const double kappa      = std::sqrt(1.0 + static_cast<double>(mean * mean) / variance);
  const double eps        = std::ldexp(1.0, -24);
  const double tree_bound = 2.0 * std::ceil(std::log2(static_cast<double>(n))) * eps * kappa;
  const double seq_bound  = std::sqrt(static_cast<double>(n)) * eps * kappa;
  auto relative_error     = [&](const rk::mean_var<float>& s) {
    return std::fabs(static_cast<double>(s.variance()) - variance) / variance;
  };
  const auto tree = rk::transform_reduce(rk::host, v.begin(), v.end(), rk::mean_var<float>{}, rk::mean_var_op<float>{},
                                         rk::to_mean_var<float>{});
  const auto fold = rk::transform_reduce(rk::seq, v.begin(), v.end(), rk::mean_var<float>{}, rk::mean_var_op<float>{},
                                         rk::to_mean_var<float>{});
  MESSAGE("relative error of the variance: tree " << relative_error(tree) << " (bound " << tree_bound << "), seq "
                                                  << relative_error(fold) << " (bound " << seq_bound << ")");
  CHECK(tree.count == n);
  CHECK(std::fabs(tree.mean - static_cast<double>(mean)) <= 1e-3);
  CHECK(relative_error(tree) <= tree_bound);
  CHECK(relative_error(fold) <= seq_bound);
  // The naive formula in float: E[x^2] - E[x]^2.
  using pair              = cuda::std::tuple<float, float>;
  const pair sums         = rk::transform_reduce(rk::host, v.begin(), v.end(), pair{0.0f, 0.0f},
                                                 rk::fuse(rk::plus{}, rk::plus{}), [](float x) { return pair{x, x * x}; });
  const double naive_mean = cuda::std::get<0>(sums) / static_cast<double>(n);
  const double naive      = cuda::std::get<1>(sums) / static_cast<double>(n) - naive_mean * naive_mean;
  CHECK(std::fabs(naive - variance) / variance > 10 * tree_bound);
  // The same state from a segmented reduce over per-item states and from reduce_by_key.
  std::vector<rk::mean_var<float>> states(v.size());
  std::transform(v.begin(), v.end(), states.begin(), rk::to_mean_var<float>{});
  std::vector<rk::mean_var<float>> one(1);
  const std::vector<std::int64_t> offsets{0, n};
  rk::segmented_reduce(rk::host, states.begin(), offsets.begin(), offsets.end(), one.begin(), rk::mean_var<float>{},
                       rk::mean_var_op<float>{});
  CHECK(relative_error(one[0]) <= tree_bound);
  std::vector<int> keys(v.size(), 4), key_out(1);
  std::vector<rk::mean_var<float>> by_key(1);
  rk::reduce_by_key(rk::host, keys.begin(), keys.end(), states.begin(), key_out.begin(), by_key.begin(),
                    rk::mean_var<float>{}, rk::mean_var_op<float>{});
  CHECK(rk_test::bits_equal(by_key[0], one[0]));
}

namespace
{
using sum_max = cuda::std::tuple<float, float>;
struct as_sum_max
{
  sum_max operator()(float v) const
  {
    return {v, v};
  }
};
} // namespace

TEST_CASE("rk::fuse through rk::transform_reduce_axes and rk::segmented_reduce: each result has the bits it has alone")
{
  const auto items = rk_test::spread_floats(37 * 1001, 6);
  const auto fused = rk::fuse(rk::plus{}, rk::maximum{});
  const sum_max init{0.5f, -1e30f};
  // Column and row results of a 37 x 1001 matrix.
  cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> x(items.data(), 37, 1001);
  for (int axis : {0, 1})
  {
    CAPTURE(axis);
    const std::int64_t kept = axis == 0 ? 1001 : 37;
    std::vector<sum_max> both(static_cast<std::size_t>(kept));
    std::vector<float> sums(both.size()), maxima(both.size());
    cuda::std::mdspan<sum_max, cuda::std::dextents<std::int64_t, 1>> out(both.data(), kept);
    cuda::std::mdspan<float, cuda::std::dextents<std::int64_t, 1>> out_sum(sums.data(), kept),
      out_max(maxima.data(), kept);
    rk::transform_reduce_axes(rk::host, x, rk::axes{axis}, out, init, fused, as_sum_max{});
    rk::reduce_axes(rk::host, x, rk::axes{axis}, out_sum, 0.5f, rk::plus{});
    rk::reduce_axes(rk::host, x, rk::axes{axis}, out_max, -1e30f, rk::maximum{});
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < both.size(); ++k)
    {
      wrong += rk_test::bits_equal(cuda::std::get<0>(both[k]), sums[k]) && cuda::std::get<1>(both[k]) == maxima[k] ? 0
                                                                                                                   : 1;
    }
    CHECK(wrong == 0);
  }
  // Segments of 0 to 400 (sum, max) pairs: each has rk::reduce's bits over its pairs (8-byte items:
  // their tree's lanes are not the floats'), and the maximum of its floats.
  std::vector<sum_max> pairs(items.size());
  std::transform(items.begin(), items.end(), pairs.begin(), as_sum_max{});
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t k = 0; offsets.back() + k % 401 <= static_cast<std::int64_t>(items.size()); ++k)
  {
    offsets.push_back(offsets.back() + k % 401);
  }
  const std::size_t segments = offsets.size() - 1;
  std::vector<sum_max> both(segments);
  std::vector<float> maxima(segments);
  rk::segmented_reduce(rk::host, pairs.begin(), offsets.begin(), offsets.end(), both.begin(), init, fused);
  rk::segmented_reduce(rk::host, items.begin(), offsets.begin(), offsets.end(), maxima.begin(), -1e30f, rk::maximum{});
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < segments; ++k)
  {
    const sum_max alone = rk::reduce(rk::host, pairs.begin() + offsets[k], pairs.begin() + offsets[k + 1], init, fused);
    wrong += rk_test::bits_equal(cuda::std::get<0>(both[k]), cuda::std::get<0>(alone))
              && cuda::std::get<1>(both[k]) == maxima[k]
             ? 0
             : 1;
  }
  CHECK(wrong == 0);
}

TEST_CASE("rk::reduce_axes (host policies): static extents give what dynamic ones give")
{
  const auto items = rk_test::spread_floats(4 * 6 * 5, 8);
  cuda::std::mdspan<const float, cuda::std::extents<int, 4, cuda::std::dynamic_extent, 5>> fixed_x(items.data(), 6);
  cuda::std::mdspan<const float, cuda::std::dextents<int, 3>> dynamic_x(items.data(), 4, 6, 5);
  std::vector<float> a(4 * 5, -1.0f), b(4 * 5, -2.0f);
  cuda::std::mdspan<float, cuda::std::extents<int, 4, 5>> fixed_out(a.data());
  cuda::std::mdspan<float, cuda::std::dextents<int, 2>, cuda::std::layout_left> dynamic_out(b.data(), 4, 5);
  for (bool tree : {true, false})
  {
    if (tree)
    {
      rk::reduce_axes(rk::host, fixed_x, rk::axes{1}, fixed_out, 0.25f);
      rk::reduce_axes(rk::host, dynamic_x, rk::axes{1}, dynamic_out, 0.25f);
    }
    else
    {
      rk::reduce_axes(rk::seq, fixed_x, rk::axes{1}, fixed_out, 0.25f);
      rk::reduce_axes(rk::seq, dynamic_x, rk::axes{1}, dynamic_out, 0.25f);
    }
    std::size_t wrong = 0;
    for (int i = 0; i < 4; ++i)
    {
      for (int k = 0; k < 5; ++k)
      {
        wrong += rk_test::bits_equal(fixed_out(i, k), dynamic_out(i, k)) ? 0 : 1;
      }
    }
    CHECK(wrong == 0);
  }
  // Every axis of a fully static view into a rank-0 out.
  cuda::std::mdspan<const float, cuda::std::extents<int, 4, 6, 5>> all_static(items.data());
  float whole = 0.0f;
  cuda::std::mdspan<float, cuda::std::extents<int>> scalar(&whole);
  rk::reduce_axes(rk::host, all_static, rk::axes{0, 1, 2}, scalar, 0.25f);
  CHECK(rk_test::bits_equal(whole, rk::reduce(rk::host, items.begin(), items.end(), 0.25f)));
}

TEST_CASE("rk::reduce_axes (rk::host): more than 2^31 items in total, a strided view with gaps over uint8_t")
{
  // 65537 rows of 32768 items, each row followed by one byte the view skips: 2^31 + 32768 items.
  const std::int64_t rows = 65537, cols = 32768, pitch = cols + 1;
  std::vector<std::uint8_t> storage(static_cast<std::size_t>(rows * pitch));
  for (std::size_t i = 0; i < storage.size(); ++i)
  {
    storage[i] = static_cast<std::uint8_t>(
      i % static_cast<std::size_t>(pitch) == static_cast<std::size_t>(cols) ? 0xff : (i * 7 + (i >> 13)) & 0x3f);
  }
  using extents = cuda::std::dextents<std::int64_t, 2>;
  const cuda::std::mdspan<const std::uint8_t, extents, cuda::std::layout_stride> x(
    storage.data(),
    cuda::std::layout_stride::mapping<extents>(extents(rows, cols), cuda::std::array<std::int64_t, 2>{pitch, 1}));
  REQUIRE(x.size() > (std::size_t{1} << 31));
  std::vector<std::uint64_t> want_columns(static_cast<std::size_t>(cols), 3),
    want_rows(static_cast<std::size_t>(rows), 3);
  std::uint64_t want_all = 3;
  for (std::int64_t r = 0; r < rows; ++r)
  {
    const std::uint8_t* row = storage.data() + r * pitch;
    for (std::int64_t c = 0; c < cols; ++c)
    {
      want_columns[static_cast<std::size_t>(c)] += row[c];
      want_rows[static_cast<std::size_t>(r)] += row[c];
      want_all += row[c];
    }
  }
  std::vector<std::uint64_t> columns(static_cast<std::size_t>(cols)), row_sums(static_cast<std::size_t>(rows));
  std::uint64_t all = 0;
  rk::reduce_axes(rk::host, x, rk::axes{0},
                  cuda::std::mdspan<std::uint64_t, cuda::std::dextents<std::int64_t, 1>>(columns.data(), cols),
                  std::uint64_t{3}, rk::plus{});
  rk::reduce_axes(rk::host, x, rk::axes{1},
                  cuda::std::mdspan<std::uint64_t, cuda::std::dextents<std::int64_t, 1>>(row_sums.data(), rows),
                  std::uint64_t{3}, rk::plus{});
  rk::reduce_axes(rk::host, x, rk::axes{1, 0}, cuda::std::mdspan<std::uint64_t, cuda::std::extents<int>>(&all),
                  std::uint64_t{3}, rk::plus{});
  CHECK(columns == want_columns);
  CHECK(row_sums == want_rows);
  CHECK(all == want_all);
}

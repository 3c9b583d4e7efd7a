// The reduction family on the host policies: rk::transform_reduce, rk::arg_min / arg_max /
// arg_min_max and rk::reduce_by_key (bodies in test/support/family_properties.hpp), the arg
// operators through rk::check_operator, and a forward-iterator input under rk::seq.

#include "../support/family_properties.hpp"
#include "../support/parity_properties.hpp"
#include "../support/spread.hpp"
#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <forward_list>
#include <initializer_list>
#include <limits>
#include <vector>

using seq_harness  = rk_test::host_harness<rk::seq_policy>;
using host_harness = rk_test::host_harness<rk::host_policy>;

TEST_CASE("rk::transform_reduce (host policies): sums, bits of rk::reduce over the transformed items, order, init once")
{
  rk_test::transform_reduce_properties(seq_harness{});
  rk_test::transform_reduce_properties(host_harness{});
}

TEST_CASE("rk::arg_min / arg_max / arg_min_max (host policies): first occurrence, NaN, empty, 64-bit positions")
{
  rk_test::arg_properties(seq_harness{});
  rk_test::arg_properties(host_harness{});
}

TEST_CASE("rk::transform_reduce and rk::arg_min (host policies): more than 2^31 items through iterators")
{
  rk_test::family_large_counts(host_harness{});
}

TEST_CASE("rk::reduce_by_key (host policies): run layouts, init once per run, Thrust's form, exact per run")
{
  rk_test::reduce_by_key_properties(seq_harness{});
  rk_test::reduce_by_key_properties(host_harness{});
}

namespace
{
/// Item i as the state of one item, for rk::mean_var.
struct mean_var_at
{
  rk::mean_var<float> operator()(std::int64_t i) const
  {
    return rk::to_mean_var<float>{}(rk_test::spread_float{}(i));
  }
};
/// Item i as a (sum, maximum) pair, for rk::fuse.
struct sum_max_at
{
  cuda::std::tuple<float, float> operator()(std::int64_t i) const
  {
    const float x = rk_test::spread_float{}(i);
    return {x, x};
  }
};

/// reduce_by_key over runs of `lengths` of `values` on `policy`: every sampled run's value has the
/// bytes of rk::reduce on the same policy over the run's items.
template <class T, class Policy, class Values, class Op>
void runs_have_reduce_bits(Policy policy, const std::vector<std::int64_t>& lengths, Values values, T init, Op op)
{
  const auto keys = rk_test::run_keys(lengths);
  const auto n    = static_cast<std::int64_t>(keys.size());
  std::vector<std::int32_t> key_out(keys.size());
  std::vector<T> value_out(keys.size(), init);
  const auto ends = rk::reduce_by_key(policy, keys.begin(), keys.end(), values, key_out.begin(), value_out.begin(),
                                      init, op);
  REQUIRE(ends.second - value_out.begin() == static_cast<std::ptrdiff_t>(lengths.size()));
  const std::size_t step = std::max<std::size_t>(1, lengths.size() / 400);
  std::int64_t at = 0, wrong = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r)
  {
    if (r % step == 0 || r + 1 == lengths.size())
    {
      wrong += rk_test::same_bytes(value_out[r], rk::reduce(policy, values + at, values + at + lengths[r], init, op))
               ? 0
               : 1;
    }
    at += lengths[r];
  }
  CAPTURE(n);
  CHECK(wrong == 0);
}
} // namespace

TEST_CASE("rk::reduce_by_key (host policies): each run has rk::reduce's bits (float sums, rk::mean_var, rk::fuse)")
{
  std::vector<std::vector<std::int64_t>> layouts = rk_test::run_layouts();
  layouts.push_back(std::vector<std::int64_t>(20, 1000));
  for (const auto& lengths : layouts)
  {
    CAPTURE(lengths.size());
    const rk_test::generating_iterator<rk_test::spread_float> floats(rk_test::spread_float{}, 0);
    const rk_test::generating_iterator<mean_var_at> states(mean_var_at{}, 0);
    const rk_test::generating_iterator<sum_max_at> pairs(sum_max_at{}, 0);
    const auto sum_max = rk::fuse(rk::plus{}, rk::maximum{});
    const cuda::std::tuple<float, float> pair_init{0.5f, -1.0e30f};
    runs_have_reduce_bits(rk::seq, lengths, floats, 0.5f, rk::plus{});
    runs_have_reduce_bits(rk::host.with_threads(3), lengths, floats, 0.5f, rk::plus{});
    runs_have_reduce_bits(rk::host, lengths, states, rk::mean_var<float>{}, rk::mean_var_op<float>{});
    runs_have_reduce_bits(rk::host.with_threads(2), lengths, pairs, pair_init, sum_max);
  }
}

namespace
{
/// Item i's key in runs of Length items: i / Length.
template <std::int64_t Length>
struct key_of_run
{
  std::int64_t operator()(std::int64_t i) const
  {
    return i / Length;
  }
};
} // namespace

TEST_CASE("rk::reduce_by_key (rk::host): more than 2^31 items through iterators")
{
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  const rk_test::generating_iterator<key_of_run<(std::int64_t{1} << 20)>> keys({}, 0);
  const rk_test::generating_iterator<rk_test::to_one> ones(rk_test::to_one{}, 0);
  const std::int64_t runs = ((n - 1) >> 20) + 1;
  std::vector<std::int64_t> key_out(static_cast<std::size_t>(runs)), count_out(static_cast<std::size_t>(runs));
  const auto ends = rk::reduce_by_key(rk::host, keys, keys + n, ones, key_out.begin(), count_out.begin(),
                                      std::int64_t{5}, rk::plus{});
  REQUIRE(ends.first - key_out.begin() == runs);
  CHECK(key_out.back() == runs - 1);
  CHECK(count_out.front() == 5 + (std::int64_t{1} << 20));
  CHECK(count_out.back() == 5 + n - ((runs - 1) << 20));
  CHECK(std::count(count_out.begin(), count_out.end() - 1, 5 + (std::int64_t{1} << 20)) == runs - 1);
}

TEST_CASE("rk::reduce_by_key (rk::host): more runs than one batch of heads, none split or lost at the batch's end")
{
  // rk::host reduces 2^22 runs a batch: runs of three items put the boundary between two runs of
  // the same length, and the last run is short.
  const std::int64_t runs = (std::int64_t{1} << 22) + 6;
  const std::int64_t n    = 3 * runs - 1;
  const rk_test::generating_iterator<key_of_run<3>> keys({}, 0);
  const rk_test::generating_iterator<rk_test::to_one> ones(rk_test::to_one{}, 0);
  std::vector<std::int64_t> key_out(static_cast<std::size_t>(runs)), count_out(static_cast<std::size_t>(runs));
  const auto ends = rk::reduce_by_key(rk::host.with_threads(2), keys, keys + n, ones, key_out.begin(),
                                      count_out.begin(), std::int64_t{5}, rk::plus{});
  REQUIRE(ends.first - key_out.begin() == runs);
  REQUIRE(ends.second - count_out.begin() == runs);
  std::int64_t wrong_keys = 0, wrong_counts = 0;
  for (std::int64_t r = 0; r < runs; ++r)
  {
    wrong_keys += key_out[static_cast<std::size_t>(r)] == r ? 0 : 1;
    wrong_counts += count_out[static_cast<std::size_t>(r)] == (r + 1 < runs ? 8 : 7) ? 0 : 1;
  }
  CHECK(wrong_keys == 0);
  CHECK(wrong_counts == 0);
}

namespace
{
using result = rk::arg_result<float, std::ptrdiff_t>;

/// `values` as arg results at positions 0, 1, 2, ...
std::vector<result> indexed_samples(std::initializer_list<float> values)
{
  std::vector<result> samples;
  std::ptrdiff_t index = 0;
  for (float v : values)
  {
    samples.push_back({v, index++});
  }
  return samples;
}

constexpr auto same = rk_test::same_arg<float>; // the same index, and the same value or both NaN
} // namespace

TEST_CASE("rk::arg_min's and rk::arg_max's operators are associative (rk::check_operator), and not commutative")
{
  const float nan                          = std::numeric_limits<float>::quiet_NaN();
  const std::vector<result> samples        = indexed_samples({1.0f, -2.0f, 1.0f, nan, -2.0f, 3.0f, nan, -0.0f, 0.0f});
  const auto min_report                    = rk::check_operator<result>(rk::detail::first_minimum<>{}, samples, same);
  const auto max_report                    = rk::check_operator<result>(rk::detail::first_maximum<>{}, samples, same);
  const auto last_report                   = rk::check_operator<result>(rk::detail::last_maximum<>{}, samples, same);
  const std::vector<result> signed_samples = {{3.0f, 0}, {-3.0f, 1}, {1.0f, 2}, {-1.0f, 3}, {0.5f, 4}, {3.0f, 5}};
  const auto mag_report = rk::check_operator<result>(rk::detail::first_minimum<rk_test::by_magnitude>{}, signed_samples,
                                                     same);
  CHECK(min_report.associative);
  CHECK(max_report.associative);
  CHECK(last_report.associative);
  CHECK(mag_report.associative);
  CHECK_FALSE(min_report.commutative); // ties keep the left operand
  CHECK_FALSE(max_report.commutative);
  CHECK_FALSE(last_report.commutative); // ties keep the right operand
}

TEST_CASE("the arg operators' merge: either order gives what the operator gives in index order")
{
  // The GPU's merged lanes (rk::tree_shape::merged_lanes) merge results whose items interleave.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<result> samples =
    indexed_samples({1.0f, -2.0f, 1.0f, nan, -2.0f, 3.0f, nan, -0.0f, 0.0f, 3.0f, -3.0f});
  const auto check_merge = [&](const auto& op) {
    for (const result& a : samples)
    {
      for (const result& b : samples)
      {
        if (a.index == b.index)
        {
          continue;
        }
        CAPTURE(a.value);
        CAPTURE(a.index);
        CAPTURE(b.value);
        CAPTURE(b.index);
        const result in_order = a.index < b.index ? op(a, b) : op(b, a);
        CHECK(same(op.merge(a, b), in_order));
        CHECK(same(op.merge(b, a), in_order));
      }
    }
  };
  check_merge(rk::detail::first_minimum<>{});
  check_merge(rk::detail::first_maximum<>{});
  check_merge(rk::detail::last_maximum<>{});
  check_merge(rk::detail::first_minimum<rk_test::by_magnitude>{});
  check_merge(rk::detail::first_maximum<rk_test::by_magnitude>{});
  check_merge(rk::detail::last_maximum<rk_test::by_magnitude>{});
}

TEST_CASE("host policies: inputs are read-only (mutable zip inputs unchanged), const zip inputs compile")
{
  rk_test::read_only_properties(seq_harness{});
  rk_test::read_only_properties(host_harness{});
}

TEST_CASE(
  "rk::reduce_by_key (host policies): zip keys, tuple keys, keys with default member initializers, 64-byte keys")
{
  rk_test::key_type_properties(seq_harness{});
  rk_test::key_type_properties(host_harness{});
}

TEST_CASE("rk::arg_min / arg_max / arg_max_last / arg_min_max (host policies): a caller's comparator, the last maximum")
{
  rk_test::arg_comparator_properties(seq_harness{});
  rk_test::arg_comparator_properties(host_harness{});
}

TEST_CASE("rk::segmented_arg_min / segmented_arg_max (host policies): three forms, empty segments, NaN, comparator")
{
  rk_test::segmented_arg_properties(seq_harness{});
  rk_test::segmented_arg_properties(host_harness{});
}

TEST_CASE("rk::seq: the family over forward iterators")
{
  const std::forward_list<int> items = {4, 1, 1, 7, 7, 2};
  CHECK(rk::transform_reduce(rk::seq, items.begin(), items.end(), 0, rk::plus{}, [](int x) { return 2 * x; }) == 44);
  const auto m = rk::arg_min(rk::seq, items.begin(), items.end());
  CHECK(m.value == 1);
  CHECK(m.index == 1);
  const std::forward_list<int> keys = {0, 0, 1, 1, 1, 0};
  std::vector<int> key_out(6), sum_out(6);
  const auto ends = rk::reduce_by_key(rk::seq, keys.begin(), keys.end(), items.begin(), key_out.begin(),
                                      sum_out.begin());
  CHECK(ends.first - key_out.begin() == 3);
  CHECK(sum_out[0] == 5);
  CHECK(sum_out[1] == 15);
  CHECK(sum_out[2] == 2);
}

namespace
{
/// A matrix with an element accessor m(i, j), as Eigen's, Armadillo's and Blaze's have: callable
/// on two int keys, yet an init value, not a key comparison. The accumulator: values convert to it.
struct accessed_mat2
{
  rk_test::mat2 m;
  accessed_mat2(const rk_test::mat2& x)
      : m(x)
  {}
  std::uint32_t operator()(int i, int j) const
  {
    return i == 0 ? (j == 0 ? m.a : m.b) : (j == 0 ? m.c : m.d);
  }
};
struct accessed_mat2_multiply
{
  accessed_mat2 operator()(const accessed_mat2& x, const accessed_mat2& y) const
  {
    return rk_test::mat2_multiply{}(x.m, y.m);
  }
};
/// An affine map that can be applied, f(x): callable, but not on two keys.
struct applied_affine
{
  rk_test::affine f;
  applied_affine(const rk_test::affine& x)
      : f(x)
  {}
  std::uint32_t operator()(std::uint32_t x) const
  {
    return f.a * x + f.b;
  }
};
struct applied_affine_compose
{
  applied_affine operator()(const applied_affine& x, const applied_affine& y) const
  {
    return rk_test::affine_compose{}(x.f, y.f);
  }
};
/// A key comparison that answers int, as C-style predicates do.
struct int_key_equal
{
  int operator()(int x, int y) const
  {
    return x == y ? 1 : 0;
  }
};
} // namespace

TEST_CASE_TEMPLATE("rk::reduce_by_key (host policies): an init that is callable is still init; a comparison answering "
                   "int is still Thrust's form; init without op sums",
                   H, seq_harness, host_harness)
{
  const H h{};
  const std::vector<int> keys        = {0, 0, 1, 1, 1, 0};
  const std::vector<rk_test::mat2> m = {{1, 2, 3, 4}, {0, 1, 1, 0}, {2, 0, 0, 1},
                                        {1, 1, 0, 1}, {3, 1, 1, 0}, {5, 6, 7, 8}};
  const accessed_mat2 init(rk_test::mat2{1, 1, 0, 1});
  std::vector<int> key_out(6);
  std::vector<accessed_mat2> mat_out(6, accessed_mat2(rk_test::mat2{0, 0, 0, 0}));
  auto ends = rk::reduce_by_key(h.policy, keys.begin(), keys.end(), m.begin(), key_out.begin(), mat_out.begin(), init,
                                accessed_mat2_multiply{});
  REQUIRE(ends.first - key_out.begin() == 3);
  const rk_test::mat2_multiply mul;
  const rk_test::mat2 base = init.m;
  CHECK(mat_out[0].m == mul(mul(base, m[0]), m[1]));
  CHECK(mat_out[1].m == mul(mul(mul(base, m[2]), m[3]), m[4]));
  CHECK(mat_out[2].m == mul(base, m[5]));

  const std::vector<rk_test::affine> f = {{2, 1}, {3, 0}, {1, 5}, {2, 2}, {7, 1}, {1, 1}};
  std::vector<applied_affine> map_out(6, applied_affine(rk_test::affine{0, 0}));
  const applied_affine start(rk_test::affine{1, 4});
  rk::reduce_by_key(h.policy, keys.begin(), keys.end(), f.begin(), key_out.begin(), map_out.begin(), start,
                    applied_affine_compose{});
  const rk_test::affine_compose then;
  CHECK(map_out[0].f == then(then(start.f, f[0]), f[1]));
  CHECK(map_out[1].f == then(then(then(start.f, f[2]), f[3]), f[4]));

  const std::vector<int> values = {4, 1, 1, 7, 7, 2};
  std::vector<int> sum_out(6);
  const auto thrust_ends = rk::reduce_by_key(h.policy, keys.begin(), keys.end(), values.begin(), key_out.begin(),
                                             sum_out.begin(), int_key_equal{}, rk::plus{});
  CHECK(thrust_ends.first - key_out.begin() == 3);
  CHECK(sum_out == std::vector<int>{5, 15, 2, 0, 0, 0});
  // A generic op is never asked about a comparison that answers bool.
  rk::reduce_by_key(
    h.policy, keys.begin(), keys.end(), values.begin(), key_out.begin(), sum_out.begin(),
    [](int x, int y) { return x == y; }, [](auto x, auto y) { return x + y; });
  CHECK(sum_out == std::vector<int>{5, 15, 2, 0, 0, 0});
  // rk's form with init alone: op defaults to rk::plus.
  const auto init_ends = rk::reduce_by_key(h.policy, keys.begin(), keys.end(), values.begin(), key_out.begin(),
                                           sum_out.begin(), 100);
  CHECK(init_ends.second - sum_out.begin() == 3);
  CHECK(sum_out == std::vector<int>{105, 115, 102, 0, 0, 0});
}

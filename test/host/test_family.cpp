// The reduction family on the host policies: rk::transform_reduce, rk::arg_min / arg_max /
// arg_min_max and rk::reduce_by_key (bodies in test/support/family_properties.hpp), the arg
// operators through rk::check_operator, and a forward-iterator input under rk::seq.

#include "../support/family_properties.hpp"
#include "../support/parity_properties.hpp"
#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

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

// Partials on the host policies: pieces cut anywhere combine to rk::reduce's bits, the accumulator,
// and the errors of rk::combine, rk::finish and rk::reduce_partial.

#include "../support/partial_properties.hpp"
#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace
{
using rk_test::host_harness;
} // namespace

static_assert(std::is_trivially_copyable_v<rk::partial<float>>
              && std::is_trivially_copyable_v<rk::partial<rk_test::mat2>>);
static_assert(sizeof(rk::partial<double>) <= rk::partial<double>::max_values * sizeof(double) + 176);
static_assert(sizeof(rk::partial<rk_test::block256>) <= rk::partial<rk_test::block256>::max_values * 256 + 176);

TEST_CASE(
  "partials: pieces cut at lane, tile and node boundaries and at random combine to rk::reduce's bits (rk::host)")
{
  rk_test::partials_combine_to_reduce_bits(host_harness<rk::host_policy>{});
}

TEST_CASE("partials: rk::seq computes the same nodes as rk::host")
{
  rk_test::partials_combine_to_reduce_bits(host_harness<rk::seq_policy>{});
}

TEST_CASE("partials: rk::accumulator over chunks of any length has rk::reduce's bits (rk::host, rk::seq)")
{
  rk_test::accumulator_matches_reduce(host_harness<rk::host_policy>{});
  rk_test::accumulator_matches_reduce(host_harness<rk::seq_policy>{});
}

TEST_CASE("partials: a piece of more than 2^31 items through a computed iterator (rk::host)")
{
  rk_test::partial_above_2_31(host_harness<rk::host_policy>{});
}

TEST_CASE("partials: combine is associative on the records themselves")
{
  std::vector<double> v;
  for (int i = 0; i < 5000; ++i)
  {
    v.push_back(rk_test::spread_value<double>{}(i));
  }
  const auto a     = rk::reduce_partial(rk::host, v.begin(), v.begin() + 13, 0, rk::plus{});
  const auto b     = rk::reduce_partial(rk::host, v.begin() + 13, v.begin() + 1029, 13, rk::plus{});
  const auto c     = rk::reduce_partial(rk::host, v.begin() + 1029, v.end(), 1029, rk::plus{});
  const auto left  = rk::combine(rk::combine(a, b, rk::plus{}), c, rk::plus{});
  const auto right = rk::combine(a, rk::combine(b, c, rk::plus{}), rk::plus{});
  CHECK(left.node_count == right.node_count);
  CHECK(rk_test::same_bytes(rk::finish(left, 0.0, rk::plus{}), rk::finish(right, 0.0, rk::plus{})));
  const auto whole = rk::reduce_partial(rk::host, v.begin(), v.end(), 0, rk::plus{});
  CHECK(whole.node_count == left.node_count);
  for (int k = 0; k < whole.node_count; ++k)
  {
    CHECK(whole.node_level[k] == left.node_level[k]);
    CHECK(rk_test::same_bytes(whole.node(k), left.node(k)));
  }
}

TEST_CASE("partials: errors name the cause, and an empty whole finishes to init without calling op")
{
  std::vector<float> v(100, 1.0f);
  std::vector<double> d(100, 1.0);
  const auto a = rk::reduce_partial(rk::host, v.begin(), v.begin() + 10, 0, rk::plus{});
  const auto c = rk::reduce_partial(rk::host, v.begin() + 20, v.end(), 20, rk::plus{});
  CHECK_THROWS_WITH_AS(rk::combine(a, c, rk::plus{}), doctest::Contains("not adjacent"), rk::error);
  CHECK_THROWS_WITH_AS(rk::finish(c, 0.0f, rk::plus{}), doctest::Contains("not 0"), rk::error);
  // Items of another size: another tree (lanes of 4 doubles, not 8 floats).
  const auto dd = rk::reduce_partial<float>(rk::host, d.begin() + 10, d.end(), 10, rk::plus{});
  CHECK_THROWS_WITH_AS(rk::combine(a, dd, rk::plus{}), doctest::Contains("different trees"), rk::error);
  CHECK_THROWS_WITH_AS(rk::reduce_partial(rk::host, v.begin(), v.end(), -1, rk::plus{}), doctest::Contains("negative"),
                       rk::error);
  CHECK_THROWS_AS(rk::reduce_partial(rk::host, v.end(), v.begin(), 0, rk::plus{}), rk::invalid_range);
  CHECK_THROWS_WITH_AS(rk::reduce_partial(rk::host, v.begin(), v.end(), INT64_MAX - 5, rk::plus{}),
                       doctest::Contains("2^63"), rk::error);
  auto failed   = a;
  failed.status = rk::partial<float>::not_adjacent;
  CHECK_THROWS_WITH_AS(rk::finish(failed, 0.0f, rk::plus{}), doctest::Contains("failed device combine"), rk::error);
  const auto empty = rk::reduce_partial(rk::host, v.begin(), v.begin(), 0, rk_test::must_not_be_called{});
  CHECK(rk::finish(empty, 4.0f, rk_test::must_not_be_called{}) == 4.0f);
  // Empty pieces combine anywhere they stand.
  const auto empty_at_10 = rk::reduce_partial(rk::host, v.begin() + 10, v.begin() + 10, 10, rk::plus{});
  CHECK(rk::finish(rk::combine(a, empty_at_10, rk::plus{}), 0.0f, rk::plus{}) == 10.0f);
  CHECK(rk::finish(rk::combine(empty, a, rk::plus{}), 0.0f, rk::plus{}) == 10.0f);
}

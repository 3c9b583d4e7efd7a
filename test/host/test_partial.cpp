// Partials on the host policies: pieces cut anywhere combine to rk::reduce's bits, the accumulator,
// and the errors of rk::combine, rk::finish and rk::reduce_partial.

#include "../support/partial_properties.hpp"
#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>
#include <utility>
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

TEST_CASE("partials: a piece's tree nodes in closed form are the greedy walk's, node by node")
{
  // The walk the closed form replaces: from p, each node as large as its start's alignment allows
  // while it fits, then each as large as what is left allows.
  const auto walk = [](std::uint64_t p, std::uint64_t q) {
    std::vector<rk::detail::piece_node> nodes;
    std::uint64_t x = p;
    while (x < q && x != 0)
    {
      int l = 0;
      while (((x >> l) & 1u) == 0)
      {
        ++l;
      }
      if (q - x < (std::uint64_t{1} << l))
      {
        break;
      }
      nodes.push_back({static_cast<std::int64_t>(x), l});
      x += std::uint64_t{1} << l;
    }
    while (x < q)
    {
      int l = 0;
      while ((q - x) >> l > 1)
      {
        ++l;
      }
      nodes.push_back({static_cast<std::int64_t>(x), l});
      x += std::uint64_t{1} << l;
    }
    return nodes;
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (std::uint64_t p = 0; p < 80; ++p)
  {
    for (std::uint64_t q = p; q < 150; ++q)
    {
      ranges.push_back({p, q});
    }
  }
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20000; ++i)
  {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const std::uint64_t p = (state >> 2) >> (state % 61);
    const std::uint64_t q = p + ((state * 0x2545f4914f6cdd1dull) >> 2 >> (state % 59));
    ranges.push_back({p, q});
  }
  ranges.push_back({1, std::uint64_t{1} << 62});
  ranges.push_back({(std::uint64_t{1} << 62) - 1, (std::uint64_t{1} << 63) - 1});
  for (const auto& [p, q] : ranges)
  {
    const auto expected = walk(p, q);
    const rk::detail::piece_nodes nodes(static_cast<std::int64_t>(p), static_cast<std::int64_t>(q));
    REQUIRE(nodes.count == static_cast<int>(expected.size()));
    for (int k = 0; k < nodes.count; ++k)
    {
      CHECK(nodes[k].first_lane == expected[static_cast<std::size_t>(k)].first_lane);
      CHECK(nodes[k].level == expected[static_cast<std::size_t>(k)].level);
    }
  }
}

TEST_CASE("partials: pieces in the last lanes below 2^63 have the shape and nodes of any other piece")
{
  // The lane arithmetic must not form offset + lane_items - 1 or the start lane's end there.
  std::vector<rk_test::affine> items(300);
  for (std::size_t i = 0; i < items.size(); ++i)
  {
    items[i] = rk_test::affine{static_cast<std::uint32_t>(2 * i + 3), static_cast<std::uint32_t>(7 * i + 1)};
  }
  const std::int64_t end = INT64_MAX;
  const auto tail_piece  = rk::reduce_partial(rk::host, items.begin(), items.begin() + 3, end - 10,
                                              rk_test::affine_compose{});
  CHECK(tail_piece.head_count == 3);
  CHECK(tail_piece.node_count == 0);
  CHECK(!tail_piece.has_tail);
  // The same items far from the end, at a start whose lane number agrees with the one near the
  // end in its low ten bits (300 items span fewer than 1024 lanes), so the tree cuts them alike:
  // every field but the offset matches, values included.
  const std::int64_t span   = std::int64_t{1024} * tail_piece.lane_items;
  const std::int64_t far    = span + (end - 300) % span;
  const std::int64_t cuts[] = {0, 1, 2, static_cast<std::int64_t>(tail_piece.lane_items) - 1, 97, 250, 299, 300};
  for (const std::int64_t cut : cuts)
  {
    for (const std::int64_t at : {end - 300, far})
    {
      CAPTURE(cut);
      CAPTURE(at);
      const auto a = rk::reduce_partial(rk::host, items.begin(), items.begin() + cut, at, rk_test::affine_compose{});
      const auto b = rk::reduce_partial(rk::host, items.begin() + cut, items.end(), at + cut,
                                        rk_test::affine_compose{});
      const auto joined = rk::combine(a, b, rk_test::affine_compose{});
      const auto whole  = rk::reduce_partial(rk::host, items.begin(), items.end(), at, rk_test::affine_compose{});
      REQUIRE(joined.node_count == whole.node_count);
      CHECK(joined.head_count == whole.head_count);
      CHECK(joined.has_tail == whole.has_tail);
      for (int k = 0; k < whole.node_count; ++k)
      {
        CHECK(joined.node_level[k] == whole.node_level[k]);
        CHECK(joined.node(k) == whole.node(k));
      }
    }
  }
  const auto near_end = rk::reduce_partial(rk::host, items.begin(), items.end(), end - 300, rk_test::affine_compose{});
  const auto far_away = rk::reduce_partial(rk::host, items.begin(), items.end(), far, rk_test::affine_compose{});
  REQUIRE(near_end.node_count == far_away.node_count);
  CHECK(near_end.head_count == far_away.head_count);
  for (int k = 0; k < near_end.node_count; ++k)
  {
    CHECK(near_end.node_level[k] == far_away.node_level[k]);
    CHECK(near_end.node(k) == far_away.node(k));
  }
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
  // init converts to the partial's T (a double 0.0 for a partial<float>).
  CHECK(rk::finish(a, 0.0, rk::plus{}) == 10.0f);
  CHECK(rk::finish(rk::combine(empty, a, rk::plus{}), 0.0f, rk::plus{}) == 10.0f);
}

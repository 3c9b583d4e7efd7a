// rk::host computes the reproducible tree: the same bits for every thread count, and the golden
// values the GPU suite checks every GPU backend against (test/gpu/test_reproducible.cu).

#include "../support/spread.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace
{
constexpr std::int64_t golden_count = 1000003;
// rk::host's sums of spread_value<F>{}(i), i < golden_count (seed 2026). rk::seq's left fold
// gives 0x1.7b3e36p+29 for the floats: another grouping, other bits.
constexpr float golden_float   = 0x1.7b3e8cp+29f;
constexpr double golden_double = 0x1.7b3e89694b80ap+29;

template <class F>
std::vector<F> spread(std::int64_t n)
{
  std::vector<F> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
  {
    v[static_cast<std::size_t>(i)] = rk_test::spread_value<F>{}(i);
  }
  return v;
}
} // namespace

TEST_CASE("rk::host: golden float and double sums, on 1 to 64 threads")
{
  const auto f = spread<float>(golden_count);
  const auto d = spread<double>(golden_count);
  for (unsigned threads : {1u, 2u, 3u, 8u, 64u})
  {
    CAPTURE(threads);
    CHECK(rk_test::bits_of(rk::reduce(rk::host.with_threads(threads), f.begin(), f.end(), 0.0f, rk::plus{}))
          == rk_test::bits_of(golden_float));
    CHECK(rk_test::bits_of(rk::reduce(rk::host.with_threads(threads), d.begin(), d.end(), 0.0, rk::plus{}))
          == rk_test::bits_of(golden_double));
  }
}

TEST_CASE("rk::host: thread counts never change the bits (sums, float affine maps)")
{
  for (std::int64_t n : {1, 255, 256, 257, 4097, 65537, (1 << 20) + 1, 3 * (1 << 20) - 1})
  {
    CAPTURE(n);
    const auto f = spread<float>(n);
    std::vector<rk_test::float_affine> maps(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
    {
      maps[static_cast<std::size_t>(i)] = rk_test::to_float_affine{}(i);
    }
    const float sum = rk::reduce(rk::host.with_threads(1), f.begin(), f.end(), 1.5f, rk::plus{});
    const auto map  = rk::reduce(rk::host.with_threads(1), maps.begin(), maps.end(), rk_test::float_affine{1.0f, 0.0f},
                                 rk_test::float_affine_compose{});
    for (unsigned threads : {2u, 3u, 8u, 64u})
    {
      CAPTURE(threads);
      CHECK(rk_test::bits_of(rk::reduce(rk::host.with_threads(threads), f.begin(), f.end(), 1.5f, rk::plus{}))
            == rk_test::bits_of(sum));
      const auto other = rk::reduce(rk::host.with_threads(threads), maps.begin(), maps.end(),
                                    rk_test::float_affine{1.0f, 0.0f}, rk_test::float_affine_compose{});
      CHECK(rk_test::bits_of(other.a) == rk_test::bits_of(map.a));
      CHECK(rk_test::bits_of(other.b) == rk_test::bits_of(map.b));
    }
  }
}

TEST_CASE("tree splits: the even split of whole nodes is never longer, never cuts a node, drops few parts")
{
  using namespace rk::detail;
  // Powers of two over a grid of 528 blocks (4 an SM on 132 SMs): 1024 nodes, 512 parts of two.
  const tile_split pow2 = even_node_split(make_tile_split(offset_t{1} << 18, 528));
  CHECK(pow2.parts == 512);
  CHECK(pow2.longer_parts == 0);
  CHECK(longest_part_tiles(pow2) == 512);
  for (offset_t tiles : {offset_t{1}, offset_t{3}, offset_t{1000}, offset_t{65536}, offset_t{65537}, offset_t{262143},
                         offset_t{262144}, offset_t{1000003}, offset_t{1} << 20, (offset_t{1} << 30) + 7})
  {
    for (offset_t parts : {offset_t{1}, offset_t{7}, offset_t{132}, offset_t{264}, offset_t{500}, offset_t{528},
                           offset_t{1056}, offset_t{16384}})
    {
      CAPTURE(tiles);
      CAPTURE(parts);
      const tile_split s = make_tile_split(tiles, parts);
      const tile_split e = even_node_split(s);
      CHECK(e.tiles == s.tiles);
      CHECK(e.parts <= s.parts);
      CHECK(e.parts * even_split_dropped_parts_max >= s.parts * (even_split_dropped_parts_max - 1));
      CHECK(longest_part_tiles(e) <= longest_part_tiles(s));
      CHECK(e.part_begin(e.parts) == tiles);
      CHECK(e.has_cuts() == s.has_cuts());
      // The kernels rebuild the split from its part count (reduce_partial's node plans, the
      // counted kernel): that must give this split back.
      const tile_split again = make_tile_split(tiles, e.parts);
      CHECK(again.parts == e.parts);
      CHECK(again.node_level == e.node_level);
      CHECK(again.align_level == e.align_level);
      CHECK(again.units_per_part == e.units_per_part);
      CHECK(again.longer_parts == e.longer_parts);
      // The scratch bound of a count in device memory (reduce_agent::max_partial_values).
      CHECK((e.nodes() <= 2 * e.parts || e.node_level == max_node_level));
      offset_t covered = 0;
      for (offset_t p = 0; p < e.parts; ++p)
      {
        const tile_span span = e.span(p);
        CHECK(span.begin == covered);
        CHECK(span.end > span.begin);
        covered = span.end;
      }
      CHECK(covered == tiles);
    }
  }
}

namespace
{
/// make_tile_split as plain 64-bit arithmetic: the plan the tree's bits follow, which the fast
/// paths (32-bit divisions, floor_log2 without a loop) must give exactly.
rk::detail::tile_split plain_tile_split(std::int64_t tiles, std::int64_t parts)
{
  using namespace rk::detail;
  const auto log2_floor = [](std::int64_t x) {
    int l = 0;
    while ((std::int64_t{2} << l) <= x)
    {
      ++l;
    }
    return l;
  };
  parts                      = std::max<std::int64_t>(1, std::min(parts, tiles));
  int level                  = parts == 1 ? (tiles <= 1 ? 0 : log2_floor(tiles - 1) + 1) : log2_floor(tiles / parts);
  level                      = std::min(level, max_node_level);
  const std::int64_t longest = (tiles + parts - 1) / parts;
  const std::int64_t nodes   = (tiles + (std::int64_t{1} << level) - 1) >> level;
  const std::int64_t aligned_longest = ((nodes + parts - 1) / parts) << level;
  const bool aligned                 = parts == 1 || aligned_longest <= longest + longest / aligned_split_slack;
  const std::int64_t units           = aligned ? nodes : tiles;
  return {tiles, parts, level, aligned ? level : 0, units / parts, units % parts};
}
} // namespace

TEST_CASE("tree splits: the plan's fast arithmetic gives the plain 64-bit plan, around 2^32 too")
{
  using namespace rk::detail;
  for (std::int64_t x : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{1} << 31,
                         (std::int64_t{1} << 32) - 1, std::int64_t{1} << 32, (std::int64_t{1} << 32) + 1,
                         (std::int64_t{1} << 62) + 5, INT64_MAX})
  {
    CAPTURE(x);
    int l = 0;
    while (l < 62 && (std::int64_t{2} << l) <= x)
    {
      ++l;
    }
    CHECK(floor_log2(x) == (x >= (std::int64_t{1} << 62) ? 62 : l));
    for (std::int64_t d : {std::int64_t{1}, std::int64_t{3}, std::int64_t{528}, (std::int64_t{1} << 32) - 1,
                           std::int64_t{1} << 32, (std::int64_t{1} << 40) + 3})
    {
      CAPTURE(d);
      const quotient<std::int64_t> q = divide(x, d);
      CHECK(q.quot == x / d);
      CHECK(q.rem == x % d);
    }
  }
  std::uint64_t state = 2026;
  const auto next     = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 17;
  };
  for (int k = 0; k < 20000; ++k)
  {
    // Tile counts from 1 to 2^47, part counts from 1 to 2^15 and sometimes past the tiles.
    const std::int64_t tiles = static_cast<std::int64_t>(next() >> (next() % 47 + 0)) % (std::int64_t{1} << 47) + 1;
    const std::int64_t parts = static_cast<std::int64_t>(next() % (next() % 2 ? 16384 : 600)) + 1;
    CAPTURE(tiles);
    CAPTURE(parts);
    const tile_split fast  = make_tile_split(tiles, parts);
    const tile_split plain = plain_tile_split(tiles, parts);
    CHECK(fast.parts == plain.parts);
    CHECK(fast.node_level == plain.node_level);
    CHECK(fast.align_level == plain.align_level);
    CHECK(fast.units_per_part == plain.units_per_part);
    CHECK(fast.longer_parts == plain.longer_parts);
  }
}

// rk::segmented_reduce on the host policies: every layout of the segmented issue, the three
// forms, init once on the left, non-commutative operators, rk::host's per-segment bits equal to
// rk::reduce's over the same items, and bad segments.

#include "../support/reference.hpp"
#include "../support/segments.hpp"
#include "../support/spread.hpp"
#include "../support/test_types.hpp"

#include <rk/detail/few_segments.hpp>
#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

using rk_test::segment_layout;

namespace
{
std::vector<std::int64_t> naive_sums(const std::vector<std::int64_t>& items, const std::vector<std::int64_t>& offsets,
                                     std::int64_t init)
{
  std::vector<std::int64_t> out;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
  {
    std::int64_t acc = init;
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
    {
      acc += items[static_cast<std::size_t>(i)];
    }
    out.push_back(acc);
  }
  return out;
}
} // namespace

TEST_CASE("rk::segmented_reduce (host policies): every layout, CSR form, int64 sums")
{
  for (segment_layout layout : rk_test::all_layouts())
  {
    CAPTURE(rk_test::name(layout));
    const auto offsets = rk_test::make_offsets(layout, std::int64_t{1} << 17);
    std::vector<std::int64_t> items(static_cast<std::size_t>(offsets.back()));
    for (std::size_t i = 0; i < items.size(); ++i)
    {
      items[i] = static_cast<std::int64_t>(i * 2654435761u % 1000) - 500;
    }
    const auto expected = naive_sums(items, offsets, 7);
    std::vector<std::int64_t> seq(expected.size()), host(expected.size());
    rk::segmented_reduce(rk::seq, items.begin(), offsets.begin(), offsets.end(), seq.begin(), std::int64_t{7},
                         rk::plus{});
    rk::segmented_reduce(rk::host.with_threads(3), items.begin(), offsets.begin(), offsets.end(), host.begin(),
                         std::int64_t{7});
    CHECK(seq == expected);
    CHECK(host == expected);
  }
}

TEST_CASE(
  "rk::segmented_reduce (host policies): the three forms agree, the CUB form out of order, overlapping, with gaps")
{
  const std::int64_t n = 10000;
  std::vector<int> items(n);
  std::iota(items.begin(), items.end(), 0);
  // Fixed-size form against the same layout in CSR form.
  std::vector<std::int64_t> offsets;
  for (std::int64_t b = 0; b <= n - 37; b += 37)
  {
    offsets.push_back(b);
  }
  offsets.push_back(offsets.back() + 37);
  const std::size_t segments = offsets.size() - 1;
  std::vector<std::int64_t> csr(segments), fixed(segments);
  rk::segmented_reduce(rk::host, items.begin(), offsets.begin(), offsets.end(), csr.begin(), std::int64_t{0});
  rk::segmented_reduce(rk::host, items.begin(), segments, 37, fixed.begin(), std::int64_t{0});
  CHECK(csr == fixed);

  // CUB form: reversed order, overlapping and with gaps.
  std::vector<long> begins, ends;
  for (long s = 0; s < 500; ++s)
  {
    const long b = (499 - s) * 17;
    begins.push_back(b);
    ends.push_back(b + (s % 5) * 11); // lengths 0..44: overlaps and gaps
  }
  std::vector<std::int64_t> cub_form(500), seq(500);
  rk::segmented_reduce(rk::host.with_threads(4), items.begin(), 500, begins.begin(), ends.begin(), cub_form.begin(),
                       std::int64_t{1}, rk::plus{});
  rk::segmented_reduce(rk::seq, items.begin(), 500, begins.begin(), ends.begin(), seq.begin(), std::int64_t{1});
  for (std::size_t s = 0; s < 500; ++s)
  {
    std::int64_t expected = 1;
    for (long i = begins[s]; i < ends[s]; ++i)
    {
      expected += i;
    }
    CHECK(cub_form[s] == expected);
    CHECK(seq[s] == expected);
  }
}

TEST_CASE("rk::segmented_reduce (host policies): non-commutative, init once on the left, empty segments never call op")
{
  const auto offsets = rk_test::make_offsets(segment_layout::half_empty, 50000);
  std::vector<rk_test::segment> items(static_cast<std::size_t>(offsets.back()));
  for (std::size_t i = 0; i < items.size(); ++i)
  {
    items[i] = rk_test::segment{static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1};
  }
  for (unsigned threads : {1u, 2u, 8u})
  {
    std::vector<rk_test::segment> out(offsets.size() - 1, rk_test::segment{0, 0});
    rk::segmented_reduce(rk::host.with_threads(threads), items.begin(), offsets.begin(), offsets.end(), out.begin(),
                         rk_test::marker_merge::marker(), rk_test::marker_merge{});
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    {
      const auto expected = offsets[s] == offsets[s + 1]
                            ? rk_test::marker_merge::marker()
                            : rk_test::segment{offsets[s] - rk_test::marker_merge::start_shift, offsets[s + 1]};
      REQUIRE(out[s] == expected);
    }
  }
  std::vector<int> none(0);
  std::vector<std::int64_t> empty_offsets{0, 0, 0};
  std::vector<int> out(2, 5);
  rk::segmented_reduce(rk::host, none.begin(), empty_offsets.begin(), empty_offsets.end(), out.begin(), 3,
                       rk_test::must_not_be_called{});
  CHECK(out == std::vector<int>{3, 3});
  rk::segmented_reduce(rk::seq, none.begin(), 0, 4, out.begin(), 9, rk_test::must_not_be_called{});
  CHECK(out == std::vector<int>{3, 3}); // zero segments: nothing written
}

TEST_CASE("rk::segmented_reduce (rk::host): each segment has rk::reduce's bits, on any thread count")
{
  const auto offsets = rk_test::make_offsets(segment_layout::power_law, std::int64_t{1} << 21);
  std::vector<float> items(static_cast<std::size_t>(offsets.back()));
  for (std::size_t i = 0; i < items.size(); ++i)
  {
    items[i] = rk_test::spread_value<float>{}(static_cast<std::int64_t>(i));
  }
  std::vector<float> out(offsets.size() - 1);
  for (unsigned threads : {1u, 3u, 8u})
  {
    rk::segmented_reduce(rk::host.with_threads(threads), items.begin(), offsets.begin(), offsets.end(), out.begin(),
                         0.5f);
    for (std::size_t s = 0; s + 1 < offsets.size(); s += 7)
    {
      const float expected = rk::reduce(rk::host, items.begin() + offsets[s], items.begin() + offsets[s + 1], 0.5f,
                                        rk::plus{});
      REQUIRE(rk_test::bits_of(out[s]) == rk_test::bits_of(expected));
    }
  }
}

namespace
{
/// Segments of `out` without the bits of rk::reduce over their items: every `step`-th one and the
/// last are checked.
std::size_t segments_without_reduce_bits(const std::vector<float>& items, const std::vector<std::int64_t>& offsets,
                                         const std::vector<float>& out, float init)
{
  const std::size_t segments = offsets.size() - 1, step = std::max<std::size_t>(1, segments / 1500);
  std::size_t wrong = 0;
  auto check        = [&](std::size_t s) {
    const float expected = rk::reduce(rk::host, items.begin() + offsets[s], items.begin() + offsets[s + 1], init,
                                             rk::plus{});
    wrong += rk_test::bits_of(out[s]) != rk_test::bits_of(expected) ? 1 : 0;
  };
  for (std::size_t s = 0; s < segments; s += step)
  {
    check(s);
  }
  check(segments - 1);
  return wrong;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b)
{
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// The length of every segment when they are all equal, else 0.
std::int64_t uniform_length(const std::vector<std::int64_t>& offsets)
{
  const std::int64_t length = offsets[1] - offsets[0];
  for (std::size_t s = 1; s + 1 < offsets.size(); ++s)
  {
    if (offsets[s + 1] - offsets[s] != length)
    {
      return 0;
    }
  }
  return length;
}
} // namespace

TEST_CASE("rk::segmented_reduce (rk::host): every layout in the CSR, CUB and fixed-size forms has rk::reduce's bits")
{
  for (segment_layout layout : rk_test::all_layouts())
  {
    CAPTURE(rk_test::name(layout));
    // Off every power of two, so the mixed layouts end in a cut tile; segments of 2^20 items need
    // more items, and reach the threads' shared path (reduce_parallel_root).
    const std::int64_t total = layout == segment_layout::all_2_20 ? (std::int64_t{5} << 20) + 4099
                                                                  : (std::int64_t{1} << 18) + 4099;
    const auto offsets       = rk_test::make_offsets(layout, total);
    std::vector<float> items(static_cast<std::size_t>(offsets.back()));
    for (std::size_t i = 0; i < items.size(); ++i)
    {
      items[i] = rk_test::spread_value<float>{}(static_cast<std::int64_t>(i));
    }
    const std::int64_t segments = static_cast<std::int64_t>(offsets.size()) - 1;
    std::vector<float> csr(offsets.size() - 1), cub(offsets.size() - 1), fixed(offsets.size() - 1);
    rk::segmented_reduce(rk::host.with_threads(3), items.begin(), offsets.begin(), offsets.end(), csr.begin(), 0.5f,
                         rk::plus{});
    CHECK(segments_without_reduce_bits(items, offsets, csr, 0.5f) == 0);
    rk::segmented_reduce(rk::host.with_threads(2), items.begin(), segments, offsets.begin(), offsets.begin() + 1,
                         cub.begin(), 0.5f, rk::plus{});
    CHECK(same_bits(cub, csr));
    if (const std::int64_t length = uniform_length(offsets); length > 0)
    {
      rk::segmented_reduce(rk::host, items.begin(), segments, length, fixed.begin(), 0.5f, rk::plus{});
      CHECK(same_bits(fixed, csr));
    }
  }
}

namespace
{
/// CSR offsets k / 2: segment s is empty when s is even, else item s / 2 alone.
struct half_offsets
{
  std::int64_t operator()(std::int64_t k) const
  {
    return k / 2;
  }
};
/// What segment s of half_offsets sums to from init 3.
struct half_segment_sum
{
  std::uint64_t operator()(std::int64_t s) const
  {
    return s % 2 == 0 ? 3u : 3u + rk_test::byte_of_index{}(s / 2);
  }
};
} // namespace

TEST_CASE("rk::segmented_reduce (rk::host): a segment of more than 2^31 items through an iterator, CSR and CUB forms")
{
  const std::int64_t big = (std::int64_t{1} << 31) + 77;
  const rk_test::generating_iterator<rk_test::byte_of_index> items(rk_test::byte_of_index{}, 0);
  // A segment of more than 2^31 items between short ones, in the CSR and the CUB forms.
  const std::vector<std::int64_t> offsets{0, 5, 5 + big, 5 + big + 3};
  const std::uint64_t long_one = rk::reduce(rk::host, items + 5, items + 5 + big, std::uint64_t{3}, rk::plus{});
  std::vector<std::uint64_t> csr(3), cub(3);
  rk::segmented_reduce(rk::host, items, offsets.begin(), offsets.end(), csr.begin(), std::uint64_t{3}, rk::plus{});
  rk::segmented_reduce(rk::host, items, 3, offsets.begin(), offsets.begin() + 1, cub.begin(), std::uint64_t{3},
                       rk::plus{});
  CHECK(csr[1] == long_one);
  const rk_test::byte_of_index byte{};
  CHECK(csr[0] == 3u + byte(0) + byte(1) + byte(2) + byte(3) + byte(4));
  CHECK(csr[2] == 3u + byte(5 + big) + byte(6 + big) + byte(7 + big));
  CHECK(cub == csr);
}

TEST_CASE("rk::segmented_reduce (rk::host): more than 2^31 segments of 0 or 1 items, each checked as it is written")
{
  const rk_test::generating_iterator<rk_test::byte_of_index> items(rk_test::byte_of_index{}, 0);
  const std::int64_t segments = (std::int64_t{1} << 31) + 7;
  const rk_test::generating_iterator<half_offsets> offsets(half_offsets{}, 0);
  const half_segment_sum want{};
  rk_test::output_mismatches wrong;
  rk::segmented_reduce(rk::host, items, offsets, offsets + (segments + 1),
                       rk_test::checking_output<half_segment_sum>(want, wrong), std::uint64_t{3}, rk::plus{});
  CAPTURE(wrong.first.load());
  CHECK(wrong.writes.load() == segments);
  CHECK(wrong.count.load() == 0);
}

TEST_CASE("rk::segmented_reduce (host policies): bad segments and counts are errors")
{
  std::vector<int> items(100, 1);
  std::vector<int> out(4);
  std::vector<int> decreasing{0, 10, 5, 20};
  CHECK_THROWS_WITH_AS(rk::segmented_reduce(rk::host, items.begin(), decreasing.begin(), decreasing.end(), out.begin(),
                                            0),
                       "rk::segmented_reduce: segment 1 ends before it begins (begin 10, end 5)", rk::error);
  CHECK_THROWS_AS(rk::segmented_reduce(rk::seq, items.begin(), decreasing.begin(), decreasing.end(), out.begin(), 0),
                  rk::error);
  std::vector<int> begins{0, 8}, ends{4, 3};
  CHECK_THROWS_AS(rk::segmented_reduce(rk::host, items.begin(), 2, begins.begin(), ends.begin(), out.begin(), 0),
                  rk::error);
  CHECK_THROWS_AS(rk::segmented_reduce(rk::host, items.begin(), -1, 4, out.begin(), 0), rk::error);
  CHECK_THROWS_AS(rk::segmented_reduce(rk::host, items.begin(), decreasing.end(), decreasing.begin(), out.begin(), 0),
                  rk::invalid_range);
}

TEST_CASE_TEMPLATE(
  "rk::segmented_reduce and segmented_arg_min (host policies): a segment that begins before `first` is "
  "an error, and nothing is written",
  P, rk::seq_policy, rk::host_policy)
{
  // `first` in the middle of the items: a negative offset would read items that exist, but
  // offsets count from `first` (rk::segmented_arg_min's indices too), so it is refused.
  std::vector<int> items(100, 1);
  const auto first = items.begin() + 50;
  const std::vector<int> negative{-4, 10, 20};
  std::vector<int> out(2, -7);
  CHECK_THROWS_WITH_AS(rk::segmented_reduce(P{}, first, negative.begin(), negative.end(), out.begin(), 0),
                       "rk::segmented_reduce: segment 0 begins before the first item (begin -4, end 10); offsets "
                       "count items from `first` and cannot be negative",
                       rk::error);
  CHECK(out == std::vector<int>{-7, -7});
  const std::vector<int> begins{0, -1}, ends{4, 0};
  CHECK_THROWS_AS(rk::segmented_reduce(P{}, first, 2, begins.begin(), ends.begin(), out.begin(), 0), rk::error);
  CHECK(out == std::vector<int>{-7, -7});
  std::vector<rk::arg_result<int, std::ptrdiff_t>> args(2, {-7, -7});
  CHECK_THROWS_AS(rk::segmented_arg_min(P{}, first, negative.begin(), negative.end(), args.begin()), rk::error);
  CHECK(args[0].index == -7);
  CHECK(args[1].index == -7);
}

TEST_CASE("rk::explain_segmented (host policies): which backend, and whether the bits are reproducible")
{
  std::vector<float> v(12), out(12);
  const rk::explanation h = rk::explain_segmented(rk::host, v.begin(), 12, out.begin(), 0.0f, rk::plus{});
  CHECK(h.backend == "host");
  CHECK(h.size == 12);
  CHECK(h.reproducible);
  const rk::explanation s = rk::explain_segmented(rk::seq, v.begin(), 3, out.begin(), 0.0f);
  CHECK(s.backend == "seq");
  CHECK_FALSE(s.reproducible);
  CHECK_THROWS_AS(rk::explain_segmented(rk::host, v.begin(), -1, out.begin(), 0.0f), rk::error);
}

TEST_CASE("few-segments cut (the GPU's calls of few segments): parts, nodes and values within the scratch bound")
{
  using rk::detail::cut_few_segment;
  using rk::detail::offset_t;
  // A call of 2^18 tiles on 528 blocks, as one segment: 512 parts of one 512-tile node each, as
  // rk::reduce splits the same tiles (make_tile_split, even_node_split).
  const offset_t per_part               = (offset_t{1} << 18) / 528 + 1;
  const rk::detail::few_segment_cut one = cut_few_segment(offset_t{1} << 18, per_part, 8);
  CHECK_FALSE(one.by_warp);
  CHECK(one.parts == 512);
  CHECK(one.split.nodes() == 512);
  CHECK(one.values == 512 + rk::detail::piece_slots(512));
  // Empty, one tile, and shorter than a part: one part, stored by it (no values).
  CHECK(cut_few_segment(0, per_part, 8).parts == 0);
  CHECK(cut_few_segment(1, per_part, 8).parts == 1);
  CHECK(cut_few_segment(1, per_part, 8).values == 0);
  CHECK(cut_few_segment(per_part - 1, per_part, 8).parts == 1);
  // Any lengths (up to 2^34 tiles) of up to 64 segments over 132-1056 blocks: the parts and
  // values the GPU lays out stay within few_segments_values_bound, and every segment's parts
  // cover its tiles.
  rk_test::splitmix random{29};
  for (int round = 0; round < 2000; ++round)
  {
    const offset_t blocks = 132 * static_cast<offset_t>(1 + random.next() % 8);
    const offset_t count  = 1 + static_cast<offset_t>(random.next() % 64);
    std::vector<offset_t> tiles(static_cast<std::size_t>(count));
    offset_t all = 0;
    for (auto& t : tiles)
    {
      const int bits = static_cast<int>(random.next() % 34);
      t              = bits == 0 ? 0 : static_cast<offset_t>(random.next() % (std::uint64_t{1} << bits));
      all += t;
    }
    const offset_t share = all > blocks ? (all + blocks - 1) / blocks : 1;
    offset_t parts = 0, values = 0;
    for (offset_t t : tiles)
    {
      const rk::detail::few_segment_cut cut = cut_few_segment(t, share, 8);
      // Only parts of 2^20 tiles or more (a call of 2^29 tiles or more) can be too long.
      CHECK((!cut.by_warp || share >= (offset_t{1} << 20)));
      if (t > 0 && !cut.by_warp)
      {
        CHECK(cut.split.tiles == t);
        CHECK(cut.split.part_begin(cut.parts) == t);
        CHECK(cut.split.nodes() <= 2 * cut.parts);
      }
      parts += cut.parts;
      values += cut.values;
    }
    CHECK(parts <= blocks + count);
    CHECK(values <= rk::detail::few_segments_values_bound(blocks, count));
  }
  // A segment whose parts would be longer than 2^21 tiles (2^30 tiles in a call of 512 parts: only
  // iterators hold so many items) goes to a warp.
  const rk::detail::few_segment_cut huge = cut_few_segment(offset_t{1} << 40, (offset_t{1} << 40) / 528 + 1, 8);
  CHECK(huge.by_warp);
  CHECK(huge.parts == 0);
}

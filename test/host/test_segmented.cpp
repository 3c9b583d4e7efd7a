// rk::segmented_reduce on the host policies: every layout of the segmented issue, the three
// forms, init once on the left, non-commutative operators, rk::host's per-segment bits equal to
// rk::reduce's over the same items, and bad segments.

#include "../support/segments.hpp"
#include "../support/spread.hpp"
#include "../support/test_types.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
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

#pragma once
// Segment layouts for rk::segmented_reduce's suites (host and GPU): the distributions of the
// segmented issue's table, scaled to a total item count, as CSR offsets.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace rk_test
{
enum class segment_layout
{
  all_1,
  all_2,
  all_4,
  all_8,
  all_32,
  all_256,
  all_1024,
  all_4096,
  all_8192, ///< the length that once filled the long list exactly (the 8192-item cliff)
  all_16384,
  all_65536,
  all_2_20,       ///< 2^20 items a segment: one segment, or a few, at the suites' totals
  huge_plus_tiny, ///< one segment of half the items, the rest 1-8 items
  power_law,      ///< Pareto lengths u^-1.26, capped at the total
  half_empty,     ///< lengths 0 or 1-300, half of them 0
  random_mix,     ///< lengths drawn uniformly from 1 to 10^5, capped at the total
  one_segment
};

inline const char* name(segment_layout l)
{
  switch (l)
  {
    case segment_layout::all_1:
      return "all 1";
    case segment_layout::all_2:
      return "all 2";
    case segment_layout::all_4:
      return "all 4";
    case segment_layout::all_8:
      return "all 8";
    case segment_layout::all_32:
      return "all 32";
    case segment_layout::all_256:
      return "all 256";
    case segment_layout::all_1024:
      return "all 1024";
    case segment_layout::all_4096:
      return "all 4096";
    case segment_layout::all_8192:
      return "all 8192";
    case segment_layout::all_16384:
      return "all 16384";
    case segment_layout::all_65536:
      return "all 65536";
    case segment_layout::all_2_20:
      return "all 2^20";
    case segment_layout::huge_plus_tiny:
      return "one huge plus 1-8";
    case segment_layout::power_law:
      return "power law";
    case segment_layout::half_empty:
      return "half empty";
    case segment_layout::random_mix:
      return "random mix 1-10^5";
    case segment_layout::one_segment:
      return "one segment";
  }
  return "?";
}

inline const std::vector<segment_layout>& all_layouts()
{
  static const std::vector<segment_layout> layouts{
    segment_layout::all_1,          segment_layout::all_2,     segment_layout::all_4,      segment_layout::all_8,
    segment_layout::all_32,         segment_layout::all_256,   segment_layout::all_1024,   segment_layout::all_4096,
    segment_layout::all_8192,       segment_layout::all_16384, segment_layout::all_65536,  segment_layout::all_2_20,
    segment_layout::huge_plus_tiny, segment_layout::power_law, segment_layout::half_empty, segment_layout::random_mix,
    segment_layout::one_segment};
  return layouts;
}

/// A small deterministic generator (splitmix64), the same on every platform.
struct splitmix
{
  std::uint64_t state;
  std::uint64_t next()
  {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() // (0, 1]
  {
    return (static_cast<double>(next() >> 11) + 1.0) / 9007199254740992.0;
  }
};

/// CSR offsets (starting at 0) of about `total` items laid out as `layout`.
inline std::vector<std::int64_t> make_offsets(segment_layout layout, std::int64_t total, std::uint64_t seed = 8)
{
  std::vector<std::int64_t> offsets{0};
  splitmix rng{seed};
  auto fixed = [&](std::int64_t len) {
    for (std::int64_t at = 0; at + len <= total; at += len)
    {
      offsets.push_back(at + len);
    }
    if (offsets.size() == 1)
    {
      offsets.push_back(total);
    }
  };
  auto push = [&](std::int64_t len) { offsets.push_back(offsets.back() + len); };
  switch (layout)
  {
    case segment_layout::all_1:
      fixed(1);
      break;
    case segment_layout::all_2:
      fixed(2);
      break;
    case segment_layout::all_4:
      fixed(4);
      break;
    case segment_layout::all_8:
      fixed(8);
      break;
    case segment_layout::all_32:
      fixed(32);
      break;
    case segment_layout::all_256:
      fixed(256);
      break;
    case segment_layout::all_1024:
      fixed(1024);
      break;
    case segment_layout::all_4096:
      fixed(4096);
      break;
    case segment_layout::all_8192:
      fixed(8192);
      break;
    case segment_layout::all_16384:
      fixed(16384);
      break;
    case segment_layout::all_65536:
      fixed(65536);
      break;
    case segment_layout::all_2_20:
      fixed(std::int64_t{1} << 20);
      break;
    case segment_layout::one_segment:
      push(total);
      break;
    case segment_layout::huge_plus_tiny: {
      const std::int64_t huge = total / 2, at = static_cast<std::int64_t>(rng.next() % 1000);
      std::int64_t tiny_left = total - huge, count = 0;
      bool placed = false;
      while (tiny_left > 0 || !placed)
      {
        if (!placed && (count == at || tiny_left == 0))
        {
          push(huge);
          placed = true;
        }
        else
        {
          const std::int64_t l = std::min<std::int64_t>(1 + static_cast<std::int64_t>(rng.next() % 8), tiny_left);
          push(l);
          tiny_left -= l;
        }
        ++count;
      }
      break;
    }
    case segment_layout::power_law:
      // Pareto lengths u^-1.26 (tail exponent 0.79): many short segments and a few of millions of
      // items. At 2^26 items: 424,034 segments, the longest 11.4 M items (the segmented issue's
      // table: 420,466 segments).
      while (offsets.back() < total)
      {
        const double u       = rng.uniform();
        const std::int64_t l = static_cast<std::int64_t>(std::pow(u, -1.26));
        push(std::min<std::int64_t>(std::max<std::int64_t>(l, 1), total - offsets.back()));
      }
      break;
    case segment_layout::half_empty:
      while (offsets.back() < total)
      {
        const std::int64_t l = rng.next() % 2 ? 0 : 1 + static_cast<std::int64_t>(rng.next() % 300);
        push(std::min<std::int64_t>(l, total - offsets.back()));
      }
      break;
    case segment_layout::random_mix:
      while (offsets.back() < total)
      {
        const std::int64_t l = 1 + static_cast<std::int64_t>(rng.next() % 100000);
        push(std::min<std::int64_t>(l, total - offsets.back()));
      }
      break;
  }
  return offsets;
}
} // namespace rk_test

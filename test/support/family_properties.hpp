#pragma once
// Property bodies for the reduction family (rk::transform_reduce, rk::arg_min / arg_max /
// arg_min_max, rk::reduce_by_key), written once and instantiated per policy by the host and GPU
// suites. Besides properties.hpp's harness interface they need `std::vector<E> download(c)`.

#include "properties.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rk_test
{
struct square_to_int64
{
  RK_HOST_DEVICE std::int64_t operator()(std::int32_t x) const
  {
    return std::int64_t{x} * x;
  }
};
struct square_float
{
  RK_HOST_DEVICE float operator()(float x) const
  {
    return x * x;
  }
};
struct double_float
{
  RK_HOST_DEVICE float operator()(float x) const
  {
    return 2.0f * x;
  }
};
struct to_one
{
  RK_HOST_DEVICE std::int64_t operator()(std::int64_t) const
  {
    return 1;
  }
};
/// Item i of a long generated range: i % 1000, except a single -1 at `low`.
struct with_low_at
{
  std::int64_t low;
  RK_HOST_DEVICE std::int64_t operator()(std::int64_t i) const
  {
    return i == low ? -1 : i % 1000;
  }
};
/// Keys equal when they agree after dividing by 10: a caller-supplied key comparison.
struct same_decade
{
  RK_HOST_DEVICE bool operator()(std::int32_t a, std::int32_t b) const
  {
    return a / 10 == b / 10;
  }
};

template <class H>
void transform_reduce_properties(const H& h)
{
  for (const std::int64_t n : h.sizes_full())
  {
    CAPTURE(n);
    const auto items      = random_items<std::int32_t>(n, 40 ^ n, small_integer<std::int32_t>);
    std::int64_t expected = 7;
    for (std::int32_t x : items)
    {
      expected += std::int64_t{x} * x;
    }
    const auto input = h.upload(items);
    CHECK(rk::transform_reduce(h.policy, input.begin(), input.end(), std::int64_t{7}, rk::plus{}, square_to_int64{})
          == expected);
  }
  // The transform is fused into the loads, and the tree is counted in input items: the bits are
  // rk::reduce's over the transformed array, from an aligned start or not. (Doubling is exact, so
  // no floating-point contraction of transform and op can change a bit: with a rounding transform
  // such as x * x, nvcc may fuse it into the sum's add, as it may in any user operator.)
  auto unit_float = [](std::mt19937_64& rng) { return static_cast<float>(rng() % 2000001) / 1000000.0f - 1.0f; };
  for (const std::int64_t n : h.sizes_short())
  {
    CAPTURE(n);
    const auto items = random_items<float>(n, 41 ^ n, unit_float);
    std::vector<float> doubled(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
    {
      doubled[i] = 2.0f * items[i];
    }
    const auto input = h.upload(items);
    const auto twice = h.upload(doubled);
    CHECK(rk::transform_reduce(h.policy, input.begin(), input.end(), 0.5f, rk::plus{}, double_float{})
          == rk::reduce(h.policy, twice.begin(), twice.end(), 0.5f, rk::plus{}));
    if (n > 1)
    {
      CHECK(rk::transform_reduce(h.policy, input.begin() + 1, input.end(), 0.5f, rk::plus{}, double_float{})
            == rk::reduce(h.policy, twice.begin() + 1, twice.end(), 0.5f, rk::plus{}));
    }
    std::vector<float> squares(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
    {
      squares[i] = items[i] * items[i];
    }
    CHECK(sum_within_bound(rk::transform_reduce(h.policy, input.begin(), input.end(), 0.5f, rk::plus{}, square_float{}),
                           squares, 0.5f));
  }
  // Order and init once: index i becomes the segment [i, i + 1).
  for (const std::int64_t n : h.sizes_short())
  {
    CAPTURE(n);
    const auto first = h.generated(index_identity{}, 0);
    CHECK(rk::transform_reduce(h.policy, first, first + n, segment{-3, 0}, segment_merge{}, to_segment{})
          == segment{-3, n});
  }
  // Empty: init, and no call of either operator.
  const auto none = h.upload(std::vector<std::int32_t>{});
  CHECK(rk::transform_reduce(h.policy, none.begin(), none.end(), std::int64_t{-5}, rk::plus{}, square_to_int64{})
        == -5);
}

/// The first minimum / maximum by a plain loop, NaN neither (so all-NaN gives index 0).
template <class E>
rk::arg_result<E, std::ptrdiff_t> expected_arg(const std::vector<E>& items, bool want_max)
{
  std::ptrdiff_t best = 0;
  for (std::size_t i = 1; i < items.size(); ++i)
  {
    const E a = items[static_cast<std::size_t>(best)], b = items[i];
    const bool a_nan = rk::detail::is_unordered(a), b_nan = rk::detail::is_unordered(b);
    const bool take = a_nan ? !b_nan : (want_max ? a < b : b < a);
    if (take)
    {
      best = static_cast<std::ptrdiff_t>(i);
    }
  }
  return {items[static_cast<std::size_t>(best)], best};
}

template <class E>
bool same_arg(const rk::arg_result<E, std::ptrdiff_t>& got, const rk::arg_result<E, std::ptrdiff_t>& want)
{
  const bool both_nan = rk::detail::is_unordered(got.value) && rk::detail::is_unordered(want.value);
  return got.index == want.index && (both_nan || got.value == want.value);
}

template <class H, class E>
void check_args(const H& h, const std::vector<E>& items)
{
  const auto input = h.upload(items);
  const auto min = expected_arg(items, false), max = expected_arg(items, true);
  CHECK(same_arg(rk::arg_min(h.policy, input.begin(), input.end()), min));
  CHECK(same_arg(rk::arg_max(h.policy, input.begin(), input.end()), max));
  const auto both = rk::arg_min_max(h.policy, input.begin(), input.end());
  CHECK(same_arg(both.min, min));
  CHECK(same_arg(both.max, max));
}

template <class H>
void arg_properties(const H& h)
{
  // Ties at tile (256 int32), warp-part and block boundaries: the minimum and the maximum each
  // appear twice or more, and the first occurrence must win.
  std::vector<std::int64_t> sizes = h.sizes_short();
  for (std::int64_t s : {255, 256, 257, 8191, 8192, 8193, 65535, 65537, 1 << 20})
  {
    sizes.push_back(s);
  }
  for (const std::int64_t n : sizes)
  {
    if (n == 0)
    {
      continue; // the empty range is checked below
    }
    CAPTURE(n);
    auto items = random_items<std::int32_t>(n, 50 ^ n, small_integer<std::int32_t>);
    for (std::int64_t at : {n - 1, n / 2, std::int64_t{8192}, std::int64_t{8191}, std::int64_t{256}, std::int64_t{255}})
    {
      if (at >= 0 && at < n)
      {
        items[static_cast<std::size_t>(at)]         = -1000;
        items[static_cast<std::size_t>(n - 1 - at)] = 1000;
      }
    }
    check_args(h, items);
    auto floats = random_items<float>(n, 51 ^ n, [](std::mt19937_64& rng) { return static_cast<float>(rng() % 1001); });
    check_args(h, floats);
    // NaN is neither a minimum nor a maximum, wherever it is.
    for (std::int64_t at : {std::int64_t{0}, n / 3, n - 1})
    {
      floats[static_cast<std::size_t>(at)] = std::numeric_limits<float>::quiet_NaN();
    }
    check_args(h, floats);
  }
  // All equal: index 0. All NaN: the first NaN.
  check_args(h, std::vector<double>(100000, 2.5));
  check_args(h, std::vector<float>(3000, std::numeric_limits<float>::quiet_NaN()));
  // Empty: {value_type(), -1}.
  const auto none = h.upload(std::vector<float>{});
  CHECK(rk::arg_min(h.policy, none.begin(), none.end()).index == -1);
  CHECK(rk::arg_max(h.policy, none.begin(), none.end()).index == -1);
  CHECK(rk::arg_min_max(h.policy, none.begin(), none.end()).max.index == -1);
  // Reversed: rk::invalid_range before any item is read (rk::seq read past the end here once).
  const auto three = h.upload(std::vector<float>{3, 1, 2});
  CHECK_THROWS_AS(rk::arg_min(h.policy, three.end(), three.begin()), rk::invalid_range);
  CHECK_THROWS_AS(rk::arg_max(h.policy, three.end(), three.begin()), rk::invalid_range);
  CHECK_THROWS_AS(rk::arg_max_last(h.policy, three.end(), three.begin()), rk::invalid_range);
  CHECK_THROWS_AS(rk::arg_min_max(h.policy, three.end(), three.begin()), rk::invalid_range);
}

/// More than 2^31 items through iterators: transform_reduce's count, arg_min's 64-bit positions.
template <class H>
void family_large_counts(const H& h)
{
  const std::int64_t large = h.large_count();
  REQUIRE(large > (std::int64_t{1} << 31));
  const auto indices = h.generated(index_identity{}, 0);
  CHECK(rk::transform_reduce(h.policy, indices, indices + large, std::int64_t{0}, rk::plus{}, to_one{}) == large);
  const auto first = h.generated(with_low_at{large - 5}, 0);
  const auto m     = rk::arg_min(h.policy, first, first + large);
  CHECK(m.value == -1);
  CHECK(m.index == large - 5);
  const auto mm = rk::arg_min_max(h.policy, first, first + large);
  CHECK(mm.max.value == 999);
  CHECK(mm.max.index == 999);
}

/// Run lengths for rk::reduce_by_key: each run's key differs from its neighbours' (run r gets key
/// r % 3, so equal keys recur, but never next to each other).
inline std::vector<std::int32_t> run_keys(const std::vector<std::int64_t>& lengths)
{
  std::vector<std::int32_t> keys;
  for (std::size_t r = 0; r < lengths.size(); ++r)
  {
    keys.insert(keys.end(), static_cast<std::size_t>(lengths[r]), static_cast<std::int32_t>(r % 3));
  }
  return keys;
}

/// `runs` seeded random run lengths from 1 to `longest`.
inline std::vector<std::int64_t> random_run_lengths(int runs, std::int64_t longest, std::uint64_t seed)
{
  std::vector<std::int64_t> lengths;
  std::uint64_t x = seed;
  for (int r = 0; r < runs; ++r)
  {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    lengths.push_back(static_cast<std::int64_t>(1 + (x >> 33) % static_cast<std::uint64_t>(longest)));
  }
  return lengths;
}

inline std::vector<std::vector<std::int64_t>> run_layouts()
{
  std::vector<std::vector<std::int64_t>> layouts;
  layouts.push_back(std::vector<std::int64_t>(70000, 1)); // every key its own run
  layouts.push_back(std::vector<std::int64_t>(9000, 8));
  layouts.push_back(std::vector<std::int64_t>(70, 1000));
  layouts.push_back({300000, 1, 2, 250000}); // runs crossing many blocks
  layouts.push_back({1});
  layouts.push_back({123457}); // all keys equal
  layouts.push_back(random_run_lengths(20000, 50, 12345));
  layouts.push_back(random_run_lengths(4000, 300, 2468)); // the run pass's mid runs, and longer ones
  // The segmented issue's run lengths not above: 2, 100, 8 shifted by 3, 8192 and 16384 (the
  // lengths of the long list's old cliff), and a random mix of 1 to 10^5.
  layouts.push_back(std::vector<std::int64_t>(30000, 2));
  layouts.push_back(std::vector<std::int64_t>(700, 100));
  std::vector<std::int64_t> shifted(9000, 8);
  shifted.insert(shifted.begin(), 3);
  layouts.push_back(shifted);
  layouts.push_back(std::vector<std::int64_t>(12, 8192));
  layouts.push_back(std::vector<std::int64_t>(7, 16384));
  layouts.push_back(random_run_lengths(8, 100000, 1357));
  return layouts;
}

template <class H>
void reduce_by_key_properties(const H& h)
{
  for (const auto& lengths : run_layouts())
  {
    const auto keys = run_keys(lengths);
    const auto n    = static_cast<std::int64_t>(keys.size());
    const auto runs = lengths.size();
    CAPTURE(n);
    CAPTURE(runs);
    const auto values = random_items<std::int64_t>(n, 60 ^ n, small_integer<std::int64_t>);
    std::vector<std::int32_t> want_keys;
    std::vector<std::int64_t> want_sums, want_max;
    std::int64_t at = 0;
    for (std::size_t r = 0; r < runs; ++r)
    {
      want_keys.push_back(keys[static_cast<std::size_t>(at)]);
      std::int64_t sum = 7, mx = values[static_cast<std::size_t>(at)];
      for (std::int64_t i = at; i < at + lengths[r]; ++i)
      {
        sum += values[static_cast<std::size_t>(i)];
        mx = std::max(mx, values[static_cast<std::size_t>(i)]);
      }
      want_sums.push_back(sum);
      want_max.push_back(mx);
      at += lengths[r];
    }
    const auto k                    = h.upload(keys);
    const auto v                    = h.upload(values);
    auto key_out                    = h.upload(std::vector<std::int32_t>(static_cast<std::size_t>(n)));
    auto sum_out                    = h.upload(std::vector<std::int64_t>(static_cast<std::size_t>(n)));
    const auto [keys_end, sums_end] = rk::reduce_by_key(h.policy, k.begin(), k.end(), v.begin(), key_out.begin(),
                                                        sum_out.begin(), std::int64_t{7}, rk::plus{});
    CHECK(keys_end - key_out.begin() == static_cast<std::ptrdiff_t>(runs));
    CHECK(sums_end - sum_out.begin() == static_cast<std::ptrdiff_t>(runs));
    auto got_keys = h.download(key_out);
    auto got_sums = h.download(sum_out);
    got_keys.resize(runs);
    got_sums.resize(runs);
    CHECK(got_keys == want_keys);
    CHECK(got_sums == want_sums);
    // Thrust's form: no init, each run starts from its first value.
    const auto thrust_form = rk::reduce_by_key(h.policy, k.begin(), k.end(), v.begin(), key_out.begin(),
                                               sum_out.begin(), rk::equal_to{}, rk::maximum{});
    CHECK(thrust_form.second - sum_out.begin() == static_cast<std::ptrdiff_t>(runs));
    got_sums = h.download(sum_out);
    got_sums.resize(runs);
    CHECK(got_sums == want_max);
    // Non-commutative, exact per run: value i is the segment [i, i + 1), so run r must give
    // exactly [begin_r, end_r).
    const auto segments = h.generated(to_segment{}, 0);
    auto seg_out        = h.upload(std::vector<segment>(static_cast<std::size_t>(n), segment{0, 0}));
    rk::reduce_by_key(h.policy, k.begin(), k.end(), segments, key_out.begin(), seg_out.begin(), rk::equal_to{},
                      segment_merge{});
    auto got_segments = h.download(seg_out);
    std::int64_t b    = 0;
    bool exact        = true;
    for (std::size_t r = 0; r < runs; ++r)
    {
      exact = exact && got_segments[r] == segment{b, b + lengths[r]};
      b += lengths[r];
    }
    CHECK(exact);
  }
  // A caller's key comparison: keys 0..9 form one run, 10..19 the next, and so on.
  std::vector<std::int32_t> keys(1000);
  for (std::size_t i = 0; i < keys.size(); ++i)
  {
    keys[i] = static_cast<std::int32_t>(i / 4);
  }
  const auto k    = h.upload(keys);
  const auto one  = h.upload(std::vector<std::int32_t>(keys.size(), 1));
  auto key_out    = h.upload(std::vector<std::int32_t>(keys.size()));
  auto count_out  = h.upload(std::vector<std::int32_t>(keys.size()));
  const auto ends = rk::reduce_by_key(h.policy, k.begin(), k.end(), one.begin(), key_out.begin(), count_out.begin(),
                                      same_decade{});
  CHECK(ends.first - key_out.begin() == 25);
  const auto counts = h.download(count_out);
  const auto firsts = h.download(key_out);
  CHECK(counts[0] == 40);
  CHECK(counts[24] == 40);
  CHECK(firsts[1] == 10);
  // Empty: nothing written, the outputs' begins returned.
  const auto end_of_none = rk::reduce_by_key(h.policy, k.begin(), k.begin(), one.begin(), key_out.begin(),
                                             count_out.begin(), 0, rk::plus{});
  CHECK(end_of_none.first == key_out.begin());
  CHECK(end_of_none.second == count_out.begin());
}
} // namespace rk_test

#pragma once
// Property bodies for what Thrust and CUB users pass in every day (issue: the family at Thrust's
// and CUB's level): inputs are read-only on every algorithm (zip iterators over mutable arrays,
// whose references write through), const inputs compile, zip and tuple keys, key types with
// default member initializers, arg comparators and the last maximum, and segmented arg-min/max
// in the three segmented forms. Written once, instantiated per policy by the host and GPU suites.

#include "properties.hpp"

#include <rk/reduce.hpp>

#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace rk_test
{
using pair64 = thrust::tuple<std::int64_t, std::int64_t>;
using pair32 = thrust::tuple<std::int32_t, std::int32_t>;

/// Componentwise sum of two pairs.
struct pair_sum
{
  RK_HOST_DEVICE pair64 operator()(const pair64& a, const pair64& b) const
  {
    return pair64(thrust::get<0>(a) + thrust::get<0>(b), thrust::get<1>(a) + thrust::get<1>(b));
  }
};

/// The product of a pair's two items.
struct pair_product
{
  RK_HOST_DEVICE std::int64_t operator()(const pair32& p) const
  {
    return std::int64_t{thrust::get<0>(p)} * thrust::get<1>(p);
  }
};

/// Orders by the first item only (so items equal in it tie).
struct by_first
{
  RK_HOST_DEVICE bool operator()(const pair32& a, const pair32& b) const
  {
    return thrust::get<0>(a) < thrust::get<0>(b);
  }
};

/// Keys equal when their first items are: equal keys that differ, so that a key copied over
/// another inside a run would show in the arrays.
struct same_first_item
{
  RK_HOST_DEVICE bool operator()(const pair32& a, const pair32& b) const
  {
    return thrust::get<0>(a) == thrust::get<0>(b);
  }
};

/// Orders by magnitude: a caller's comparator under which -3 and 3 tie.
struct by_magnitude
{
  RK_HOST_DEVICE bool operator()(float a, float b) const
  {
    return (a < 0 ? -a : a) < (b < 0 ? -b : b);
  }
};

/// A key with default member initializers: default constructible, but not trivially.
struct labelled_key
{
  std::int32_t label = -1;
  std::int32_t group = 0;
  RK_HOST_DEVICE bool operator==(const labelled_key& other) const
  {
    return label == other.label && group == other.group;
  }
};

/// A 64-byte key (the widest the issue names), equal when every word is.
struct wide_key
{
  std::int32_t word[16] = {};
  RK_HOST_DEVICE bool operator==(const wide_key& other) const
  {
    for (int i = 0; i < 16; ++i)
    {
      if (word[i] != other.word[i])
      {
        return false;
      }
    }
    return true;
  }
};

/// The CSR offsets of segments of the given lengths.
inline std::vector<std::int64_t> csr_offsets(const std::vector<std::int64_t>& lengths)
{
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t length : lengths)
  {
    offsets.push_back(offsets.back() + length);
  }
  return offsets;
}

/// Every algorithm reads its input and never writes it: zip iterators over mutable arrays (whose
/// references are tuples of references, so an assignment through one would write the arrays),
/// then the same calls over const arrays, which must compile.
template <class H>
void read_only_properties(const H& h)
{
  const std::int64_t n = 5000;
  std::vector<std::int32_t> first_items(n), second_items(n), keys_a(n), keys_b(n);
  std::vector<std::int64_t> lengths;
  for (std::int64_t i = 0; i < n; ++i)
  {
    first_items[static_cast<std::size_t>(i)]  = static_cast<std::int32_t>((i * 37) % 101 - 50);
    second_items[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 11) % 13);
    keys_a[static_cast<std::size_t>(i)]       = static_cast<std::int32_t>(i / 7);
    keys_b[static_cast<std::size_t>(i)]       = static_cast<std::int32_t>(i / 5);
  }
  for (std::int64_t left = n; left > 0;)
  {
    const std::int64_t length = std::min<std::int64_t>(left, 1 + (left * 7) % 300);
    lengths.push_back(length);
    left -= length;
  }
  // Expected values, by plain loops.
  std::int64_t sum_first = 0, sum_second = 0, dot = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    sum_first += first_items[static_cast<std::size_t>(i)];
    sum_second += second_items[static_cast<std::size_t>(i)];
    dot += std::int64_t{first_items[static_cast<std::size_t>(i)]} * second_items[static_cast<std::size_t>(i)];
  }
  std::int64_t runs = 0;
  for (std::int64_t i = 0; i < n; ++i)
  {
    const auto u = static_cast<std::size_t>(i);
    runs += i == 0 || keys_a[u] != keys_a[u - 1] ? 1 : 0;
  }
  const auto offsets_host = csr_offsets(lengths);
  const auto segments     = static_cast<std::int64_t>(lengths.size());

  auto a    = h.upload(first_items);
  auto b    = h.upload(second_items);
  auto ka   = h.upload(keys_a);
  auto kb   = h.upload(keys_b);
  auto offs = h.upload(offsets_host);

  const auto calls = [&](auto items, auto keys) {
    CHECK(rk::transform_reduce(h.policy, items, items + n, std::int64_t{0}, rk::plus{}, pair_product{}) == dot);
    if constexpr (!H::commutative_only)
    {
      const pair64 total = rk::reduce(h.policy, items, items + n, pair64(0, 0), pair_sum{});
      CHECK(thrust::get<0>(total) == sum_first);
      CHECK(thrust::get<1>(total) == sum_second);
      const auto lowest = rk::arg_min(h.policy, items, items + n, by_first{});
      CHECK(thrust::get<0>(lowest.value) == -50);
      const auto highest = rk::arg_max_last(h.policy, items, items + n, by_first{});
      CHECK(thrust::get<0>(highest.value) == 50);
      auto sums = h.upload(std::vector<pair64>(static_cast<std::size_t>(segments)));
      rk::segmented_reduce(h.policy, items, offs.begin(), offs.end(), sums.begin(), pair64(0, 0), pair_sum{});
      const auto got         = h.download(sums);
      std::int64_t all_first = 0;
      for (const pair64& p : got)
      {
        all_first += thrust::get<0>(p);
      }
      CHECK(all_first == sum_first);
      auto out_a      = h.upload(std::vector<std::int32_t>(static_cast<std::size_t>(n)));
      auto out_b      = h.upload(std::vector<std::int32_t>(static_cast<std::size_t>(n)));
      auto run_values = h.upload(std::vector<pair64>(static_cast<std::size_t>(n)));
      const auto ends = rk::reduce_by_key(h.policy, keys, keys + n, items,
                                          thrust::make_zip_iterator(out_a.begin(), out_b.begin()), run_values.begin(),
                                          pair64(0, 0), pair_sum{}, same_first_item{});
      CHECK(ends.second - run_values.begin() == runs);
      const auto got_a = h.download(out_a);
      CHECK(got_a[0] == 0);
      CHECK(got_a[static_cast<std::size_t>(runs - 1)] == keys_a.back());
    }
  };
  calls(thrust::make_zip_iterator(a.begin(), b.begin()), thrust::make_zip_iterator(ka.begin(), kb.begin()));
  CHECK(h.download(a) == first_items);
  CHECK(h.download(b) == second_items);
  CHECK(h.download(ka) == keys_a);
  CHECK(h.download(kb) == keys_b);
  // Const arrays: the zip's references are tuples of const references.
  const auto& ca  = a;
  const auto& cb  = b;
  const auto& cka = ka;
  const auto& ckb = kb;
  calls(thrust::make_zip_iterator(ca.begin(), cb.begin()), thrust::make_zip_iterator(cka.begin(), ckb.begin()));
}

/// rk::reduce_by_key over keys Thrust users bring: a zip of two key arrays (into a zip output),
/// tuple keys, keys with default member initializers and 64-byte keys; each against a plain loop.
template <class H>
void key_type_properties(const H& h)
{
  const std::int64_t n = 20000;
  std::vector<std::int32_t> keys_a(n), keys_b(n);
  std::vector<std::int64_t> values(n);
  std::vector<std::int64_t> run_first{0};
  for (std::int64_t i = 0; i < n; ++i)
  {
    const auto u = static_cast<std::size_t>(i);
    keys_a[u]    = static_cast<std::int32_t>(i / 900);     // long runs of a ...
    keys_b[u]    = static_cast<std::int32_t>((i / 3) % 4); // ... cut short by b
    values[u]    = static_cast<std::int64_t>((i * 7919) % 1000);
    if (i > 0 && (keys_a[u] != keys_a[u - 1] || keys_b[u] != keys_b[u - 1]))
    {
      run_first.push_back(i);
    }
  }
  const auto runs = static_cast<std::int64_t>(run_first.size());
  run_first.push_back(n);
  std::vector<std::int64_t> want_sums;
  for (std::int64_t r = 0; r < runs; ++r)
  {
    std::int64_t sum = 5;
    for (std::int64_t i = run_first[static_cast<std::size_t>(r)]; i < run_first[static_cast<std::size_t>(r + 1)]; ++i)
    {
      sum += values[static_cast<std::size_t>(i)];
    }
    want_sums.push_back(sum);
  }
  const auto check_sums = [&](const auto& sums_out, std::ptrdiff_t got_runs) {
    CHECK(got_runs == runs);
    auto got = h.download(sums_out);
    got.resize(static_cast<std::size_t>(runs));
    CHECK(got == want_sums);
  };
  const auto v = h.upload(values);
  auto sums    = h.upload(std::vector<std::int64_t>(static_cast<std::size_t>(n)));

  // A zip of two key arrays, into a zip of two outputs.
  {
    const auto ka   = h.upload(keys_a);
    const auto kb   = h.upload(keys_b);
    auto oa         = h.upload(std::vector<std::int32_t>(static_cast<std::size_t>(n)));
    auto ob         = h.upload(std::vector<std::int32_t>(static_cast<std::size_t>(n)));
    const auto keys = thrust::make_zip_iterator(ka.begin(), kb.begin());
    const auto ends = rk::reduce_by_key(h.policy, keys, keys + n, v.begin(),
                                        thrust::make_zip_iterator(oa.begin(), ob.begin()), sums.begin(),
                                        std::int64_t{5}, rk::plus{});
    check_sums(sums, ends.second - sums.begin());
    const auto got_a = h.download(oa), got_b = h.download(ob);
    bool firsts = true;
    for (std::int64_t r = 0; r < runs; ++r)
    {
      const auto at = static_cast<std::size_t>(run_first[static_cast<std::size_t>(r)]);
      firsts        = firsts && got_a[static_cast<std::size_t>(r)] == keys_a[at]
            && got_b[static_cast<std::size_t>(r)] == keys_b[at];
    }
    CHECK(firsts);
  }
  // The same keys as an array of tuples, of aggregates with default member initializers, and of
  // 64-byte structs.
  std::vector<pair32> tuple_keys(n);
  std::vector<labelled_key> labelled(n);
  std::vector<wide_key> wide(n);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
  {
    tuple_keys[i]     = pair32(keys_a[i], keys_b[i]);
    labelled[i].label = keys_a[i];
    labelled[i].group = keys_b[i];
    wide[i].word[0]   = keys_a[i];
    wide[i].word[15]  = keys_b[i];
  }
  const auto check_keys = [&](const auto& keys) {
    using key       = typename std::decay_t<decltype(keys)>::value_type;
    const auto k    = h.upload(keys);
    auto out        = h.upload(std::vector<key>(static_cast<std::size_t>(n)));
    const auto ends = rk::reduce_by_key(h.policy, k.begin(), k.end(), v.begin(), out.begin(), sums.begin(),
                                        std::int64_t{5}, rk::plus{});
    check_sums(sums, ends.second - sums.begin());
    const auto got = h.download(out);
    bool firsts    = true;
    for (std::int64_t r = 0; r < runs; ++r)
    {
      firsts = firsts
            && got[static_cast<std::size_t>(r)]
                 == keys[static_cast<std::size_t>(run_first[static_cast<std::size_t>(r)])];
    }
    CHECK(firsts);
  };
  check_keys(tuple_keys);
  check_keys(labelled);
  check_keys(wide);
}

/// The arg reductions with a caller's comparator, and rk::arg_max_last.
template <class H>
void arg_comparator_properties(const H& h)
{
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{255}, std::int64_t{4097}, std::int64_t{1} << 20})
  {
    CAPTURE(n);
    // Magnitudes 0..999 with random signs; the smallest and largest magnitudes appear with both
    // signs, so under by_magnitude they tie and the earliest (or, for arg_max_last, the latest) wins.
    std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 31 + 7);
    std::vector<float> items(static_cast<std::size_t>(n));
    for (auto& x : items)
    {
      x = static_cast<float>(1 + rng() % 998) * (rng() % 2 ? 1.0f : -1.0f);
    }
    for (std::int64_t at : {n / 5, n / 2, n - 1 - n / 7, n - 1})
    {
      items[static_cast<std::size_t>(at)]         = at % 2 ? 999.0f : -999.0f;
      items[static_cast<std::size_t>(n - 1 - at)] = at % 2 ? -0.5f : 0.5f;
    }
    std::ptrdiff_t min_at = 0, max_at = 0, last_max_at = 0, plain_last_max_at = 0;
    const by_magnitude mag;
    for (std::ptrdiff_t i = 1; i < static_cast<std::ptrdiff_t>(n); ++i)
    {
      const auto u      = static_cast<std::size_t>(i);
      min_at            = mag(items[u], items[static_cast<std::size_t>(min_at)]) ? i : min_at;
      max_at            = mag(items[static_cast<std::size_t>(max_at)], items[u]) ? i : max_at;
      last_max_at       = !mag(items[u], items[static_cast<std::size_t>(last_max_at)]) ? i : last_max_at;
      plain_last_max_at = !(items[u] < items[static_cast<std::size_t>(plain_last_max_at)]) ? i : plain_last_max_at;
    }
    const auto input = h.upload(items);
    CHECK(rk::arg_min(h.policy, input.begin(), input.end(), mag).index == min_at);
    CHECK(rk::arg_max(h.policy, input.begin(), input.end(), mag).index == max_at);
    CHECK(rk::arg_max_last(h.policy, input.begin(), input.end(), mag).index == last_max_at);
    CHECK(rk::arg_max_last(h.policy, input.begin(), input.end()).index == plain_last_max_at);
    const auto both = rk::arg_min_max(h.policy, input.begin(), input.end(), mag);
    CHECK(both.min.index == min_at);
    CHECK(both.max.index == max_at);
  }
  // The last maximum under the default ordering: equal maxima, then NaN rules.
  const float nan    = std::numeric_limits<float>::quiet_NaN();
  const auto last_of = [&](const std::vector<float>& items) {
    const auto input = h.upload(items);
    return rk::arg_max_last(h.policy, input.begin(), input.end()).index;
  };
  CHECK(last_of({3.0f, 1.0f, 3.0f, 2.0f}) == 2);
  CHECK(last_of({nan, 1.0f, nan}) == 1); // a number beats NaN on either side
  CHECK(last_of({nan, nan, nan}) == 2);  // all NaN: the last
  CHECK(last_of({5.0f, nan, 5.0f, nan}) == 2);
  std::vector<float> many(100000, 2.5f);
  CHECK(last_of(many) == 99999);
  const auto none = h.upload(std::vector<float>{});
  CHECK(rk::arg_max_last(h.policy, none.begin(), none.end()).index == -1);
}

/// The first minimum (or maximum, or last maximum) of items [b, e) under `better`, its index
/// counted from b; {E(), -1} for an empty segment. `better(x, y)`: x replaces the best so far y.
template <class E, class Better>
rk::arg_result<E, std::ptrdiff_t> segment_extreme(const std::vector<E>& items, std::int64_t b, std::int64_t e,
                                                  Better better)
{
  if (b == e)
  {
    return {E(), -1};
  }
  std::int64_t best = b;
  for (std::int64_t i = b + 1; i < e; ++i)
  {
    best = better(items[static_cast<std::size_t>(i)], items[static_cast<std::size_t>(best)]) ? i : best;
  }
  return {items[static_cast<std::size_t>(best)], static_cast<std::ptrdiff_t>(best - b)};
}

/// rk::segmented_arg_min / rk::segmented_arg_max in the three forms: positions from each
/// segment's first item, empty segments {value_type(), -1}, ties to the first, NaN rule, a
/// caller's comparator.
template <class H>
void segmented_arg_properties(const H& h)
{
  using result    = rk::arg_result<float, std::ptrdiff_t>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Lengths 0-40 (a fifth empty), then long segments crossing tiles and blocks.
  std::mt19937_64 rng(4242);
  std::vector<std::int64_t> lengths;
  for (int s = 0; s < 3000; ++s)
  {
    lengths.push_back(rng() % 5 == 0 ? 0 : static_cast<std::int64_t>(1 + rng() % 40));
  }
  for (std::int64_t length : {std::int64_t{4096}, std::int64_t{70000}, std::int64_t{0}, std::int64_t{300001}})
  {
    lengths.push_back(length);
  }
  const auto offsets   = csr_offsets(lengths);
  const std::int64_t n = offsets.back(), segments = static_cast<std::int64_t>(lengths.size());
  std::vector<float> items(static_cast<std::size_t>(n));
  for (auto& x : items)
  {
    x = static_cast<float>(rng() % 200) - 100.0f; // ties in every long segment
  }
  // NaN in some items (the default ordering's rule); a caller's comparator gets the items without
  // them, since by_magnitude is a strict weak ordering of numbers only.
  const std::vector<float> numbers = items;
  for (std::int64_t i = 3; i < n; i += 97)
  {
    items[static_cast<std::size_t>(i)] = nan;
  }
  const auto nan_last_less = [](float x, float y) { return std::isnan(y) ? !std::isnan(x) : x < y; };
  const auto nan_last_more = [](float x, float y) { return std::isnan(y) ? !std::isnan(x) : y < x; };
  const by_magnitude mag;
  std::vector<result> want_min, want_max, want_mag;
  for (std::int64_t s = 0; s < segments; ++s)
  {
    const std::int64_t b = offsets[static_cast<std::size_t>(s)], e = offsets[static_cast<std::size_t>(s + 1)];
    want_min.push_back(segment_extreme(items, b, e, nan_last_less));
    want_max.push_back(segment_extreme(items, b, e, nan_last_more));
    want_mag.push_back(segment_extreme(numbers, b, e, [&](float x, float y) { return mag(x, y); }));
  }
  const auto same = [](const std::vector<result>& got, const std::vector<result>& want) {
    if (got.size() != want.size())
    {
      return false;
    }
    for (std::size_t s = 0; s < got.size(); ++s)
    {
      const bool values = got[s].value == want[s].value || (std::isnan(got[s].value) && std::isnan(want[s].value));
      if (got[s].index != want[s].index || !values)
      {
        return false;
      }
    }
    return true;
  };
  const auto input = h.upload(items);
  const auto plain = h.upload(numbers);
  const auto offs  = h.upload(offsets);
  auto out         = h.upload(std::vector<result>(static_cast<std::size_t>(segments), result{7.0f, 7}));
  // CSR form.
  rk::segmented_arg_min(h.policy, input.begin(), offs.begin(), offs.end(), out.begin());
  CHECK(same(h.download(out), want_min));
  rk::segmented_arg_max(h.policy, input.begin(), offs.begin(), offs.end(), out.begin());
  CHECK(same(h.download(out), want_max));
  rk::segmented_arg_min(h.policy, plain.begin(), offs.begin(), offs.end(), out.begin(), mag);
  CHECK(same(h.download(out), want_mag));
  // CUB's form: the same segments as begin and end offsets.
  rk::segmented_arg_min(h.policy, input.begin(), segments, offs.begin(), offs.begin() + 1, out.begin());
  CHECK(same(h.download(out), want_min));
  rk::segmented_arg_max(h.policy, input.begin(), segments, offs.begin(), offs.begin() + 1, out.begin());
  CHECK(same(h.download(out), want_max));
  // Fixed size: 1, 7 and 4096 items a segment.
  for (const std::int64_t size : {std::int64_t{1}, std::int64_t{7}, std::int64_t{4096}})
  {
    CAPTURE(size);
    const std::int64_t count = n / size;
    std::vector<result> want_fixed_min, want_fixed_max;
    for (std::int64_t s = 0; s < count; ++s)
    {
      want_fixed_min.push_back(segment_extreme(items, s * size, (s + 1) * size, nan_last_less));
      want_fixed_max.push_back(segment_extreme(items, s * size, (s + 1) * size, nan_last_more));
    }
    auto fixed_out = h.upload(std::vector<result>(static_cast<std::size_t>(count)));
    rk::segmented_arg_min(h.policy, input.begin(), count, size, fixed_out.begin());
    CHECK(same(h.download(fixed_out), want_fixed_min));
    rk::segmented_arg_max(h.policy, input.begin(), count, size, fixed_out.begin());
    CHECK(same(h.download(fixed_out), want_fixed_max));
  }
}
} // namespace rk_test

#pragma once
// The property test bodies, written once and instantiated per policy (host and GPU suites).
//
// A harness H supplies:
//   H::policy_type policy;                     the rk policy under test
//   static constexpr bool commutative_only;    true for rk::atomic: skip non-commutative ops and
//                                              types without an atomic route
//   container upload(const std::vector<E>&)    a container with begin()/end() the policy can read
//   iterator generated(F f, int64 first)       item i is f(first + i), computed on access
//   std::vector<int64> sizes_full(), sizes_short()   the size grids
//   std::int64_t large_count()                 a count above 2^31 for closed-form checks

#include "reference.hpp"
#include "test_types.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rk_test
{
/// Every size: upload random items, compare rk::reduce with the left fold, exactly.
template <class E, class T = E, class H, class Op, class Draw>
void check_exact(const H& h, const std::vector<std::int64_t>& sizes, T init, Op op, Draw draw, std::uint64_t salt)
{
  for (const std::int64_t n : sizes)
  {
    CAPTURE(n);
    const std::vector<E> items = random_items<E>(n, salt ^ static_cast<std::uint64_t>(n), draw);
    const T expected           = fold(items.begin(), items.end(), init, op);
    const auto input           = h.upload(items);
    const T got                = rk::reduce(h.policy, input.begin(), input.end(), init, op);
    CHECK(got == expected);
  }
}

template <class H>
void integer_sums(const H& h)
{
  const auto full = h.sizes_full(), sizes = h.sizes_short();
  check_exact<std::int32_t>(h, full, 7, rk::plus{}, small_integer<std::int32_t>, 1);
  check_exact<std::uint32_t>(h, sizes, 3u, rk::plus{}, small_integer<std::uint32_t>, 2);
  check_exact<std::int64_t>(h, sizes, std::int64_t{-11}, rk::plus{}, small_integer<std::int64_t>, 3);
  if constexpr (!H::commutative_only)
  {
    // int8 and int16 wrap mod 2^8 and 2^16 on every combine, which is still associative.
    check_exact<std::int8_t>(h, sizes, std::int8_t{5}, rk::plus{}, small_integer<std::int8_t>, 4);
    check_exact<std::int16_t>(h, sizes, std::int16_t{-300}, rk::plus{}, small_integer<std::int16_t>, 5);
  }
}

template <class H>
void integer_other_ops(const H& h)
{
  const auto sizes = h.sizes_short();
  auto odd         = [](std::mt19937_64& rng) { return static_cast<std::uint32_t>(rng() | 1u); };
  check_exact<std::uint32_t>(h, sizes, 3u, rk::multiplies{}, odd, 10);
  check_exact<std::int32_t>(h, sizes, INT_MAX, rk::minimum{}, small_integer<std::int32_t>, 11);
  check_exact<std::int32_t>(h, sizes, 7, rk::minimum{}, small_integer<std::int32_t>, 12); // init can win
  check_exact<std::int32_t>(h, sizes, 7, rk::maximum{}, small_integer<std::int32_t>, 13);
  check_exact<std::int64_t>(h, sizes, std::int64_t{3}, rk::maximum{}, small_integer<std::int64_t>, 14);
  check_exact<std::uint32_t>(h, sizes, 0x5au, rk::bit_xor{}, small_integer<std::uint32_t>, 15);
  // Bit k of an item is cleared (AND) or set (OR) with probability 2^-(k/3) / 64: whatever n, some
  // bits are touched by one or two items only, so the result depends on which items were read
  // (with every bit touched by many items, as before, it was the constant 0 or ~0 past a few
  // hundred items).
  const auto rare_bit = [](std::mt19937_64& rng) {
    const unsigned k = static_cast<unsigned>(rng() % 64);
    const bool hit   = (rng() & ((std::uint64_t{1} << (k / 3)) - 1)) == 0;
    return hit ? std::uint64_t{1} << k : std::uint64_t{0};
  };
  check_exact<std::uint64_t>(
    h, sizes, ~std::uint64_t{0}, rk::bit_and{}, [&](std::mt19937_64& rng) { return ~rare_bit(rng); }, 16);
  check_exact<std::uint64_t>(h, sizes, std::uint64_t{0}, rk::bit_or{}, rare_bit, 17);
  if constexpr (!H::commutative_only)
  {
    check_exact<std::int8_t>(h, sizes, std::int8_t{100}, rk::minimum{}, small_integer<std::int8_t>, 18);
    check_exact<std::int8_t>(h, sizes, std::int8_t{-100}, rk::maximum{}, small_integer<std::int8_t>, 19);
  }
}

/// Float sums against the (n + 1) eps sum|x| bound; min and max exactly, NaN and inf rules.
template <class H>
void floating_point(const H& h)
{
  const auto sizes = h.sizes_short();
  auto unit_float  = [](std::mt19937_64& rng) { return static_cast<float>(rng() % 2000001) / 1000000.0f - 1.0f; };
  auto unit_double = [](std::mt19937_64& rng) { return static_cast<double>(rng() % 2000001) / 1000000.0 - 1.0; };
  for (const std::int64_t n : sizes)
  {
    CAPTURE(n);
    const auto floats  = random_items<float>(n, 20 ^ n, unit_float);
    const auto doubles = random_items<double>(n, 21 ^ n, unit_double);
    const auto fin     = h.upload(floats);
    const auto din     = h.upload(doubles);
    CHECK(sum_within_bound(rk::reduce(h.policy, fin.begin(), fin.end(), 0.5f, rk::plus{}), floats, 0.5f));
    CHECK(sum_within_bound(rk::reduce(h.policy, din.begin(), din.end(), -0.25, rk::plus{}), doubles, -0.25));
    CHECK(rk::reduce(h.policy, fin.begin(), fin.end(), 2.0f, rk::minimum{})
          == fold(floats.begin(), floats.end(), 2.0f, rk::minimum{}));
    CHECK(rk::reduce(h.policy, din.begin(), din.end(), -2.0, rk::maximum{})
          == fold(doubles.begin(), doubles.end(), -2.0, rk::maximum{}));
  }

  // NaN propagates through rk::minimum and rk::maximum wherever it is; infinities win as usual.
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{1000}, std::int64_t{100003}})
  {
    for (const std::int64_t where : {std::int64_t{0}, n / 2, n - 1})
    {
      CAPTURE(n);
      CAPTURE(where);
      auto items          = random_items<float>(n, 22 ^ n, unit_float);
      items[where]        = std::numeric_limits<float>::quiet_NaN();
      const auto with_nan = h.upload(items);
      CHECK(std::isnan(rk::reduce(h.policy, with_nan.begin(), with_nan.end(), 0.0f, rk::minimum{})));
      CHECK(std::isnan(rk::reduce(h.policy, with_nan.begin(), with_nan.end(), 0.0f, rk::maximum{})));
      items[where]        = -std::numeric_limits<float>::infinity();
      const auto with_inf = h.upload(items);
      CHECK(rk::reduce(h.policy, with_inf.begin(), with_inf.end(), 0.0f, rk::minimum{})
            == -std::numeric_limits<float>::infinity());
      CHECK(rk::reduce(h.policy, with_inf.begin(), with_inf.end(), 5.0f, rk::maximum{}) == 5.0f);
    }
  }
  // A NaN init propagates too.
  const auto some = h.upload(random_items<double>(1000, 23, unit_double));
  CHECK(std::isnan(rk::reduce(h.policy, some.begin(), some.end(), std::nan(""), rk::maximum{})));
}

/// Associative, non-commutative operators: any reordering or misplaced init is a wrong answer.
template <class H>
void non_commutative(const H& h)
{
  static_assert(!H::commutative_only, "rk::atomic cannot run non-commutative operators");
  const auto full = h.sizes_full(), sizes = h.sizes_short();
  for (const std::int64_t n : full)
  {
    CAPTURE(n);
    const auto first = h.generated(to_segment{}, 0);
    CHECK(rk::reduce(h.policy, first, first + n, segment{-3, 0}, segment_merge{}) == segment{-3, n});
  }
  for (const std::int64_t n : sizes)
  {
    CAPTURE(n);
    std::vector<segment> stored;
    for (std::int64_t i = 0; i < n; ++i)
    {
      stored.push_back(segment{i + 1, i + 2});
    }
    const auto input = h.upload(stored);
    CHECK(rk::reduce(h.policy, input.begin(), input.end(), segment{0, 1}, segment_merge{}) == segment{0, n + 1});
    const auto indices = h.generated(index_identity{}, 0);
    CHECK(rk::reduce(h.policy, indices, indices + n, std::int64_t{42}, take_first{}) == 42);
  }
  // Invertible items (test_types.hpp): a product of matrices with even determinants soon has
  // only even entries, then zeros, and a fold that lost the order of its early items would pass.
  const auto drawn_mat2   = [](std::mt19937_64& rng) { return random_mat2{}(static_cast<std::int64_t>(rng() >> 1)); };
  const auto drawn_affine = [](std::mt19937_64& rng) { return random_affine{}(static_cast<std::int64_t>(rng() >> 1)); };
  check_exact<mat2>(h, sizes, mat2{1, 2, 3, 4}, mat2_multiply{}, drawn_mat2, 30);
  check_exact<affine>(h, sizes, affine{3, 5}, affine_compose{}, drawn_affine, 31);
}

/// Empty ranges, reversed ranges, a T with no default constructor.
template <class H>
void special_cases(const H& h)
{
  const auto items = h.upload(std::vector<std::int32_t>{1, 2, 3});
  CHECK(rk::reduce(h.policy, items.end(), items.end(), -1) == -1);
  CHECK(rk::reduce(h.policy, items.begin(), items.end(), -1) == 5);
  CHECK_THROWS_AS(rk::reduce(h.policy, items.end(), items.begin(), 0), rk::invalid_range);
  CHECK_THROWS_AS(rk::reduce(h.policy, items.end(), items.begin(), 0), rk::error);

  if constexpr (!H::commutative_only)
  {
    // Empty: init comes back and op never runs.
    CHECK(rk::reduce(h.policy, items.begin(), items.begin(), 42, must_not_be_called{}) == 42);
    const auto gen = h.generated(to_segment{}, 5);
    CHECK(rk::reduce(h.policy, gen, gen, segment{1, 2}, must_not_be_called{}) == segment{1, 2});

    for (const std::int64_t n : h.sizes_short())
    {
      CAPTURE(n);
      const auto first = h.generated(to_no_default{}, 0);
      const generating_iterator<to_no_default> host_first(to_no_default{}, 0);
      const no_default expected = fold(host_first, host_first + n, no_default(5), no_default_plus{});
      CHECK(rk::reduce(h.policy, first, first + n, no_default(5), no_default_plus{}) == expected);
    }
  }
}

/// Counts above 2^31, checked in closed form.
template <class H>
void large_counts(const H& h)
{
  const std::int64_t n = h.large_count();
  REQUIRE(n > (std::int64_t{1} << 31));
  const auto indices = h.generated(index_identity{}, 0);
  CHECK(rk::reduce(h.policy, indices, indices + n, std::int64_t{9}) == 9 + n * (n - 1) / 2);
  CHECK(rk::reduce(h.policy, indices, indices + n, std::int64_t{-1}, rk::maximum{}) == n - 1);
  if constexpr (!H::commutative_only)
  {
    const auto segments = h.generated(to_segment{}, 0);
    CHECK(rk::reduce(h.policy, segments, segments + n, segment{-1, 0}, segment_merge{}) == segment{-1, n});
  }
}
} // namespace rk_test

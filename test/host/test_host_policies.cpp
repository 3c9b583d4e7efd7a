// Property suites for rk::seq and rk::host. Compiled by the plain C++ compiler against
// <rk/reduce.hpp> alone, which also proves the host-only header needs no CUDA.

#include "host_harness.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <list>
#include <numeric>
#include <thread>

using seq_harness  = rk_test::host_harness<rk::seq_policy>;
using host_harness = rk_test::host_harness<rk::host_policy>;

TEST_CASE_TEMPLATE("integer sums are exact and apply init once", H, seq_harness, host_harness)
{
  rk_test::integer_sums(H{});
}

TEST_CASE_TEMPLATE("min, max, multiplies and bitwise ops are exact", H, seq_harness, host_harness)
{
  rk_test::integer_other_ops(H{});
}

TEST_CASE_TEMPLATE("floating point: sums within bound, NaN and inf rules", H, seq_harness, host_harness)
{
  rk_test::floating_point(H{});
}

TEST_CASE_TEMPLATE("non-commutative associative ops give the exact answer", H, seq_harness, host_harness)
{
  rk_test::non_commutative(H{});
}

TEST_CASE_TEMPLATE("empty and reversed ranges, types without a default constructor", H, seq_harness, host_harness)
{
  rk_test::special_cases(H{});
}

TEST_CASE("rk::host: more than 2^31 items through a computed iterator")
{
  rk_test::large_counts(host_harness{});
}

TEST_CASE("rk::host: every thread count keeps the order")
{
  for (unsigned threads : {1u, 2u, 3u, 7u, 16u})
  {
    CAPTURE(threads);
    rk_test::host_harness<rk::host_policy> h{rk::host.with_threads(threads)};
    const std::int64_t n = (std::int64_t{1} << 20) + 3;
    const auto first     = h.generated(rk_test::to_segment{}, 0);
    CHECK(rk::reduce(h.policy, first, first + n, rk_test::segment{-1, 0}, rk_test::segment_merge{})
          == rk_test::segment{-1, n});
  }
}

TEST_CASE("rk::seq takes input iterators; rk::host reports exceptions from op")
{
  std::list<int> items = {1, 2, 3, 4};
  CHECK(rk::reduce(rk::seq, items.begin(), items.end(), 10) == 20);

  struct throwing_op
  {
    int operator()(int a, int b) const
    {
      if (b == 123456)
      {
        throw std::runtime_error("op failed");
      }
      return a + b;
    }
  };
  std::vector<int> values(1 << 20, 1);
  values[values.size() - 10] = 123456;
  CHECK_THROWS_AS(rk::reduce(rk::host.with_threads(4), values.begin(), values.end(), 0, throwing_op{}),
                  std::runtime_error);
}

TEST_CASE("explain describes host policies")
{
  std::vector<int> v(10);
  const auto seq = rk::explain(rk::seq, v.begin(), v.end(), 0);
  CHECK(seq.backend == "seq");
  CHECK(seq.size == 10);
  const auto host = rk::explain(rk::host, v.begin(), v.end(), 0, rk::maximum{});
  CHECK(host.backend == "host");
  CHECK(host.to_string().find("one thread") != std::string::npos);
  CHECK_THROWS_AS(rk::explain(rk::host, v.end(), v.begin(), 0), rk::invalid_range);
}

TEST_CASE("is_commutative")
{
  static_assert(rk::is_commutative_v<rk::plus> && rk::is_commutative_v<rk::minimum>);
  static_assert(rk::is_commutative_v<std::plus<>> && rk::is_commutative_v<std::multiplies<int>>);
  static_assert(!rk::is_commutative_v<rk_test::segment_merge> && !rk::is_commutative_v<std::minus<>>);
  CHECK(true);
}

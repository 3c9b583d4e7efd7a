// rk::check_operator: the operators rk and its suites define, checked the way a user checks theirs,
// and the checker's own edges (counterexamples, random subsets, types without == or <<).

#include "../support/test_types.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <list>
#include <string>
#include <vector>

namespace
{
std::vector<std::int32_t> small_ints()
{
  return {-7, -1, 0, 1, 2, 3, 100, 1 << 20, std::numeric_limits<std::int32_t>::min()};
}

std::vector<float> special_floats()
{
  const float inf = std::numeric_limits<float>::infinity();
  return {-inf, -2.5f, -0.0f, 0.0f, 1.0f, 3.25f, inf, std::numeric_limits<float>::quiet_NaN()};
}

/// Samples for the non-commutative operators of the suites.
template <class F>
auto first_n(int n, F make)
{
  std::vector<decltype(make(0))> out;
  for (int i = 0; i < n; ++i)
  {
    out.push_back(make(i));
  }
  return out;
}

struct minus
{
  int operator()(int a, int b) const
  {
    return a - b;
  }
};

/// Trivially copyable, no ==, no <<: compared by bytes, named by sample index.
struct opaque
{
  std::uint32_t bits;
};
struct opaque_xor
{
  opaque operator()(opaque a, opaque b) const
  {
    return opaque{a.bits ^ b.bits};
  }
};
struct opaque_first
{
  opaque operator()(opaque a, opaque) const
  {
    return a;
  }
};
} // namespace

TEST_CASE("rk's operators: associative, and commutative where rk::is_commutative says so")
{
  const auto ints = small_ints();
  for (const auto& check :
       {rk::check_operator<std::int32_t>(rk::plus{}, ints), rk::check_operator<std::int32_t>(rk::multiplies{}, ints),
        rk::check_operator<std::int32_t>(rk::minimum{}, ints), rk::check_operator<std::int32_t>(rk::maximum{}, ints),
        rk::check_operator<std::int32_t>(rk::bit_and{}, ints), rk::check_operator<std::int32_t>(rk::bit_or{}, ints),
        rk::check_operator<std::int32_t>(rk::bit_xor{}, ints)})
  {
    CAPTURE(check);
    CHECK(check.associative);
    CHECK(check.commutative);
    CHECK(check.every_triple);
    CHECK(check.triples_checked == ints.size() * ints.size() * ints.size());
  }
  // Floats: min and max keep NaN and infinities associative; ties (-0 and +0) compare equal.
  const auto floats = special_floats();
  CHECK(rk::check_operator<float>(rk::minimum{}, floats).associative);
  CHECK(rk::check_operator<float>(rk::maximum{}, floats).associative);
  CHECK(rk::check_operator<float>(rk::minimum{}, floats).commutative);
  static_assert(rk::is_commutative_v<rk::plus> && rk::is_commutative_v<rk::minimum>);
}

TEST_CASE("the suites' non-commutative operators are associative and not commutative")
{
  const auto segments = first_n(6, [](int i) { return rk_test::segment{i, i + 1 + i % 2}; });
  const auto mats     = first_n(5, [](int i) {
    return rk_test::mat2{std::uint32_t(i + 1), std::uint32_t(3 * i), std::uint32_t(7 - i), std::uint32_t(i * i + 2)};
  });
  const auto maps   = first_n(6, [](int i) { return rk_test::affine{std::uint32_t(2 * i + 1), std::uint32_t(5 + i)}; });
  const auto merge  = rk::check_operator<rk_test::segment>(rk_test::segment_merge{}, segments);
  const auto matmul = rk::check_operator<rk_test::mat2>(rk_test::mat2_multiply{}, mats);
  const auto affine = rk::check_operator<rk_test::affine>(rk_test::affine_compose{}, maps);
  const auto first  = rk::check_operator<std::int64_t>(rk_test::take_first{}, std::vector<std::int64_t>{1, 2, 3});
  for (const auto& check : {merge, matmul, affine, first})
  {
    CAPTURE(check);
    CHECK(check.associative);
    CHECK_FALSE(check.commutative);
    CHECK(check.commutativity_counterexample.find("samples[") != std::string::npos);
  }
  static_assert(!rk::is_commutative_v<rk_test::segment_merge> && !rk::is_commutative_v<rk_test::affine_compose>);

  // A type with no default constructor.
  const auto no_default = rk::check_operator<rk_test::no_default>(
    rk_test::no_default_plus{}, std::vector<rk_test::no_default>{rk_test::no_default(1), rk_test::no_default(-4)});
  CHECK(no_default.associative);
  CHECK(no_default.commutative);
}

TEST_CASE("a non-associative operator gets its first counterexample, printed")
{
  const auto check = rk::check_operator<int>(minus{}, std::vector<int>{1, 2, 3});
  CHECK_FALSE(check.associative);
  CHECK_FALSE(check.commutative);
  CHECK(check.triples_checked == 1); // (1 - 1) - 1 = -1 but 1 - (1 - 1) = 1: it stops at the first failure
  const std::string text = check.to_string();
  CAPTURE(text);
  CHECK(text.find("associative: NO") != std::string::npos);
  CHECK(check.associativity_counterexample.find("samples[0] = 1") != std::string::npos);

  // Floating-point addition is not associative: rounding shows on large and small terms.
  const auto sums = rk::check_operator<float>(rk::plus{}, std::vector<float>{1e8f, 1.0f, -1e8f, 0.5f});
  CHECK_FALSE(sums.associative);
  CHECK(sums.commutative);
  // ... unless the comparison allows for it.
  const auto close = [](float a, float b) { return std::fabs(a - b) <= 16.0f; };
  CHECK(rk::check_operator<float>(rk::plus{}, std::vector<float>{1e8f, 1.0f, -1e8f, 0.5f}, close).associative);
}

TEST_CASE("large sample sets: a fixed-seed random subset, the same on every run")
{
  std::list<std::int64_t> many; // any range will do
  for (std::int64_t i = 0; i < 1000; ++i)
  {
    many.push_back(i * 7919 % 1009);
  }
  const rk::operator_check_limits limits{5000, 3000};
  const auto a = rk::check_operator<std::int64_t>(rk::plus{}, many, rk::detail::same_value{}, limits);
  CHECK(a.associative);
  CHECK_FALSE(a.every_triple);
  CHECK_FALSE(a.every_pair);
  CHECK(a.triples_checked == 5000);
  CHECK(a.pairs_checked == 3000);

  std::vector<int> mostly_equal(1000, 0);
  mostly_equal[612] = 5; // minus fails as soon as a triple or pair holds a nonzero
  const auto b1     = rk::check_operator<int>(minus{}, mostly_equal, rk::detail::same_value{}, limits);
  const auto b2     = rk::check_operator<int>(minus{}, mostly_equal, rk::detail::same_value{}, limits);
  CHECK(b1.to_string() == b2.to_string());
}

TEST_CASE("types without == or << are compared by their bytes and named by index")
{
  const std::vector<opaque> samples = {{1}, {2}, {0x80000000u}};
  CHECK(rk::check_operator<opaque>(opaque_xor{}, samples).associative);
  CHECK(rk::check_operator<opaque>(opaque_xor{}, samples).commutative);
  const auto first = rk::check_operator<opaque>(opaque_first{}, samples);
  CHECK_FALSE(first.commutative);
  CHECK(first.commutativity_counterexample
        == "op(a, b) = (not printable) but op(b, a) = (not printable) for a = "
           "samples[0], b = samples[1]");
}

TEST_CASE("an empty sample set checks nothing")
{
  const auto check = rk::check_operator<int>(minus{}, std::vector<int>{});
  CHECK(check.triples_checked == 0);
  CHECK(check.pairs_checked == 0);
  CHECK(check.associative);
}

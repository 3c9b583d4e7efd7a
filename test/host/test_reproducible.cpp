// rk::host computes the reproducible tree: the same bits for every thread count, and the golden
// values the GPU suite checks every GPU backend against (test/gpu/test_reproducible.cu).

#include "../support/spread.hpp"

#include <rk/reduce.hpp>

#include <doctest/doctest.h>

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

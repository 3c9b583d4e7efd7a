#pragma once
// Seeded floating-point inputs for the reproducibility tests: values spread over 41 binades
// (2^-20 to 2^20) with random signs, so sums cancel and their last bits depend on the grouping.
// The same function on the host and the device.

#include <rk/detail/config.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace rk_test
{
RK_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class F>
struct spread_value
{
  std::uint64_t seed = 2026;

  RK_HOST_DEVICE F operator()(std::int64_t i) const
  {
    const std::uint64_t h = splitmix64(static_cast<std::uint64_t>(i) ^ (seed << 40));
    const int exponent    = static_cast<int>(h % 41) - 20;
    const double mantissa = 1.0 + static_cast<double>((h >> 8) & 0xffffffu) / 16777216.0; // 24 bits: exact in float
    const double v        = ldexp(mantissa, exponent);
    return static_cast<F>((h >> 63) ? -v : v);
  }
};

/// x -> a*x + b over floats, composed in order: associative only up to rounding, not commutative,
/// so its bits follow the grouping. fma on both sides, so host and device compute the same function.
struct float_affine
{
  float a, b;
};

struct float_affine_compose
{
  RK_HOST_DEVICE float_affine operator()(const float_affine& f, const float_affine& g) const
  {
    return float_affine{g.a * f.a, fmaf(g.a, f.b, g.b)};
  }
};

struct to_float_affine
{
  RK_HOST_DEVICE float_affine operator()(std::int64_t i) const
  {
    const std::uint64_t h = splitmix64(static_cast<std::uint64_t>(i));
    return float_affine{0.75f + static_cast<float>(h & 0xffff) / 131072.0f,
                        static_cast<float>((h >> 16) & 0xffff) / 65536.0f - 0.5f};
  }
};

template <class T>
std::uint64_t bits_of(const T& x)
{
  static_assert(sizeof(T) <= 8);
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof(T));
  return b;
}

/// Whether a and b hold the same bytes: bit equality for any trivially copyable type.
template <class T>
bool same_bytes(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Item i of the suites' computed ranges (spread_value), on the host.
struct spread_float
{
  float operator()(std::int64_t i) const
  {
    return spread_value<float>{}(i);
  }
};
struct spread_double
{
  double operator()(std::int64_t i) const
  {
    return spread_value<double>{}(i);
  }
};

/// Bytes of a long computed range.
struct byte_of_index
{
  RK_HOST_DEVICE std::uint8_t operator()(std::int64_t i) const
  {
    return static_cast<std::uint8_t>(i * 7 + (i >> 9));
  }
};
} // namespace rk_test

#pragma once
// The perf suites' non-commutative operator: composition of affine maps x -> a*x + b (mod 2^32).
// Associative, not commutative, 8 bytes like int64, so its time compares directly with int64 plus.

#include <cstdint>
#include <type_traits>

namespace rk_perf
{
struct affine
{
  std::uint32_t a;
  std::uint32_t b;
};

/// compose(f, g) applies f, then g: g(f(x)) = g.a*f.a*x + g.a*f.b + g.b.
struct compose_affine
{
  __host__ __device__ affine operator()(const affine& f, const affine& g) const
  {
    return affine{g.a * f.a, g.a * f.b + g.b};
  }
};

inline constexpr affine identity_map{1, 0};

inline bool operator==(const affine& x, const affine& y)
{
  return x.a == y.a && x.b == y.b;
}

static_assert(std::is_trivially_copyable_v<affine> && sizeof(affine) == sizeof(std::int64_t));
} // namespace rk_perf

#pragma once
// The perf suites' non-commutative operator: composition of affine maps x -> a*x + b (mod 2^32).
// Associative, not commutative, 8 bytes like int64, so its time compares directly with int64 plus.

#include "inputs.cuh"

#include <cstdint>
#include <type_traits>

namespace rk_bench
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

/// Random maps with odd slopes: with even ones the product of slopes would reach 0 mod 2^32 after
/// about 32 maps, and only the last few maps would decide the result, hiding any reordering.
struct random_map
{
  __host__ __device__ affine operator()(std::uint64_t i) const
  {
    const std::uint64_t h = splitmix64(input_seed ^ splitmix64(i));
    return affine{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  }
};

static_assert(std::is_trivially_copyable_v<affine> && sizeof(affine) == sizeof(std::int64_t));
} // namespace rk_bench

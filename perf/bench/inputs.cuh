#pragma once
// The inputs rk's benchmarks read and how they check a result: random values from a hash of the
// index (fixed seed, so every run reads the same values), and a match against a reference. No rk
// header here: the CUB peer (cub_peer.cu) compiles it against another CCCL.

#include <thrust/execution_policy.h>
#include <thrust/tabulate.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rk_bench
{
/// splitmix64's finalizer: a cheap, well-mixed hash of an element's index.
__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The random input value at index i. Integer sums stay far from overflow (int32 in [-100, 100],
/// int64 in [-1000, 1000]); floating-point values are in [0, 1), so sums have no cancellation
/// and a relative tolerance is meaningful. Types other than the four arithmetic ones specialize it.
template <class T>
struct random_value
{
  std::uint64_t seed;

  __host__ __device__ T operator()(std::uint64_t i) const
  {
    const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
    if constexpr (std::is_same_v<T, std::int32_t>)
    {
      return static_cast<std::int32_t>(h % 201) - 100;
    }
    else if constexpr (std::is_same_v<T, std::int64_t>)
    {
      return static_cast<std::int64_t>(h % 2001) - 1000;
    }
    else if constexpr (std::is_same_v<T, float>)
    {
      return static_cast<float>(h >> 40) * 0x1p-24f;
    }
    else
    {
      static_assert(std::is_same_v<T, double>, "specialize rk_bench::random_value for this type");
      return static_cast<double>(h >> 11) * 0x1p-53;
    }
  }
};

/// The seed of a type's input: fixed, so every run reads the same values.
inline constexpr std::uint64_t input_seed = 0x726b5f70657266ull; // "rk_perf"

template <class T>
void fill_random(T* data, std::size_t n, cudaStream_t stream)
{
  thrust::tabulate(thrust::cuda::par.on(stream), data, data + n, random_value<T>{input_seed});
}

/// Whether two results have the same bits: what rk promises between its reproducible backends.
template <class T>
bool same_bits(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Whether a result matches the reference: exactly for integers (and any non-floating type, by
/// its bytes' meaning of ==), within a relative 1e-4 for float and 1e-10 for double sums (the
/// backends group the additions differently).
template <class T>
bool results_match(const T& got, const T& want)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    const double tolerance = std::is_same_v<T, float> ? 1e-4 : 1e-10;
    const double scale     = want < 0 ? -static_cast<double>(want) : static_cast<double>(want);
    const double error     = static_cast<double>(got) - static_cast<double>(want);
    return (error < 0 ? -error : error) <= tolerance * (scale > 1 ? scale : 1.0);
  }
  else
  {
    return got == want;
  }
}
} // namespace rk_bench

#pragma once
// Helpers the NCCL property files share: items as functions of the global index, device slots
// for results, and how values print in a failure.

#include "nccl_harness.cuh"

#include <rk/cuda/primitives/warp_reduce.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rk_test::nccl
{
/// Throws std::runtime_error (which ends the property on this rank) if a CUDA call of the test failed.
inline void cuda_ok(cudaError_t code, const char* what)
{
  if (code != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(code));
  }
}

/// Item i of a random-looking sequence, the same on every rank and process (seeded by the run's
/// seed, which the two-process setup hands to its second process): integers in [-100, 100], and
/// those divided by 8 for floating point (exact, so only the summation's rounding differs).
template <class E>
struct value_at
{
  std::uint64_t seed;

  RK_HOST_DEVICE E operator()(std::int64_t i) const
  {
    std::uint64_t z = static_cast<std::uint64_t>(i) + seed * 0x9E3779B97F4A7C15ull;
    z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z               = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const int small = static_cast<int>(z % 201) - 100;
    if constexpr (std::is_floating_point_v<E>)
    {
      return static_cast<E>(small) / E(8);
    }
    else
    {
      return static_cast<E>(small);
    }
  }
};

/// One T of device memory for rk::reduce_into's result (T needs no default constructor).
template <class T>
class device_slot
{
public:
  device_slot()
  {
    cuda_ok(cudaMalloc(&ptr_, sizeof(T)), "cudaMalloc");
  }
  ~device_slot()
  {
    cudaFree(ptr_);
  }
  device_slot(const device_slot&)            = delete;
  device_slot& operator=(const device_slot&) = delete;

  T* get() const
  {
    return ptr_;
  }
  /// The value, once the stream's work is done.
  T read(cudaStream_t stream) const
  {
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    rk::detail::uninitialized<T> v;
    cuda_ok(cudaMemcpy(static_cast<void*>(&v), ptr_, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v.value;
  }

private:
  T* ptr_ = nullptr;
};

template <class T>
std::string describe(const T& x)
{
  std::ostringstream s;
  if constexpr (std::is_arithmetic_v<T>)
  {
    s << +x;
  }
  else if constexpr (std::is_same_v<T, segment>)
  {
    s << "[" << x.begin << ", " << x.end << ")";
  }
  else if constexpr (std::is_same_v<T, mat2>)
  {
    s << "{" << x.a << " " << x.b << "; " << x.c << " " << x.d << "}";
  }
  else if constexpr (std::is_same_v<T, affine>)
  {
    s << "x -> " << x.a << " x + " << x.b;
  }
  else if constexpr (std::is_same_v<T, no_default>)
  {
    s << "no_default(" << x.value << ")";
  }
  else
  {
    s << "(" << sizeof(T) << "-byte value)";
  }
  return s.str();
}

/// "<what> = <got>, expected <expected>" for a failure message.
template <class T>
std::string mismatch(const std::string& what, const T& got, const T& expected)
{
  return what + " = " + describe(got) + ", expected " + describe(expected);
}

/// The context of a check: "layout unequal, 1000 items in all, this rank [250, 1000)".
inline std::string where(layout l, std::int64_t total, const shard& s)
{
  return std::string("layout ") + to_string(l) + ", " + std::to_string(total) + " items in all, this rank ["
       + std::to_string(s.begin) + ", " + std::to_string(s.end) + ")";
}
} // namespace rk_test::nccl

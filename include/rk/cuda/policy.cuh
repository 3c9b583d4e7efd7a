#pragma once
/// \file
/// The GPU execution policies. Each is a small value: the backend is in its type, the stream and
/// the tuning provider travel with it. `policy.on(stream)` and `policy.tuned<Provider>()` return
/// modified copies.
///
/// \code
/// cudaStream_t s = ...;
/// float r = rk::reduce(rk::single_pass.on(s), v.begin(), v.end(), 0.0f); // waits for s only
/// \endcode

#include <rk/cuda/tuning.cuh>
#include <rk/policy.hpp>

#include <cuda_runtime_api.h>

namespace rk
{
/// Which GPU backend a policy runs.
enum class gpu_backend
{
  automatic,  ///< rk::device: chosen per call (see rk::explain and the README's policy table)
  two_pass,   ///< block partials, then a one-block kernel over them
  atomic,     ///< block partials combined into the result with atomics (commutative ops only)
  single_pass ///< block partials, the last block to finish combines them
};

template <gpu_backend Backend, class TuningProvider = default_tuning>
struct gpu_policy : execution_policy<gpu_policy<Backend, TuningProvider>>
{
  static constexpr gpu_backend backend = Backend;
  using tuning_provider                = TuningProvider;

  /// The stream the reduction runs on; 0 is the default stream.
  cudaStream_t stream = nullptr;

  /// A copy bound to `s`. rk::reduce with it synchronizes `s` only, never the whole device.
  constexpr gpu_policy on(cudaStream_t s) const noexcept
  {
    gpu_policy copy = *this;
    copy.stream     = s;
    return copy;
  }

  /// A copy that launches with the shapes `Provider::get<Item, vectorized>()` returns
  /// (see rk::reduce_tuning).
  template <class Provider>
  constexpr gpu_policy<Backend, Provider> tuned() const noexcept
  {
    gpu_policy<Backend, Provider> copy;
    copy.stream = stream;
    return copy;
  }
};

using device_policy      = gpu_policy<gpu_backend::automatic>;
using two_pass_policy    = gpu_policy<gpu_backend::two_pass>;
using atomic_policy      = gpu_policy<gpu_backend::atomic>;
using single_pass_policy = gpu_policy<gpu_backend::single_pass>;

/// GPU, backend chosen per call from the operator, the type and the size.
inline constexpr device_policy device{};
/// GPU, two kernels. Exact for non-commutative operators; deterministic.
inline constexpr two_pass_policy two_pass{};
/// GPU, one kernel, atomics. Needs rk::is_commutative<Op>; float results may vary run to run.
inline constexpr atomic_policy atomic{};
/// GPU, one kernel, last-block guard. Exact for non-commutative operators; deterministic.
inline constexpr single_pass_policy single_pass{};

constexpr const char* to_string(gpu_backend b) noexcept
{
  switch (b)
  {
    case gpu_backend::automatic:
      return "device";
    case gpu_backend::two_pass:
      return "two_pass";
    case gpu_backend::atomic:
      return "atomic";
    case gpu_backend::single_pass:
      return "single_pass";
  }
  return "?";
}
} // namespace rk

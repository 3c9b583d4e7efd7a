#pragma once
// What rk_perf_partial uses beside the trials: the probe that moves exactly the bytes a job must
// move, and the paired ratio of two contenders' interleaved trials.

#include "cuda_check.cuh"
#include "trials.cuh"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace rk_perf
{
/// Reads `bytes` of `in` (16-byte vectors: `in` must be 16-byte aligned) and writes `out_words`
/// words to `out`: what a reduction that reads those bytes and writes those outputs must move,
/// and nothing else.
__global__ inline void probe_kernel(const void* in, std::int64_t bytes, unsigned* out, std::int64_t out_words)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  for (std::int64_t i = tid; i < bytes / 16; i += stride)
  {
    const uint4 x = static_cast<const uint4*>(in)[i];
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  for (std::int64_t s = tid; s < out_words; s += stride)
  {
    out[s] = acc;
  }
  if (out_words == 0 && acc == 0x9e3779b9u)
  {
    out[0] = acc;
  }
}

/// The probe's grid: 8 blocks of 256 threads per multiprocessor.
inline int probe_blocks()
{
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return sms * 8;
}

/// The median over trials of contender a's time over contender b's, trial by trial (their samples
/// were taken in the same trials: time_interleaved).
inline double paired(const std::vector<timing>& t, int a, int b)
{
  std::vector<double> q;
  for (std::size_t k = 0; k < t[a].samples_us.size(); ++k)
  {
    q.push_back(t[a].samples_us[k] / t[b].samples_us[k]);
  }
  return median(q);
}
} // namespace rk_perf

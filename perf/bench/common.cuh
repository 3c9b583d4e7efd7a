#pragma once
// What rk's NVBench benchmarks share: failures that end the run with exit status 1 (a wrong result
// is not a figure), the read probes that move exactly the bytes a job must move, and type names.
// Include it instead of <nvbench/nvbench.cuh>: it sets NVBench's end-of-run hook first.

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rk_bench
{
/// Results that disagreed with their reference, and states that threw (NVBench reports those as
/// skipped and carries on): a run with any ends with exit status 1, once NVBench has written its
/// output.
inline std::atomic<int> failures{0};

/// Throws std::runtime_error naming `what` with CUDA's error unless `code` is cudaSuccess.
inline void check(cudaError_t code, const char* what)
{
  if (code != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
  }
}
} // namespace rk_bench

#define NVBENCH_MAIN_FINALIZE_CUSTOM_POST() \
  [] {                                      \
    if (rk_bench::failures.load() != 0)     \
    {                                       \
      std::exit(1);                         \
    }                                       \
  }()
#include <nvbench/nvbench.cuh>

namespace rk_bench
{
/// Runs one state's body; an exception (a CUDA error, an rk::error) counts as a failure before
/// NVBench turns it into a skipped state.
template <class Body>
void counting_failures(nvbench::state& state, const char* binary, Body&& body)
{
  try
  {
    body();
  }
  catch (...)
  {
    ++failures;
    std::fprintf(stderr, "%s: state %s threw\n", binary, state.get_short_description().c_str());
    throw;
  }
}

/// Counts a result that disagreed with its reference, and says which state of `binary` and how.
inline void fail(const nvbench::state& state, const char* binary, const std::string& what)
{
  ++failures;
  std::fprintf(stderr, "%s: %s: %s\n", binary, state.get_short_description().c_str(), what.c_str());
}

/// Reads `vectors` 16-byte vectors and writes nothing: what any sum of those bytes must move. Four
/// independent loads in flight per thread over a grid-stride loop: under NVBench's cold timing
/// a one-load probe read 2^28 int32 3 % slower than CUB's sum.
__global__ void read_probe(const uint4* in, std::int64_t vectors, unsigned* sink)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t i            = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  for (; i + 3 * stride < vectors; i += 4 * stride)
  {
    const uint4 a = in[i];
    const uint4 b = in[i + stride];
    const uint4 c = in[i + 2 * stride];
    const uint4 d = in[i + 3 * stride];
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < vectors; i += stride)
  {
    const uint4 a = in[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) // never, in practice; keeps the loads
  {
    *sink = acc;
  }
}

/// Reads `vectors` 16-byte vectors of `a` and of `b` (when not null) and writes `words` 4-byte
/// words to `out`: the bytes of a job that reads one or two arrays and writes its results (keys
/// and values of reduce_by_key's runs, a segment's (index, value)).
__global__ void read_write_probe(const uint4* a, const uint4* b, std::int64_t vectors, unsigned* out,
                                 std::int64_t words)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  std::int64_t i            = tid;
  for (; i + stride < vectors; i += 2 * stride)
  {
    const uint4 x = a[i];
    const uint4 y = a[i + stride];
    acc ^= x.x ^ x.y ^ x.z ^ x.w ^ y.x ^ y.y ^ y.z ^ y.w;
    if (b != nullptr)
    {
      const uint4 u = b[i];
      const uint4 v = b[i + stride];
      acc ^= u.x ^ u.y ^ u.z ^ u.w ^ v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  for (; i < vectors; i += stride)
  {
    const uint4 x = a[i];
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
    if (b != nullptr)
    {
      const uint4 u = b[i];
      acc ^= u.x ^ u.y ^ u.z ^ u.w;
    }
  }
  for (std::int64_t w = tid; w < words; w += stride)
  {
    out[w] = acc;
  }
  if (words == 0 && acc == 0x9e3779b9u)
  {
    *out = acc; // keeps the loads
  }
}

inline constexpr int probe_threads = 256;

/// A probe's grid: as many blocks as the GPU holds at once.
template <class Kernel>
int probe_blocks(Kernel kernel)
{
  int device = 0, sms = 0, per_sm = 0;
  rk_bench::check(cudaGetDevice(&device), "cudaGetDevice");
  rk_bench::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  rk_bench::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, probe_threads, 0),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return sms * per_sm;
}

/// Times the read probe over the first `bytes` of `items` (whole 16-byte vectors; `sink` is written
/// never, in practice).
inline void time_read_probe(nvbench::state& state, const void* items, std::int64_t bytes, unsigned* sink)
{
  const int blocks = probe_blocks(read_probe);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    read_probe<<<blocks, probe_threads, 0, launch.get_stream()>>>(static_cast<const uint4*>(items), bytes / 16, sink);
  });
}

/// The value in device memory at `p`, once the work on `stream` is done.
template <class T>
T read_back(const T* p, cudaStream_t stream)
{
  T value;
  check(cudaMemcpyAsync(&value, p, sizeof(T), cudaMemcpyDeviceToHost, stream), "copying a result back");
  check(cudaStreamSynchronize(stream), "waiting for a result");
  return value;
}

template <class T>
const char* type_name()
{
  if constexpr (std::is_same_v<T, std::int32_t>)
  {
    return "int32";
  }
  else if constexpr (std::is_same_v<T, std::int64_t>)
  {
    return "int64";
  }
  else if constexpr (std::is_same_v<T, float>)
  {
    return "float";
  }
  else
  {
    return "double";
  }
}
} // namespace rk_bench

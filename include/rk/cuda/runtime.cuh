#pragma once
/// \file
/// The compiled part of rk (lib/runtime.cu): cached device facts and the per-device, per-stream
/// scratch cache. It lives in a library rather than in headers so that a program has exactly one
/// cache however many translation units (or shared libraries built against rk) call rk::reduce.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <string>

namespace rk
{
/// Frees every scratch buffer rk has cached, on every device. Call it only while no rk call is
/// in flight (for instance before cudaDeviceReset); the next call allocates again.
void release_cached_memory();

namespace detail
{
/// What the dispatch layer needs to know about a device; read once per device, then cached.
struct device_facts
{
  int ordinal;
  int multiprocessors;
  int max_threads_per_multiprocessor;
  int compute_capability; ///< major * 10 + minor
  std::string name;
};

/// The current device's facts (cudaGetDevice, then a cached lookup).
const device_facts& current_device_facts();

/// The words the GPU backends synchronize through. Each backend leaves its words at zero when
/// its kernel finishes, so the next call on the stream (or a graph replay) starts clean.
struct sync_counters
{
  unsigned single_pass_arrivals;
  unsigned atomic_arrivals;
  unsigned atomic_ready;
  unsigned atomic_departures;
};

/// One stream's scratch, held exclusively while a call enqueues its work (and, for the
/// value-returning API, until it has read the result back). Work on one stream runs in order,
/// so the buffers are free again for the next call as soon as the lock is released.
struct scratch_lease
{
  std::unique_lock<std::mutex> lock;
  sync_counters* counters; ///< device memory, zero between calls
  void* result;            ///< device memory, result_bytes
  void* partials;          ///< device memory, partial_bytes
  void* pinned_result;     ///< pinned host memory, result_bytes
};

/// Leases the scratch of (device, stream), growing it to at least the sizes asked for.
/// Growing allocates new buffers and keeps the old ones until release_cached_memory(), so a CUDA
/// graph that captured the old addresses stays valid. After the first call with a given size on
/// a stream, no call allocates.
scratch_lease lease_scratch(int device, cudaStream_t stream, std::size_t result_bytes, std::size_t partial_bytes);

/// Throws rk::host_memory_error if the GPU cannot read `p` (pageable host memory).
void check_device_accessible(const void* p, const char* what);
} // namespace detail
} // namespace rk

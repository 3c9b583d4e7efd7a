#pragma once
/// \file
/// The compiled part of rk (lib/runtime.cu): cached device facts, the scratch every GPU call
/// takes, and the pinned slots the value-returning calls read their results from. It lives in a
/// library rather than in headers so that a program has exactly one cache however many
/// translation units (or shared libraries built against rk) call rk::reduce.
///
/// Who owns scratch, so that no two grids that may run at the same time ever share it:
///  - an eager call on an ordinary stream: that stream's cached scratch (one per stream handle),
///    locked only while the call enqueues its work, so the stream orders its users;
///  - an eager call on a per-thread handle (0 and cudaStreamPerThread, which name a different
///    stream in every thread): scratch owned by the calling thread; at its exit the scratch is
///    parked behind the work the thread left on its stream and reused once that work is done;
///  - a call made while its stream is being captured: scratch owned by the graph (an allocation
///    node, a memset node and a free node captured around the call), so every graph has its own
///    and replays of different graphs never meet;
///  - the value-returning result: a pinned slot per call, so no lock spans the wait.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <string>

namespace rk
{
/// Frees every scratch buffer and pinned slot rk has cached, on every device. Call it only while
/// no rk call is in flight (for instance before cudaDeviceReset); the next call allocates again.
/// Each stream's scratch stays cached until this call (rk cannot tell when a stream is destroyed),
/// so a program that creates a stream per task calls it now and then.
/// It also frees the word through which kernels report bad input (rk::check_device_errors): a
/// CUDA graph that captured rk::segmented_reduce, or rk::reduce_into with rk::device_count, holds
/// that word, so destroy such graphs (or capture them again) before replaying them afterwards.
void release_cached_memory();

/// Throws rk::error for bad input that an earlier stream-ordered call found on the device while
/// it ran (a segment of rk::segmented_reduce that ends before it begins or begins before `first`: that segment's output
/// holds init; a count behind rk::device_count that is negative or above 2^46: that call's output
/// holds init), and clears the report. Every rk::segmented_reduce call and every rk::reduce_into
/// with rk::device_count on a GPU policy makes this check first; call it after synchronizing to
/// learn of a problem at once.
void check_device_errors();

namespace detail
{
/// Allocation (or a query such as cudaOccupancyMaxActiveClusters) is a "potentially unsafe" call
/// while another thread captures a stream in global mode: it would fail and invalidate that
/// capture. rk's such calls never touch the captured stream, so rk's thread declares itself
/// relaxed around them, as CUDA's own allocators do.
class relaxed_capture_mode
{
public:
  relaxed_capture_mode()
  {
    cudaThreadExchangeStreamCaptureMode(&previous_);
  }
  ~relaxed_capture_mode()
  {
    cudaThreadExchangeStreamCaptureMode(&previous_);
  }
  relaxed_capture_mode(const relaxed_capture_mode&)            = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
};

/// What the dispatch layer needs to know about a device; read once per device, then cached.
struct device_facts
{
  int ordinal;
  int multiprocessors;
  int max_threads_per_multiprocessor;
  int compute_capability;      ///< major * 10 + minor
  bool pageable_memory_access; ///< the GPU reads pageable host memory (HMM or ATS systems)
  std::string name;
};

/// The current device's facts (cudaGetDevice, then a cached lookup).
const device_facts& current_device_facts();

/// The largest accumulator type (T, the type of init) the GPU policies take, in bytes: the bound
/// of a pinned result slot, and inside the block body's static shared memory (64 values of T:
/// 16 KiB; a 1 KiB T would need 64 KiB, which ptxas refuses).
/// Register pressure, measured with -Xptxas -v (sm_90, default tuning, generic-iterator input, an
/// element-wise sum of unsigned words; single_pass kernel): 16-byte T 63 registers, no spills;
/// 32 bytes 80 registers, 36 bytes spilled; 64 bytes 164; 128 bytes 340; 256 bytes 255 registers
/// and ~7 KB of spill traffic (correct, but slow). Up to 16 bytes is the fast range.
inline constexpr std::size_t max_value_bytes = 256;

/// Device scratch for one call: held from lease_scratch until close(), which the call makes once
/// every launch that uses the scratch is enqueued.
class scratch_lease
{
public:
  /// Who the scratch belongs to, and so what close() does.
  enum class owner
  {
    stream_cache, ///< the stream's (or thread's) cache: close() unlocks it
    graph,        ///< the graph being captured: close() captures the free
    one_off       ///< this call alone: close() parks it until the call's work is done
  };

  /// counter_words words the call's kernels synchronize through: zero when its first kernel
  /// starts, and returned to zero by its kernels before the last of them ends (by subtracting
  /// what their blocks added, or by the last block to leave), so the next user of the scratch
  /// starts clean without a memset. This holds because no two grids that can overlap share
  /// scratch. What the words mean is the calling algorithm's business.
  unsigned* counters = nullptr;
  void* result       = nullptr; ///< result_bytes of device memory
  void* partials     = nullptr; ///< partial_bytes of device memory

  scratch_lease(owner whose, std::unique_lock<std::mutex> lock, cudaStream_t stream, int device, void* base,
                std::size_t bytes, std::size_t counter_capacity, std::size_t result_capacity);
  /// Neither copied nor moved: lease_scratch returns it as a prvalue, and the call holds it.
  scratch_lease(const scratch_lease&)            = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;
  ~scratch_lease();

  /// Ends the lease (see `owner`). Throws rk::cuda_error if a graph's free cannot be captured.
  void close();

private:
  owner owner_ = owner::stream_cache;
  std::unique_lock<std::mutex> lock_;
  cudaStream_t stream_ = nullptr;
  int device_          = 0;
  void* base_          = nullptr;
  std::size_t bytes_   = 0;
};

/// Scratch for a call on `stream` of the current device `device`, with at least the sizes asked
/// for: `counter_words` zeroed counter words, `result_bytes` and `partial_bytes` of device memory
/// (see the ownership rules at the top of this file). Eager calls allocate only when a stream's
/// (or thread's) scratch has to grow; captured calls capture their own allocation.
scratch_lease lease_scratch(int device, cudaStream_t stream, std::size_t counter_words, std::size_t result_bytes,
                            std::size_t partial_bytes);

/// Device memory and its size, which may exceed what was asked for (a parked buffer's).
struct device_buffer
{
  void* ptr         = nullptr;
  std::size_t bytes = 0;
};

/// Device memory of at least `bytes` on the current device `device` that outlives one call's
/// lease (rk::accumulator's records, rk::reduce_partial's): a parked buffer whose work is done, or
/// new memory. Not the stream-ordered allocator: on an H100 (driver 580), once records had come
/// from the default memory pool, a thread's first CUDA call after another thread exited with work
/// pending waited forever (perf/RESULTS.md, issue 27).
device_buffer take_device_buffer(int device, std::size_t bytes);

/// Gives back a buffer of take_device_buffer, with the size it came with: parked behind the work
/// enqueued so far on `stream`, and taken again (by a record or a stream's scratch) once that work
/// is done.
void park_device_buffer(int device, void* buffer, std::size_t bytes, cudaStream_t stream) noexcept;

/// Throws rk::error if `stream` is being captured: `what` cannot be captured (it waits for the
/// stream). Also reports a capture that has been invalidated.
void check_not_capturing(cudaStream_t stream, const char* what);

/// The same, for a call that cannot be captured for another reason: `why`.
void check_not_capturing(cudaStream_t stream, const char* what, const char* why);

/// max_value_bytes of pinned host memory for one value-returning call's result, back to a
/// process-wide pool when destroyed. Kernels may write it directly (it is mapped for every GPU).
class pinned_slot
{
public:
  pinned_slot() = default;
  explicit pinned_slot(void* slot) noexcept
      : slot_(slot)
  {}
  pinned_slot(pinned_slot&& other) noexcept
      : slot_(other.slot_)
  {
    other.slot_ = nullptr;
  }
  pinned_slot& operator=(pinned_slot&&) = delete;
  ~pinned_slot();

  void* get() const noexcept
  {
    return slot_;
  }

private:
  void* slot_ = nullptr;
};

pinned_slot acquire_pinned_slot();

/// A word of mapped pinned host memory per device in which kernels report bad input they find (the
/// first report stands until check_device_errors clears it); a device pointer, allocated once.
unsigned long long* device_error_word(int device);

/// `bytes` of pinned host memory that any device reads (rk::accumulator's staging buffers),
/// allocated without disturbing another thread's capture; throws rk::error naming `what`.
void* allocate_pinned(std::size_t bytes, const char* what);

/// Frees memory of allocate_pinned (cudaFreeHost, which waits for the device).
void free_pinned(void* p) noexcept;

/// True if `p` is plain pageable host memory (not device, managed, pinned or registered memory).
bool is_pageable_host_memory(const void* p);

/// Throws rk::host_memory_error if the current device `device` cannot read `p`: pageable host
/// memory on a system whose GPU does not read it, or another GPU's memory without peer access.
void check_device_accessible(const void* p, const char* what, const device_facts& device);
} // namespace detail
} // namespace rk

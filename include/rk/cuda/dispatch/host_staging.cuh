#pragma once
// Pageable host memory through the GPU for rk::accumulator: two pinned buffers, the host copying a
// chunk's next piece into one while the GPU reduces the other, which it reads in place.

#include <rk/cuda/error.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/tree.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

namespace rk::detail
{
class host_staging
{
public:
  host_staging()                               = default;
  host_staging(const host_staging&)            = delete;
  host_staging& operator=(const host_staging&) = delete;
  /// Waits for the GPU's reads of the buffers: their memory goes back to the system.
  ~host_staging()
  {
    for (buffer& b : buffers_)
    {
      if (b.read != nullptr)
      {
        (void) cudaEventSynchronize(b.read);
        (void) cudaEventDestroy(b.read);
      }
      if (b.host != nullptr)
      {
        free_pinned(b.host);
      }
    }
  }

  /// Copies the n items from `first` into the buffers a piece at a time and calls
  /// reduce(staged, m) for each piece of m items, in order, which enqueues on `stream` the work
  /// that reads it. Returns once every item is copied (the caller's memory is free again), without
  /// waiting for the GPU beyond a buffer's previous piece.
  template <class V, class Reduce>
  void stream_through(const V* first, offset_t n, cudaStream_t stream, Reduce&& reduce)
  {
    static_assert(std::is_trivially_copyable_v<V>,
                  "rk::accumulator::add stages host items to the GPU as bytes, so their type must be trivially "
                  "copyable: add them from device memory (a thrust::device_vector), or pass a trivially copyable "
                  "summary through a transform iterator");
    allocate();
    const offset_t per_buffer = std::max<offset_t>(1, accumulator_staging_bytes / sizeof(V));
    for (offset_t done = 0; done < n;)
    {
      const offset_t m = std::min(per_buffer, n - done);
      buffer& b        = buffers_[next_];
      next_ ^= 1;
      throw_on_error(cudaEventSynchronize(b.read), "rk::accumulator: waiting for a staging buffer");
      copy_in_parallel(b.host, first + done, static_cast<std::size_t>(m) * sizeof(V));
      reduce(static_cast<const V*>(b.host), m);
      throw_on_error(cudaEventRecord(b.read, stream), "rk::accumulator: marking a staging buffer's reads");
      done += m;
    }
  }

private:
  /// One host thread copies pageable memory into pinned memory at well under the bus's speed.
  static void copy_in_parallel(void* to, const void* from, std::size_t bytes)
  {
    // A thread per MiB at most: a thread's start costs tens of microseconds.
    const std::size_t threads = std::max<std::size_t>(
      1, std::min<std::size_t>({static_cast<std::size_t>(accumulator_staging_copy_threads),
                                static_cast<std::size_t>(std::thread::hardware_concurrency()), bytes >> 20}));
    const std::size_t share = ((bytes + threads - 1) / threads + 4095) / 4096 * 4096; // whole pages
    const auto copy_share   = [=](std::size_t t) {
      const std::size_t begin = t * share;
      if (begin < bytes)
      {
        std::memcpy(static_cast<unsigned char*>(to) + begin, static_cast<const unsigned char*>(from) + begin,
                      std::min(share, bytes - begin));
      }
    };
    std::vector<std::thread> helpers;
    std::size_t t = 1;
    try
    {
      helpers.reserve(threads);
      for (; t < threads; ++t)
      {
        helpers.emplace_back(copy_share, t);
      }
    }
    catch (...)
    {
      // No thread to spare: this one copies the shares that found none.
    }
    for (std::size_t rest = t; rest < threads; ++rest)
    {
      copy_share(rest);
    }
    copy_share(0);
    for (std::thread& h : helpers)
    {
      h.join();
    }
  }

  struct buffer
  {
    void* host       = nullptr;
    cudaEvent_t read = nullptr; ///< recorded after the work that reads the buffer's last piece
  };

  void allocate()
  {
    for (buffer& b : buffers_)
    {
      if (b.host == nullptr)
      {
        b.host = allocate_pinned(accumulator_staging_bytes, "pinned host memory (rk::accumulator's staging)");
      }
      if (b.read == nullptr)
      {
        throw_on_error(cudaEventCreateWithFlags(&b.read, cudaEventDisableTiming),
                       "rk::accumulator: creating a staging buffer's event");
      }
    }
  }

  std::array<buffer, 2> buffers_{};
  int next_ = 0;
};
} // namespace rk::detail

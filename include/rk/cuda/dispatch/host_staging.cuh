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
#include <type_traits>

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
  /// reduce(staged, m, done) for each piece [done, done + m), which enqueues on `stream` the work
  /// that reads it. Returns once every item is copied (the caller's memory is free again), without
  /// waiting for the GPU beyond a buffer's previous piece.
  template <class V, class Reduce>
  void stream_through(const V* first, offset_t n, cudaStream_t stream, Reduce&& reduce)
  {
    static_assert(std::is_trivially_copyable_v<V>, "staged items are copied as bytes");
    allocate();
    const offset_t per_buffer = std::max<offset_t>(1, accumulator_staging_bytes / sizeof(V));
    for (offset_t done = 0; done < n;)
    {
      const offset_t m = std::min(per_buffer, n - done);
      buffer& b        = buffers_[next_];
      next_ ^= 1;
      throw_on_error(cudaEventSynchronize(b.read), "rk::accumulator: waiting for a staging buffer");
      std::memcpy(b.host, first + done, static_cast<std::size_t>(m) * sizeof(V));
      reduce(static_cast<const V*>(b.host), m, done);
      throw_on_error(cudaEventRecord(b.read, stream), "rk::accumulator: marking a staging buffer's reads");
      done += m;
    }
  }

private:
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

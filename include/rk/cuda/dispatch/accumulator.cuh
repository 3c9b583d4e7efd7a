#pragma once
// rk::accumulator for the GPU policies: the partial of what was added so far stays in device
// memory; each chunk's partial is computed and appended to it on the policy's stream, in one launch
// (the partial's kernel appends its record when its last block finishes), so add()
// of device (or pinned, or managed) memory never waits, and result() copies one record back.
// Pageable host chunks go through pinned staging buffers (rk/cuda/dispatch/host_staging.cuh): add()
// returns once the chunk is copied.

#include <rk/accumulator.hpp>
#include <rk/cuda/dispatch/host_staging.cuh>
#include <rk/cuda/dispatch/partial_engine.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>

#include <thrust/iterator/iterator_traits.h>
#include <thrust/type_traits/is_contiguous_iterator.h>

#include <type_traits>
#include <utility>

namespace rk::detail
{
template <gpu_backend Backend, class Provider, class T, class BinaryOp>
class accumulated<gpu_policy<Backend, Provider>, T, BinaryOp>
{
public:
  accumulated(const gpu_policy<Backend, Provider>& policy, const BinaryOp& op)
      : policy_(policy)
      , op_(op)
  {
    check_partial_backend<Backend>();
  }
  accumulated(const accumulated&)            = delete;
  accumulated& operator=(const accumulated&) = delete;
  ~accumulated()
  {
    if (records_ != nullptr)
    {
      park_device_buffer(device_, records_, records_bytes_, policy_.stream);
    }
  }

  /// Appends [first, last) at `length`, the sequence's items so far, and advances it as each
  /// piece is enqueued (a pageable chunk goes in a staged piece at a time).
  template <class InputIt>
  void add(InputIt first, InputIt last, offset_t& length)
  {
    // The records live across calls, so they cannot be a graph's: before anything is enqueued.
    check_not_capturing(policy_.stream, "rk::accumulator::add",
                        "the accumulator's state lives across calls. Capture rk::reduce_partial_into and "
                        "rk::combine_into instead");
    if constexpr (is_host_contiguous<InputIt>())
    {
      // Host memory of any kind: a std::vector's or thrust::host_vector's items, or a raw pointer.
      const auto* p    = thrust::unwrap_contiguous_iterator(first);
      const offset_t n = last - first;
      if (n > 0 && is_pageable_host_memory(p))
      {
        staging_.stream_through(p, n, policy_.stream, [&](const auto* staged, offset_t m) {
          add_device(staged, staged + m, length);
          length += m;
        });
        return;
      }
      add_device(p, p + n, length); // pinned, managed or device memory: read in place
      length += n;
    }
    else
    {
      const offset_t n = last - first;
      add_device(std::move(first), std::move(last), length);
      length += n;
    }
  }

  T finish_with(T init) const
  {
    if (!started_)
    {
      return init;
    }
    check_not_capturing(policy_.stream, "rk::accumulator::result");
    partial<T> whole;
    throw_on_error(cudaMemcpyAsync(&whole, records_, sizeof(whole), cudaMemcpyDeviceToHost, policy_.stream),
                   "rk::accumulator: copying the record back");
    throw_on_error(cudaStreamSynchronize(policy_.stream), "rk::accumulator: waiting for the chunks");
    return rk::finish(whole, std::move(init), op_);
  }

private:
  /// Contiguous items outside thrust's device system, of a type that may be copied as bytes: host
  /// memory, unless the pointer says otherwise.
  template <class It>
  static constexpr bool is_host_contiguous()
  {
    if constexpr (thrust::is_contiguous_iterator_v<It>)
    {
      using pointer = decltype(thrust::unwrap_contiguous_iterator(std::declval<It>()));
      return !std::is_same_v<typename thrust::iterator_system<It>::type, thrust::device_system_tag>
          && std::is_trivially_copyable_v<std::remove_pointer_t<pointer>>;
    }
    else
    {
      return false;
    }
  }

  /// Enqueues the chunk's partial, and its combine with the partial so far, on the policy's stream.
  template <class InputIt>
  void add_device(InputIt first, InputIt last, offset_t offset)
  {
    if (records_ == nullptr)
    {
      device_                    = current_device_facts().ordinal;
      const device_buffer buffer = take_device_buffer(device_, 2 * sizeof(partial<T>));
      records_                   = static_cast<partial<T>*>(buffer.ptr);
      records_bytes_             = buffer.bytes;
      // rk::combine copies a whole record, unused nodes included: every byte is written once here
      // so that no kernel ever reads memory nobody wrote.
      throw_on_error(cudaMemsetAsync(records_, 0, 2 * sizeof(partial<T>), policy_.stream),
                     "rk::accumulator: clearing its records");
    }
    partial<T>* whole = records_;
    partial<T>* piece = records_ + 1;
    if (!started_)
    {
      enqueue_partial<T>(policy_, first, last - first, offset, whole, op_);
      started_ = true;
      return;
    }
    enqueue_partial<T>(policy_, first, last - first, offset, piece, op_, whole);
  }

  gpu_policy<Backend, Provider> policy_;
  BinaryOp op_;
  partial<T>* records_       = nullptr;
  std::size_t records_bytes_ = 0; ///< what take_device_buffer handed out (a parked buffer may be larger)
  int device_                = 0; ///< where the records are
  bool started_              = false;
  host_staging staging_; ///< pinned buffers, allocated by the first pageable chunk
};
} // namespace rk::detail

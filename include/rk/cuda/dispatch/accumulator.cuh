#pragma once
// rk::accumulator for the GPU policies: the partial of what was added so far stays in device
// memory; each chunk's partial is computed and combined into it on the policy's stream, so add()
// never waits, and result() copies one record back.

#include <rk/accumulator.hpp>
#include <rk/cuda/dispatch/partial_engine.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/policy.cuh>

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
      park_device_buffer(device_, records_, 2 * sizeof(partial<T>), policy_.stream);
    }
  }

  template <class InputIt>
  void add(InputIt first, InputIt last, offset_t offset)
  {
    refuse_capture();
    if (records_ == nullptr)
    {
      device_  = current_device_facts().ordinal;
      records_ = static_cast<partial<T>*>(take_device_buffer(device_, 2 * sizeof(partial<T>)));
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
    enqueue_partial<T>(policy_, first, last - first, offset, piece, op_);
    enqueue_combine(policy_.stream, whole, piece, whole, op_);
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
  /// The records live across calls, so they cannot be a graph's: before anything is enqueued.
  void refuse_capture() const
  {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    throw_on_error(cudaStreamIsCapturing(policy_.stream, &status), "rk::accumulator::add: cudaStreamIsCapturing");
    if (status != cudaStreamCaptureStatusNone)
    {
      throw error("rk::accumulator::add cannot be captured in a CUDA graph: the accumulator's state lives across "
                  "calls. Capture rk::reduce_partial_into and rk::combine_into instead");
    }
  }

  gpu_policy<Backend, Provider> policy_;
  BinaryOp op_;
  partial<T>* records_ = nullptr;
  int device_          = 0; ///< where the records are
  bool started_        = false;
};
} // namespace rk::detail

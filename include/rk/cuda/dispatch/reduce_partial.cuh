#pragma once
// rk::reduce_partial, rk::reduce_partial_into and rk::combine_into for the GPU policies: the call's
// checks, then the partial engine (rk/cuda/dispatch/partial_engine.cuh).

#include <rk/cuda/dispatch/partial_engine.cuh>
#include <rk/partial.hpp>

#include <cstdint>

namespace rk
{

template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
partial<T> reduce_partial_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last,
                                   detail::offset_t offset, BinaryOp op)
{
  detail::check_partial_backend<Backend>();
  detail::check_not_capturing(policy.stream, "rk::reduce_partial");
  const int device                   = detail::current_device_facts().ordinal;
  const detail::device_buffer buffer = detail::take_device_buffer(device, sizeof(partial<T>));
  auto* record                       = static_cast<partial<T>*>(buffer.ptr);
  partial<T> result;
  try
  {
    detail::enqueue_partial<T>(policy, first, last - first, offset, record, op);
    detail::throw_on_error(cudaMemcpyAsync(&result, record, sizeof(result), cudaMemcpyDeviceToHost, policy.stream),
                           "rk::reduce_partial: copying the record back");
  }
  catch (...)
  {
    detail::park_device_buffer(device, buffer.ptr, buffer.bytes, policy.stream);
    throw;
  }
  detail::park_device_buffer(device, buffer.ptr, buffer.bytes, policy.stream);
  detail::throw_on_error(cudaStreamSynchronize(policy.stream), "rk::reduce_partial: waiting for the record");
  return result;
}

/// Stream-ordered rk::reduce_partial: writes the piece's record to `out`, an rk::partial<T> in
/// device memory, and returns without waiting. Capturable in a CUDA graph. rk::combine runs on the
/// device as well, so records may be combined there (rk::combine_into) before one is copied back.
template <class T = detail::items_value_type, gpu_backend Backend, class Provider, class InputIt, class Offset,
          class BinaryOp>
void reduce_partial_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, Offset offset,
                         partial<detail::partial_value_t<T, InputIt>>* out, BinaryOp op)
{
  const std::int64_t n = detail::checked_distance(first, last);
  detail::enqueue_partial<detail::partial_value_t<T, InputIt>>(policy, first, n,
                                                               detail::checked_piece_offset(offset, n), out, op);
}

template <class T = detail::items_value_type, gpu_backend Backend, class Provider, class InputIt, class Offset>
void reduce_partial_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, Offset offset,
                         partial<detail::partial_value_t<T, InputIt>>* out)
{
  reduce_partial_into<T>(policy, first, last, offset, out, plus{});
}

/// Stream-ordered rk::combine of two records in device memory into a third (which may be either):
/// `*out = rk::combine(*a, *b, op)`. Pieces that are not adjacent give a record rk::finish rejects.
template <gpu_backend Backend, class Provider, class T, class BinaryOp>
void combine_into(const gpu_policy<Backend, Provider>& policy, const partial<T>* a, const partial<T>* b,
                  partial<T>* out, BinaryOp user_op)
{
  detail::enqueue_combine(policy.stream, a, b, out, user_op);
}
} // namespace rk

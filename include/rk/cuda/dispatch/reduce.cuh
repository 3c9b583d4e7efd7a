#pragma once
// rk::reduce and rk::reduce_into for the GPU policies: the call's checks, then the flat engine
// (rk/cuda/dispatch/flat_engine.cuh).

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/flat_engine.cuh>
#include <rk/device_count.hpp>
#include <rk/flat_reduce.hpp>

#include <cstdint>
#include <type_traits>

namespace rk
{
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
T reduce_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T init, BinaryOp user_op)
{
  const auto op        = detail::gpu_operator<Backend, InputIt, T>(user_op);
  const std::int64_t n = detail::checked_distance(first, last);
  if (n == 0)
  {
    return init;
  }
  return detail::reduce_to_host(policy, first, n, detail::with_init(init), op);
}

template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
T reduce_nonempty_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, BinaryOp user_op)
{
  const auto op        = detail::gpu_operator<Backend, InputIt, T>(user_op);
  const std::int64_t n = detail::checked_distance(first, last);
  if (n == 0)
  {
    throw error("rk: reduce_nonempty_dispatch needs a non-empty range (an empty one has no value without init)");
  }
  return detail::reduce_to_host(policy, first, n, detail::without_init<T>(), op);
}

/// Stream-ordered form: writes the result to device memory `out` (a `T*` or thrust::device_ptr<T>)
/// and returns without waiting. Same semantics as rk::reduce otherwise. Capturable in a CUDA
/// graph: a captured call allocates its scratch inside the graph.
///
/// \code
/// rk::reduce_into(rk::device.on(s), v.begin(), v.end(), d_out, 0.0f, rk::plus{});
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T, class BinaryOp>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init,
                 BinaryOp user_op)
{
  const auto op                      = detail::gpu_operator<Backend, InputIt, T>(user_op);
  const std::int64_t n               = detail::checked_distance(first, last);
  const detail::device_facts& device = detail::current_device_facts();
  T* result                          = detail::to_device_result<T>(out, device);
  if (n == 0)
  {
    detail::launch_kernel(detail::store_init_kernel<T>, 1, 1, policy.stream,
                          "rk::reduce_into: storing init for an empty range", init, result);
    return;
  }
  detail::with_kernel_input(first, &device, [&](auto input) {
    detail::enqueue_reduction<Backend, true, Provider>(input, n, detail::with_init(init), result, op, policy.stream,
                                                       device);
  });
}

template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init)
{
  reduce_into(policy, first, last, out, init, plus{});
}

/// Stream-ordered form over the `*n.count` items from `first`, a count in device memory read when
/// the reduction runs (rk::device_count): no host synchronization, capturable, and a replay reads
/// the count it holds then. rk::reduce_into's semantics and bits otherwise; rk::atomic is not
/// offered (a static_assert says so). A bad count found on the device (negative, or above 2^46)
/// stores init and is thrown by rk::check_device_errors, which this call makes first.
///
/// \code
/// rk::reduce_into(rk::device.on(s), kept.begin(), rk::device_count(d_kept), d_out, 0.0f, rk::plus{});
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class Integer, class OutputPtr, class T, class BinaryOp>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, device_count_t<Integer> n, OutputPtr out,
                 T init, BinaryOp user_op)
{
  const auto op                      = detail::gpu_operator<Backend, InputIt, T>(user_op);
  const detail::device_facts& device = detail::current_device_facts();
  T* result                          = detail::to_device_result<T>(out, device);
  if (n.count == nullptr)
  {
    throw error("rk::reduce_into: rk::device_count was given a null pointer; pass a pointer to the count in device "
                "memory");
  }
  detail::check_device_accessible(n.count, "the count (rk::device_count)", device);
  check_device_errors(); // an earlier call's bad count (or segment), reported now rather than never
  detail::with_kernel_input(first, &device, [&](auto input) {
    detail::enqueue_counted_reduction<Backend, Provider>(input, n.count, detail::with_init(init), result, op,
                                                         policy.stream, device);
  });
}

template <gpu_backend Backend, class Provider, class InputIt, class Integer, class OutputPtr, class T>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, device_count_t<Integer> n, OutputPtr out,
                 T init)
{
  reduce_into(policy, first, n, out, init, plus{});
}
} // namespace rk

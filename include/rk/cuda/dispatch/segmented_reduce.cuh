#pragma once
// rk::segmented_reduce for the GPU policies: the call's checks, then the segment engine
// (rk/cuda/dispatch/segmented_engine.cuh). Stream-ordered: enqueues and returns.

#include <rk/cuda/dispatch/backend_choice.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/segmented_reduce.hpp>

#include <cstdint>

namespace rk
{
template <gpu_backend Backend, class Provider, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, const Segments& host_segments,
                        OutputIt out, T init, BinaryOp user_op)
{
  const auto op = detail::gpu_operator<Backend, InputIt, T>(user_op);
  using Op      = detail::device_operator_t<BinaryOp>;
  if constexpr (!detail::segmented_output_fits_v<Backend, OutputIt, T>)
  {
    static_assert(detail::segmented_output_fits_v<Backend, OutputIt, T>,
                  "rk::segmented_reduce with rk::atomic combines into the output with atomics: pass contiguous device "
                  "memory whose value type is T, the type of init (a pointer, thrust::device_ptr or device_vector "
                  "iterator), or use rk::single_pass for a fancy output iterator");
  }
  else
  {
    check_device_errors(); // an earlier call's bad segment, reported now rather than never
    if (host_segments.count == 0)
    {
      return;
    }
    const detail::device_facts& device = detail::current_device_facts();
    auto input                         = detail::to_device_access(first, "the input range", &device);
    auto segments                      = detail::to_device_segments(host_segments, device);
    auto output                        = detail::to_device_output(out, device);
    constexpr gpu_backend backend      = detail::segmented_backend_v<Backend, T, Op, OutputIt>;
    if constexpr (backend == gpu_backend::atomic)
    {
      // rk::device picks atomic for integer T only, where a T* off sizeof(T) is no valid pointer:
      // it throws rather than instantiate single_pass as well for that case (rk::reduce_into, whose
      // choice is made at run time anyway, falls back instead).
      detail::check_atomic_output(output, "rk::segmented_reduce with rk::atomic");
    }
    const detail::segmented_launch<backend, Provider, decltype(input), decltype(segments), decltype(output), T, T, Op>
      launch(device);
    detail::scratch_lease scratch = detail::lease_scratch(device.ordinal, policy.stream, launch.counter_words,
                                                          sizeof(T), launch.scratch_bytes());
    launch.enqueue(input, segments, output, init, op, scratch.partials, scratch.counters, policy.stream, device);
    scratch.close();
  }
}
} // namespace rk

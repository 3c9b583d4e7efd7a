#pragma once
// rk::segmented_reduce for the GPU policies: the segment engine's checked entry
// (rk/cuda/dispatch/segmented_engine.cuh). Stream-ordered: enqueues and returns.

#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/segmented_reduce.hpp>

#include <cstdint>
#include <utility>

namespace rk
{
template <gpu_backend Backend, class Provider, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, const Segments& host_segments,
                        OutputIt out, T init, BinaryOp user_op)
{
  detail::enqueue_segmented_reduce(policy, first, host_segments, out, std::move(init), std::move(user_op));
}
} // namespace rk

#pragma once
// rk::single_pass: one kernel; blocks publish their results and the last block to arrive (an
// acq_rel counter in the stream's scratch) runs the final pass and folds in init.

#include <rk/cuda/kernels.cuh>
#include <rk/cuda/launch.cuh>

namespace rk::detail
{
template <class Provider, class Input, class T, class Op>
struct single_pass_launcher
{
  using agent = reduce_agent<Provider, Input, T>;

  static constexpr auto kernel = single_pass_kernel<agent, Input, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return agent::grid_cap(max_grid<kernel>(agent::tuning, agent::block_threads, device));
  }

  static void launch(Input first, const typename agent::plan_type& plan, const initial_value<T>& init, T* out,
                     const Op& op, cudaStream_t stream, const scratch_lease& scratch)
  {
    launch_kernel(kernel, grid_size(plan), agent::block_threads, stream, "rk::single_pass: launching the kernel", first,
                  plan, static_cast<T*>(scratch.partials), scratch.counters, init, out, op);
  }
};
} // namespace rk::detail

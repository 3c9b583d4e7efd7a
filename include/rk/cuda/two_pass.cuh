#pragma once
// rk::two_pass: one kernel writes a partial per block, a second one-block kernel reduces them in
// order and folds in init.

#include <rk/cuda/kernels.cuh>
#include <rk/cuda/launch.cuh>

namespace rk::detail
{
template <class Provider, class Input, class T, class Op>
struct two_pass_launcher
{
  using agent = reduce_agent<Provider, Input, T>;

  static constexpr auto first_kernel  = two_pass_partials_kernel<agent, Input, T, Op>;
  static constexpr auto second_kernel = two_pass_final_kernel<agent::block_threads, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return max_grid<first_kernel>(agent::tuning, agent::block_threads, device);
  }

  static void launch(Input first, offset_t n, const T& init, T* out, const Op& op, cudaStream_t stream,
                     const scratch_lease& scratch, std::int64_t grid_cap)
  {
    const range_plan plan = agent::plan(first, n, grid_cap);
    T* partials           = static_cast<T*>(scratch.partials);
    launch_kernel(first_kernel, plan.blocks, agent::block_threads, stream, "rk::two_pass: launching the partials kernel",
                  first, plan, partials, op);
    launch_kernel(second_kernel, 1, agent::block_threads, stream, "rk::two_pass: launching the final kernel",
                  partials, plan.blocks, init, out, op);
  }
};
} // namespace rk::detail

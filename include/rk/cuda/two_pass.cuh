#pragma once
// rk::two_pass: one kernel stores the blocks' results, a second one-block kernel combines them in
// order and folds in init. When one block holds the whole tree, it finishes alone.

#include <rk/cuda/kernels.cuh>
#include <rk/cuda/launch.cuh>

namespace rk::detail
{
template <class Provider, class Input, class T, class Op>
struct two_pass_launcher
{
  using agent = reduce_agent<Provider, Input, T>;

  static constexpr auto first_kernel  = two_pass_partials_kernel<agent, Input, T, Op>;
  static constexpr auto second_kernel = two_pass_final_kernel<agent, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return agent::grid_cap(max_grid<first_kernel>(agent::tuning, agent::block_threads, device));
  }

  static void launch(Input first, const typename agent::plan_type& plan, const initial_value<T>& init, T* out,
                     const Op& op, cudaStream_t stream, const scratch_lease& scratch)
  {
    T* partials = static_cast<T*>(scratch.partials);
    launch_kernel(first_kernel, grid_size(plan), agent::block_threads, stream,
                  "rk::two_pass: launching the partials kernel", first, plan, partials, init, out, op);
    if constexpr (agent::pairwise)
    {
      if (plan.split.nodes() == 1)
      {
        return;
      }
    }
    launch_kernel(second_kernel, 1, agent::block_threads, stream, "rk::two_pass: launching the final kernel", plan,
                  partials, init, out, op);
  }
};
} // namespace rk::detail

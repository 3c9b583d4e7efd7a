#pragma once
// rk::atomic: one kernel; every block combines its result into the output with an atomic.
// Needs a commutative operator and an atomic route for T (rk/cuda/atomic_combine.cuh).

#include <rk/cuda/kernels.cuh>
#include <rk/cuda/launch.cuh>

#include <cstdint>
#include <string>

namespace rk::detail
{
/// Throws rk::error unless `out` is aligned to sizeof(T), as the atomic routes need. `who` names
/// the call in the message.
template <class T>
void check_atomic_output(const T* out, const char* who)
{
  if (reinterpret_cast<std::uintptr_t>(out) % sizeof(T) != 0)
  {
    throw error(std::string(who) + ": the output must be aligned to sizeof(T) for atomic updates");
  }
}

template <class Provider, class Input, class T, class Op>
struct atomic_launcher
{
  using agent = reduce_agent<as_grid_ordered<Provider>, Input, T>;

  static constexpr auto kernel = atomic_kernel<agent, Input, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return agent::grid_cap(max_grid<kernel>(agent::tuning, agent::block_threads, device));
  }

  static void launch(Input first, const range_plan& plan, const initial_value<T>& init, T* out, const Op& op,
                     cudaStream_t stream, const scratch_lease& scratch)
  {
    check_atomic_output(out, "rk::atomic");
    launch_kernel(kernel, plan.blocks, agent::block_threads, stream, "rk::atomic: launching the kernel", first, plan,
                  scratch.counters, init, out, op);
  }
};
} // namespace rk::detail

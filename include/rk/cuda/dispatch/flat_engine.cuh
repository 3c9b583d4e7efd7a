#pragma once
// The flat reduction's engine: the backends' launchers, the launch of one reduction of n >= 1
// items (backend, plan, scratch) and its two ends, a pinned host slot (the value-returning
// rk::reduce) or device memory (rk::reduce_into, the arg reductions, rk::nccl's local step).

#include <rk/cuda/dispatch/backend_choice.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/kernels/reduce.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/runtime.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rk::detail
{
/// rk::two_pass: one kernel stores the blocks' results, a second one-block kernel combines them in
/// order and folds in init. When one block holds the whole tree, it finishes alone.
template <class Provider, class Input, class T, class Op>
struct two_pass_launcher
{
  using agent = flat_reduce_agent<Provider, Input, T>;

  static constexpr auto first_kernel  = two_pass_partials_kernel<agent, Input, T, Op>;
  static constexpr auto second_kernel = two_pass_final_kernel<agent, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return agent::grid_cap(max_grid<first_kernel>(agent::tuning, agent::block_threads, device));
  }

  static void launch(Input first, const typename agent::plan_type& plan, const initial_value<T>& init, T* out,
                     const Op& op, cudaStream_t stream, const scratch_lease& scratch, const device_facts&)
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

/// rk::single_pass: one kernel; blocks publish their results and the last block to arrive (an
/// acq_rel counter in the call's scratch) runs the final pass and folds in init. Under the tree, a
/// grid of 2 to single_pass_cluster_max_blocks blocks runs as one thread block cluster where the
/// device allows it, and block 0 finishes (single_pass_cluster_kernel): same plan, same bits.
template <class Provider, class Input, class T, class Op>
struct single_pass_launcher
{
  using agent = flat_reduce_agent<Provider, Input, T>;

  static constexpr auto kernel = single_pass_kernel<agent, Input, T, Op>;

  static std::int64_t max_blocks(const device_facts& device)
  {
    return agent::grid_cap(max_grid<kernel>(agent::tuning, agent::block_threads, device));
  }

  static void launch(Input first, const typename agent::plan_type& plan, const initial_value<T>& init, T* out,
                     const Op& op, cudaStream_t stream, const scratch_lease& scratch, const device_facts& device)
  {
    if constexpr (agent::pairwise && alignof(T) <= 16)
    {
      constexpr auto cluster_kernel = single_pass_cluster_kernel<agent, Input, T, Op>;
      const offset_t parts          = plan.split.parts;
      const std::size_t value_bytes = static_cast<std::size_t>(agent::partial_values(plan)) * sizeof(T);
      if (parts >= 2 && parts <= single_pass_cluster_max_blocks && value_bytes <= single_pass_cluster_values_bytes
          && runs_as_one_cluster<cluster_kernel>(single_pass_cluster_max_blocks, agent::block_threads,
                                                 single_pass_cluster_values_bytes, device))
      {
        launch_one_cluster(cluster_kernel, static_cast<unsigned>(parts), agent::block_threads, value_bytes, stream,
                           "rk::single_pass: launching the one-cluster kernel", first, plan, init, out, op);
        return;
      }
    }
    launch_kernel(kernel, grid_size(plan), agent::block_threads, stream, "rk::single_pass: launching the kernel", first,
                  plan, static_cast<T*>(scratch.partials), reinterpret_cast<grid_counters*>(scratch.counters), init,
                  out, op);
  }
};

/// rk::atomic: one kernel; every block combines its result into the output with an atomic. Needs
/// a commutative operator and an atomic route for T (rk/cuda/primitives/atomic_combine.cuh).
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
                     cudaStream_t stream, const scratch_lease& scratch, const device_facts&)
  {
    check_atomic_output(out, "rk::atomic");
    launch_kernel(kernel, plan.blocks, agent::block_threads, stream, "rk::atomic: launching the kernel", first, plan,
                  reinterpret_cast<grid_counters*>(scratch.counters), init, out, op);
  }
};

/// Calls `f` with the launcher the policy runs: fixed at compile time for explicit policies
/// (only that backend is instantiated), chosen by choose_backend for rk::device. rk::device
/// instantiates rk::atomic only where it can choose it: for results in device memory.
template <gpu_backend Backend, bool ResultInDevice, class Provider, class Input, class T, class Op, class F>
decltype(auto) with_launcher(std::int64_t n, bool atomic_usable, F&& f)
{
  if constexpr (Backend == gpu_backend::two_pass)
  {
    return f(two_pass_launcher<Provider, Input, T, Op>{});
  }
  else if constexpr (Backend == gpu_backend::atomic)
  {
    return f(atomic_launcher<Provider, Input, T, Op>{});
  }
  else if constexpr (Backend == gpu_backend::single_pass || !ResultInDevice || !device_may_run_atomic_v<T, Op>)
  {
    (void) n;
    (void) atomic_usable;
    return f(single_pass_launcher<Provider, Input, T, Op>{});
  }
  else
  {
    if (choose_backend<T, Op>(n, atomic_usable).backend == gpu_backend::atomic)
    {
      return f(atomic_launcher<Provider, Input, T, Op>{});
    }
    return f(single_pass_launcher<Provider, Input, T, Op>{});
  }
}

/// Enqueues the reduction of n >= 1 items on `stream`, its result going to `out`: device memory
/// (ResultInDevice), or a pinned host slot, which the final block writes directly (saves a copy
/// and its ~µs of latency on the value-returning path), except under rk::atomic, whose combining
/// atomics need device memory: its result is copied to the slot behind the kernel.
template <gpu_backend Backend, bool ResultInDevice, class Provider, class Input, class T, class Op>
void enqueue_reduction(Input input, std::int64_t n, const initial_value<T>& init, T* out, const Op& op,
                       cudaStream_t stream, const device_facts& device)
{
  const bool atomic_usable = ResultInDevice && reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0;
  with_launcher<Backend, ResultInDevice, Provider, Input, T, Op>(n, atomic_usable, [&](auto launcher) {
    using launcher_type       = decltype(launcher);
    using agent               = typename launcher_type::agent;
    const auto plan           = agent::plan(n, launcher_type::max_blocks(device));
    scratch_lease scratch     = lease_scratch(device.ordinal, stream, grid_counter_words, sizeof(T),
                                              static_cast<std::size_t>(agent::partial_values(plan)) * sizeof(T));
    constexpr bool via_device = !ResultInDevice
                             && std::is_same_v<launcher_type, atomic_launcher<Provider, Input, T, Op>>;
    launcher_type::launch(input, plan, init, via_device ? static_cast<T*>(scratch.result) : out, op, stream, scratch,
                          device);
    if constexpr (via_device)
    {
      // Enqueued before the lease ends, so no later call on the stream can overwrite the result first.
      throw_on_error(cudaMemcpyAsync(out, scratch.result, sizeof(T), cudaMemcpyDeviceToHost, stream),
                     "rk::reduce: copying the result back");
    }
    scratch.close();
  });
}

/// The most items a count in device memory may name: the counted reduction's scratch is sized for
/// a plan of this many (a few hundred kB at most; rk::device_count).
inline constexpr offset_t max_device_count = offset_t{1} << 46;

/// Enqueues the reduction of the `*count` items from `input`, read when the kernel runs, with
/// `init` into device memory `out`: one rk::single_pass kernel on the grid the host's plan would
/// take at most (its blocks make the plan from the count: counted_single_pass_kernel), with
/// scratch for the largest plan. The backend's own plan is kept, so its bits: rk::two_pass's grid
/// cap for rk::two_pass, rk::single_pass's otherwise (rk::device's integer sums, which it may give
/// to rk::atomic when it knows the count, have the same bits on the tree).
template <gpu_backend Backend, class Provider, class Input, class T, class Op, class Count>
void enqueue_counted_reduction(Input input, const Count* count, const initial_value<T>& init, T* out, const Op& op,
                               cudaStream_t stream, const device_facts& device)
{
  static_assert(Backend != gpu_backend::atomic,
                "rk::device_count needs rk::reduce's tree, whose plan the GPU can make from the count: use "
                "rk::device, rk::single_pass or rk::two_pass instead of rk::atomic");
  using grid_launcher = std::conditional_t<Backend == gpu_backend::two_pass, two_pass_launcher<Provider, Input, T, Op>,
                                           single_pass_launcher<Provider, Input, T, Op>>;
  using agent         = typename single_pass_launcher<Provider, Input, T, Op>::agent;
  const offset_t max_blocks = grid_launcher::max_blocks(device);
  const offset_t max_values = agent::max_partial_values(max_device_count, max_blocks);
  scratch_lease scratch     = lease_scratch(device.ordinal, stream, grid_counter_words, sizeof(T),
                                            static_cast<std::size_t>(max_values) * sizeof(T));
  launch_kernel(counted_single_pass_kernel<agent, Input, T, Op, Count>, static_cast<unsigned>(max_blocks),
                agent::block_threads, stream, "rk::reduce_into with rk::device_count: launching the kernel", input,
                count, max_blocks, max_device_count, static_cast<T*>(scratch.partials),
                reinterpret_cast<grid_counters*>(scratch.counters), device_error_word(device.ordinal), init, out, op);
  scratch.close();
}

/// The value-returning reduction of n >= 1 items: enqueues it with the final block writing a
/// pinned host slot, waits, and returns the value.
template <gpu_backend Backend, class Provider, class InputIt, class T, class Op>
T reduce_to_host(const gpu_policy<Backend, Provider>& policy, InputIt first, std::int64_t n,
                 const initial_value<T>& init, const Op& op)
{
  check_not_capturing(policy.stream, "rk::reduce");
  const device_facts& device = current_device_facts();
  const pinned_slot result   = acquire_pinned_slot();
  with_kernel_input(first, &device, [&](auto input) {
    enqueue_reduction<Backend, false, Provider>(input, n, init, static_cast<T*>(result.get()), op, policy.stream,
                                                device);
  });
  throw_on_error(cudaStreamSynchronize(policy.stream), "rk::reduce: waiting for the reduction");
  uninitialized<T> value;
  std::memcpy(static_cast<void*>(&value), result.get(), sizeof(T));
  return value.value;
}

/// Enqueues the in-order op-fold of [first, last), n = last - first >= 1, without an init, into
/// device memory `*value`, on policy.stream: the local step of a reduction whose parts are
/// combined elsewhere (rk::nccl). Same checks and guarantees as rk::reduce_into otherwise; the
/// result is the root of the same tree, so op(init, *value) has rk::reduce_into's bits.
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
void reduce_range_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T* value,
                       const BinaryOp& user_op)
{
  const auto op        = gpu_operator<Backend, InputIt, T>(user_op);
  const std::int64_t n = checked_distance(first, last);
  if (n == 0)
  {
    throw error("rk: reduce_range_into needs a non-empty range (an empty one has no value without init)");
  }
  const device_facts& device = current_device_facts();
  check_device_accessible(value, "the output pointer", device);
  with_kernel_input(first, &device, [&](auto input) {
    enqueue_reduction<Backend, true, Provider>(input, n, without_init<T>(), value, op, policy.stream, device);
  });
}
} // namespace rk::detail

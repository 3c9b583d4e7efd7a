#pragma once
// rk::reduce's __global__ entry points and their epilogues, and nothing else. Each runs the
// block body of its agent (rk/cuda/agent/reduce_agent.cuh) and then its backend's epilogue.
//
// Under the reproducible tree (tree_shape::pairwise_tiles, the default; body in
// rk/cuda/agent/tile_tree.cuh) every block stores its node values and the pieces of the nodes its
// boundaries cut:
//   two-pass     a second one-block kernel finishes the cut nodes and runs the final tree
//   single-pass  the last block to finish does what two-pass's second kernel does (and, with a
//                count in device memory, every block first makes the plan from it); a grid that
//                one thread block cluster holds stores into block 0's shared memory instead, and
//                block 0 finishes after the cluster's barrier
// Under the grid-ordered tree (rk/cuda/agent/grid_ordered.cuh) every block reduces its share to one value:
//   two-pass     store the block's result; a second one-block kernel reduces the results
//   single-pass  store the block's result; the last block to finish reduces all of them
//   atomic       combine the block's result into the output with an atomic (always this tree)
// `init` is folded in exactly once, on the left, by whichever block produces the final value.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/atomic_combine.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/device_errors.hpp>
#include <rk/detail/store.hpp>

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/ptx>

#include <type_traits>

namespace rk::detail
{
template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  two_pass_partials_kernel(Input first, typename Agent::plan_type plan, T* partials, initial_value<T> init, T* out,
                           Op op)
{
  if constexpr (Agent::pairwise)
  {
    const maybe<T> root = Agent::reduce_part(first, plan, blockIdx.x, Agent::outputs(plan, partials), op);
    if (plan.split.nodes() == 1 && threadIdx.x == 0)
    {
      store_every_byte<T>(out, init.combine(root.slot.value, op)); // one block held the whole tree: no second kernel
    }
  }
  else
  {
    (void) init;
    (void) out;
    const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
    if (threadIdx.x == 0)
    {
      store_every_byte(partials + blockIdx.x, total);
    }
  }
}

template <class Agent, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  two_pass_final_kernel(typename Agent::plan_type plan, T* partials, initial_value<T> init, T* out, Op op)
{
  constexpr int block_threads = Agent::block_threads;
  if constexpr (Agent::pairwise)
  {
    const T all = finish_split<block_threads, T>(plan.split, Agent::outputs(plan, partials), op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out, init.combine(all, op));
    }
  }
  else
  {
    const T total = block_reduce_items<block_threads, final_partials_per_thread, T>(partials, plan.blocks, op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out, init.combine(total, op));
    }
  }
}

/// rk::single_pass's block: the agent's body on this block's share of `plan`, which `blocks`
/// blocks run, and the last of them to arrive finishes.
template <class Agent, class Input, class T, class Op>
__device__ __forceinline__ void single_pass_block(Input first, const typename Agent::plan_type& plan, unsigned blocks,
                                                  T* partials, grid_counters* counters, const initial_value<T>& init,
                                                  T* out, Op& op)
{
  __shared__ bool is_last;
  if constexpr (Agent::pairwise)
  {
    const tile_split& split       = plan.split;
    const offset_t part           = blockIdx.x;
    const tree_outputs<T> outputs = Agent::outputs(plan, partials);
    const maybe<T> root           = Agent::reduce_part(first, plan, part, outputs, op);
    if (split.nodes() == 1)
    {
      if (threadIdx.x == 0)
      {
        store_every_byte<T>(out, init.combine(root.slot.value, op));
      }
      return;
    }
    if (!part_arrives_last(counters->arrivals, blocks))
    {
      return;
    }
    // No fence here: thread 0's acquire saw every block's release, and the barrier in
    // part_arrives_last orders thread 0 before the other threads of this block.
    const T all = finish_split<Agent::block_threads, T>(split, outputs, op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out, init.combine(all, op));
    }
  }
  else
  {
    const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
    if (plan.blocks == 1)
    {
      if (threadIdx.x == 0)
      {
        store_every_byte<T>(out, init.combine(total, op));
      }
      return;
    }
    if (threadIdx.x == 0)
    {
      store_every_byte(partials + blockIdx.x, total);
      is_last = arrive_last(counters->arrivals, blocks);
    }
    __syncthreads();
    if (!is_last)
    {
      return;
    }
    // No fence here: thread 0's acquire saw every block's release, and the barrier above orders
    // thread 0 before the other threads of this block (causality is transitive through bar.sync),
    // so every thread reads the published partials.
    const T all = block_reduce_items<Agent::block_threads, final_partials_per_thread, T>(partials, plan.blocks, op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out, init.combine(all, op));
    }
  }
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  single_pass_kernel(Input first, typename Agent::plan_type plan, T* partials, grid_counters* counters,
                     initial_value<T> init, T* out, Op op)
{
  single_pass_block<Agent>(first, plan, gridDim.x, partials, counters, init, out, op);
}

/// rk::single_pass on a grid that is one thread block cluster (sm_90 and later; the launcher picks
/// it for 2 to single_pass_cluster_max_blocks blocks): every block stores its node values and
/// pieces into block 0's shared memory through distributed shared memory, the cluster's barrier
/// (release, then acquire) publishes them, and block 0 finishes the split. The last-block protocol
/// puts a device-scope acq_rel round trip and a reload of the values from L2 on the critical path
/// of every small call; this puts one cluster barrier there. Same plan, same tree, same bits.
template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  single_pass_cluster_kernel(Input first, typename Agent::plan_type plan, initial_value<T> init, T* out, Op op)
{
  static_assert(Agent::pairwise, "the one-cluster finish is rk::reduce's tree's");
#if __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) unsigned char cluster_values_raw[]; // partial_values(plan) values of T
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  T* values                                       = reinterpret_cast<T*>(cluster_values_raw);
  // A block may write another's shared memory only once that block has started: a barrier with
  // nothing to publish (the cluster's blocks start together, so it is short).
  ::cuda::ptx::barrier_cluster_arrive(::cuda::ptx::sem_relaxed);
  ::cuda::ptx::barrier_cluster_wait();
  Agent::reduce_part(first, plan, blockIdx.x, Agent::outputs(plan, cluster.map_shared_rank(values, 0)), op);
  cluster.sync(); // arrive.release, wait.acquire: block 0 sees every block's values
  if (blockIdx.x != 0)
  {
    return; // block 0's shared memory, the only one read, lives until block 0 ends
  }
  const T all = finish_split<Agent::block_threads, T>(plan.split, Agent::outputs(plan, values), op);
  if (threadIdx.x == 0)
  {
    store_every_byte<T>(out, init.combine(all, op));
  }
#else
  (void) first;
  (void) plan;
  (void) init;
  (void) out;
  (void) op;
#endif
}

/// rk::reduce_into with rk::device_count: rk::single_pass over the count that `*count` holds when
/// the kernel runs (a kernel earlier on the stream may have written it), so nothing waits on the
/// host and a graph replay reads the count anew. Every block reads it and makes the plan the host
/// would have made for it on `max_blocks` blocks (the same plan, so the same bits); blocks past the
/// plan's grid leave at once. An empty range stores init (op never called). A count that is
/// negative, or above `max_items` (what the scratch was sized for), is reported in `error_word`
/// (rk::check_device_errors throws it; the next such call does too) and stores init: a trap would
/// end every later call in the process.
template <class Agent, class Input, class T, class Op, class Count>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  counted_single_pass_kernel(Input first, const Count* count, offset_t max_blocks, offset_t max_items, T* partials,
                             grid_counters* counters, unsigned long long* error_word, initial_value<T> init, T* out,
                             Op op)
{
  const Count c = *count;
  bool outside  = static_cast<unsigned long long>(c) > static_cast<unsigned long long>(max_items);
  if constexpr (std::is_signed_v<Count>)
  {
    outside = c < Count{0} || outside;
  }
  if (outside || c == Count{0})
  {
    if (blockIdx.x == 0 && threadIdx.x == 0)
    {
      if (outside)
      {
        atomicCAS(error_word, 0ull, encode_count_report(c));
      }
      store_every_byte<T>(out, init.value.value);
    }
    return;
  }
  const offset_t n                     = static_cast<offset_t>(c);
  const typename Agent::plan_type plan = Agent::plan(n, max_blocks);
  const unsigned blocks                = static_cast<unsigned>(grid_size(plan));
  if (blockIdx.x >= blocks)
  {
    return;
  }
  single_pass_block<Agent>(first, plan, blocks, partials, counters, init, out, op);
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads)
  atomic_kernel(Input first, range_plan plan, grid_counters* counters, initial_value<T> init, T* out, Op op)
{
  static_assert(!Agent::pairwise, "rk::atomic runs the grid-ordered tree");
  const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (plan.blocks == 1)
  {
    store_every_byte<T>(out, init.combine(total, op));
    return;
  }
  // No identity is assumed, so the output cannot be pre-filled: the first block to arrive stores
  // op(init, its result) and raises `ready`; the others wait for that, then combine atomically.
  // The first arrival is running (it took its ticket after finishing its range) and waits on
  // nothing, so the wait always ends. The last block to depart takes back what the grid added to
  // each word, so the words are zero again for the next user of this scratch (no two grids that
  // can overlap share it: rk/cuda/runtime.cuh).
  using counter = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;
  counter arrivals(counters->arrivals);
  counter ready(counters->ready);
  counter departures(counters->departures);
  if (arrivals.fetch_add(1u, ::cuda::std::memory_order_relaxed) == 0)
  {
    store_every_byte<T>(out, init.combine(total, op));
    ready.fetch_add(1u, ::cuda::std::memory_order_release);
  }
  else
  {
    while (ready.load(::cuda::std::memory_order_acquire) == 0)
    {
      __nanosleep(32);
    }
    atomic_combine(out, total, op);
  }
  if (departures.fetch_add(1u, ::cuda::std::memory_order_acq_rel) == gridDim.x - 1)
  {
    arrivals.fetch_sub(gridDim.x, ::cuda::std::memory_order_relaxed);
    ready.fetch_sub(1u, ::cuda::std::memory_order_relaxed);
    departures.fetch_sub(gridDim.x, ::cuda::std::memory_order_relaxed);
  }
}

/// Empty input: the result is `init`, and `op` is never called.
template <class T>
__global__ void store_init_kernel(T init, T* out)
{
  store_every_byte(out, init);
}
} // namespace rk::detail

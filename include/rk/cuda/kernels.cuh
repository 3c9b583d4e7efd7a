#pragma once
// The __global__ entry points, and nothing else. Each runs the shared block body
// (block_reduce_range) and then its backend's epilogue:
//   two-pass     store the block's result; a second one-block kernel reduces the results
//   single-pass  store the block's result; the last block to finish reduces all of them
//   atomic       combine the block's result into the output with an atomic
// `init` is folded in exactly once, on the left, by whichever block produces the final value.

#include <rk/cuda/atomic_combine.cuh>
#include <rk/cuda/block_reduce.cuh>
#include <rk/cuda/input.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tuning.cuh>

#include <cuda/atomic>

#include <type_traits>

namespace rk::detail
{
/// Everything a kernel needs to know about how it reads `Input` (a raw pointer or an iterator)
/// and how big its blocks are. `Provider` is the policy's tuning provider.
template <class Provider, class Input, class T>
struct reduce_agent
{
  using item = std::remove_cv_t<iterator_item_t<Input>>;
  static constexpr bool vectorized = std::is_pointer_v<Input> && is_vector_item_v<item>;
  static constexpr reduce_tuning tuning = Provider::template get<item, vectorized>();
  static constexpr int block_threads    = tuning.block_threads;
  static constexpr int in_flight        = tuning.chunks_in_flight;
  static_assert(block_threads >= warp_threads && block_threads <= 1024 && block_threads % warp_threads == 0
                  && warp_threads % (block_threads / warp_threads) == 0,
                "rk tuning: block_threads must be 32 times a power of two (32, 64, ..., 1024)");
  static_assert(tuning.lane_units >= 1, "rk tuning: lane_units must be at least 1");
  static_assert(tuning.chunks_in_flight >= 1, "rk tuning: chunks_in_flight must be at least 1");
  static_assert(tuning.min_chunks_per_warp >= 1, "rk tuning: min_chunks_per_warp must be at least 1");
  static_assert(tuning.waves >= 1, "rk tuning: waves must be at least 1");

  using chunks_type = std::conditional_t<vectorized, vector_chunks<item, T, tuning.lane_units>,
                                         iterator_chunks<Input, T, tuning.lane_units>>;
  static constexpr int chunk_items = chunks_type::chunk_items;

  static range_plan plan(Input first, offset_t n, offset_t max_blocks)
  {
    const offset_t head = unaligned_head<vectorized>(first, n);
    const offset_t min_items =
      static_cast<offset_t>(chunk_items) * tuning.min_chunks_per_warp * (block_threads / warp_threads);
    return make_range_plan(n, head, chunk_items, max_blocks, min_items);
  }

  template <class Op>
  __device__ static T reduce_block(Input first, const range_plan& p, int block, Op& op)
  {
    const chunks_type chunks{first + p.head};
    return block_reduce_range<block_threads, in_flight, T>(first, chunks, p, block, op);
  }
};

/// Partials per thread the final reduction loads at once (a grid of up to 8 * block_threads
/// blocks is reduced in one memory round trip; larger grids still work, more slowly).
inline constexpr int partials_per_thread = 8;

template <class T>
__device__ __forceinline__ void store(T* where, const T& value)
{
  ::new (static_cast<void*>(where)) T(value);
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads)
  two_pass_partials_kernel(Input first, range_plan plan, T* partials, Op op)
{
  const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
  if (threadIdx.x == 0)
  {
    store(partials + blockIdx.x, total);
  }
}

template <int BlockThreads, class T, class Op>
__global__ void __launch_bounds__(BlockThreads) two_pass_final_kernel(const T* partials, int count, T init, T* out, Op op)
{
  const T total = block_reduce_items<BlockThreads, partials_per_thread, T>(partials, count, op);
  if (threadIdx.x == 0)
  {
    store<T>(out, op(init, total));
  }
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads)
  single_pass_kernel(Input first, range_plan plan, T* partials, sync_counters* counters, T init, T* out, Op op)
{
  const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
  if (plan.blocks == 1)
  {
    if (threadIdx.x == 0)
    {
      store<T>(out, op(init, total));
    }
    return;
  }

  __shared__ bool is_last;
  if (threadIdx.x == 0)
  {
    store(partials + blockIdx.x, total);
    // Release publishes this block's partial; acquire lets the last block see everyone's.
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> arrivals(counters->single_pass_arrivals);
    const unsigned before = arrivals.fetch_add(1u, ::cuda::std::memory_order_acq_rel);
    is_last               = before == gridDim.x - 1;
    if (is_last)
    {
      // Every block has arrived: take back what this grid added. The word is zero between
      // calls because no two grids that can overlap share scratch (rk/cuda/runtime.cuh).
      arrivals.fetch_sub(gridDim.x, ::cuda::std::memory_order_relaxed);
    }
  }
  __syncthreads();
  if (!is_last)
  {
    return;
  }
  // No fence here: thread 0's acquire saw every block's release, and the barrier above orders
  // thread 0 before the other threads of this block (causality is transitive through bar.sync),
  // so every thread reads the published partials.
  const T all = block_reduce_items<Agent::block_threads, partials_per_thread, T>(partials, plan.blocks, op);
  if (threadIdx.x == 0)
  {
    store<T>(out, op(init, all));
  }
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads)
  atomic_kernel(Input first, range_plan plan, sync_counters* counters, T init, T* out, Op op)
{
  const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (plan.blocks == 1)
  {
    store<T>(out, op(init, total));
    return;
  }
  // No identity is assumed, so the output cannot be pre-filled: the first block to arrive stores
  // op(init, its result) and raises `ready`; the others wait for that, then combine atomically.
  // The first arrival is running (it took its ticket after finishing its range) and waits on
  // nothing, so the wait always ends. The last block to depart takes back what the grid added to
  // each word, so the words are zero again for the next user of this scratch (no two grids that
  // can overlap share it: rk/cuda/runtime.cuh).
  using counter = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;
  counter arrivals(counters->atomic_arrivals);
  counter ready(counters->atomic_ready);
  counter departures(counters->atomic_departures);
  if (arrivals.fetch_add(1u, ::cuda::std::memory_order_relaxed) == 0)
  {
    store<T>(out, op(init, total));
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
  store(out, init);
}
} // namespace rk::detail

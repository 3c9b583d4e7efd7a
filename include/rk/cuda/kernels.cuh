#pragma once
// The __global__ entry points, and nothing else. Each runs a shared block body and then its
// backend's epilogue.
//
// Under the reproducible tree (tree_shape::pairwise_tiles, the default; body in
// rk/cuda/tile_tree.cuh) every block stores its node values and the pieces of the nodes its
// boundaries cut:
//   two-pass     a second one-block kernel finishes the cut nodes and runs the final tree
//   single-pass  the last block to finish does what two-pass's second kernel does
// Under the grid-ordered tree (rk/cuda/block_reduce.cuh) every block reduces its share to one value:
//   two-pass     store the block's result; a second one-block kernel reduces the results
//   single-pass  store the block's result; the last block to finish reduces all of them
//   atomic       combine the block's result into the output with an atomic (always this tree)
// `init` is folded in exactly once, on the left, by whichever block produces the final value.

#include <rk/cuda/atomic_combine.cuh>
#include <rk/cuda/block_reduce.cuh>
#include <rk/cuda/input.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tile_tree.cuh>
#include <rk/cuda/tuning.cuh>

#include <cuda/atomic>

#include <cstring>
#include <type_traits>

namespace rk::detail
{
/// The left operand folded into the result once: the call's `init`, or none (the local step of
/// a multi-GPU reduction, whose ranks' results are combined later).
template <class T>
struct initial_value
{
  uninitialized<T> value;
  bool present;

  template <class Op>
  __device__ T combine(const T& total, Op& op) const
  {
    return present ? op(value.value, total) : total;
  }
};

template <class T>
initial_value<T> with_init(const T& init)
{
  initial_value<T> i{};
  std::memcpy(static_cast<void*>(&i.value), &init, sizeof(T));
  i.present = true;
  return i;
}

template <class T>
initial_value<T> without_init()
{
  return initial_value<T>{};
}

/// A tuning provider's shapes with the tree `Shape`, whatever the provider chose.
template <class Provider, tree_shape Shape>
struct with_tree_shape
{
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    reduce_tuning t = Provider::template get<Item, vectorized>();
    t.tree          = Shape;
    return t;
  }
};

/// rk::atomic combines block results in arrival order, so a fixed tree would buy it nothing.
template <class Provider>
using as_grid_ordered = with_tree_shape<Provider, tree_shape::grid_ordered>;

/// Everything a kernel needs to know about how it reads `Input` (a raw pointer, 16-byte aligned on
/// the vectorized path, or an iterator) and how big its blocks are. `Provider` is the policy's
/// tuning provider.
template <class Provider, class Input, class T>
struct reduce_agent
{
  using item                            = tree_item_t<Input>; // the item read from memory (its size fixes the tiles)
  static constexpr bool vectorized      = vector_source<Input>::vectorizable;
  static constexpr reduce_tuning tuning = Provider::template get<item, vectorized>();
  static constexpr bool pairwise        = tuning.tree == tree_shape::pairwise_tiles;
  static constexpr int block_threads    = tuning.block_threads;
  static constexpr int in_flight        = tuning.chunks_in_flight;
  /// Blocks per multiprocessor the kernels are compiled for (a register budget). Under the
  /// reproducible tree and a T of at most 8 bytes: 1024 threads' worth, 64 registers, which the
  /// body fits without spills. Left to itself ptxas gave it 72-95 registers (three 256-thread
  /// blocks per SM where four fit); at 48 registers (five blocks) it spilled, and ran slower.
  static constexpr int min_blocks_per_sm = pairwise && sizeof(T) <= 8 && block_threads < 1024 ? 1024 / block_threads
                                                                                              : 1;
  static_assert(block_threads >= warp_threads && block_threads <= 1024 && block_threads % warp_threads == 0
                  && warp_threads % (block_threads / warp_threads) == 0,
                "rk tuning: block_threads must be 32 times a power of two (32, 64, ..., 1024)");
  static_assert(tuning.lane_units >= 1, "rk tuning: lane_units must be at least 1");
  static_assert(tuning.chunks_in_flight >= 1, "rk tuning: chunks_in_flight must be at least 1");
  static_assert(tuning.min_chunks_per_warp >= 1, "rk tuning: min_chunks_per_warp must be at least 1");
  static_assert(tuning.waves >= 1, "rk tuning: waves must be at least 1");
  static_assert(tuning.max_blocks >= 0, "rk tuning: max_blocks must be 0 (no cap) or positive");
  static_assert(!pairwise || block_threads / warp_threads * tuning.chunks_in_flight <= 4 * warp_threads,
                "rk tuning: block_threads / 32 * chunks_in_flight must be at most 128 (tiles a block holds at once)");

  /// A tile of the reproducible tree: each lane reads 32 bytes (two 16-byte vectors, or
  /// tile_lane_items elements through the iterator).
  static constexpr int lane_items = tile_lane_items<item>;
  using transform                 = typename vector_source<Input>::transform;
  using tile_chunks = std::conditional_t<vectorized, vector_chunks<item, T, tile_lane_bytes / vector_bytes, transform>,
                                         iterator_chunks<Input, T, lane_items>>;
  using grid_chunks = std::conditional_t<vectorized, vector_chunks<item, T, tuning.lane_units, transform>,
                                         iterator_chunks<Input, T, tuning.lane_units>>;
  using chunks_type = std::conditional_t<pairwise, tile_chunks, grid_chunks>;
  static_assert(!pairwise || chunks_type::chunk_items == tile_items<item>, "a chunk is one tile of the tree");
  static constexpr int chunk_items = chunks_type::chunk_items;
  using plan_type                  = std::conditional_t<pairwise, tree_plan, range_plan>;

  /// The grid cap: the device's (waves of resident blocks), the tuning's, and the tree's.
  static offset_t grid_cap(offset_t device_blocks)
  {
    offset_t cap = device_blocks;
    if (tuning.max_blocks > 0 && tuning.max_blocks < cap)
    {
      cap = tuning.max_blocks;
    }
    if constexpr (pairwise)
    {
      cap = cap < max_tree_parts ? cap : max_tree_parts;
    }
    return cap;
  }

  static plan_type plan(offset_t n, offset_t max_blocks)
  {
    const offset_t min_chunks = offset_t{tuning.min_chunks_per_warp} * (block_threads / warp_threads);
    if constexpr (pairwise)
    {
      const offset_t tiles = tile_count(n, tile_items<item>);
      offset_t blocks      = (tiles + min_chunks - 1) / min_chunks;
      blocks               = blocks < max_blocks ? blocks : max_blocks;
      return tree_plan{n, make_tile_split(tiles, blocks)};
    }
    else
    {
      return make_range_plan(n, chunk_items, max_blocks, static_cast<offset_t>(chunk_items) * min_chunks);
    }
  }

  /// Scratch a plan's blocks write: node values and pieces, or one partial per block (rk::atomic,
  /// which writes none, leases them all the same: a block's worth of values).
  static offset_t partial_values(const plan_type& p)
  {
    if constexpr (pairwise)
    {
      return p.split.nodes() + piece_slots(p.split.parts);
    }
    else
    {
      return p.blocks;
    }
  }

  __host__ __device__ static tree_outputs<T> outputs(const tree_plan& p, T* partials)
  {
    return {partials, partials + p.split.nodes()};
  }

  __host__ __device__ static chunks_type chunks_of(const Input& first)
  {
    if constexpr (vectorized)
    {
      return chunks_type{vector_source<Input>::items(first), vector_source<Input>::transform_of(first)};
    }
    else
    {
      return chunks_type{first};
    }
  }

  template <class Op>
  __device__ static maybe<T> reduce_part(Input first, const tree_plan& p, offset_t part, const tree_outputs<T>& out,
                                         Op& op)
  {
    const chunks_type chunks = chunks_of(first);
    return tree_reduce_part<block_threads, in_flight, lane_items, T>(first, chunks, p, part, out, op);
  }

  template <class Op>
  __device__ static T reduce_block(Input first, const range_plan& p, int block, Op& op)
  {
    const chunks_type chunks = chunks_of(first);
    return block_reduce_range<block_threads, in_flight, T>(first, chunks, p, block, op);
  }
};

/// Partials per thread the grid-ordered final reduction loads at once (a grid of up to
/// 8 * block_threads blocks is reduced in one memory round trip; larger grids still work, more
/// slowly).
inline constexpr int partials_per_thread = 8;

/// Writes a value to device memory, padding included (zeros): a caller who copies the object back
/// copies every byte, and compute-sanitizer's initcheck would report the padding of a
/// {float, int64} rk::arg_result as uninitialized otherwise. One value per block or call.
template <class T>
__device__ __forceinline__ void store(T* where, const T& value)
{
  __builtin_memset(static_cast<void*>(where), 0, sizeof(T));
  ::new (static_cast<void*>(where)) T(value);
}

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
      store<T>(out, init.combine(root.slot.value, op)); // one block held the whole tree: no second kernel
    }
  }
  else
  {
    (void) init;
    (void) out;
    const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
    if (threadIdx.x == 0)
    {
      store(partials + blockIdx.x, total);
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
      store<T>(out, init.combine(all, op));
    }
  }
  else
  {
    const T total = block_reduce_items<block_threads, partials_per_thread, T>(partials, plan.blocks, op);
    if (threadIdx.x == 0)
    {
      store<T>(out, init.combine(total, op));
    }
  }
}

/// Thread 0: arrives at `word`, which `blocks` blocks arrive at; true for the last of them.
/// Release publishes this block's results; acquire lets the last block see everyone's.
__device__ inline bool arrive_last(unsigned& word, unsigned blocks)
{
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> arrivals(word);
  const unsigned before = arrivals.fetch_add(1u, ::cuda::std::memory_order_acq_rel);
  const bool last       = before == blocks - 1;
  if (last)
  {
    // Every block has arrived: take back what they added. The word is zero between calls
    // because no two grids that can overlap share scratch (rk/cuda/runtime.cuh).
    arrivals.fetch_sub(blocks, ::cuda::std::memory_order_relaxed);
  }
  return last;
}

/// The grid's arrival: the last block to finish runs the final pass.
__device__ inline bool arrive_last(sync_counters* counters)
{
  return arrive_last(counters->single_pass_arrivals, gridDim.x);
}

/// Every thread of a block, after tree_reduce_part has stored the block's node values and pieces:
/// thread 0 publishes them by arriving at `word`, which `blocks` blocks arrive at; returns, in
/// every thread, whether this block arrived last (and so finishes the split). Warp 0 alone stores
/// nodes and pieces (rk/cuda/tile_tree.cuh), so a warp barrier orders its stores before thread 0's
/// release (causality is transitive through bar.warp.sync); the other warps wait only for the
/// answer. A block barrier there cost ~50 ns on the critical path of every mid-size call (H100,
/// float 2^20, globaltimer stamps).
__device__ inline bool part_arrives_last(unsigned& word, unsigned blocks)
{
  __shared__ bool is_last;
  if (threadIdx.x < warp_threads)
  {
    __syncwarp();
    if (threadIdx.x == 0)
    {
      is_last = arrive_last(word, blocks);
    }
  }
  __syncthreads();
  return is_last;
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks_per_sm)
  single_pass_kernel(Input first, typename Agent::plan_type plan, T* partials, sync_counters* counters,
                     initial_value<T> init, T* out, Op op)
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
        store<T>(out, init.combine(root.slot.value, op));
      }
      return;
    }
    if (!part_arrives_last(counters->single_pass_arrivals, gridDim.x))
    {
      return;
    }
    // No fence here: thread 0's acquire saw every block's release, and the barrier in
    // part_arrives_last orders thread 0 before the other threads of this block.
    const T all = finish_split<Agent::block_threads, T>(split, outputs, op);
    if (threadIdx.x == 0)
    {
      store<T>(out, init.combine(all, op));
    }
  }
  else
  {
    const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
    if (plan.blocks == 1)
    {
      if (threadIdx.x == 0)
      {
        store<T>(out, init.combine(total, op));
      }
      return;
    }
    if (threadIdx.x == 0)
    {
      store(partials + blockIdx.x, total);
      is_last = arrive_last(counters);
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
      store<T>(out, init.combine(all, op));
    }
  }
}

template <class Agent, class Input, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads)
  atomic_kernel(Input first, range_plan plan, sync_counters* counters, initial_value<T> init, T* out, Op op)
{
  static_assert(!Agent::pairwise, "rk::atomic runs the grid-ordered tree");
  const T total = Agent::reduce_block(first, plan, static_cast<int>(blockIdx.x), op);
  if (threadIdx.x != 0)
  {
    return;
  }
  if (plan.blocks == 1)
  {
    store<T>(out, init.combine(total, op));
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
    store<T>(out, init.combine(total, op));
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

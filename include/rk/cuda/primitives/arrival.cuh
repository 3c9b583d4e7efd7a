#pragma once
// How the blocks of a grid learn that they are the last to finish (rk::single_pass's final pass,
// the last block of a long segment, the list's departures), through words of the call's scratch
// counters (rk/cuda/runtime.cuh). Every protocol returns its words to zero before its grid ends,
// so the next user of the scratch starts clean without a memset.

#include <rk/cuda/primitives/warp_reduce.cuh>

#include <cuda/atomic>

namespace rk::detail
{
/// The words rk::reduce's kernels synchronize through, at the start of the lease's counters:
/// rk::single_pass's arrivals, and rk::atomic's arrivals, first-store flag and departures.
struct grid_counters
{
  unsigned arrivals;
  unsigned ready;
  unsigned departures;
};

/// Counter words a call of rk::reduce asks its scratch for.
inline constexpr std::size_t grid_counter_words = sizeof(grid_counters) / sizeof(unsigned);

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

/// Every thread of a block, after tree_reduce_part has stored the block's node values and pieces:
/// thread 0 publishes them by arriving at `word`, which `blocks` blocks arrive at; returns, in
/// every thread, whether this block arrived last (and so finishes the split). Warp 0 alone stores
/// nodes and pieces (rk/cuda/agent/tile_tree.cuh), so a warp barrier orders its stores before thread 0's
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
} // namespace rk::detail

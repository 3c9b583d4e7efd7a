#pragma once
// The one block body all three backends share: a block reduces its contiguous share of the input
// to one value, in order. The backends differ only in what they do with that value (their
// epilogues, in rk/cuda/kernels.cuh).
//
// How the input is cut. The range is [head | body of full chunks | tail]. The head holds the items
// before the first 16-byte boundary (vectorized inputs only); the body is `chunks` full warp
// chunks; the tail is what is left. Block b owns a contiguous run of chunks (the first `r` blocks
// one more than the rest); inside a block, warp w owns a contiguous run of that block's chunks.
// Block 0's warp 0 takes the head before its chunks, and the last block's last non-empty warp
// takes the tail after its chunks, so every warp's items are contiguous and the warps of a block,
// and the blocks of the grid, are in input order. Partial chunks are never padded: a lane with no
// item simply does not take part in the combine.

#include <rk/cuda/input.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/cuda/warp_reduce.cuh>

namespace rk::detail
{
/// Where the input's pieces are; computed on the host (make_range_plan), read by every block.
struct range_plan
{
  offset_t size;   ///< items in the range
  offset_t head;   ///< items before the body
  offset_t chunks; ///< full warp chunks in the body
  int blocks;      ///< grid size
};

inline range_plan make_range_plan(offset_t size, offset_t head, int chunk_items, offset_t max_blocks,
                                  offset_t min_items_per_block)
{
  const offset_t chunks = (size - head) / chunk_items;
  offset_t blocks       = (size - head + min_items_per_block - 1) / min_items_per_block;
  blocks                = blocks < max_blocks ? blocks : max_blocks;
  blocks                = blocks < chunks ? blocks : chunks; // every block owns at least one chunk
  return range_plan{size, head, chunks, static_cast<int>(blocks < 1 ? 1 : blocks)};
}

/// Reduces items [begin, begin + count) of `first` with one warp, count >= 1, any alignment
/// (the head and the tail of a range). Lane l takes a contiguous slice; lanes past the end take
/// none. When a slice fits in `MaxPerLane` items (always, for heads and tails) its loads are all
/// issued before the first is used. Result valid in lane 0.
template <int MaxPerLane, class T, class It, class Op>
__device__ T warp_reduce_items(It first, offset_t begin, offset_t count, Op& op, int lane)
{
  const offset_t per_lane = (count + warp_threads - 1) / warp_threads;
  const offset_t my_begin = lane * per_lane;
  offset_t my_end         = my_begin + per_lane;
  my_end                  = my_end < count ? my_end : count;
  const offset_t mine     = my_end > my_begin ? my_end - my_begin : 0;
  const It slice          = first + (begin + (mine > 0 ? my_begin : 0));
  uninitialized<T> total;
  if (per_lane <= MaxPerLane)
  {
    uninitialized<T> items[MaxPerLane];
#pragma unroll
    for (int j = 0; j < MaxPerLane; ++j)
    {
      if (j < mine)
      {
        items[j].emplace(static_cast<T>(slice[j]));
      }
    }
    if (mine > 0)
    {
      T acc = items[0].value;
#pragma unroll
      for (int j = 1; j < MaxPerLane; ++j)
      {
        if (j < mine)
        {
          acc = op(acc, items[j].value);
        }
      }
      total.emplace(acc);
    }
  }
  else if (mine > 0)
  {
    T acc(slice[0]);
    for (offset_t i = 1; i < mine; ++i)
    {
      acc = op(acc, static_cast<T>(slice[i]));
    }
    total.emplace(acc);
  }
  const int valid_lanes = static_cast<int>((count + per_lane - 1) / per_lane);
  return warp_reduce(total.value, op, lane, valid_lanes);
}

/// Folds chunks [chunk, end) into lane 0's accumulator. A warp issues the loads of `InFlight`
/// chunks before it uses the first, the last, partial group included: every group costs one
/// memory latency, which is what decides mid-size times.
template <int InFlight, class Chunks, class T, class Op>
__device__ __forceinline__ void warp_reduce_chunks(const Chunks& in, offset_t chunk, offset_t end, maybe<T>& acc,
                                                   Op& op, int lane)
{
  for (; chunk < end; chunk += InFlight)
  {
    const offset_t left = end - chunk;
    typename Chunks::fragment f[InFlight];
#pragma unroll
    for (int u = 0; u < InFlight; ++u)
    {
      if (u < left)
      {
        in.load(chunk + u, lane, f[u], op);
      }
    }
#pragma unroll
    for (int u = 0; u < InFlight; ++u)
    {
      if (u < left)
      {
        const T total = warp_reduce(in.reduce(f[u], op), op, lane);
        if (lane == 0)
        {
          acc.fold(total, op);
        }
      }
    }
  }
}

/// The shared block body. Reduces block `block`'s share of the range described by `plan`; the
/// result is valid in thread 0. Every block of a plan owns at least one item.
///
/// `first` reads items one by one (head, tail); `chunks` reads the body.
template <int BlockThreads, int InFlight, class T, class It, class Chunks, class Op>
__device__ T block_reduce_range(It first, const Chunks& chunks, const range_plan& plan, int block, Op& op)
{
  constexpr int warps = BlockThreads / warp_threads;
  static_assert(BlockThreads % warp_threads == 0 && warps <= warp_threads, "block_threads must be 32..1024, 32k");
  const int lane = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp = static_cast<int>(threadIdx.x) / warp_threads;

  // This block's chunks, then this warp's.
  const offset_t per_block   = plan.chunks / plan.blocks;
  const offset_t extra_block = plan.chunks % plan.blocks;
  const offset_t block_first = block * per_block + (block < extra_block ? block : extra_block);
  const offset_t block_count = per_block + (block < extra_block ? 1 : 0);
  const offset_t per_warp    = block_count / warps;
  const offset_t extra_warp  = block_count % warps;
  const offset_t warp_first  = block_first + warp * per_warp + (warp < extra_warp ? warp : extra_warp);
  const offset_t warp_count  = per_warp + (warp < extra_warp ? 1 : 0);
  const int busy_warps       = block_count < warps ? static_cast<int>(block_count) : warps;
  const int tail_warp        = busy_warps > 0 ? busy_warps - 1 : 0;

  maybe<T> acc;
  if (block == 0 && warp == 0 && plan.head > 0)
  {
    const T head = warp_reduce_items<Chunks::lane_items, T>(first, 0, plan.head, op, lane);
    if (lane == 0)
    {
      acc.fold(head, op);
    }
  }
  warp_reduce_chunks<InFlight>(chunks, warp_first, warp_first + warp_count, acc, op, lane);
  const offset_t tail_begin = plan.head + plan.chunks * Chunks::chunk_items;
  if (block == plan.blocks - 1 && warp == tail_warp && tail_begin < plan.size)
  {
    const T tail = warp_reduce_items<Chunks::lane_items, T>(first, tail_begin, plan.size - tail_begin, op, lane);
    if (lane == 0)
    {
      acc.fold(tail, op);
    }
  }

  if constexpr (warps == 1)
  {
    return acc.slot.value;
  }
  else
  {
    // Warps with items form a prefix [0, busy_warps) (at least warp 0 has items).
    __shared__ alignas(T) unsigned char warp_totals_raw[warps * sizeof(T)];
    T* warp_totals = reinterpret_cast<T*>(warp_totals_raw);
    if (lane == 0 && acc.valid)
    {
      ::new (static_cast<void*>(warp_totals + warp)) T(acc.slot.value);
    }
    __syncthreads();
    T total = acc.slot.value;
    if (warp == 0)
    {
      uninitialized<T> mine;
      const int valid = busy_warps > 0 ? busy_warps : 1;
      if (lane < valid)
      {
        mine.emplace(warp_totals[lane]);
      }
      total = warp_reduce(mine.value, op, lane, valid);
    }
    // The shared slots are reused if the caller runs the body again (single-pass last block).
    __syncthreads();
    return total;
  }
}
} // namespace rk::detail

#pragma once
// The one block body all three backends share: a block reduces its contiguous share of the input
// to one value, in order. The backends differ only in what they do with that value (their
// epilogues, in rk/cuda/kernels.cuh).
//
// How the input is cut. The range is [head | body of full chunks | tail]. The head holds the items
// before the first 16-byte boundary (vectorized inputs only); the body is `chunks` full warp
// chunks; the tail is what is left. Block b owns a contiguous run of chunks (the first `r` blocks
// one more than the rest) and walks it in tiles of warps * InFlight chunks: in each tile, warp w
// takes the w-th run of InFlight adjacent chunks, so a block streams one contiguous tile at a time
// (good DRAM locality) while every warp's part of a tile stays contiguous. The warps' tile results
// go to shared memory in chunk order, and after every 32 of them warp 0 folds them, in order, into
// the block's accumulator: one barrier per 32 warp-parts. Block 0's warp 0 takes the head first;
// the last block's warp 0 takes the tail last. Partial chunks are never padded: a lane with no
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
  constexpr int parts_per_group    = warp_threads;          // warp-parts folded per barrier: one warp reduce
  constexpr int tiles_per_group    = warp_threads / warps;
  constexpr offset_t tile_chunks   = offset_t{warps} * InFlight;
  constexpr offset_t group_chunks  = tile_chunks * tiles_per_group;
  const int lane = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp = static_cast<int>(threadIdx.x) / warp_threads;

  const offset_t per_block   = plan.chunks / plan.blocks;
  const offset_t extra_block = plan.chunks % plan.blocks;
  const offset_t block_first = block * per_block + (block < extra_block ? block : extra_block);
  const offset_t block_end   = block_first + per_block + (block < extra_block ? 1 : 0);

  // Double-buffered so warps can fill the next group while warp 0 folds this one.
  __shared__ alignas(T) unsigned char parts_raw[2][parts_per_group * sizeof(T)];

  maybe<T> acc; // the block's accumulator, kept by warp 0's lane 0
  if (block == 0 && warp == 0 && plan.head > 0)
  {
    const T head = warp_reduce_items<Chunks::lane_items, T>(first, 0, plan.head, op, lane);
    if (lane == 0)
    {
      acc.fold(head, op);
    }
  }

  int buffer = 0;
  for (offset_t group = block_first; group < block_end; group += group_chunks, buffer ^= 1)
  {
    T* parts = reinterpret_cast<T*>(parts_raw[buffer]);
#pragma unroll
    for (int tile = 0; tile < tiles_per_group; ++tile)
    {
      const offset_t mine = group + tile * tile_chunks + warp * InFlight;
      if (mine < block_end)
      {
        maybe<T> part;
        warp_reduce_chunks<InFlight>(chunks, mine, mine + InFlight < block_end ? mine + InFlight : block_end, part,
                                     op, lane);
        if (lane == 0)
        {
          ::new (static_cast<void*>(parts + tile * warps + warp)) T(part.slot.value);
        }
      }
    }
    __syncthreads();
    if (warp == 0)
    {
      // Parts with chunks form a prefix of the group, in chunk order.
      const offset_t left = (block_end - group + InFlight - 1) / InFlight;
      const int valid     = left < parts_per_group ? static_cast<int>(left) : parts_per_group;
      uninitialized<T> part;
      if (lane < valid)
      {
        part.emplace(parts[lane]);
      }
      const T group_total = warp_reduce(part.value, op, lane, valid);
      if (lane == 0)
      {
        acc.fold(group_total, op);
      }
    }
  }

  const offset_t tail_begin = plan.head + plan.chunks * Chunks::chunk_items;
  if (block == plan.blocks - 1 && warp == 0 && tail_begin < plan.size)
  {
    const T tail = warp_reduce_items<Chunks::lane_items, T>(first, tail_begin, plan.size - tail_begin, op, lane);
    if (lane == 0)
    {
      acc.fold(tail, op);
    }
  }
  return acc.slot.value;
}
} // namespace rk::detail

#pragma once
// The grid-ordered block body (tree_shape::grid_ordered: rk::atomic, and the other backends under
// rk::grid_ordered_tuning): a block reduces its contiguous share of the input to one value, in
// order, and the backends differ only in what they do with that value (their epilogues, in
// rk/cuda/kernels/reduce.cuh). The reproducible tree's body is in rk/cuda/agent/tile_tree.cuh;
// both use the block-level combines of rk/cuda/primitives/block_combine.cuh. block_merge_range
// (tree_shape::merged_lanes, the arg reductions) walks the same split with one fold a lane.
//
// How the input is cut. The range is [body of full chunks | tail]: the body is `chunks` full warp
// chunks (a vectorized input starts on a 16-byte boundary: with_aligned_reads reads any other
// element by element); the tail is what is left. Block b owns a contiguous run of chunks (the first `r` blocks
// one more than the rest) and walks it in tiles of warps * InFlight chunks: in each tile, warp w
// takes the w-th run of InFlight adjacent chunks, so a block streams one contiguous tile at a time
// (good DRAM locality) while every warp's part of a tile stays contiguous. The warps' tile results
// go to shared memory in chunk order, and after every 32 of them warp 0 folds them, in order, into
// the block's accumulator: one barrier per 32 warp-parts. The last block's warp 0 takes the tail
// last. Partial chunks are never padded: a lane with no
// item simply does not take part in the combine.

#include <rk/cuda/primitives/block_combine.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>

#include <type_traits>
#include <utility>

namespace rk::detail
{
/// Where the input's pieces are; computed on the host (make_range_plan), read by every block.
struct range_plan
{
  offset_t size;   ///< items in the range
  offset_t chunks; ///< full warp chunks in the body
  int blocks;      ///< grid size
};

__host__ __device__ inline int grid_size(const range_plan& plan)
{
  return plan.blocks;
}

__host__ __device__ inline range_plan make_range_plan(offset_t size, int chunk_items, offset_t max_blocks,
                                                      offset_t min_items_per_block)
{
  const offset_t chunks = size / chunk_items;
  offset_t blocks       = ceil_div(size, min_items_per_block);
  blocks                = blocks < max_blocks ? blocks : max_blocks;
  blocks                = blocks < chunks ? blocks : chunks; // every block owns at least one chunk
  return range_plan{size, chunks, static_cast<int>(blocks < 1 ? 1 : blocks)};
}

/// Issues the loads of chunks [chunk, chunk + min(InFlight, left)) into `f`, all before any is used.
template <int InFlight, class Chunks, class Op>
__device__ __forceinline__ void load_chunks(const Chunks& in, offset_t chunk, offset_t left, int lane,
                                            typename Chunks::fragment (&f)[InFlight], Op& op)
{
#pragma unroll
  for (int u = 0; u < InFlight; ++u)
  {
    if (u < left)
    {
      in.load(chunk + u, lane, f[u], op);
    }
  }
}

/// Block `block`'s contiguous share of the plan's chunks, [first, end): the first plan.chunks %
/// plan.blocks blocks take one more than the rest.
struct chunk_share
{
  offset_t first;
  offset_t end;
};

__device__ __forceinline__ chunk_share block_chunks(const range_plan& plan, int block)
{
  const offset_t per_block   = plan.chunks / plan.blocks;
  const offset_t extra_block = plan.chunks % plan.blocks;
  const offset_t first       = block * per_block + (block < extra_block ? block : extra_block);
  return {first, first + per_block + (block < extra_block ? 1 : 0)};
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
    load_chunks<InFlight>(in, chunk, left, lane, f, op);
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
/// `first` reads items one by one (the tail); `chunks` reads the body.
template <int BlockThreads, int InFlight, class T, class It, class Chunks, class Op>
__device__ T block_reduce_range(It first, const Chunks& chunks, const range_plan& plan, int block, Op& op)
{
  constexpr int warps = BlockThreads / warp_threads;
  // A group of tiles must fill the 32 parts one warp reduction folds: warps must divide 32.
  static_assert(BlockThreads % warp_threads == 0 && warp_threads % warps == 0,
                "block_threads must be 32 times a power of two, at most 1024");
  constexpr int parts_per_group   = warp_threads; // warp-parts folded per barrier: one warp reduce
  constexpr int tiles_per_group   = warp_threads / warps;
  constexpr offset_t tile_chunks  = offset_t{warps} * InFlight;
  constexpr offset_t group_chunks = tile_chunks * tiles_per_group;
  const int lane                  = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp                  = static_cast<int>(threadIdx.x) / warp_threads;

  const chunk_share share    = block_chunks(plan, block);
  const offset_t block_first = share.first;
  const offset_t block_end   = share.end;

  // Double-buffered so warps can fill the next group while warp 0 folds this one.
  __shared__ alignas(T) unsigned char parts_raw[2][parts_per_group * sizeof(T)];

  maybe<T> acc; // the block's accumulator, kept by warp 0's lane 0

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
        warp_reduce_chunks<InFlight>(chunks, mine, mine + InFlight < block_end ? mine + InFlight : block_end, part, op,
                                     lane);
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
      const offset_t left = ceil_div<InFlight>(block_end - group);
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

  const offset_t tail_begin = plan.chunks * Chunks::chunk_items;
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

template <class Op, class T, class = void>
struct has_merge : std::false_type
{};
template <class Op, class T>
struct has_merge<Op, T, std::void_t<decltype(std::declval<const Op&>().merge(std::declval<T>(), std::declval<T>()))>>
    : std::true_type
{};

/// tree_shape::merged_lanes: the same split of the range, walked in the same tiles, but each lane
/// folds its own items with `op` across all of its chunks (a lane's items come in order: chunk by
/// chunk, then its slice of the tail) and the block merges its lanes once with `op.merge`, which
/// ignores the order of its operands. block_reduce_range's warp reduction a chunk and its barrier
/// every 32 warp-parts go. The result is valid in thread 0.
template <int BlockThreads, int InFlight, class T, class It, class Chunks, class Op>
__device__ T block_merge_range(It first, const Chunks& chunks, const range_plan& plan, int block, Op& op)
{
  static_assert(has_merge<Op, T>::value,
                "rk tuning: tree_shape::merged_lanes needs an operator with an order-free merge(a, b), as rk's arg "
                "reductions have; give other operators tree_shape::pairwise_tiles or grid_ordered");
  constexpr int warps            = BlockThreads / warp_threads;
  constexpr offset_t tile_chunks = offset_t{warps} * InFlight;
  const int lane                 = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp                 = static_cast<int>(threadIdx.x) / warp_threads;

  const chunk_share share    = block_chunks(plan, block);
  const offset_t block_first = share.first;
  const offset_t block_end   = share.end;

  maybe<T> acc; // this lane's items, in order
  for (offset_t chunk = block_first + warp * InFlight; chunk < block_end; chunk += tile_chunks)
  {
    const offset_t left = block_end - chunk;
    typename Chunks::fragment f[InFlight];
    load_chunks<InFlight>(chunks, chunk, left, lane, f, op);
#pragma unroll
    for (int u = 0; u < InFlight; ++u)
    {
      if (u < left)
      {
        acc.fold(chunks.reduce(f[u], op), op);
      }
    }
  }

  const offset_t tail_begin = plan.chunks * Chunks::chunk_items;
  if (block == plan.blocks - 1 && warp == 0 && tail_begin < plan.size)
  {
    const slice_split s = split_items(plan.size - tail_begin, warp_threads, lane);
    if (s.size > 0)
    {
      acc.fold(fold_items<Chunks::lane_items, true, T>(first, tail_begin + s.begin, s.size, op), op);
    }
  }
  const auto merge = [&op](const T& a, const T& b) { return op.merge(a, b); };
  return block_merge<BlockThreads>(acc, merge).slot.value;
}
} // namespace rk::detail

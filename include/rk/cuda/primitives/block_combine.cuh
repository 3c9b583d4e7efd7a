#pragma once
// Block- and warp-level combines of values already folded per thread, in thread order: the
// pairwise tree of warp_reduce inside each warp and again over the warps. The grid-ordered body,
// the final passes and the segment kernels share them. And block_merge, for operators whose merge
// ignores the order (the merged lanes of the arg reductions).

#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/integer.hpp>

namespace rk::detail
{
/// Splits `count` items over `threads` threads in contiguous slices, in order: this thread's
/// slice [begin, begin + size), and how many threads (a prefix) have any item.
struct slice_split
{
  offset_t begin;
  offset_t size;
  offset_t busy_threads;
};

__device__ __forceinline__ slice_split split_items(offset_t count, int threads, int thread)
{
  const offset_t per_thread = ceil_div(count, offset_t{threads});
  const offset_t begin      = thread * per_thread;
  const offset_t end        = begin + per_thread < count ? begin + per_thread : count;
  return {begin < end ? begin : 0, begin < end ? end - begin : 0, ceil_div(count, per_thread)};
}

/// Reduces items [begin, begin + count) of `first` with one warp, count >= 1, any alignment
/// (the tail of a range). Result valid in lane 0.
template <int MaxPerLane, class T, class It, class Op>
__device__ T warp_reduce_items(It first, offset_t begin, offset_t count, Op& op, int lane)
{
  const slice_split s = split_items(count, warp_threads, lane);
  uninitialized<T> mine;
  if (s.size > 0)
  {
    mine.emplace(fold_items<MaxPerLane, true, T>(first, begin + s.begin, s.size, op));
  }
  return warp_reduce(mine.value, op, lane, static_cast<int>(s.busy_threads));
}

/// Combines the values of threads [0, busy_threads) of the block in thread order, with the
/// pairwise tree of warp_reduce inside each warp and again over the warps. Result valid in
/// thread 0; every thread of the block must call it.
template <int BlockThreads, class T, class Op>
__device__ T block_combine_prefix(const T& mine, offset_t busy_threads, Op& op)
{
  constexpr int warps         = BlockThreads / warp_threads;
  const int lane              = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp              = static_cast<int>(threadIdx.x) / warp_threads;
  const offset_t busy_in_warp = busy_threads - offset_t{warp} * warp_threads;
  const int valid_lanes       = busy_in_warp <= 0            ? 0
                              : busy_in_warp >= warp_threads ? warp_threads
                                                             : static_cast<int>(busy_in_warp);
  const T warp_total          = warp_reduce(mine, op, lane, valid_lanes);
  if constexpr (warps == 1)
  {
    return warp_total;
  }
  else
  {
    __shared__ alignas(T) unsigned char warp_totals_raw[warps * sizeof(T)];
    T* warp_totals = reinterpret_cast<T*>(warp_totals_raw);
    if (lane == 0 && valid_lanes > 0)
    {
      ::new (static_cast<void*>(warp_totals + warp)) T(warp_total);
    }
    __syncthreads();
    T total = warp_total;
    if (warp == 0)
    {
      const int busy_warps = static_cast<int>(ceil_div<warp_threads>(busy_threads));
      uninitialized<T> part;
      if (lane < busy_warps)
      {
        part.emplace(warp_totals[lane]);
      }
      total = warp_reduce(part.value, op, lane, busy_warps);
    }
    return total;
  }
}

/// The block's values merged with `merge`, an order-free combine (merge(a, b) == merge(b, a)):
/// threads without a value (`mine.valid` false) take no part, and any order of the merges gives
/// the same answer, so each warp's lanes fold in a butterfly and warp 0 folds the warps. Result
/// valid in thread 0 (empty only if no thread had a value); every thread of the block must call it.
template <int BlockThreads, class T, class Merge>
__device__ maybe<T> block_merge(maybe<T> mine, const Merge& merge)
{
  constexpr int warps   = BlockThreads / warp_threads;
  const int lane        = static_cast<int>(threadIdx.x) % warp_threads;
  const int warp        = static_cast<int>(threadIdx.x) / warp_threads;
  const auto merge_warp = [&](maybe<T>& x) {
#pragma unroll
    for (int mask = warp_threads / 2; mask > 0; mask /= 2)
    {
      const T other_value    = shuffle_xor(x.slot.value, mask);
      const bool other_valid = __shfl_xor_sync(0xffffffffu, x.valid, mask);
      if (other_valid)
      {
        x.slot.emplace(x.valid ? merge(x.slot.value, other_value) : other_value);
        x.valid = true;
      }
    }
  };
  merge_warp(mine);
  if constexpr (warps > 1)
  {
    __shared__ alignas(T) unsigned char warp_values_raw[warps * sizeof(T)];
    __shared__ bool warp_valid[warps];
    T* warp_values = reinterpret_cast<T*>(warp_values_raw);
    if (lane == 0)
    {
      warp_valid[warp] = mine.valid;
      if (mine.valid)
      {
        ::new (static_cast<void*>(warp_values + warp)) T(mine.slot.value);
      }
    }
    __syncthreads();
    if (warp == 0)
    {
      mine.valid = lane < warps && warp_valid[lane];
      if (mine.valid)
      {
        mine.slot.emplace(warp_values[lane]);
      }
      merge_warp(mine);
    }
  }
  return mine;
}

/// Reduces a short array (the block partials) with one block, in order, every load issued up
/// front: the last block of the grid-ordered rk::single_pass and the second kernel of its
/// rk::two_pass. Result valid in thread 0; count >= 1.
template <int BlockThreads, int MaxPerThread, class T, class It, class Op>
__device__ T block_reduce_items(It first, offset_t count, Op& op)
{
  const slice_split s = split_items(count, BlockThreads, static_cast<int>(threadIdx.x));
  uninitialized<T> mine;
  if (s.size > 0)
  {
    mine.emplace(fold_items<MaxPerThread, true, T>(first, s.begin, s.size, op));
  }
  // Threads with items form a prefix.
  return block_combine_prefix<BlockThreads>(mine.value, s.busy_threads, op);
}
} // namespace rk::detail

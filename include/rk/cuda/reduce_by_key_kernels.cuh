#pragma once
// rk::reduce_by_key's run search: one pass over the keys that writes each run's first key and
// first position ("head"), the run count, and the closing head n, so that segmented reduce can take
// the runs as CSR segments. Tiles of run_search_items keys are ordered by a decoupled look-back over
// their head counts (CUB's ScanTileState and TilePrefixCallbackOp), as CUB's DeviceSelect is; what
// this kernel saves over DeviceSelect::UniqueByKey is its generality: no value payload (the heads
// are the positions) and no second arrangement of the selected items.

#include <rk/detail/tree.hpp>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#include <cuda/std/functional>

#include <thrust/iterator/iterator_traits.h>

namespace rk::detail
{
/// The run search's shape: 256 threads of 16 keys per tile (4-byte keys: 16 KiB per tile).
inline constexpr int run_search_threads = 256;
inline constexpr int run_search_items   = 16;

template <class Head>
using run_tile_state = cub::ScanTileState<Head>;

/// Marks every tile's look-back status as not yet known; runs before each search.
template <class Head>
__global__ void init_run_tiles_kernel(run_tile_state<Head> tiles, int tile_count)
{
  tiles.InitializeStatus(tile_count);
}

/// One tile of the run search. Head r (the r-th run's first position) and its key go to heads[r]
/// and unique_keys[r]; the last tile also writes the run count to *run_count and closes the
/// heads with heads[count] = n.
template <class Head, class Keys, class UniqueKeys, class KeyEqual>
__global__ void __launch_bounds__(run_search_threads)
  find_runs_kernel(Keys keys, Head n, Head* heads, UniqueKeys unique_keys, KeyEqual key_equal,
                   run_tile_state<Head> tiles, Head* run_count)
{
  using key_type                = typename thrust::iterator_value<Keys>::type;
  constexpr int threads         = run_search_threads;
  constexpr int items           = run_search_items;
  constexpr Head tile_items     = Head{threads} * items;
  using block_load              = cub::BlockLoad<key_type, threads, items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using block_discontinuity     = cub::BlockDiscontinuity<key_type, threads>;
  using block_scan              = cub::BlockScan<Head, threads>;
  using look_back               = cub::TilePrefixCallbackOp<Head, ::cuda::std::plus<>, run_tile_state<Head>>;
  __shared__ union
  {
    typename block_load::TempStorage load;
    typename block_discontinuity::TempStorage discontinuity;
    struct
    {
      typename block_scan::TempStorage scan;
      typename look_back::TempStorage prefix;
    } scan;
  } temp;

  const int tile        = static_cast<int>(blockIdx.x);
  const Head tile_first = Head{tile} * tile_items;
  const Head remaining  = n - tile_first;
  const bool full       = remaining >= tile_items;
  key_type key[items];
  if (full)
  {
    block_load(temp.load).Load(keys + tile_first, key);
  }
  else
  {
    // Past the end, copies of the last key (flagged as no heads below): a user's key_equal never
    // sees an indeterminate key.
    block_load(temp.load).Load(keys + tile_first, key, static_cast<int>(remaining), key_type(keys[n - 1]));
  }
  __syncthreads();
  // A head is a key that differs from the one before it (the first key of all is one).
  int is_head[items];
  const auto differs = [&](const key_type& before, const key_type& k) { return !key_equal(before, k); };
  if (tile == 0)
  {
    block_discontinuity(temp.discontinuity).FlagHeads(is_head, key, differs);
  }
  else
  {
    const key_type before = keys[tile_first - 1];
    block_discontinuity(temp.discontinuity).FlagHeads(is_head, key, differs, before);
  }
  const Head my_first = tile_first + static_cast<Head>(threadIdx.x) * items;
  Head mine           = 0;
#pragma unroll
  for (int i = 0; i < items; ++i)
  {
    is_head[i] = is_head[i] && (full || my_first + i < n);
    mine += is_head[i];
  }
  __syncthreads();

  Head place = 0, tile_heads = 0;
  if (tile == 0)
  {
    block_scan(temp.scan.scan).ExclusiveSum(mine, place, tile_heads);
    if (threadIdx.x == 0)
    {
      tiles.SetInclusive(0, tile_heads);
    }
  }
  else
  {
    look_back prefix(tiles, temp.scan.prefix, ::cuda::std::plus<>{}, tile);
    block_scan(temp.scan.scan).ExclusiveSum(mine, place, prefix);
  }
#pragma unroll
  for (int i = 0; i < items; ++i)
  {
    if (is_head[i])
    {
      heads[place]       = my_first + i;
      unique_keys[place] = key[i];
      ++place;
    }
  }
  if (threadIdx.x == threads - 1 && tile == static_cast<int>(gridDim.x) - 1)
  {
    // `place` is now every head before this thread's end: all of them.
    heads[place] = n;
    *run_count   = place;
  }
}
} // namespace rk::detail

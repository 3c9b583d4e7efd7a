#pragma once
// rk::reduce_by_key's run pass, the block body of its one kernel (rk/cuda/kernels/reduce_by_key.cuh), which reads the
// keys and, where it needs them, the values once, finds the runs, writes every run's first key, and reduces every short
// run in place; only the runs it leaves (the long ones) go on to segmented reduce's kernels.
//
// Bits: a run is a segment, and segmented reduce gives a segment of up to one lane's items
// (tile_lane_items, rk/detail/tree.hpp) the left fold `op(init, x0 op x1 op ...)`. The run pass
// computes exactly that for the runs it calls short (at most short_max items, inside two
// neighbouring threads of one tile); every other run is listed for segmented reduce, which gives
// it the same tree it gives any segment. So which path reduced a run never shows in its bits.
//
// A tile is run_pass_shape's threads of `items` adjacent keys. Per thread, in registers: the head
// flags (a key that differs from the one before it starts a run), then the runs that start in the
// thread. A run that starts in thread t and ends in thread t + 1 is finished by t + 1 from t's
// partial fold, passed through shared memory. Runs are numbered by a decoupled look-back over
// (runs, long runs) per tile (CUB's ScanTileState and TilePrefixCallbackOp, as CUB's
// DeviceReduce::ReduceByKey does); the long count numbers the long list, so it comes out in run
// order with no atomics. The first keys and short values are staged in shared memory and stored
// with consecutive threads on consecutive runs: stored from the threads that found them, one
// run per item, the stores of a warp spread over 8 x 32 lines (a run search that did that
// measured 2.6x slower at runs of 1, H100, RESULTS.md).

#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/segments.hpp>
#include <rk/detail/tree.hpp>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// Runs and long runs, as one value of the look-back: packed in 64 bits while the counts fit 32
/// (the fast path of CUB's tile states: status and value in one word), a pair of 64-bit counts
/// beyond.
template <class Head>
struct run_tally;

template <>
struct run_tally<std::int32_t>
{
  using type = unsigned long long;
  __device__ static type make(std::int32_t runs, std::int32_t longs)
  {
    return static_cast<type>(static_cast<std::uint32_t>(runs)) | (static_cast<type>(longs) << 32);
  }
  __device__ static std::int32_t runs(type t)
  {
    return static_cast<std::int32_t>(t & 0xffffffffull);
  }
  __device__ static std::int32_t longs(type t)
  {
    return static_cast<std::int32_t>(t >> 32);
  }
};

template <>
struct run_tally<std::int64_t>
{
  struct type
  {
    std::int64_t runs;
    std::int64_t longs;
    __host__ __device__ friend type operator+(const type& a, const type& b)
    {
      return {a.runs + b.runs, a.longs + b.longs};
    }
  };
  __device__ static type make(std::int64_t runs, std::int64_t longs)
  {
    return {runs, longs};
  }
  __device__ static std::int64_t runs(const type& t)
  {
    return t.runs;
  }
  __device__ static std::int64_t longs(const type& t)
  {
    return t.longs;
  }
};

template <class Head>
using run_tile_state = cub::ScanTileState<typename run_tally<Head>::type>;

/// What the run pass writes besides the outputs, in the call's scratch.
template <class Head>
struct run_pass_outputs
{
  run_tile_state<Head> tiles; ///< the look-back's tile states
  Head* long_run;             ///< [capacity] the run index of each long run, in run order
  Head* long_begin;           ///< [capacity] its first item
  Head* long_end;             ///< [capacity] one past its last item
  Head* totals;               ///< [2] runs and long runs, written by the last tile (pinned host memory)
};

/// A thread's `Items` adjacent items of the tile that starts at `tile_first`, of which `valid` are
/// in range: 16-byte vector loads for a full tile of a pointer (CUB checks the alignment and
/// falls back), item loads otherwise; items out of range are left unset.
template <int Threads, int Items, class It, class Item>
__device__ __forceinline__ void load_thread_items(const It& first, offset_t tile_first, int valid, Item (&v)[Items])
{
  const int t = static_cast<int>(threadIdx.x);
  if (valid == Threads * Items)
  {
    if constexpr (std::is_pointer_v<It>)
    {
      cub::LoadDirectBlockedVectorized(t, const_cast<Item*>(first + tile_first), v);
    }
    else
    {
      cub::LoadDirectBlocked(t, first + tile_first, v);
    }
  }
  else
  {
    cub::LoadDirectBlocked(t, first + tile_first, v, valid);
  }
}

/// One tile of the run pass (see the top of this file), by a block. For run r it writes
/// unique_keys[r], and run_values[r] when the run is short; a long run goes to the long list at its
/// long index, with its bounds.
template <class Head, class Key, class Item, class T, class Keys, class Values, class UniqueKeys, class RunValues,
          class Init, class KeyEqual, class Op>
__device__ __forceinline__ void reduce_run_tile(const Keys& keys, const Values& values, Head n, UniqueKeys& unique_keys,
                                                RunValues& run_values, const Init& init, const KeyEqual& key_equal,
                                                Op& op, run_pass_outputs<Head>& out)
{
  using shape                       = run_pass_shape<Key, Item, T>;
  using tally                       = run_tally<Head>;
  using tally_type                  = typename tally::type;
  constexpr int threads             = shape::threads;
  constexpr int items               = shape::items;
  constexpr int short_max           = shape::short_max;
  constexpr int tile_items          = shape::tile_items;
  constexpr bool items_in_registers = std::is_trivially_default_constructible_v<Item>;
  using tally_scan                  = cub::BlockScan<tally_type, threads>;
  // CUB's default back-off: with no sleep between polls the look-back measured slower (H100, 2^26
  // items, 2048-item tiles: 474 against 433 us for the whole call at runs of 10^6).
  using look_back = cub::TilePrefixCallbackOp<tally_type, ::cuda::std::plus<>, run_tile_state<Head>>;

  __shared__ typename tally_scan::TempStorage scan_storage;
  __shared__ typename look_back::TempStorage look_back_storage;
  __shared__ alignas(Key) unsigned char last_key_raw[threads * sizeof(Key)];
  __shared__ alignas(T) unsigned char carry_raw[threads * sizeof(T)];
  __shared__ signed char lead_of[threads], trail_of[threads];
  // Staged by run place k at k + k / 32: a thread's runs are `items` places apart at runs of one,
  // and without the padding its warp's stores would fall in `items`-way bank conflicts.
  constexpr int staged_places = tile_items + tile_items / warp_threads;
  __shared__ alignas(Key) unsigned char staged_key_raw[staged_places * sizeof(Key)];
  __shared__ alignas(T) unsigned char staged_value_raw[staged_places * sizeof(T)];
  __shared__ unsigned long_places[tile_items / warp_threads]; // bit k: run place k is long (no value here)
  Key* last_key   = reinterpret_cast<Key*>(last_key_raw);
  T* carry        = reinterpret_cast<T*>(carry_raw);
  Key* staged_key = reinterpret_cast<Key*>(staged_key_raw);
  T* staged_value = reinterpret_cast<T*>(staged_value_raw);

  const int t           = static_cast<int>(threadIdx.x);
  const int tile        = static_cast<int>(blockIdx.x);
  const Head tile_first = static_cast<Head>(tile) * tile_items;
  const int tile_valid  = n - tile_first < tile_items ? static_cast<int>(n - tile_first) : tile_items;
  const int past_mine   = tile_valid - t * items; // items of the tile from this thread's first on
  const int mine        = past_mine <= 0 ? 0 : past_mine < items ? past_mine : items;
  const Head my_first   = tile_first + static_cast<Head>(t) * items;
  const auto padded     = [](int place) { return place + place / warp_threads; };
  for (int w = t; w < tile_items / warp_threads; w += threads)
  {
    long_places[w] = 0;
  }
  const bool ends_data = n - my_first <= items; // the data ends in this thread, or before it

  // Keys, and head flags: bit i when item i starts a run.
  Key key[items];
  load_thread_items<threads, items>(keys, tile_first, tile_valid, key);
  // The keys on either side of the tile, loaded with the tile's own.
  Key beside;
  const bool reads_before = t == 0 && tile > 0;
  const bool reads_after  = t == threads - 1 && n - tile_first > tile_items;
  if (reads_before || reads_after)
  {
    beside = keys[reads_before ? tile_first - 1 : tile_first + tile_items];
  }
  if (mine == items)
  {
    last_key[t] = key[items - 1];
  }
  __syncthreads();
  unsigned heads = 0;
  if (mine > 0)
  {
    const bool first_starts = t > 0        ? !key_equal(last_key[t - 1], key[0])
                            : reads_before ? !key_equal(beside, key[0])
                                           : true;
    heads                   = first_starts ? 1u : 0u;
#pragma unroll
    for (int i = 1; i < items; ++i)
    {
      if (i < mine && !key_equal(key[i - 1], key[i]))
      {
        heads |= 1u << i;
      }
    }
  }
  // What the neighbours need: the items before the first head (the end of a run begun before)
  // and the items from the last head on. A run that covers a whole thread has more than
  // short_max items, so lead + trail <= short_max is the whole test for a short run that
  // straddles two threads.
  const int lead      = heads != 0 ? __ffs(static_cast<int>(heads)) - 1 : mine;
  const int last_head = heads != 0 ? 31 - __clz(static_cast<int>(heads)) : -1;
  const int trail     = last_head >= 0 ? mine - last_head : -1;
  lead_of[t]          = static_cast<signed char>(lead);
  trail_of[t]         = static_cast<signed char>(trail);
  __syncthreads();

  // Whether a run starts right after this thread's last item (or the data ends there).
  const bool next_starts = ends_data        ? true
                         : t == threads - 1 ? !key_equal(key[items - 1], beside)
                                            : lead_of[t + 1] == 0;
  // How the run open at this thread's end ends: here, within short_max in the next thread, or
  // farther (then it is long, as is every run that crosses a tile boundary).
  const bool trail_here          = last_head >= 0 && next_starts;
  const bool trail_crosses_short = last_head >= 0 && !next_starts && t < threads - 1
                                && trail + lead_of[t + 1] <= short_max;
  // The items before the first head finish a short run begun in the thread before.
  const bool lead_short = lead > 0 && t > 0 && trail_of[t - 1] >= 0 && trail_of[t - 1] + lead <= short_max;
  // Or they end a long run: its end is recorded here.
  const bool lead_ends_long = lead > 0 && (heads != 0 || next_starts) && !lead_short;

  // Per head: is its run short (reduced here) or long (listed)?
  unsigned short_heads = 0;
#pragma unroll
  for (int i = 0; i < items; ++i)
  {
    if ((heads >> i) & 1u)
    {
      const unsigned later = heads >> (i + 1);
      const bool is_short  = later != 0 ? __ffs(static_cast<int>(later)) <= short_max
                                        : (trail_here && trail <= short_max) || trail_crosses_short;
      short_heads |= is_short ? 1u << i : 0u;
    }
  }
  const unsigned long_heads = heads & ~short_heads;

  // Values, where a short run needs them, loaded before the look-back so that they arrive while it
  // waits; they stay as loaded (converted to T where used), since a conversion here would wait.
  using held_item = std::conditional_t<items_in_registers, Item, uninitialized<T>>;
  held_item held[items];
  if (lead_short || short_heads != 0)
  {
    if constexpr (items_in_registers)
    {
      load_thread_items<threads, items>(values, tile_first, tile_valid, held);
    }
    else
    {
#pragma unroll
      for (int i = 0; i < items; ++i)
      {
        if (i < mine)
        {
          held[i].emplace(static_cast<T>(settled_from<Values>(static_cast<Item>(values[my_first + i]))));
        }
      }
    }
  }
  const auto value = [&](int i) -> T {
    if constexpr (items_in_registers)
    {
      return static_cast<T>(settled_from<Values>(held[i]));
    }
    else
    {
      return held[i].value;
    }
  };
  // Run and long-run numbers within the tile: this thread's first head is the tile's run
  // `first_place`. The tile's place among the others (the look-back) is warp 0's alone: the other
  // warps stage their runs meanwhile, and only what follows the next barrier needs it.
  const tally_type mine_tally = tally::make(__popc(heads), __popc(long_heads));
  tally_type local_prefix, tile_tally;
  tally_scan(scan_storage).ExclusiveSum(mine_tally, local_prefix, tile_tally);
  look_back prefix(out.tiles, look_back_storage, ::cuda::std::plus<>{}, tile);
  if (t < warp_threads)
  {
    if (tile == 0)
    {
      if (t == 0)
      {
        out.tiles.SetInclusive(0, tile_tally);
      }
    }
    else
    {
      prefix(tile_tally);
    }
  }
  const int tile_runs = static_cast<int>(tally::runs(tile_tally));

  // Stage this tile's first keys and the short runs that end here at their run's place in the
  // tile; a short run that goes on into the next thread passes its partial fold there.
  const int first_place = static_cast<int>(tally::runs(local_prefix));
  uninitialized<T> acc;
  bool in_short = false;
#pragma unroll
  for (int i = 0; i < items; ++i)
  {
    if (heads != 0 && i < mine) // without heads a thread only finishes the run before it (below)
    {
      const int place = first_place + __popc(heads & ((2u << i) - 1u)) - 1; // of the run item i is in
      if ((heads >> i) & 1u)
      {
        ::new (static_cast<void*>(staged_key + padded(place))) Key(key[i]);
        in_short = (short_heads >> i) & 1u;
        if (in_short)
        {
          acc.emplace(value(i));
        }
        else
        {
          atomicOr(long_places + place / warp_threads, 1u << (place % warp_threads));
        }
      }
      else if (in_short)
      {
        acc.value = op(acc.value, value(i));
      }
      const bool run_ends = i + 1 < mine ? ((heads >> (i + 1)) & 1u) != 0 : trail_here;
      if (in_short && run_ends)
      {
        ::new (static_cast<void*>(staged_value + padded(place))) T(apply_init(init, acc.value, op));
      }
    }
  }
  if (trail_crosses_short)
  {
    ::new (static_cast<void*>(carry + t)) T(acc.value);
  }
  __syncthreads();
  const tally_type tile_prefix = tile == 0 ? tally::make(0, 0) : prefix.GetExclusivePrefix();
  const Head tile_run_first    = tally::runs(tile_prefix);
  const Head run_prefix        = tile_run_first + tally::runs(local_prefix);
  const Head long_prefix       = tally::longs(tile_prefix) + tally::longs(local_prefix);
  if (t == 0 && tile == static_cast<int>(gridDim.x) - 1)
  {
    out.totals[0] = tile_run_first + tile_runs;
    out.totals[1] = tally::longs(tile_prefix) + tally::longs(tile_tally);
  }
  // The long list: bounds and run number of each long run, in run order.
  if (long_heads != 0)
  {
    Head slot = long_prefix;
#pragma unroll
    for (int i = 0; i < items; ++i)
    {
      if ((long_heads >> i) & 1u)
      {
        out.long_run[slot]   = run_prefix + __popc(heads & ((1u << i) - 1u));
        out.long_begin[slot] = my_first + i;
        const unsigned later = heads >> (i + 1);
        if (later != 0)
        {
          out.long_end[slot] = my_first + i + __ffs(static_cast<int>(later));
        }
        else if (trail_here)
        {
          out.long_end[slot] = my_first + mine;
        }
        ++slot;
      }
    }
  }
  if (lead_ends_long)
  {
    out.long_end[long_prefix - 1] = my_first + lead;
  }

  if (lead_short)
  {
    T finished(carry[t - 1]);
#pragma unroll
    for (int i = 0; i < items; ++i)
    {
      if (i < lead)
      {
        finished = op(finished, value(i));
      }
    }
    ::new (static_cast<void*>(staged_value + padded(first_place - 1))) T(apply_init(init, finished, op));
  }
  __syncthreads();
  for (int k = t; k < tile_runs; k += threads)
  {
    unique_keys[tile_run_first + k] = staged_key[padded(k)];
    if (((long_places[k / warp_threads] >> (k % warp_threads)) & 1u) == 0)
    {
      run_values[tile_run_first + k] = staged_value[padded(k)];
    }
  }
}
} // namespace rk::detail

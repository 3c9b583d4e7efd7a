#pragma once
// rk::segmented_reduce's kernels. Every segment is reduced with rk::reduce's tree counted from
// the segment's own first item (rk/detail/tree.hpp): lanes fold 32 bytes of items, a tile
// combines 32 lanes pairwise, tiles combine pairwise. So out[s] has rk::reduce's bits over the
// same items, whichever kernel and backend computed it.
//
// Two kinds of work, chosen per segment on the device (the host does not know the lengths):
//  - short_segments_kernel: blocks take equal runs of segments, a batch of block_threads at a
//    time. A segment of at most one lane's items is folded by one thread; up to 4, 8 or 16 lanes'
//    worth by a group of that many lanes (several segments per warp); longer ones by a warp, tile
//    by tile.
//    Segments longer than long_segment_min_tiles tiles go on the long list instead, while it
//    has room (past it, a warp takes them too: slower, never wrong).
//  - the long list: a one-block plan kernel cuts every listed segment into parts of at most
//    about a block's fair share of the listed items and queues them longest first;
//    long_segments_kernel's blocks take parts from the queue and run rk::reduce's block body
//    (tree_reduce_part) on each. A segment's parts are put together as rk::reduce's are: by
//    a second kernel (two_pass), or by the last of its blocks to finish (single_pass: an arrival
//    counter per listed segment, reset by its last user), which also puts together the nodes its
//    part boundaries cut. rk::atomic runs the grid-ordered block body instead (as rk::reduce's
//    atomic backend does): the short kernel seeds a listed segment's output with init, and every
//    part combines its total into it with an atomic.

#include <rk/cuda/kernels.cuh>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cuda/atomic>

namespace rk::detail
{
/// What an empty segment gets: init (no_segment_init has no empty segments to give anything).
template <class T>
__device__ __forceinline__ const T& empty_segment_value(const T& init)
{
  return init;
}
template <class T>
__device__ __forceinline__ T empty_segment_value(no_segment_init)
{
  return uninitialized<T>{}.value;
}

/// Segments longer than this many tiles go on the long list (16 tiles: 4096 int32, 2048 doubles;
/// below that a warp streams a segment in a few round trips). Chosen; 32 tiles measured once
/// (H100): 4096-item doubles left the list, 310 -> 249 us at 2^26, power law 4 % slower.
inline constexpr offset_t long_segment_min_tiles = 16;
/// The long-segment kernel holds two block bodies (16-byte vectors and elements, for segments on
/// and off the 16-byte grid); left alone ptxas gives it 100-127 registers, two 256-thread blocks
/// per SM, too few loads in flight. This asks for room for this many.
inline constexpr int long_segment_min_blocks_per_sm = 4;
/// Classes of part length, each half the one before, by which the plan orders the queue: blocks
/// take the longest parts first and the short ones fill in at the end (greedy longest-first). With
/// the parts in list order, a block could take a long part when the others were nearly done: the
/// power law's 10 segments of more than 2^20 items (65 % of the items at 2^26) then took 1.7x the
/// listed items' read time in a model of the queue, 1.2x with these classes.
inline constexpr int long_segment_part_classes = 8;
/// Full tiles whose loads a warp issues together (window_node). One tile at a time, a warp waited
/// on a round trip per tile, 16 in a row for a 4096-item segment, and its block's batch waited on
/// that warp: the power law's short-segment kernel took 55 us at 2^26 int32 (H100, ncu) for 11 %
/// of the items (45 us with two). Four and eight gave the kernel 80 registers, three blocks per
/// SM instead of four, and were slower on every short path (H100, int32 2^26, with 2 / 4 / 8:
/// all 32 134.9 / 148.9 / 182.5 us, power law 181.5 / 188.7 / 207.1 us).
inline constexpr int window_tiles_in_flight = 2;
/// Batches of one-lane segments the short-segment kernel reduces in one step (below).
inline constexpr int tiny_batches = 4;
/// Threads of the short-segment and plan kernels.
inline constexpr int segment_block_threads = 256;

/// How the parts of a listed segment are put together: the backends' epilogues of the long kernel.
enum class part_join
{
  last_block,    ///< single_pass: the last block to finish a part finishes the segment's tree
  finish_kernel, ///< two_pass: long_segments_finish_kernel does
  atomic         ///< atomic: every part combines its total into the seeded output
};

/// The long list and what the long-segment kernels keep per listed segment, in the call's scratch.
struct long_segment_list
{
  unsigned* appended;         ///< segments offered to the list (zero when the call starts)
  unsigned* parts_taken;      ///< parts the long-segment kernel's blocks have taken (zero)
  unsigned* departures;       ///< blocks of the list's last kernel that have left (zero)
  offset_t* segment;          ///< [capacity] the segment's index
  offset_t* first_item;       ///< [capacity] its first item
  offset_t* items;            ///< [capacity] its length
  offset_t* order;            ///< [capacity] the listed segment at each place of the queue
  offset_t* part_prefix;      ///< [capacity + 1] parts queued before each place
  unsigned* segment_arrivals; ///< [capacity] blocks finished per listed segment (zero)
  offset_t parts_target;      ///< blocks of the long-segment kernel: the plan's fair shares

  RK_HOST_DEVICE offset_t parts_capacity() const
  {
    return parts_target + long_segment_capacity;
  }
  /// Node values first, then the pieces of every listed segment's parts; by queue place.
  template <class T>
  __device__ tree_outputs<T> outputs(T* values, offset_t place, offset_t prefix) const
  {
    return {values + 2 * prefix, values + 2 * parts_capacity() + (prefix + place) * 2 * max_node_level};
  }
  template <class T>
  static constexpr offset_t values_needed(offset_t parts_target)
  {
    const offset_t parts = parts_target + long_segment_capacity;
    return 2 * parts + piece_slots(parts) + long_segment_capacity * 2 * max_node_level;
  }

  /// One thread of each block of the last kernel that reads the list, as it leaves: the last
  /// block out returns the list's counters to zero for the scratch's next user (every block has
  /// read `appended` and taken its last part by then; the arrival words zero themselves).
  __device__ void depart(unsigned blocks) const
  {
    if (arrive_last(*departures, blocks))
    {
      *appended    = 0;
      *parts_taken = 0;
    }
  }

  __device__ bool append(offset_t s, offset_t first, offset_t n) const
  {
    const unsigned at = atomicAdd(appended, 1u);
    if (at >= static_cast<unsigned>(long_segment_capacity))
    {
      return false;
    }
    segment[at]    = s;
    first_item[at] = first;
    items[at]      = n;
    return true;
  }
  __device__ offset_t listed() const
  {
    const unsigned a = *appended;
    return a < static_cast<unsigned>(long_segment_capacity) ? a : long_segment_capacity;
  }
};

/// Records the first bad segment in the device's error word (rk::check_device_errors).
__device__ inline void report_bad_segment(unsigned long long* error_word, offset_t s)
{
  atomicCAS(error_word, 0ull, static_cast<unsigned long long>(s) + 1);
}

/// The node over window `w` (32 tiles, a level-5 node of the tree counted from the segment's
/// first item, truncated at the segment's end) of the `n` items from `begin`, by a whole warp.
/// Tile k's value waits in lane k until the window is complete. Result valid in lane 0.
template <int LaneItems, class T, class Input, class Op>
__device__ __forceinline__ T window_node(const Input& first, offset_t begin, offset_t n, offset_t w, Op& op, int lane)
{
  constexpr offset_t tile = offset_t{warp_threads} * LaneItems;
  const offset_t tiles    = tile_count(n, tile);
  const int in_window     = static_cast<int>(tiles - w * warp_threads < warp_threads ? tiles - w * warp_threads
                                                                                     : warp_threads);
  uninitialized<T> tile_value;
  int k      = 0;
  using item = std::remove_cv_t<iterator_item_t<Input>>;
  if constexpr (std::is_trivially_default_constructible_v<item> && window_tiles_in_flight > 1)
  {
    // Full tiles, window_tiles_in_flight at a time: every lane's loads first, then the trees.
    constexpr int batch      = window_tiles_in_flight;
    const offset_t full_left = n / tile - w * warp_threads;
    const int full_in_window = full_left < in_window ? static_cast<int>(full_left) : in_window;
    for (; k + batch <= full_in_window; k += batch)
    {
      item v[batch][LaneItems];
#pragma unroll
      for (int u = 0; u < batch; ++u)
      {
        load_lane<LaneItems>(first, begin + (w * warp_threads + k + u) * tile + offset_t{lane} * LaneItems, v[u]);
      }
#pragma unroll
      for (int u = 0; u < batch; ++u)
      {
        const T all = broadcast_lane0(warp_reduce(fold_lane<T>(v[u], op), op, lane, warp_threads));
        if (lane == k + u)
        {
          tile_value.emplace(all);
        }
      }
    }
  }
  for (; k < in_window; ++k)
  {
    // short_tile_value's work, written out: with the call in its place (6b0bea6) the whole
    // short-segment kernel measured 10-20 % slower on every path (H100, one run).
    const offset_t t       = w * warp_threads + k;
    const offset_t in_tile = n - t * tile < tile ? n - t * tile : tile;
    const int lanes        = static_cast<int>((in_tile + LaneItems - 1) / LaneItems);
    uninitialized<T> mine;
    if (lane < lanes)
    {
      const offset_t at   = t * tile + offset_t{lane} * LaneItems;
      const offset_t left = n - at;
      mine.emplace(
        lane_fold<LaneItems, T>(first, begin + at, left < LaneItems ? static_cast<int>(left) : LaneItems, op));
    }
    const T v = warp_reduce(mine.value, op, lane, lanes);
    if (in_window == 1)
    {
      return v;
    }
    const T all = broadcast_lane0(v);
    if (lane == k)
    {
      tile_value.emplace(all);
    }
  }
  return warp_reduce(tile_value.value, op, lane, in_window);
}

/// A segment of more than one window (only segments the full long list left to the warps): the
/// windows fold in lane 0. Kept out of line, so that its fold's stack frame costs the common
/// path nothing.
template <int LaneItems, class T, class Input, class Op>
__device__ __noinline__ T many_windows(Input first, offset_t begin, offset_t n, Op op, int lane)
{
  constexpr offset_t window = offset_t{warp_threads} * warp_threads * LaneItems;
  pairwise_fold<T, 40 - window_level> windows;
  for (offset_t w = 0; w * window < n; ++w)
  {
    const T node = window_node<LaneItems, T>(first, begin, n, w, op, lane);
    if (lane == 0)
    {
      windows.push(node, op);
    }
  }
  uninitialized<T> root;
  if (lane == 0)
  {
    root.emplace(windows.finish(op));
  }
  return root.value;
}

/// The tree over `n` items from `begin` by a group of Width lanes: a group of fewer than 32 lanes
/// holds at most one tile; a warp walks the tiles. Result valid in the group's lane 0. All lanes
/// of the warp call it; `n` == 0 marks a group without a segment.
template <int Width, int LaneItems, class T, class Input, class Op>
__device__ T group_tree(const Input& first, offset_t begin, offset_t n, Op& op, int rel)
{
  if constexpr (Width < warp_threads)
  {
    const int lanes = static_cast<int>((n + LaneItems - 1) / LaneItems);
    uninitialized<T> mine;
    if (rel < lanes)
    {
      const offset_t at = offset_t{rel} * LaneItems;
      mine.emplace(
        lane_fold<LaneItems, T>(first, begin + at, n - at < LaneItems ? static_cast<int>(n - at) : LaneItems, op));
    }
    return warp_reduce(mine.value, op, rel, lanes);
  }
  else
  {
    if (n <= offset_t{warp_threads} * warp_threads * LaneItems)
    {
      return window_node<LaneItems, T>(first, begin, n, 0, op, rel);
    }
    return many_windows<LaneItems, T>(first, begin, n, op, rel);
  }
}

/// A block's queue of segments for one group width: each segment's place in the batch, its
/// first item and its length (32 bits where the class bounds it: shared memory the L1 keeps).
template <int BlockThreads, class Length>
struct segment_queue
{
  offset_t first[BlockThreads];
  Length items[BlockThreads];
  short place[BlockThreads];
  int count;
};

/// Reduces the queued segments, one per group of Width lanes, and stores op(init, tree).
template <int Width, int BlockThreads, int LaneItems, class T, class Input, class Length, class Out, class Init,
          class Op>
__device__ void reduce_queue(const Input& first, const segment_queue<BlockThreads, Length>& q, offset_t batch, Out& out,
                             const Init& init, Op& op)
{
  constexpr int groups = BlockThreads / Width;
  const int rel        = static_cast<int>(threadIdx.x) % Width;
  const int group      = static_cast<int>(threadIdx.x) / Width;
  for (int base = 0; base < q.count; base += groups)
  {
    const int i    = base + group;
    const bool has = i < q.count;
    if (Width == warp_threads && !has)
    {
      break; // the whole warp: no later round has a segment for it either
    }
    const T v = group_tree<Width, LaneItems, T>(first, has ? q.first[i] : 0, has ? q.items[i] : 0, op, rel);
    if (has && rel == 0)
    {
      out[batch + q.place[i]] = apply_init(init, v, op);
    }
  }
}

/// Segments by the group that reduces them: up to 4, 8 and 16 lanes' worth share a warp with
/// others (8, 4, 2 per warp); longer ones take a warp each.
inline constexpr int group_classes = 4;

/// `SeedListed` (rk::atomic): a listed segment's output gets `init`, which its parts then combine into.
template <class Item, class T, bool SeedListed, class Input, class Segments, class Out, class Init, class Op>
__global__ void __launch_bounds__(segment_block_threads)
  short_segments_kernel(Input first, Segments segments, Out out, Init init, long_segment_list list,
                        unsigned long long* error_word, Op op)
{
  constexpr int block_threads = segment_block_threads;
  constexpr int lane_items    = tile_lane_items<Item>;
  __shared__ segment_queue<block_threads, int> groups[group_classes - 1]; // one tile at most
  __shared__ segment_queue<block_threads, offset_t> warps;
  const offset_t count = segments.count;
  const offset_t begin = count * blockIdx.x / gridDim.x, end = count * (blockIdx.x + 1) / gridDim.x;
  for (offset_t batch = begin; batch < end;)
  {
    // A run of tiny_batches batches whose segments all fit one lane (1-8 int32 items, say) is
    // reduced in one step, each thread with tiny_batches segments in flight: a batch at a time,
    // this path waits on a round trip per segment and is latency-bound.
    if (end - batch >= offset_t{tiny_batches} * block_threads)
    {
      offset_t b[tiny_batches], n[tiny_batches];
      bool tiny = true;
#pragma unroll
      for (int k = 0; k < tiny_batches; ++k)
      {
        const offset_t s = batch + k * block_threads + threadIdx.x;
        b[k]             = segments.begin(s);
        n[k]             = segments.end(s) - b[k];
        tiny             = tiny && n[k] >= 0 && n[k] <= lane_items;
      }
      if (__syncthreads_and(tiny))
      {
        uninitialized<T> value[tiny_batches];
#pragma unroll
        for (int k = 0; k < tiny_batches; ++k)
        {
          if (n[k] > 0)
          {
            value[k].emplace(apply_init(init, lane_fold<lane_items, T>(first, b[k], static_cast<int>(n[k]), op), op));
          }
        }
#pragma unroll
        for (int k = 0; k < tiny_batches; ++k)
        {
          out[batch + k * block_threads + threadIdx.x] = n[k] > 0 ? value[k].value : empty_segment_value<T>(init);
        }
        batch += offset_t{tiny_batches} * block_threads;
        continue;
      }
    }
    if (threadIdx.x < group_classes - 1)
    {
      groups[threadIdx.x].count = 0;
    }
    if (threadIdx.x == 0)
    {
      warps.count = 0;
    }
    __syncthreads();
    const offset_t s = batch + threadIdx.x;
    if (s < end)
    {
      const offset_t b = segments.begin(s), n = segments.end(s) - b;
      if (n <= 0)
      {
        if (n < 0)
        {
          report_bad_segment(error_word, s);
        }
        out[s] = empty_segment_value<T>(init);
      }
      else if (n <= lane_items)
      {
        out[s] = apply_init(init, lane_fold<lane_items, T>(first, b, static_cast<int>(n), op), op);
      }
      else if (n <= long_segment_min_tiles * tile_items<Item> || !list.append(s, b, n))
      {
        const offset_t lanes = (n + lane_items - 1) / lane_items;
        if (lanes <= 16)
        {
          auto& q      = groups[lanes <= 4 ? 0 : lanes <= 8 ? 1 : 2];
          const int at = atomicAdd(&q.count, 1);
          q.first[at]  = b;
          q.items[at]  = static_cast<int>(n);
          q.place[at]  = static_cast<short>(threadIdx.x);
        }
        else
        {
          const int at    = atomicAdd(&warps.count, 1);
          warps.first[at] = b;
          warps.items[at] = n;
          warps.place[at] = static_cast<short>(threadIdx.x);
        }
      }
      else if constexpr (SeedListed)
      {
        out[s] = init;
      }
    }
    __syncthreads();
    reduce_queue<4, block_threads, lane_items, T>(first, groups[0], batch, out, init, op);
    reduce_queue<8, block_threads, lane_items, T>(first, groups[1], batch, out, init, op);
    reduce_queue<16, block_threads, lane_items, T>(first, groups[2], batch, out, init, op);
    reduce_queue<warp_threads, block_threads, lane_items, T>(first, warps, batch, out, init, op);
    __syncthreads();
    batch += block_threads;
  }
}

/// Per class of part length: (segments << 32) | parts, over a run of listed segments.
struct part_class_tally
{
  unsigned long long of[long_segment_part_classes];

  __device__ part_class_tally operator+(const part_class_tally& other) const
  {
    part_class_tally sum;
#pragma unroll
    for (int c = 0; c < long_segment_part_classes; ++c)
    {
      sum.of[c] = of[c] + other.of[c];
    }
    return sum;
  }
};

/// ceil(a / b) for positive b, in 32 bits where both fit (the plan divides for every listed segment).
__device__ __forceinline__ offset_t ceil_div(offset_t a, offset_t b)
{
  if (((a | b) >> 32) == 0)
  {
    const unsigned a32 = static_cast<unsigned>(a), b32 = static_cast<unsigned>(b);
    return static_cast<offset_t>(a32 / b32 + (a32 % b32 != 0));
  }
  return (a + b - 1) / b;
}

/// A block's fair share of `total` listed items over `blocks` blocks (at least one item).
__device__ __forceinline__ offset_t fair_share(offset_t total, offset_t blocks)
{
  return total > blocks ? ceil_div(total, blocks) : 1;
}

/// (1 << 32) | parts at `share` for a segment of at least `share` items, 0 otherwise: summed over
/// the list, (long segments << 32) | their parts, at most 8192 and G + 8192.
__device__ __forceinline__ offset_t long_tally_of(offset_t items, offset_t share)
{
  return items >= share ? (offset_t{1} << 32) | ceil_div(items, share) : 0;
}

/// The part length the plan aims at: the fair share, or W / (G - b) where the b long segments'
/// parts at the fair share would not fit one wave (W / (G - b) leaves them at most
/// W / target + b <= G parts).
__device__ __forceinline__ offset_t part_target(offset_t total, offset_t share, offset_t long_tally, offset_t blocks)
{
  const offset_t long_parts = long_tally & 0xffffffff, long_segments = long_tally >> 32;
  const offset_t room = blocks - long_segments > 1 ? blocks - long_segments : 1;
  return long_parts <= blocks ? share : ceil_div(total, room);
}

struct part_count
{
  offset_t parts;
  int part_class;
};

/// A listed segment's parts (at most one per tile) and their class: class c holds parts of
/// [target / 2^(c+1), target / 2^c) items, the last class the rest.
template <class Item>
__device__ __forceinline__ part_count parts_of(offset_t items, offset_t target)
{
  const offset_t tiles      = tile_count(items, tile_items<Item>);
  offset_t parts            = ceil_div(items, target);
  parts                     = parts < tiles ? parts : tiles;
  parts                     = parts < max_tree_parts ? parts : max_tree_parts;
  const offset_t part_items = items / parts;
  int c                     = 0;
  while (c < long_segment_part_classes - 1 && (part_items << (c + 1)) < target)
  {
    ++c;
  }
  return {parts, c};
}

/// The plan of a list of at most 32 segments, by one warp, a segment per lane: the block's
/// collectives over 64-byte class tallies took 7.5 us to plan a single segment (H100, ncu), a
/// fixed cost in front of every call with few long segments. The same queue as the block's.
template <class Item>
__device__ void plan_short_list(const long_segment_list& list, offset_t listed)
{
  using warp_scan = cub::WarpScan<offset_t>;
  __shared__ typename warp_scan::TempStorage scan;
  const int lane        = static_cast<int>(threadIdx.x);
  const bool has        = lane < listed;
  const offset_t items  = has ? list.items[lane] : 0;
  const offset_t blocks = list.parts_target;
  offset_t ignored, total, long_tally;
  // (__syncwarp before each reuse of the scan's storage, as CUB asks.)
  warp_scan(scan).InclusiveSum(items, ignored, total);
  __syncwarp();
  const offset_t share = fair_share(total, blocks);
  warp_scan(scan).InclusiveSum(has ? long_tally_of(items, share) : 0, ignored, long_tally);
  const offset_t target = part_target(total, share, long_tally, blocks);
  const part_count p    = has ? parts_of<Item>(items, target) : part_count{0, long_segment_part_classes};
  // Classes in order, each in list order: a lane's place counts the segments, and its first part
  // the parts, of the classes before its own and of the lanes before it in its own.
  offset_t placed = 0, queued = 0, place = 0, first_part = 0;
  for (int q = 0; q < long_segment_part_classes; ++q)
  {
    const bool mine        = p.part_class == q;
    const unsigned members = __ballot_sync(0xffffffffu, mine);
    offset_t through_me, class_parts;
    __syncwarp();
    warp_scan(scan).InclusiveSum(mine ? p.parts : 0, through_me, class_parts);
    if (mine)
    {
      place      = placed + __popc(members & ((1u << lane) - 1u));
      first_part = queued + through_me - p.parts;
    }
    placed += __popc(members);
    queued += class_parts;
  }
  if (has)
  {
    list.order[place]       = lane;
    list.part_prefix[place] = first_part;
  }
  if (lane == 0)
  {
    list.part_prefix[listed] = queued;
  }
}

/// Cuts every listed segment into parts and queues them, longest first. A segment of L items gets
/// ceil(L / target) parts (at most one per tile): target is a block's fair share of the listed
/// items, W / G for G blocks, or W / (G - b) where the parts of the b segments longer than W / G
/// would not fit one wave (64 segments of 2^20 items on 528 blocks: 9 parts each at W / G, a
/// second round for 48 blocks; 8 at the larger target). Each segment's parts lie together in the
/// queue; the queue holds the classes of part length in order, each class in list order. One
/// block; each thread plans a run of consecutive listed segments, so one block scan places them.
/// The run's lengths are loaded once, all loads in flight: a loop over the run in global memory
/// took 11.5 us for 573 listed segments (H100, ncu), one unrolled over registers 73 us.
template <class Item>
__global__ void __launch_bounds__(segment_block_threads) long_segments_plan_kernel(long_segment_list list)
{
  constexpr int threads = segment_block_threads;
  constexpr int classes = long_segment_part_classes;
  constexpr int run     = long_segment_capacity / segment_block_threads;
  static_assert(run * segment_block_threads == long_segment_capacity, "each thread plans at most `run` segments");
  using block_sum  = cub::BlockReduce<offset_t, threads>;
  using block_scan = cub::BlockScan<part_class_tally, threads>;
  __shared__ union
  {
    typename block_sum::TempStorage sum;
    typename block_scan::TempStorage scan;
  } temp;
  __shared__ offset_t shared_total, shared_target;
  const offset_t listed = list.listed();
  if (listed <= warp_threads)
  {
    if (threadIdx.x < warp_threads)
    {
      plan_short_list<Item>(list, listed);
    }
    return;
  }
  const offset_t blocks     = list.parts_target;
  const offset_t per_thread = (listed + threads - 1) / threads;
  const offset_t run_begin  = min(listed, offset_t{threadIdx.x} * per_thread);
  const int run_length      = static_cast<int>(min(listed, run_begin + per_thread) - run_begin);

  offset_t items[run];
#pragma unroll
  for (int k = 0; k < run; ++k)
  {
    if (k < run_length)
    {
      items[k] = list.items[run_begin + k];
    }
  }
  offset_t sum = 0;
  for (int k = 0; k < run_length; ++k)
  {
    sum += items[k];
  }
  sum = block_sum(temp.sum).Sum(sum);
  if (threadIdx.x == 0)
  {
    shared_total = sum;
  }
  __syncthreads();
  const offset_t total = shared_total;
  const offset_t share = fair_share(total, blocks);
  offset_t long_tally  = 0;
  for (int k = 0; k < run_length; ++k)
  {
    long_tally += long_tally_of(items[k], share);
  }
  long_tally = block_sum(temp.sum).Sum(long_tally);
  if (threadIdx.x == 0)
  {
    shared_target = part_target(total, share, long_tally, blocks);
  }
  __syncthreads();
  const offset_t target = shared_target;

  // `items` keeps (class << 48) | parts from here on.
  part_class_tally tally{};
  for (int k = 0; k < run_length; ++k)
  {
    const part_count p = parts_of<Item>(items[k], target);
#pragma unroll
    for (int q = 0; q < classes; ++q)
    {
      tally.of[q] += q == p.part_class ? (1ull << 32) | static_cast<unsigned long long>(p.parts) : 0ull;
    }
    items[k] = (offset_t{p.part_class} << 48) | p.parts;
  }
  part_class_tally before{}, all{};
  block_scan(temp.scan).ExclusiveSum(tally, before, all);
  // This thread's next (place << 32) | first part, per class.
  unsigned long long next[classes];
  unsigned long long queued = 0;
#pragma unroll
  for (int c = 0; c < classes; ++c)
  {
    next[c] = queued + before.of[c];
    queued += all.of[c];
  }
  if (threadIdx.x == 0)
  {
    list.part_prefix[listed] = static_cast<offset_t>(queued & 0xffffffffull);
  }
  for (int k = 0; k < run_length; ++k)
  {
    const int c                   = static_cast<int>(items[k] >> 48);
    const unsigned long long step = (1ull << 32) | static_cast<unsigned long long>(items[k] & 0xffffffffffff);
    unsigned long long at         = 0;
#pragma unroll
    for (int q = 0; q < classes; ++q)
    {
      if (q == c)
      {
        at = next[q];
        next[q] += step;
      }
    }
    const offset_t place    = static_cast<offset_t>(at >> 32);
    list.order[place]       = run_begin + k;
    list.part_prefix[place] = static_cast<offset_t>(at & 0xffffffffull);
  }
}

/// Calls body(agent, start) with the block body that reads the listed segment starting at
/// first + segment_first: VectorAgent's 16-byte vectors where the items' array at that start lies
/// on the 16-byte grid (the segment's tiles count from its first item), ElementAgent's element
/// loads of the same input otherwise.
template <class VectorAgent, class ElementAgent, class Input, class Body>
__device__ __forceinline__ auto with_segment_agent(Input first, offset_t segment_first, Body&& body)
{
  const Input start = first + segment_first;
  if constexpr (VectorAgent::vectorized)
  {
    if (reinterpret_cast<std::uintptr_t>(vector_source<Input>::items(start)) % vector_bytes == 0)
    {
      return body(VectorAgent{}, start);
    }
    return body(ElementAgent{}, element_input(start));
  }
  else
  {
    return body(VectorAgent{}, start);
  }
}

/// One part of a listed segment through rk::reduce's block body (the reproducible tree).
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__device__ maybe<T> reduce_segment_part(Input first, offset_t segment_first, const tree_plan& plan, offset_t part,
                                        const tree_outputs<T>& out, Op& op)
{
  return with_segment_agent<VectorAgent, ElementAgent>(first, segment_first, [&](auto agent, auto start) {
    return decltype(agent)::reduce_part(start, plan, part, out, op);
  });
}

/// rk::atomic: part `part` of a listed segment's `parts` through the grid-ordered block body. The
/// plan counts parts in tiles and the body in chunks: a part past the body's blocks reads nothing
/// and yields nothing. Result valid in thread 0.
template <class VectorAgent, class ElementAgent, class T, class Input, class Op>
__device__ maybe<T> reduce_segment_range(Input first, offset_t segment_first, offset_t n, offset_t parts, offset_t part,
                                         Op& op)
{
  return with_segment_agent<VectorAgent, ElementAgent>(first, segment_first, [&](auto agent, auto start) {
    using agent_type          = decltype(agent);
    constexpr int chunk_items = agent_type::chunk_items;
    const offset_t chunks     = n / chunk_items;
    const offset_t blocks     = parts < chunks ? parts : chunks > 0 ? chunks : 1;
    maybe<T> total;
    if (part < blocks)
    {
      total.set(
        agent_type::reduce_block(start, range_plan{n, chunks, static_cast<int>(blocks)}, static_cast<int>(part), op));
    }
    return total;
  });
}

/// The queue place of the listed segment that owns part `job`: the last i with part_prefix[i] <= job.
__device__ inline offset_t listed_segment_of(const long_segment_list& list, offset_t listed, offset_t job)
{
  offset_t lo = 0, hi = listed;
  while (hi - lo > 1)
  {
    const offset_t mid = (lo + hi) / 2;
    if (list.part_prefix[mid] <= job)
    {
      lo = mid;
    }
    else
    {
      hi = mid;
    }
  }
  return lo;
}

/// The listed segments' parts, taken from the plan's queue until it is empty. Every part runs one
/// block body (the reproducible tree's, or for part_join::atomic the grid-ordered one); `Join`
/// is the backend's epilogue. The last block to leave returns the list's counters to zero, unless
/// the finish kernel comes after it.
template <class VectorAgent, class ElementAgent, part_join Join, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads,
                                  long_segment_min_blocks_per_sm* VectorAgent::block_threads <= 2048
                                    ? long_segment_min_blocks_per_sm
                                    : 2048 / VectorAgent::block_threads)
  long_segments_kernel(Input first, long_segment_list list, T* values, Out out, Init init, Op op)
{
  static_assert(VectorAgent::block_threads == ElementAgent::block_threads, "both agents share the block");
  constexpr int block_threads = VectorAgent::block_threads;
  using item                  = typename VectorAgent::item;
  __shared__ offset_t taken;
  const offset_t listed = list.listed();
  const offset_t jobs   = list.part_prefix[listed];
  for (;;)
  {
    // Parts differ in length (a short listed segment is one part), so a block takes the next
    // part when it is done rather than every gridDim.x-th.
    if (threadIdx.x == 0)
    {
      taken = atomicAdd(list.parts_taken, 1u);
    }
    __syncthreads();
    const offset_t job = taken;
    if (job >= jobs)
    {
      break;
    }
    const offset_t place  = listed_segment_of(list, listed, job);
    const offset_t entry  = list.order[place];
    const offset_t prefix = list.part_prefix[place];
    const offset_t parts  = list.part_prefix[place + 1] - prefix;
    const offset_t part   = job - prefix;
    const offset_t n      = list.items[entry];
    const offset_t s      = list.segment[entry];
    if constexpr (Join == part_join::atomic)
    {
      (void) values;
      (void) init;
      const maybe<T> total = reduce_segment_range<VectorAgent, ElementAgent, T>(first, list.first_item[entry], n, parts,
                                                                                part, op);
      if (threadIdx.x == 0 && total.valid)
      {
        // The short kernel seeded out[s] with init (stream order makes that visible here).
        atomic_combine(&out[s], total.slot.value, op);
      }
    }
    else
    {
      const tree_plan plan          = {n, make_tile_split(tile_count(n, tile_items<item>), parts)};
      const tile_split& split       = plan.split;
      const tree_outputs<T> outputs = list.outputs(values, place, prefix);
      const maybe<T> root = reduce_segment_part<VectorAgent, ElementAgent>(first, list.first_item[entry], plan, part,
                                                                           outputs, op);
      if (split.nodes() == 1)
      {
        if (threadIdx.x == 0)
        {
          out[s] = apply_init(init, root.slot.value, op);
        }
      }
      else if constexpr (Join == part_join::last_block)
      {
        // As single_pass_kernel; the last block of the segment finishes its tree and resets the
        // segment's counter.
        if (part_arrives_last(list.segment_arrivals[entry], static_cast<unsigned>(parts)))
        {
          const T all = finish_split<block_threads, T>(split, outputs, op);
          if (threadIdx.x == 0)
          {
            out[s] = apply_init(init, all, op);
          }
        }
      }
    }
    __syncthreads(); // the block body's shared memory serves the next part
  }
  if constexpr (Join != part_join::finish_kernel)
  {
    if (threadIdx.x == 0)
    {
      list.depart(gridDim.x);
    }
  }
}

/// two_pass: finishes every listed segment of more than one node: its cut nodes, then its final
/// tree. A block per listed segment.
template <int BlockThreads, class Item, class T, class Out, class Init, class Op>
__global__ void __launch_bounds__(BlockThreads)
  long_segments_finish_kernel(long_segment_list list, T* values, Out out, Init init, Op op)
{
  const offset_t listed = list.listed();
  for (offset_t place = blockIdx.x; place < listed; place += gridDim.x)
  {
    const offset_t entry   = list.order[place];
    const offset_t prefix  = list.part_prefix[place];
    const offset_t parts   = list.part_prefix[place + 1] - prefix;
    const tile_split split = make_tile_split(tile_count(list.items[entry], tile_items<Item>), parts);
    if (split.nodes() == 1)
    {
      continue; // long_segments_kernel stored it
    }
    const T all = finish_split<BlockThreads, T>(split, list.outputs(values, place, prefix), op);
    if (threadIdx.x == 0)
    {
      out[list.segment[entry]] = apply_init(init, all, op);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
  {
    list.depart(gridDim.x);
  }
}
} // namespace rk::detail

#pragma once
// The long list of rk::segmented_reduce (and of rk::reduce_by_key's long runs): segments too long
// for a warp, offered by the short-segment kernel, then cut into parts of about a block's fair
// share of the listed items by a one-block plan and queued longest first; the long-segment
// kernel's blocks take parts from that queue (rk/cuda/kernels/segmented_reduce.cuh).

#include <rk/cuda/agent/tile_tree.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/integer.hpp>
#include <rk/detail/tree.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstddef>

namespace rk::detail
{
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

  /// Counter words the list takes from the call's scratch counters (appended, parts_taken,
  /// departures, then an arrival word per listed segment), all zero between calls.
  static constexpr std::size_t counter_words = 3 + long_segment_capacity;
  /// Bytes of its arrays (segment, first_item, items, order, part_prefix) in the call's scratch.
  static constexpr std::size_t array_bytes = align_up((5 * long_segment_capacity + 1) * sizeof(offset_t), 256);

  /// The list over `array_bytes` of scratch at `arrays` and `counter_words` zeroed words at
  /// `counters`, for a long-segment kernel of `blocks` blocks.
  static long_segment_list lay_out(void* arrays, unsigned* counters, offset_t blocks)
  {
    constexpr offset_t capacity = long_segment_capacity;
    auto* a                     = static_cast<offset_t*>(arrays);
    long_segment_list list{};
    list.appended         = counters;
    list.parts_taken      = counters + 1;
    list.departures       = counters + 2;
    list.segment_arrivals = counters + 3;
    list.segment          = a;
    list.first_item       = a + capacity;
    list.items            = a + 2 * capacity;
    list.order            = a + 3 * capacity;
    list.part_prefix      = a + 4 * capacity;
    list.parts_target     = blocks;
    return list;
  }

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

/// A count of listed segments and a count of their parts in one word, (segments << 32) | parts,
/// so that one sum (a scan, a tally) adds both. Neither passes 32 bits: the list holds at most
/// long_segment_capacity segments, and they get at most parts_capacity() parts. The plan also
/// uses it for a queue position: the segments and the parts queued before a place.
struct segments_and_parts
{
  unsigned long long word;

  __device__ static segments_and_parts of(offset_t segments, offset_t parts)
  {
    return {(static_cast<unsigned long long>(segments) << 32) | static_cast<unsigned long long>(parts)};
  }
  __device__ offset_t segments() const
  {
    return static_cast<offset_t>(word >> 32);
  }
  __device__ offset_t parts() const
  {
    return static_cast<offset_t>(word & 0xffffffffull);
  }
  __device__ segments_and_parts operator+(const segments_and_parts& other) const
  {
    return {word + other.word};
  }
};

/// Per class of part length: the segments of that class and their parts, over a run of listed
/// segments.
struct part_class_tally
{
  segments_and_parts of[long_segment_part_classes];

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

/// A block's fair share of `total` listed items over `blocks` blocks (at least one item).
__device__ __forceinline__ offset_t fair_share(offset_t total, offset_t blocks)
{
  return total > blocks ? ceil_div(total, blocks) : 1;
}

/// One segment and its parts at `share` for a segment of at least `share` items, nothing
/// otherwise: summed over the list, the long segments and their parts (the sum travels through
/// CUB's sums as the raw word).
__device__ __forceinline__ segments_and_parts long_tally_of(offset_t items, offset_t share)
{
  return items >= share ? segments_and_parts::of(1, ceil_div(items, share)) : segments_and_parts{0};
}

/// The part length the plan aims at: the fair share, or W / (G - b) where the b long segments'
/// parts at the fair share would not fit one wave (W / (G - b) leaves them at most
/// W / target + b <= G parts).
__device__ __forceinline__ offset_t part_target(offset_t total, offset_t share, segments_and_parts long_tally,
                                                offset_t blocks)
{
  const offset_t long_parts = long_tally.parts(), long_segments = long_tally.segments();
  const offset_t room = blocks - long_segments > 1 ? blocks - long_segments : 1;
  return long_parts <= blocks ? share : ceil_div(total, room);
}

/// A listed segment's parts and their class of part length; packed into one word, (class << 48) |
/// parts, where the plan keeps it in the register that held the segment's length.
struct part_count
{
  offset_t parts;
  int part_class;

  __device__ offset_t packed() const
  {
    return (offset_t{part_class} << 48) | parts;
  }
  __device__ static part_count unpack(offset_t word)
  {
    return {word & ((offset_t{1} << 48) - 1), static_cast<int>(word >> 48)};
  }
};

/// A listed segment's parts (at most one per tile) and their class: class c holds parts of
/// [target / 2^(c+1), target / 2^c) items, the last class the rest.
template <class Item>
__device__ __forceinline__ part_count parts_of(offset_t items, offset_t target)
{
  const offset_t tiles      = ceil_div<tile_items<Item>>(items);
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
  const auto mine_long = static_cast<offset_t>(has ? long_tally_of(items, share).word : 0);
  warp_scan(scan).InclusiveSum(mine_long, ignored, long_tally);
  const offset_t target = part_target(total, share, segments_and_parts{static_cast<unsigned long long>(long_tally)},
                                      blocks);
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
__device__ __forceinline__ void plan_long_segments(const long_segment_list& list)
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
  const offset_t per_thread = ceil_div(listed, offset_t{threads});
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
  segments_and_parts long_tally{0};
  for (int k = 0; k < run_length; ++k)
  {
    long_tally = long_tally + long_tally_of(items[k], share);
  }
  long_tally.word = static_cast<unsigned long long>(block_sum(temp.sum).Sum(static_cast<offset_t>(long_tally.word)));
  if (threadIdx.x == 0)
  {
    shared_target = part_target(total, share, long_tally, blocks);
  }
  __syncthreads();
  const offset_t target = shared_target;

  // `items` keeps each segment's part_count, packed, from here on (registers, not a second array).
  part_class_tally tally{};
  for (int k = 0; k < run_length; ++k)
  {
    const part_count p = parts_of<Item>(items[k], target);
#pragma unroll
    for (int q = 0; q < classes; ++q)
    {
      tally.of[q] = tally.of[q] + (q == p.part_class ? segments_and_parts::of(1, p.parts) : segments_and_parts{0});
    }
    items[k] = p.packed();
  }
  part_class_tally before{}, all{};
  block_scan(temp.scan).ExclusiveSum(tally, before, all);
  // Per class, this thread's next queue place and first part.
  segments_and_parts next[classes];
  segments_and_parts queued{0};
#pragma unroll
  for (int c = 0; c < classes; ++c)
  {
    next[c] = queued + before.of[c];
    queued  = queued + all.of[c];
  }
  if (threadIdx.x == 0)
  {
    list.part_prefix[listed] = queued.parts();
  }
  for (int k = 0; k < run_length; ++k)
  {
    const part_count p = part_count::unpack(items[k]);
    segments_and_parts at{0};
#pragma unroll
    for (int q = 0; q < classes; ++q)
    {
      if (q == p.part_class)
      {
        at      = next[q];
        next[q] = next[q] + segments_and_parts::of(1, p.parts);
      }
    }
    list.order[at.segments()]       = run_begin + k;
    list.part_prefix[at.segments()] = at.parts();
  }
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
} // namespace rk::detail

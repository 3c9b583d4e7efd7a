#pragma once
// The long list of rk::segmented_reduce (and of rk::reduce_by_key's long runs): segments too long
// for a warp. The short-segment kernel cuts each one into parts where it finds it, and queues the
// parts with one atomic; the long-segment kernel's blocks take them in queue order
// (rk/cuda/kernels/segmented_reduce.cuh). There is no plan step: a segment's parts depend on its
// own length only, so no block has to see the whole list first.
//
// A part is one node of the segment's tree (long_segment_split): 2^long_segment_part_level tiles,
// or for a segment of more than long_segment_max_parts such nodes the least larger power of two of
// tiles that keeps it within that many parts. No part boundary cuts a node, so the parts store one
// node value each and no pieces, and the tree's bits are the same as any other grouping's.

#include <rk/cuda/agent/tile_tree.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/integer.hpp>
#include <rk/detail/tree.hpp>

#include <cstddef>

namespace rk::detail
{
/// How a listed segment of `tiles` tiles is cut: parts of one node each, of level
/// long_segment_part_level or, past long_segment_max_parts such nodes, the least level that keeps
/// the parts within that bound (a segment of at most one node's tiles is one part).
RK_HOST_DEVICE constexpr tile_split long_segment_split(offset_t tiles)
{
  int level = long_segment_part_level;
  while (((tiles - 1) >> level) + 1 > long_segment_max_parts)
  {
    ++level;
  }
  return tile_split{tiles, ((tiles - 1) >> level) + 1, level, level, 1, 0};
}

/// Parts a call's long list holds: as many as its segments can take, at most
/// long_segment_part_capacity.
inline offset_t long_segment_parts_for(offset_t max_segments)
{
  return max_segments < long_segment_part_capacity / long_segment_max_parts ? max_segments * long_segment_max_parts
                                                                            : long_segment_part_capacity;
}

/// The long list and what the long-segment kernels keep per listed segment, in the call's
/// scratch. A listed segment's record and arrival word live at the index of its first part.
struct long_segment_list
{
  /// A part whose segment did not fit the list (the segment went to a warp): its blocks skip it.
  static constexpr unsigned no_owner = 0xffffffffu;

  unsigned long long* offered; ///< parts asked for by the segments offered (zero when the call starts)
  unsigned* listed_count;      ///< segments listed (zero)
  unsigned* parts_taken;       ///< parts the long-segment kernel's blocks have taken (zero)
  unsigned* departures;        ///< blocks of the list's last kernel that have left (zero)
  unsigned* segment_arrivals;  ///< [capacity] parts finished, at a listed segment's first part (zero)
  offset_t* segment;           ///< [capacity] the segment's index, at its first part
  offset_t* first_item;        ///< [capacity] its first item, at its first part
  offset_t* items;             ///< [capacity] its length, at its first part
  unsigned* owner;             ///< [capacity] each part's segment's first part, or no_owner
  unsigned* listed;            ///< [capacity] the first part of each listed segment, in list order
  offset_t capacity;           ///< parts

  /// Counter words the list takes from the call's scratch counters: offered (two words), then
  /// listed_count, parts_taken, departures, and an arrival word per part; all zero between calls.
  static std::size_t counter_words(offset_t capacity)
  {
    return 5 + static_cast<std::size_t>(capacity);
  }
  /// Bytes of its arrays in the call's scratch.
  static std::size_t array_bytes(offset_t capacity)
  {
    const auto parts = static_cast<std::size_t>(capacity);
    return align_up(3 * parts * sizeof(offset_t) + 2 * parts * sizeof(unsigned), std::size_t{256});
  }

  /// The list of `capacity` parts over array_bytes(capacity) of scratch at `arrays` and
  /// counter_words(capacity) zeroed words at `counters` (256-byte aligned, as the lease gives them).
  static long_segment_list lay_out(void* arrays, unsigned* counters, offset_t capacity)
  {
    auto* a = static_cast<offset_t*>(arrays);
    long_segment_list list{};
    list.offered          = reinterpret_cast<unsigned long long*>(counters);
    list.listed_count     = counters + 2;
    list.parts_taken      = counters + 3;
    list.departures       = counters + 4;
    list.segment_arrivals = counters + 5;
    list.segment          = a;
    list.first_item       = a + capacity;
    list.items            = a + 2 * capacity;
    list.owner            = reinterpret_cast<unsigned*>(a + 3 * capacity);
    list.listed           = list.owner + capacity;
    list.capacity         = capacity;
    return list;
  }

  /// One thread of each block of the last kernel that reads the list, as it leaves: the last
  /// block out returns the list's counters to zero for the scratch's next user (every block has
  /// read them and taken its last part by then; the arrival words zero themselves).
  __device__ void depart(unsigned blocks) const
  {
    if (arrive_last(*departures, blocks))
    {
      *offered      = 0;
      *listed_count = 0;
      *parts_taken  = 0;
    }
  }

  /// Whether no segment was offered: then the short kernel left every counter at zero, and the
  /// list's kernels have nothing to take and nothing to return to zero. Only the last block out of
  /// a non-empty list changes `offered`, after every block has passed its first barrier, so every
  /// block that has work reads the same answer.
  __device__ bool nothing_offered() const
  {
    return *offered == 0;
  }

  /// Parts in the queue (those of segments that did not fit are marked no_owner).
  __device__ unsigned parts_queued() const
  {
    const unsigned long long asked = *offered;
    return static_cast<unsigned>(asked < static_cast<unsigned long long>(capacity) ? asked : capacity);
  }
  __device__ unsigned segments_listed() const
  {
    return *listed_count;
  }

  /// A run of parts to mark with their owner [begin, begin + count): the thread that listed a
  /// segment marks up to owner_marks_per_thread itself, its warp the longer runs.
  struct owner_run
  {
    unsigned begin;
    unsigned count;
    unsigned owner;
  };
  static constexpr unsigned owner_marks_per_thread = 64;

  /// Offers segment `s` (`n` items from `first`, `tiles` tiles) to the list: records it and marks
  /// its parts' owner, or marks what it took of the list's end as no_owner when it does not fit.
  /// Returns whether it was listed; `wide` gets a run of marks too long for one thread (count 0
  /// when there is none).
  __device__ bool append(offset_t s, offset_t first, offset_t n, offset_t tiles, owner_run& wide) const
  {
    wide.count             = 0;
    const tile_split split = long_segment_split(tiles);
    if (split.node_level > max_node_level)
    {
      return false; // more than 2^32 tiles: beyond the block body's node levels, a warp takes it
    }
    const auto parts            = static_cast<unsigned>(split.parts);
    const unsigned long long at = atomicAdd(offered, static_cast<unsigned long long>(parts));
    const auto cap              = static_cast<unsigned long long>(capacity);
    const bool fits             = at + parts <= cap;
    const unsigned begin        = static_cast<unsigned>(at < cap ? at : cap);
    const unsigned marks        = fits ? parts : static_cast<unsigned>(cap - begin);
    const unsigned mark         = fits ? begin : no_owner;
    if (fits)
    {
      segment[begin]                      = s;
      first_item[begin]                   = first;
      items[begin]                        = n;
      listed[atomicAdd(listed_count, 1u)] = begin;
    }
    if (marks <= owner_marks_per_thread)
    {
      for (unsigned k = 0; k < marks; ++k)
      {
        owner[begin + k] = mark;
      }
    }
    else
    {
      wide = {begin, marks, mark};
    }
    return fits;
  }
};
} // namespace rk::detail

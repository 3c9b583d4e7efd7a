#pragma once
// rk::segmented_reduce's kernels and their epilogues (also run by rk::reduce_by_key for its long
// runs). Every segment is reduced with rk::reduce's tree counted from
// the segment's own first item (rk/detail/tree.hpp): lanes fold 32 bytes of items, a tile
// combines 32 lanes pairwise, tiles combine pairwise. So out[s] has rk::reduce's bits over the
// same items, whichever kernel and backend computed it.
//
// Two kinds of work, chosen per segment on the device (the host does not know the lengths):
//  - short_segments_kernel: warps take equal runs of segments, 32 at a time, and reduce each on
//    one thread, on lanes packed with other segments' or on the whole warp, by its length
//    (rk/cuda/agent/segment_groups.cuh); segments longer than long_segment_min_tiles tiles go on
//    the long list instead, while it has room (rk/cuda/agent/segment_planner.cuh).
//  - the long list: the short kernel cuts every listed segment into node-aligned parts as it
//    lists it (long_segment_split) and queues them; long_segments_kernel's blocks take parts in
//    queue order and run rk::reduce's block body (tree_reduce_part) on each. A segment's parts
//    are put together as rk::reduce's are: by a second kernel (two_pass), or by the last of its
//    blocks to finish (single_pass: an arrival counter per listed segment, reset by its last
//    user). rk::atomic runs the grid-ordered block body instead (as rk::reduce's atomic backend
//    does): the short kernel seeds a listed segment's output with init, and every part combines
//    its total into it with an atomic.
// A call of at most few_segments_max segments (CSR and CUB forms, rk::reduce's tree) has neither:
// few_segments_kernel's blocks read every segment's bounds and cut each into parts as long as a
// block's share of the items (rk/cuda/agent/few_segments.cuh).

#include <rk/cuda/agent/few_segments.cuh>
#include <rk/cuda/agent/segment_groups.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/segment_planner.cuh>
#include <rk/cuda/agent/segment_rows.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/atomic_combine.cuh>
#include <rk/cuda/tuning.cuh>

namespace rk::detail
{
/// The short segments (and the offers to the long list): reduce_short_segments per block.
template <class Item, class T, bool SeedListed, class Input, class Segments, class Out, class Init, class Op>
__global__ void __launch_bounds__(segment_block_threads, short_segment_min_blocks_per_sm)
  short_segments_kernel(Input first, Segments segments, Out out, Init init, long_segment_list list,
                        unsigned long long* error_word, Op op)
{
  allow_dependent_grid(); // the long-segment kernel's blocks may take their place as these leave
  reduce_short_segments<Item, T, SeedListed>(first, segments, out, init, list, error_word, op);
}

/// The listed segments' parts, taken in queue order until it is empty. Every part runs one block
/// body (the reproducible tree's, or for part_join::atomic the grid-ordered one); `Join` is the
/// backend's epilogue. The last block to leave returns the list's counters to zero, unless the
/// finish kernel comes after it; when nothing was offered, every block returns at once and the
/// counters stay as the short kernel left them, at zero.
template <class VectorAgent, class ElementAgent, part_join Join, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads,
                                  long_segment_min_blocks_per_sm* VectorAgent::block_threads <= 2048
                                    ? long_segment_min_blocks_per_sm
                                    : 2048 / VectorAgent::block_threads)
  long_segments_kernel(Input first, long_segment_list list, T* values, Out out, Init init, Op op)
{
  static_assert(VectorAgent::block_threads == ElementAgent::block_threads, "both agents share the block");
  using item = typename VectorAgent::item;
  __shared__ unsigned taken;
  wait_for_prior_grid(); // the short-segment kernel's list
  if (list.nothing_offered())
  {
    return; // its counters are as the call found them: nothing to take, nobody to reset them
  }
  const unsigned jobs = list.parts_queued();
  if (threadIdx.x == 0)
  {
    taken = atomicAdd(list.parts_taken, 1u);
  }
  __syncthreads();
  for (unsigned job = taken; job < jobs;)
  {
    // The next part's number is on its way while this one runs: a part is at most 128 tiles for
    // most segments, and a round trip per part would leave the block idle for it.
    unsigned next = 0;
    if (threadIdx.x == 0)
    {
      next = atomicAdd(list.parts_taken, 1u);
    }
    const unsigned at = list.owner[job];
    if (at != long_segment_list::no_owner)
    {
      const offset_t n       = list.items[at];
      const offset_t s       = list.segment[at];
      const offset_t b       = list.first_item[at];
      const tile_split split = long_segment_split(ceil_div<tile_items<item>>(n));
      const offset_t part    = job - at;
      if constexpr (Join == part_join::atomic)
      {
        (void) values;
        (void) init;
        const maybe<T> total = reduce_segment_range<VectorAgent, ElementAgent, T>(first, b, n, split.parts, part, op);
        if (threadIdx.x == 0 && total.valid)
        {
          // The short kernel seeded out[s] with init (visible once wait_for_prior_grid returned).
          atomic_combine(&out[s], total.slot.value, op);
        }
      }
      else
      {
        reduce_tree_part<Join, VectorAgent, ElementAgent>(first, b, tree_plan{n, split}, part,
                                                          tree_outputs<T>{values + at, nullptr},
                                                          list.segment_arrivals + at, out, s, init, op);
      }
    }
    __syncthreads(); // the block body's shared memory serves the next part, and `taken` changes
    if (threadIdx.x == 0)
    {
      taken = next;
    }
    __syncthreads();
    job = taken;
  }
  if constexpr (Join != part_join::finish_kernel)
  {
    if (threadIdx.x == 0)
    {
      list.depart(gridDim.x);
    }
  }
}

/// two_pass: finishes every listed segment of more than one part: the tree over its parts' nodes.
/// A block per listed segment.
template <int BlockThreads, class Item, class T, class Out, class Init, class Op>
__global__ void __launch_bounds__(BlockThreads)
  long_segments_finish_kernel(long_segment_list list, T* values, Out out, Init init, Op op)
{
  if (list.nothing_offered())
  {
    return;
  }
  const unsigned listed = list.segments_listed();
  for (unsigned place = blockIdx.x; place < listed; place += gridDim.x)
  {
    const unsigned at      = list.listed[place];
    const tile_split split = long_segment_split(ceil_div<tile_items<Item>>(list.items[at]));
    if (split.parts == 1)
    {
      continue; // long_segments_kernel stored it
    }
    const T all = finish_split<BlockThreads, T>(split, tree_outputs<T>{values + at, nullptr}, op);
    if (threadIdx.x == 0)
    {
      out[list.segment[at]] = apply_init(init, all, op);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
  {
    list.depart(gridDim.x);
  }
}

// The CSR and CUB forms' calls of few segments (rk/cuda/agent/few_segments.cuh): one kernel whose
// blocks lay the segments out themselves, and for rk::two_pass a second that joins their nodes.

/// A call of at most few_segments_max segments: every block lays them out (lay_out_few_segments,
/// for this grid) and takes jobs blockIdx.x, blockIdx.x + gridDim.x, ...: a part of a segment's
/// split through rk::reduce's block body and the backend's epilogue, as the long list's parts are
/// (reduce_tree_part: a segment of one node is stored by its part, of more joined at arrivals[s]
/// by its last part or by few_segments_finish_kernel). Then the segments no part reads: an empty
/// one gets init (a bad one is reported too), one too long for its parts' nodes a warp's windows.
template <class VectorAgent, class ElementAgent, part_join Join, class T, class Input, class Segments, class Out,
          class Init, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads,
                                  long_segment_min_blocks_per_sm* VectorAgent::block_threads <= 2048
                                    ? long_segment_min_blocks_per_sm
                                    : 2048 / VectorAgent::block_threads)
  few_segments_kernel(Input first, Segments segments, offset_t min_part_tiles, T* values, unsigned* arrivals, Out out,
                      Init init, unsigned long long* error_word, Op op)
{
  static_assert(Join != part_join::atomic, "rk::atomic's calls take the long list");
  using item = typename VectorAgent::item;
  __shared__ few_segments_layout layout;
  lay_out_few_segments<item>(segments, gridDim.x, min_part_tiles, layout);
  for (offset_t job = blockIdx.x; job < layout.jobs(); job += gridDim.x)
  {
    const int s             = layout.segment_of(job);
    const tree_plan& plan   = layout.plan[s];
    T* const segment_values = values + layout.first_value[s];
    reduce_tree_part<Join, VectorAgent, ElementAgent>(
      first, layout.first[s], plan, job - layout.first_part[s],
      tree_outputs<T>{segment_values, segment_values + plan.split.nodes()}, arrivals + s, out, s, init, op);
    __syncthreads(); // the block body's shared memory serves the next job
  }
  for (int s = static_cast<int>(blockIdx.x); s < layout.count; s += static_cast<int>(gridDim.x))
  {
    if (layout.by_warp[s])
    {
      if (threadIdx.x < warp_threads)
      {
        const int lane = static_cast<int>(threadIdx.x);
        // Inline: a call here (many_windows) made the kernel spill around it.
        const T all = warp_windows_root<tile_lane_items<item>, T>(first, layout.first[s], layout.plan[s].items, op,
                                                                  lane);
        if (lane == 0)
        {
          out[s] = apply_init(init, all, op);
        }
      }
    }
    else if (layout.plan[s].items <= 0 && threadIdx.x == 0)
    {
      if (layout.plan[s].items < 0)
      {
        report_bad_segment(error_word, s);
      }
      out[s] = empty_segment_value<T>(init);
    }
  }
}

/// two_pass: finishes every segment of few_segments_kernel's layout (`blocks`: its grid) whose
/// tree has more than one node, a block per segment.
template <int BlockThreads, class Item, class T, class Segments, class Out, class Init, class Op>
__global__ void __launch_bounds__(BlockThreads)
  few_segments_finish_kernel(Segments segments, offset_t blocks, offset_t min_part_tiles, T* values, Out out, Init init,
                             Op op)
{
  __shared__ few_segments_layout layout;
  lay_out_few_segments<Item>(segments, blocks, min_part_tiles, layout);
  for (int s = static_cast<int>(blockIdx.x); s < layout.count; s += static_cast<int>(gridDim.x))
  {
    const tile_split& split = layout.plan[s].split;
    if (layout.parts(s) == 0 || split.nodes() == 1)
    {
      continue; // no parts, or stored by its one part
    }
    T* const segment_values = values + layout.first_value[s];
    const T all = finish_split<BlockThreads, T>(split, tree_outputs<T>{segment_values, segment_values + split.nodes()},
                                                op);
    if (threadIdx.x == 0)
    {
      out[s] = apply_init(init, all, op);
    }
    __syncthreads();
  }
}

// The fixed-size form (rk/cuda/agent/segment_rows.cuh): one kernel per way of reading a row, the
// host picks it from the row length.

/// Rows of at most one lane's items: a thread per row.
template <int LaneItems, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(row_block_threads)
  lane_rows_kernel(Input first, fixed_segments rows, Out out, Init init, Op op)
{
  reduce_lane_rows<row_block_threads, LaneItems, T>(first, rows, out, init, op);
}

/// Rows of 2 to 16 lanes: a group of `width` lanes per row.
template <int LaneItems, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(row_block_threads)
  group_rows_kernel(Input first, fixed_segments rows, int width, Out out, Init init, Op op)
{
  reduce_group_rows<row_block_threads, LaneItems, T>(first, rows, width, out, init, op);
}

/// Rows of more than 16 lanes and at most long_segment_min_tiles tiles: a warp per row.
template <int LaneItems, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(row_block_threads)
  window_rows_kernel(Input first, fixed_segments rows, Out out, Init init, Op op)
{
  reduce_window_rows<row_block_threads, LaneItems, T>(first, rows, out, init, op);
}

/// Rows of more than a window of states that go a warp per chunk of windows (rows_launch): where a
/// row has more than one chunk, `arrivals` holds a zeroed word per row (part_join::last_block) and
/// `values` a value per chunk.
template <int LaneItems, part_join Join, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(row_block_threads)
  windows_rows_kernel(Input first, row_windows rows, T* values, unsigned* arrivals, Out out, Init init, Op op)
{
  reduce_windows_rows<row_block_threads, LaneItems, row_windows_levels, Join, T>(first, rows, values, arrivals, out,
                                                                                 init, op);
}

/// two_pass: joins the chunks of every row of more than one (row_windows::joined()), a warp per row.
template <class T, class Out, class Init, class Op>
__global__ void __launch_bounds__(row_block_threads)
  windows_rows_finish_kernel(row_windows rows, const T* values, Out out, Init init, Op op)
{
  const int lane       = static_cast<int>(threadIdx.x) % warp_threads;
  const offset_t warps = offset_t{gridDim.x} * (row_block_threads / warp_threads);
  for (offset_t r = (offset_t{blockIdx.x} * row_block_threads + threadIdx.x) / warp_threads; r < rows.rows; r += warps)
  {
    const T all = join_row_chunks(values + r * rows.chunks, rows.chunks, op, lane);
    if (lane == 0)
    {
      out[r] = apply_init(init, all, op);
    }
  }
}

/// Longer rows: block b takes part b % parts of row b / parts (and every gridDim.x-th job after
/// it), through the long list's part body with Agent's block body alone (rows_launch picks the
/// agent that reads every row: see one_agent); where a row's tree has more than one node,
/// `arrivals` holds a zeroed word per row and `values` their node values and pieces.
template <class Agent, part_join Join, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(Agent::block_threads, long_segment_min_blocks_per_sm* Agent::block_threads <= 2048
                                                          ? long_segment_min_blocks_per_sm
                                                          : 2048 / Agent::block_threads)
  long_rows_kernel(Input first, row_parts rows, unsigned* arrivals, T* values, Out out, Init init, Op op)
{
  const tree_plan plan = {rows.items, rows.split};
  for (offset_t job = blockIdx.x; job < rows.jobs(); job += gridDim.x)
  {
    const offset_t r    = job / rows.parts;
    const offset_t part = job - r * rows.parts;
    T* const row_values = values + r * rows.values_per_row();
    reduce_tree_part<Join, Agent, one_agent>(first, r * rows.items, plan, part,
                                             tree_outputs<T>{row_values, row_values + rows.split.nodes()},
                                             arrivals + (rows.joined() ? r : 0), out, r, init, op);
    __syncthreads(); // the block body's shared memory serves the next job
  }
}

/// two_pass: finishes every long row of more than one node (rows.joined()), a block per row.
template <int BlockThreads, class T, class Out, class Init, class Op>
__global__ void __launch_bounds__(BlockThreads)
  long_rows_finish_kernel(row_parts rows, T* values, Out out, Init init, Op op)
{
  for (offset_t r = blockIdx.x; r < rows.rows; r += gridDim.x)
  {
    T* const row_values = values + r * rows.values_per_row();
    const T all         = finish_split<BlockThreads, T>(rows.split, {row_values, row_values + rows.split.nodes()}, op);
    if (threadIdx.x == 0)
    {
      out[r] = apply_init(init, all, op);
    }
    __syncthreads();
  }
}
} // namespace rk::detail

#pragma once
// rk::segmented_reduce's kernels and their epilogues (also run by rk::reduce_by_key for its long
// runs). Every segment is reduced with rk::reduce's tree counted from
// the segment's own first item (rk/detail/tree.hpp): lanes fold 32 bytes of items, a tile
// combines 32 lanes pairwise, tiles combine pairwise. So out[s] has rk::reduce's bits over the
// same items, whichever kernel and backend computed it.
//
// Two kinds of work, chosen per segment on the device (the host does not know the lengths):
//  - short_segments_kernel: blocks take equal runs of segments, a batch of block_threads at a
//    time, and give each to a thread, a group of lanes or a warp by its length
//    (rk/cuda/agent/segment_groups.cuh); segments longer than long_segment_min_tiles tiles go on
//    the long list instead, while it has room (rk/cuda/agent/segment_planner.cuh).
//  - the long list: a one-block plan kernel cuts every listed segment into parts of at most
//    about a block's fair share of the listed items and queues them longest first;
//    long_segments_kernel's blocks take parts from the queue and run rk::reduce's block body
//    (tree_reduce_part) on each. A segment's parts are put together as rk::reduce's are: by
//    a second kernel (two_pass), or by the last of its blocks to finish (single_pass: an arrival
//    counter per listed segment, reset by its last user), which also puts together the nodes its
//    part boundaries cut. rk::atomic runs the grid-ordered block body instead (as rk::reduce's
//    atomic backend does): the short kernel seeds a listed segment's output with init, and every
//    part combines its total into it with an atomic.

#include <rk/cuda/agent/segment_groups.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/segment_planner.cuh>
#include <rk/cuda/agent/segment_rows.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/atomic_combine.cuh>
#include <rk/cuda/tuning.cuh>

namespace rk::detail
{
/// The short segments (and the offers to the long list): reduce_short_segments per block.
template <class Item, class T, bool SeedListed, class Input, class Segments, class Out, class Init, class Op>
__global__ void __launch_bounds__(segment_block_threads)
  short_segments_kernel(Input first, Segments segments, Out out, Init init, long_segment_list list,
                        unsigned long long* error_word, Op op)
{
  reduce_short_segments<Item, T, SeedListed>(first, segments, out, init, list, error_word, op);
}

/// The long list's plan (plan_long_segments), by one block.
template <class Item>
__global__ void __launch_bounds__(segment_block_threads) long_segments_plan_kernel(long_segment_list list)
{
  plan_long_segments<Item>(list);
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
  using item = typename VectorAgent::item;
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
      const tree_plan plan = {n, make_tile_split(ceil_div<tile_items<item>>(n), parts)};
      reduce_tree_part<Join, VectorAgent, ElementAgent>(first, list.first_item[entry], plan, part,
                                                        list.outputs(values, place, prefix),
                                                        list.segment_arrivals + entry, out, s, init, op);
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
    const tile_split split = make_tile_split(ceil_div<tile_items<Item>>(list.items[entry]), parts);
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

/// Longer rows: block b takes part b % parts of row b / parts (and every gridDim.x-th job after
/// it), through the long list's part body; where a row's tree has more than one node, `arrivals`
/// holds a zeroed word per row and `values` their node values and pieces.
template <class VectorAgent, class ElementAgent, part_join Join, class T, class Input, class Out, class Init, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads,
                                  long_segment_min_blocks_per_sm* VectorAgent::block_threads <= 2048
                                    ? long_segment_min_blocks_per_sm
                                    : 2048 / VectorAgent::block_threads)
  long_rows_kernel(Input first, row_parts rows, unsigned* arrivals, T* values, Out out, Init init, Op op)
{
  static_assert(VectorAgent::block_threads == ElementAgent::block_threads, "both agents share the block");
  const tree_plan plan = {rows.items, rows.split};
  for (offset_t job = blockIdx.x; job < rows.jobs(); job += gridDim.x)
  {
    const offset_t r    = job / rows.parts;
    const offset_t part = job - r * rows.parts;
    T* const row_values = values + r * rows.values_per_row();
    reduce_tree_part<Join, VectorAgent, ElementAgent>(first, r * rows.items, plan, part,
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

#pragma once
// rk::reduce_partial's kernels: the record's cut lanes and shape, and its tree nodes, each the root
// of a standalone tree over the node's items (rk::reduce's block body on a part of it, as
// segmented reduce runs it on the parts of a long segment), a node that took several parts
// finished by the last of them, on a plan the host made (a kernel parameter) or one made on the
// GPU (in device memory); and rk::combine of two records in device memory.

#include <rk/cuda/agent/partial_plan.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/detail/store.hpp>
#include <rk/partial.hpp>

#include <cstdint>

namespace rk::detail
{
template <class Item>
__host__ __device__ inline tree_plan node_tree_plan(const partial_node_work& w)
{
  return tree_plan{w.items, make_tile_split(ceil_div(w.items, offset_t{tile_items<Item>}), w.parts)};
}

/// The record's header and levels, its head's raw items and its tail lane's fold, read from
/// `first` (the piece's first item) as the tree reads items. One thread: at most one lane's items.
template <class T, class Input, class Op>
__device__ void write_partial_ends(Input first, partial<T>* out, const partial_ends& ends, const partial_work& work,
                                   Op& op)
{
  out->offset     = ends.offset;
  out->length     = ends.length;
  out->lane_items = ends.lane_items;
  out->status     = partial<T>::valid;
  out->head_count = ends.head_count;
  out->has_tail   = ends.has_tail;
  out->node_count = work.node_count;
  for (int k = 0; k < partial<T>::max_nodes; ++k)
  {
    out->node_level[k] = work.level[k];
  }
  for (int k = 0; k < ends.head_count; ++k)
  {
    out->set_head(k, static_cast<T>(read_item(first, k)));
  }
  if (ends.has_tail)
  {
    T lane(read_item(first, ends.tail_begin));
    for (std::int64_t i = ends.tail_begin + 1; i < ends.length; ++i)
    {
      lane = op(lane, static_cast<T>(read_item(first, i)));
    }
    out->set_tail(lane);
  }
}

/// Part `part` of a node's tree (`w`): rk::reduce's block body on it, the node's value stored in
/// `slot` by its only part, or by the last of its parts to arrive at `arrival`.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__device__ void reduce_partial_node_part(Input first, const partial_node_work& w, offset_t part, T* values,
                                         unsigned& arrival, T* slot, Op& op)
{
  using item              = typename VectorAgent::item;
  const tree_plan plan    = node_tree_plan<item>(w);
  const tile_split& split = plan.split;
  const tree_outputs<T> outputs{values + w.values, values + w.values + split.nodes()};
  const maybe<T> root = reduce_segment_part<VectorAgent, ElementAgent>(first, w.begin, plan, part, outputs, op);
  if (split.nodes() == 1)
  {
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(slot, root.slot.value);
    }
  }
  else if (part_arrives_last(arrival, static_cast<unsigned>(split.parts)))
  {
    const T value = finish_split<VectorAgent::block_threads, T>(split, outputs, op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(slot, value);
    }
  }
}

/// whole = rk::combine(whole, piece) in place, reading and writing only what changes: a combine
/// through whole copies (three records of 800 bytes for float, in one thread's local memory) had
/// cost ~8 us a chunk (H100, rk_perf_partial). Pieces that do not join give combine's record of
/// pieces that do not join, which rk::finish rejects.
template <class T, class Op>
__device__ void append_record(partial<T>& whole, const partial<T>& piece, Op& op)
{
  if (joins(whole, piece))
  {
    append_piece(whole, piece, op);
  }
  else
  {
    whole.status = partial<T>::not_adjacent;
  }
}

/// The whole record in one launch of work.blocks + 1 blocks. Block b < work.blocks takes part
/// b - first_block of the node whose blocks it falls in: a node held by one block is stored at
/// once; of several, the last part to arrive at the node's word of `arrivals` finishes it (as
/// single_pass_kernel finishes rk::reduce's split). The extra last block writes the ends. One
/// launch instead of three: a piece of up to 2^20 items had cost ~9 us more than reduce_into
/// in three (H100, rk_perf_partial). rk::reduce's occupancy bound: without it the kernel took 120
/// registers, two blocks an SM, and a piece of 2^28 floats 1.06-1.10x reduce_into (1.00-1.04x
/// with it, H100). Where `append_to` is not null (rk::accumulator's record so far), the last block
/// of the grid to finish, counted at the word after the nodes', appends the record to it: a
/// combine kernel of its own had cost 1.6 us a chunk more (16 chunks of 2^24 floats, H100). It
/// may be launched dependent on the kernel ahead of it, so it waits for that one's end first.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads, VectorAgent::min_blocks_per_sm)
  partial_kernel(Input first, partial_ends ends, partial_work work, T* values, unsigned* arrivals, partial<T>* out,
                 partial<T>* append_to, Op op)
{
  wait_for_prior_grid();
  allow_dependent_grid();
  const offset_t b = blockIdx.x;
  if (b >= work.blocks)
  {
    if (b == work.blocks && threadIdx.x == 0)
    {
      write_partial_ends(first, out, ends, work, op);
    }
  }
  else
  {
    int lo = 0, hi = work.node_count; // the last node whose first block is at most b
    while (hi - lo > 1)
    {
      const int mid                               = (lo + hi) / 2;
      (work.node[mid].first_block <= b ? lo : hi) = mid;
    }
    reduce_partial_node_part<VectorAgent, ElementAgent>(first, work.node[lo], b - work.node[lo].first_block, values,
                                                        arrivals[lo], out->node_slot(lo), op);
  }
  if (append_to == nullptr)
  {
    return;
  }
  // Thread 0 stored everything this block wrote into the record (its node slot, or the ends), so
  // its release publishes it; the barrier keeps part_arrives_last's answer to the node's arrival
  // from being overwritten before every warp has read it.
  __syncthreads();
  if (part_arrives_last(arrivals[partial<T>::max_nodes], gridDim.x) && threadIdx.x == 0)
  {
    append_record(*append_to, *out, op);
  }
}

/// partial_kernel on a plan made on the GPU (plan_partial_in_block, in the kernel ahead of it on
/// the stream: launched dependent on it, this one starts while it runs and waits for its end before
/// reading the plan), on a grid of the plan's limits: blocks past the plan's leave at once. A
/// block finds its node by counting the nodes that start at or before it, every thread reading one
/// node's first block at once (a binary search would wait on device memory at each step), and
/// keeps the node's work in shared memory: held in registers it made the body spill at
/// rk::reduce's occupancy bound (148 bytes a thread), and 2^31 floats a rank took 19 % longer
/// (2x H200, rk_perf_nccl's throughput).
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads, VectorAgent::min_blocks_per_sm)
  planned_partial_kernel(Input first, const partial_device_plan* plan, T* values, unsigned* arrivals, partial<T>* out,
                         Op op)
{
  wait_for_prior_grid();
  allow_dependent_grid();
  const partial_work& work = plan->work;
  const offset_t b         = blockIdx.x;
  const offset_t blocks    = work.blocks;
  if (b >= blocks)
  {
    if (b == blocks && threadIdx.x == 0)
    {
      write_partial_ends(first, out, plan->ends, work, op);
    }
    return;
  }
  const int node_count = work.node_count;
  int started          = 0;
  for (int k0 = 0; k0 < node_count; k0 += VectorAgent::block_threads)
  {
    const int k = k0 + static_cast<int>(threadIdx.x);
    started += __syncthreads_count(k < node_count && work.node[k].first_block <= b);
  }
  const int node = started - 1;
  __shared__ partial_node_work w;
  if (threadIdx.x == 0)
  {
    w = work.node[node];
  }
  __syncthreads();
  reduce_partial_node_part<VectorAgent, ElementAgent>(first, w, b - w.first_block, values, arrivals[node],
                                                      out->node_slot(node), op);
}

/// Plans a piece of limits.length items on the GPU (plan_partial_in_block) at the offset that is
/// the sum of the `count` lengths at `lengths` (rk::nccl: the shard lengths of the ranks before
/// this one, gathered).
template <class Planner>
__global__ void __launch_bounds__(partial_plan_threads)
  summed_offset_plan_kernel(const offset_t* lengths, int count, partial_plan_limits limits, partial_device_plan* plan)
{
  allow_dependent_grid(); // the partial's kernel waits for this one's end before it reads the plan
  __shared__ offset_t offset;
  if (threadIdx.x == 0)
  {
    offset_t sum = 0;
    for (int k = 0; k < count; ++k)
    {
      sum += lengths[k];
    }
    offset = sum;
  }
  __syncthreads();
  plan_partial_in_block<Planner, partial_plan_threads>(offset, limits, plan);
}

/// *r = rk::combine(*a, *b, op) on the device (r may be a or b; where r is a, in place).
template <class T, class Op>
__global__ void combine_partials_kernel(const partial<T>* a, const partial<T>* b, partial<T>* r, Op op)
{
  if (r == a)
  {
    append_record(*r, *b, op);
    return;
  }
  const partial<T> result = combine(*a, *b, op);
  *r                      = result;
}
} // namespace rk::detail

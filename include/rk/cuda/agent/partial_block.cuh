#pragma once
// A block's share of one rk::reduce_partial: a part of one of the record's tree nodes (rk::reduce's
// block body on it, the node finished by the last of its parts), or the record's cut lanes and
// shape. The partial's kernels run it on a plan made on the host or on the GPU, and so does
// rk::nccl's one-kernel exchange of partials.

#include <rk/cuda/agent/partial_plan.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
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

/// Block `b`'s share of a piece on a plan made on the host (kernel parameters): a part of a node, or for b ==
/// work.blocks the record's ends; blocks past those have nothing to do. Every thread of the block calls it.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__device__ void reduce_partial_block(Input first, const partial_ends& ends, const partial_work& work, offset_t b,
                                     T* values, unsigned* arrivals, partial<T>* out, Op& op)
{
  if (b >= work.blocks)
  {
    if (b == work.blocks && threadIdx.x == 0)
    {
      write_partial_ends(first, out, ends, work, op);
    }
    return;
  }
  int lo = 0, hi = work.node_count; // the last node whose first block is at most b
  while (hi - lo > 1)
  {
    const int mid                               = (lo + hi) / 2;
    (work.node[mid].first_block <= b ? lo : hi) = mid;
  }
  reduce_partial_node_part<VectorAgent, ElementAgent>(first, work.node[lo], b - work.node[lo].first_block, values,
                                                      arrivals[lo], out->node_slot(lo), op);
}

/// Block `b`'s share of a piece on a plan made on the GPU (plan_partial_in_block), read from device
/// memory: a part of a node, or for b == plan->work.blocks the record's ends; blocks past those
/// have nothing to do. Every thread of the block calls it. The block finds its node by counting
/// the nodes that start at or before it, every thread reading one node's first block at once (a
/// binary search would wait on device memory at each step), and keeps the node's work in shared
/// memory: held in registers it made the body spill at rk::reduce's occupancy bound (148 bytes a
/// thread), and 2^31 floats a rank took 19 % longer (2x H200, rk_perf_nccl's throughput).
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__device__ void reduce_planned_partial_block(Input first, const partial_device_plan* plan, offset_t b, T* values,
                                             unsigned* arrivals, partial<T>* out, Op& op)
{
  const partial_work& work = plan->work;
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
} // namespace rk::detail

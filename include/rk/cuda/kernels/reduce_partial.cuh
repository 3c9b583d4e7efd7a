#pragma once
// rk::reduce_partial's kernel: the record's cut lanes and shape, and its tree nodes, each the root
// of a standalone tree over the node's items (rk::reduce's block body on a part of it, as
// segmented reduce runs it on the parts of a long segment), a node that took several parts
// finished by the last of them; and rk::combine of two records in device memory.

#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/detail/store.hpp>
#include <rk/partial.hpp>

#include <cstdint>

namespace rk::detail
{
/// One node of a partial: its items [begin, begin + items) counted from the piece's first item,
/// the parts its tree is split into (make_tile_split(tiles, parts), as rk::reduce's plan splits),
/// the node kernel's blocks that take them, and where their values go in scratch.
struct partial_node_work
{
  offset_t begin;
  offset_t items;
  offset_t parts;
  offset_t first_block;
  offset_t values;
};

/// Every node's work, by value (a kernel parameter: no copy from the host to run, or to capture).
struct partial_work
{
  int node_count;
  offset_t blocks; ///< the node kernel's grid
  offset_t values; ///< scratch values the nodes write
  partial_node_work node[partial<char>::max_nodes];
  std::uint8_t level[partial<char>::max_nodes];
};

/// What the record's ends need: its place, its lane width, its head (raw items before the first
/// full lane) and its tail lane (the items from tail_begin, counted from the piece's first item).
struct partial_ends
{
  std::int64_t offset;
  std::int64_t length;
  std::int64_t tail_begin;
  int lane_items;
  int head_count;
  int has_tail;
};

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

/// The whole record in one launch of work.blocks + 1 blocks. Block b < work.blocks takes part
/// b - first_block of the node whose blocks it falls in: a node held by one block is stored at
/// once; of several, the last part to arrive at the node's word of `arrivals` finishes it (as
/// single_pass_kernel finishes rk::reduce's split). The extra last block writes the ends. One
/// launch instead of three: a piece of up to 2^20 items had cost ~9 us more than reduce_into
/// in three (H100, rk_perf_partial). rk::reduce's occupancy bound: without it the kernel took 120
/// registers, two blocks an SM, and a piece of 2^28 floats 1.06-1.10x reduce_into (1.00-1.04x
/// with it, H100).
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads, VectorAgent::min_blocks_per_sm)
  partial_kernel(Input first, partial_ends ends, partial_work work, T* values, unsigned* arrivals, partial<T>* out,
                 Op op)
{
  using item       = typename VectorAgent::item;
  const offset_t b = blockIdx.x;
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
  const partial_node_work& w = work.node[lo];
  const tree_plan plan       = node_tree_plan<item>(w);
  const tile_split& split    = plan.split;
  const tree_outputs<T> outputs{values + w.values, values + w.values + split.nodes()};
  const maybe<T> root = reduce_segment_part<VectorAgent, ElementAgent>(first, w.begin, plan, b - w.first_block, outputs,
                                                                       op);
  if (split.nodes() == 1)
  {
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out->node_slot(lo), root.slot.value);
    }
  }
  else if (part_arrives_last(arrivals[lo], static_cast<unsigned>(split.parts)))
  {
    const T value = finish_split<VectorAgent::block_threads, T>(split, outputs, op);
    if (threadIdx.x == 0)
    {
      store_every_byte<T>(out->node_slot(lo), value);
    }
  }
}

/// *r = rk::combine(*a, *b, op) on the device (r may be a or b). Where r is a (the accumulator's
/// record growing by a chunk) the record is extended in place, reading and writing only what
/// changes: a combine through whole copies (three records of 800 bytes for float, in one
/// thread's local memory) had cost ~8 us a chunk (H100, rk_perf_partial).
template <class T, class Op>
__global__ void combine_partials_kernel(const partial<T>* a, const partial<T>* b, partial<T>* r, Op op)
{
  if (r == a)
  {
    if (joins(*r, *b))
    {
      append_piece(*r, *b, op);
    }
    else
    {
      r->status = partial<T>::not_adjacent; // as combine's record of pieces that do not join
    }
    return;
  }
  const partial<T> result = combine(*a, *b, op);
  *r                      = result;
}
} // namespace rk::detail

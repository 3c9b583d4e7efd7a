#pragma once
// rk::reduce_partial's kernels: the record's cut lanes and shape; its tree nodes, each the root of
// a standalone tree over the node's items (rk::reduce's block body on a part of it, as segmented
// reduce runs it on the parts of a long segment), and the nodes that took several parts finished
// from them; and rk::combine of two records in device memory.

#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
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

template <class Item>
__host__ __device__ inline tree_plan node_tree_plan(const partial_node_work& w)
{
  return tree_plan{w.items, make_tile_split(ceil_div(w.items, offset_t{tile_items<Item>}), w.parts)};
}

/// One thread writes the record's header and levels, its head's raw items and its tail lane's
/// fold, read from `first` (the piece's first item) as the tree reads items.
template <class T, class Input, class Op>
__global__ void partial_ends_kernel(Input first, partial<T>* out, std::int64_t offset, std::int64_t length,
                                    int lane_items, int head_count, int has_tail, std::int64_t tail_begin,
                                    partial_work work, Op op)
{
  out->offset     = offset;
  out->length     = length;
  out->lane_items = lane_items;
  out->status     = partial<T>::valid;
  out->head_count = head_count;
  out->has_tail   = has_tail;
  out->node_count = work.node_count;
  for (int k = 0; k < partial<T>::max_nodes; ++k)
  {
    out->node_level[k] = work.level[k];
  }
  for (int k = 0; k < head_count; ++k)
  {
    out->set_head(k, static_cast<T>(read_item(first, k)));
  }
  if (has_tail)
  {
    T lane(read_item(first, tail_begin));
    for (std::int64_t i = tail_begin + 1; i < length; ++i)
    {
      lane = op(lane, static_cast<T>(read_item(first, i)));
    }
    out->set_tail(lane);
  }
}

/// Block b takes part b - first_block of the node whose blocks it falls in; a node held by one
/// block is stored at once, the others leave their node values and pieces for the finish kernel.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads)
  partial_nodes_kernel(Input first, partial_work work, T* values, partial<T>* out, Op op)
{
  using item       = typename VectorAgent::item;
  const offset_t b = blockIdx.x;
  if (b >= work.blocks)
  {
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
  const tree_outputs<T> outputs{values + w.values, values + w.values + plan.split.nodes()};
  const maybe<T> root = reduce_segment_part<VectorAgent, ElementAgent>(first, w.begin, plan, b - w.first_block, outputs,
                                                                       op);
  if (plan.split.nodes() == 1 && threadIdx.x == 0)
  {
    store_every_byte<T>(out->node_slot(lo), root.slot.value);
  }
}

/// Block k finishes node k where its tree took more than one node of its split.
template <int BlockThreads, class Item, class T, class Op>
__global__ void __launch_bounds__(BlockThreads)
  partial_finish_kernel(partial_work work, T* values, partial<T>* out, Op op)
{
  const int k = static_cast<int>(blockIdx.x);
  if (k >= work.node_count)
  {
    return;
  }
  const partial_node_work& w = work.node[k];
  const tree_plan plan       = node_tree_plan<Item>(w);
  if (plan.split.nodes() == 1)
  {
    return;
  }
  const tree_outputs<T> outputs{values + w.values, values + w.values + plan.split.nodes()};
  const T value = finish_split<BlockThreads, T>(plan.split, outputs, op);
  if (threadIdx.x == 0)
  {
    store_every_byte<T>(out->node_slot(k), value);
  }
}

/// *r = rk::combine(*a, *b, op) on the device (r may be a or b).
template <class T, class Op>
__global__ void combine_partials_kernel(const partial<T>* a, const partial<T>* b, partial<T>* r, Op op)
{
  const partial<T> result = combine(*a, *b, op);
  *r                      = result;
}
} // namespace rk::detail

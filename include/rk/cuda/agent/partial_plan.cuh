#pragma once
// rk::reduce_partial's plan: the piece's cut lanes and its tree nodes, each node's tree split into
// parts over one grid in proportion to its items (as rk::reduce's plan would split the node if it
// had the node's share of the grid). The host makes it where it knows the piece's offset
// (rk::reduce_partial); one block makes it on the GPU where only the GPU knows the offset
// (rk::nccl's shards, whose offsets are sums of lengths the ranks exchange there), within limits
// the host sets from the piece's length alone. A node's value does not depend on its parts, so
// the two plans need not agree for the bits to.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/detail/pieces.hpp>
#include <rk/partial.hpp>

#include <cub/block/block_scan.cuh>

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
  offset_t blocks; ///< the node kernel's blocks (the ends block follows them)
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

RK_HOST_DEVICE inline partial_ends make_partial_ends(offset_t offset, offset_t length, int lane_items)
{
  const piece_lanes lanes{offset, length, lane_items};
  return {offset,
          length,
          lanes.tail_begin() - offset,
          lane_items,
          static_cast<int>(lanes.head_count()),
          lanes.has_tail() ? 1 : 0};
}

/// A plan made on the GPU, in device memory, for the kernel that reads it (planned_partial_kernel).
struct partial_device_plan
{
  partial_ends ends;
  partial_work work;
};

/// Node k's work but for its place on the grid: its tree split as rk::reduce's plan splits that
/// many items with the node's share of `max_blocks` (at least one part); `values` gets the scratch
/// values its parts write.
template <class Agent>
RK_HOST_DEVICE partial_node_work plan_partial_node(const piece_lanes& lanes, const piece_node& node,
                                                   offset_t full_items, offset_t max_blocks, offset_t& values)
{
  partial_node_work w{};
  w.begin = node.first_lane * lanes.lane_items - lanes.offset;
  w.items = (offset_t{1} << node.level) * lanes.lane_items;
  // The node's share of the grid, in floating point: items * max_blocks can pass 2^63.
  const double share   = static_cast<double>(w.items) / static_cast<double>(full_items);
  const offset_t want  = static_cast<offset_t>(share * static_cast<double>(max_blocks));
  const tree_plan plan = Agent::plan(w.items, want > 1 ? want : 1);
  w.parts              = plan.split.parts;
  values               = Agent::partial_values(plan);
  return w;
}

/// The plan of the piece of `length` items at `offset`, made on the host.
template <class Agent>
partial_work plan_partial_work(offset_t offset, offset_t length, offset_t max_blocks)
{
  partial_work work{};
  const piece_lanes lanes{offset, length, Agent::lane_items};
  const piece_nodes nodes(lanes.first_full_lane(), lanes.end_full_lane());
  const offset_t full_items = (lanes.end_full_lane() - lanes.first_full_lane()) * lanes.lane_items;
  work.node_count           = nodes.count;
  for (int k = 0; k < nodes.count; ++k)
  {
    const piece_node node = nodes[k];
    offset_t values       = 0;
    partial_node_work w   = plan_partial_node<Agent>(lanes, node, full_items, max_blocks, values);
    w.first_block         = work.blocks;
    w.values              = work.values;
    work.node[k]          = w;
    work.level[k]         = static_cast<std::uint8_t>(node.level);
    work.blocks += w.parts;
    work.values += values;
  }
  return work;
}

/// What a plan made on the GPU may use, set by the host from the piece's length alone: whatever
/// the offset, the nodes' parts and the ends block fit `grid` blocks and their values `values`.
struct partial_plan_limits
{
  offset_t length;
  offset_t max_blocks; ///< the grid the nodes share, as plan_partial_work takes it
  offset_t grid;
  offset_t values;
};

/// The limits for a piece of `length` items. With F full lanes a piece has at most
/// 2 * bit_width(F) nodes (K), and node k at most max(1, want_k) parts, where the wants sum to at
/// most max_blocks, and at most max(1, ceil(tiles_k / min_chunks)); its split has at most
/// 2 * parts_k + tiles_k / 2^max_node_level + 1 node values and piece_slots(parts_k) pieces.
template <class Agent>
partial_plan_limits partial_plan_limits_for(offset_t length, offset_t max_blocks)
{
  using item                = typename Agent::item;
  const offset_t full_lanes = length / Agent::lane_items;
  offset_t nodes            = 0;
  for (offset_t f = full_lanes; f > 0; f >>= 1)
  {
    nodes += 2;
  }
  nodes                     = nodes < partial<char>::max_nodes ? nodes : partial<char>::max_nodes;
  const offset_t min_chunks = offset_t{Agent::tuning.min_chunks_per_warp} * (Agent::block_threads / warp_threads);
  const offset_t tiles      = length / tile_items<item> + nodes;
  const offset_t by_tiles   = tiles / min_chunks + 1;
  const offset_t parts      = nodes + (by_tiles < max_blocks ? by_tiles : max_blocks);
  const offset_t values     = 2 * parts + (tiles >> max_node_level) + 1 + nodes + piece_slots(parts + nodes);
  return {length, max_blocks, parts + 1, values};
}

/// The threads of a block that makes a plan on the GPU: a thread a node.
inline constexpr int partial_plan_threads = 128;
static_assert(partial_plan_threads >= partial<char>::max_nodes);

/// Makes on the GPU the plan of the piece of limits.length items at `offset` (found there), in one
/// block of BlockThreads >= partial<char>::max_nodes threads: thread k plans node k, and two block
/// scans place the nodes on the grid and in scratch. Traps if the plan passes the limits: the
/// host's bound would be wrong (a bug in rk), and the grid or the scratch too small.
template <class Agent, int BlockThreads>
__device__ void plan_partial_in_block(offset_t offset, const partial_plan_limits& limits, partial_device_plan* out)
{
  static_assert(BlockThreads >= partial<char>::max_nodes, "a thread a node");
  using scan = cub::BlockScan<offset_t, BlockThreads>;
  __shared__ typename scan::TempStorage scan_storage;
  const piece_lanes lanes{offset, limits.length, Agent::lane_items};
  const piece_nodes nodes(lanes.first_full_lane(), lanes.end_full_lane());
  const offset_t full_items = (lanes.end_full_lane() - lanes.first_full_lane()) * lanes.lane_items;
  const int k               = static_cast<int>(threadIdx.x);
  partial_node_work w{};
  offset_t values = 0;
  int level       = 0;
  if (k < nodes.count)
  {
    const piece_node node = nodes[k];
    level                 = node.level;
    w                     = plan_partial_node<Agent>(lanes, node, full_items, limits.max_blocks, values);
  }
  offset_t blocks = 0, total_values = 0;
  scan(scan_storage).ExclusiveSum(w.parts, w.first_block, blocks);
  __syncthreads();
  scan(scan_storage).ExclusiveSum(values, w.values, total_values);
  if (k < nodes.count)
  {
    out->work.node[k] = w;
  }
  if (k < partial<char>::max_nodes)
  {
    out->work.level[k] = static_cast<std::uint8_t>(level);
  }
  if (k == 0)
  {
    if (blocks + 1 > limits.grid || total_values > limits.values)
    {
      __trap();
    }
    out->work.node_count = nodes.count;
    out->work.blocks     = blocks;
    out->work.values     = total_values;
    out->ends            = make_partial_ends(offset, limits.length, Agent::lane_items);
  }
}
} // namespace rk::detail

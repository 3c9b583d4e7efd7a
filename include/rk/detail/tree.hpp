#pragma once
/// \file
/// The reduction tree of rk's order-preserving backends (rk::two_pass, rk::single_pass, rk::device
/// where it runs them, rk::host). Its shape is a function of the input length and the item size
/// only, so the bits of a result depend on the input, not on the GPU, the grid, the tuning, the
/// backend or the host thread count. The GPU and the host compute the same tree from this header.
///
/// The tree, from the leaves up:
///  - Tiles. Items are cut into tiles of `tile_lanes` lanes of `tile_lane_items<Item>` adjacent
///    items (32 bytes of items per lane, at least one item), counted from the first item. Only the
///    last tile may be short: its lanes take their items in order and lanes left without any drop
///    out.
///  - A lane folds its items left to right: `T(x0) op x1 op ...`.
///  - A tile combines its lanes with the pairwise tree of rk's warp reduction: in step d = 1, 2, 4,
///    8, 16 lane l (a multiple of 2d) combines with lane l + d when that lane has items.
///  - The tiles combine with the same pairwise ("dyadic") tree: node (a, l) covers tiles
///    [a, a + 2^l) with a a multiple of 2^l, and is op(node(a, l-1), node(a + 2^(l-1), l-1)), or
///    just its left child when the right child lies past the last tile.
///  - The result is op(init, root).
///
/// The GPU backends split the tiles over blocks as evenly as the grid allows; each block computes
/// the largest nodes that lie inside its share, and the nodes cut by a block boundary are put
/// together from the pieces on both sides (assemble_cut_node, in rk/cuda/agent/tile_tree_finish.cuh). rk::host
/// computes the same nodes on threads. Which processor computes a node, and when, never changes
/// its value.

#include <rk/detail/config.hpp>
#include <rk/detail/integer.hpp>

#include <cstdint>
#include <type_traits>

namespace rk::detail
{
using offset_t = std::int64_t;

inline constexpr int tile_lanes      = 32;
inline constexpr int tile_lane_bytes = 32;

/// Items per lane in a tile: 32 bytes' worth (8 floats, 4 doubles, 32 chars), at least one.
template <class Item>
inline constexpr int tile_lane_items =
  sizeof(Item) >= tile_lane_bytes ? 1 : tile_lane_bytes / static_cast<int>(sizeof(Item));

template <class Item>
inline constexpr int tile_items = tile_lanes * tile_lane_items<Item>;

/// The most parts a GPU grid splits the tiles into: bounds the pieces the scratch holds and the
/// cut nodes the finishing block puts together.
inline constexpr offset_t max_tree_parts = 16384;

/// Levels of the tile tree that a block's nodes may reach (2^20 tiles: 1 GiB of 1-KiB tiles per
/// node); above that, the final pass takes over.
inline constexpr int max_node_level = 20;

/// A contiguous run of tiles [begin, end) of a tree over `tiles` tiles, and the tree nodes that
/// lie inside it ("complete"). A node reaching past the last tile counts as its part before it.
struct tile_span
{
  offset_t begin;
  offset_t end;
  offset_t tiles;

  RK_HOST_DEVICE constexpr bool complete(offset_t a, int level) const
  {
    const offset_t last = a + (offset_t{1} << level);
    return a >= begin && a < tiles && (last < tiles ? last : tiles) <= end;
  }
  /// Whether node (a, level) has a right sibling with any tile in it.
  RK_HOST_DEVICE constexpr bool right_sibling_exists(offset_t a, int level) const
  {
    return a + (offset_t{1} << level) < tiles;
  }
};

/// How a GPU grid (or a host thread pool) shares the tiles: `parts` contiguous runs, and the node
/// level `node_level` (nodes of 2^node_level tiles) at which the parts hand their results to the
/// final pass. The runs are as even as possible in units of 2^align_level tiles: single tiles
/// (align_level 0), or whole nodes (align_level == node_level), in which case no boundary cuts a
/// node. Every part holds at least one node's worth of tiles, so a node is cut by at most one
/// part boundary.
struct tile_split
{
  offset_t tiles;
  offset_t parts;
  int node_level;
  int align_level;
  offset_t units_per_part; ///< units of 2^align_level tiles that every part gets
  offset_t longer_parts;   ///< the first this many parts get one unit more

  // No division below: a 64-bit one costs a block a few hundred cycles before its first load.
  RK_HOST_DEVICE constexpr offset_t part_begin(offset_t part) const
  {
    const offset_t begin = (part * units_per_part + (part < longer_parts ? part : longer_parts)) << align_level;
    return begin < tiles ? begin : tiles;
  }
  RK_HOST_DEVICE constexpr tile_span span(offset_t part) const
  {
    return {part_begin(part), part_begin(part + 1), tiles};
  }
  RK_HOST_DEVICE constexpr offset_t node_tiles() const
  {
    return offset_t{1} << node_level;
  }
  RK_HOST_DEVICE constexpr offset_t nodes() const
  {
    return (tiles + node_tiles() - 1) >> node_level;
  }
  /// Whether any part boundary may cut a node.
  RK_HOST_DEVICE constexpr bool has_cuts() const
  {
    return align_level < node_level;
  }
  /// Whether the boundary before `part` cuts a node.
  RK_HOST_DEVICE constexpr bool cuts_node(offset_t part) const
  {
    return has_cuts() && part > 0 && part < parts && (part_begin(part) & (node_tiles() - 1)) != 0;
  }
};

/// How much longer than the even split's longest part (in 1/aligned_split_slack of it) the longest
/// part may grow when the parts are cut at node boundaries instead. Such a split has no cut nodes,
/// so no pieces to store and none to put together at the end: the finishing block's work, on the
/// critical path of every mid-size call (H100, float sums at 2^22: 17.2 us with cut nodes, 11.9 us
/// without). From 2^22 to 2^28 floats over 528 blocks the node-aligned split is at most 3 % longer
/// (2^24: 128 tiles against 125).
inline constexpr offset_t aligned_split_slack = 32;

/// The split of `tiles` tiles over `parts` parts. One part takes the whole tree (nodes as large as
/// the input, up to max_node_level); more parts hand over nodes no larger than their smallest share,
/// and share whole nodes where that costs the longest part little.
RK_HOST_DEVICE constexpr tile_split make_tile_split(offset_t tiles, offset_t parts)
{
  parts                             = parts < tiles ? parts : tiles;
  parts                             = parts < 1 ? 1 : parts;
  const quotient<offset_t> per_part = divide(tiles, parts);
  int level              = parts == 1 ? (tiles <= 1 ? 0 : floor_log2(tiles - 1) + 1) : floor_log2(per_part.quot);
  level                  = level < max_node_level ? level : max_node_level;
  const offset_t longest = per_part.quot + (per_part.rem != 0);
  const offset_t nodes   = (tiles + (offset_t{1} << level) - 1) >> level;
  const quotient<offset_t> node_q = divide(nodes, parts);
  const offset_t aligned_longest  = (node_q.quot + (node_q.rem != 0)) << level;
  const bool aligned              = parts == 1 || aligned_longest <= longest + longest / aligned_split_slack;
  const int align                 = aligned ? level : 0;
  const quotient<offset_t> units  = aligned ? node_q : per_part;
  return {tiles, parts, level, align, units.quot, units.rem};
}

/// Tiles in the longest part of `s`.
RK_HOST_DEVICE constexpr offset_t longest_part_tiles(const tile_split& s)
{
  return (s.units_per_part + (s.longer_parts > 0 ? 1 : 0)) << s.align_level;
}

/// A split of whole nodes whose parts are not all as long leaves the longest ones running alone
/// at the end. A grid of fewer parts, none longer and only the last ones shorter, takes no longer
/// and keeps the memory as busy until the end, unless it drops so many parts that fewer loads are
/// in flight: at 1024 nodes over 528 parts (2^24 to 2^28 floats, 2^26 and 2^28 doubles, H100) 512
/// parts took 0.5-1.2 % less time, where 396 or 264 parts took 2-17 % more. So at most 1/16 of
/// the parts are dropped.
inline constexpr offset_t even_split_dropped_parts_max = 16;

/// `s`, or the split of its tiles over fewer parts of whole nodes, none longer than its longest.
RK_HOST_DEVICE constexpr tile_split even_node_split(const tile_split& s)
{
  if (s.align_level != s.node_level || s.longer_parts == 0)
  {
    return s;
  }
  const offset_t parts = ceil_div(s.nodes(), s.units_per_part + 1);
  if (parts * even_split_dropped_parts_max < s.parts * (even_split_dropped_parts_max - 1))
  {
    return s;
  }
  const tile_split even  = make_tile_split(s.tiles, parts);
  const bool whole_nodes = even.align_level == even.node_level;
  return whole_nodes && longest_part_tiles(even) <= longest_part_tiles(s) ? even : s;
}

/// Where the pieces of a cut node are kept: per part boundary, the pieces left of it (written by
/// the part that ends there) and right of it (by the part that starts there), one slot per level.
enum class piece_side : int
{
  left  = 0,
  right = 1
};

RK_HOST_DEVICE constexpr offset_t piece_slot(offset_t boundary, piece_side side, int level)
{
  return (boundary * 2 + static_cast<int>(side)) * max_node_level + level;
}

/// Slots the pieces of `parts` parts need.
RK_HOST_DEVICE constexpr offset_t piece_slots(offset_t parts)
{
  return (parts + 1) * 2 * max_node_level;
}

/// The pairwise tree over a sequence of node values pushed in order, with at most 2^Levels - 1 of
/// them: a binary counter whose carries are the combines. finish() combines what is pending from
/// the right, which is the tree's rule for a count that is not a power of two. Works for any T on
/// the host (it constructs and destroys what it holds) and for the GPU's trivially copyable ones.
template <class T, int Levels>
class pairwise_fold
{
public:
  RK_HOST_DEVICE pairwise_fold() {}
  pairwise_fold(const pairwise_fold&)            = delete;
  pairwise_fold& operator=(const pairwise_fold&) = delete;
  RK_HOST_DEVICE ~pairwise_fold()
  {
    for (int level = 0; level < Levels; ++level)
    {
      if ((count_ >> level) & 1)
      {
        pending_[level].value.~T();
      }
    }
  }

  template <class Op>
  RK_HOST_DEVICE void push(T v, Op& op)
  {
    int level = 0;
    while ((count_ >> level) & 1)
    {
      v = op(static_cast<T&&>(pending_[level].value), static_cast<T&&>(v));
      pending_[level].value.~T();
      ++level;
    }
    ::new (static_cast<void*>(&pending_[level].value)) T(static_cast<T&&>(v));
    ++count_;
  }

  /// count >= 1.
  template <class Op>
  RK_HOST_DEVICE T finish(Op& op) const
  {
    int level = 0;
    while (((count_ >> level) & 1) == 0)
    {
      ++level;
    }
    T acc = pending_[level].value;
    for (++level; level < Levels; ++level)
    {
      if ((count_ >> level) & 1)
      {
        acc = op(pending_[level].value, static_cast<T&&>(acc));
      }
    }
    return acc;
  }

private:
  union slot_type
  {
    unsigned char none;
    T value;
    RK_HOST_DEVICE slot_type() noexcept
        : none()
    {}
    RK_HOST_DEVICE ~slot_type() {}
  };
  slot_type pending_[Levels];
  offset_t count_ = 0;
};
} // namespace rk::detail

#pragma once
/// \file
/// How a call of few segments cuts each of them (rk/cuda/agent/few_segments.cuh lays them out on
/// the GPU with it): a pure function of the segment's tiles and the call's tiles per part, so that
/// the host can bound the scratch and the tests can check the rule.

#include <rk/detail/integer.hpp>
#include <rk/detail/tree.hpp>

namespace rk::detail
{
/// One segment's cut: its parts (0 where no part reads it: empty, or by_warp) and their split, the
/// node values and pieces it stores, and whether it is too long for its parts' nodes.
struct few_segment_cut
{
  tile_split split;
  offset_t parts;
  offset_t values;
  bool by_warp;
};

/// A segment of `tiles` tiles, in a call whose parts are about `per_part` tiles: tiles / per_part
/// parts, at least one and at most one per `min_part_tiles` tiles (as make_row_parts cuts rows) and
/// max_tree_parts, split as rk::reduce splits its items (make_tile_split, even_node_split). Its
/// nodes are at most twice its parts, unless the parts are longer than 2^(max_node_level + 1)
/// tiles: nodes stop growing at max_node_level, and such a segment (2^30 tiles or more in a call:
/// only an iterator, or CUB-form segments that overlap, hold that many) goes to a warp's windows
/// instead, as the long list's segments of more than 2^32 tiles do.
RK_HOST_DEVICE constexpr few_segment_cut cut_few_segment(offset_t tiles, offset_t per_part, offset_t min_part_tiles)
{
  few_segment_cut cut{};
  if (tiles <= 0)
  {
    return cut;
  }
  const offset_t most    = ceil_div(tiles, min_part_tiles) < max_tree_parts ? ceil_div(tiles, min_part_tiles)
                                                                            : max_tree_parts;
  offset_t parts         = tiles / per_part;
  parts                  = parts < 1 ? 1 : parts > most ? most : parts;
  const tile_split split = even_node_split(make_tile_split(tiles, parts));
  if (split.nodes() > 2 * split.parts)
  {
    cut.by_warp = true;
    return cut;
  }
  cut.split  = split;
  cut.parts  = split.parts;
  cut.values = split.nodes() > 1 ? split.nodes() + piece_slots(split.parts) : 0;
  return cut;
}

/// The node values and pieces a call of `count` segments on `blocks` blocks stores at most, where
/// its parts are about ceil(all tiles / blocks) tiles: at most blocks + count parts in all (the
/// shares, and one more for each segment), each segment's nodes at most twice its parts, and its
/// pieces piece_slots of its parts.
RK_HOST_DEVICE constexpr offset_t few_segments_values_bound(offset_t blocks, offset_t count)
{
  const offset_t parts = blocks + count;
  return 2 * parts + piece_slots(parts) + 2 * max_node_level * count;
}
} // namespace rk::detail

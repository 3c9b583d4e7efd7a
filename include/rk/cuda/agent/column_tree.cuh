#pragma once
// The per-thread body of rk::reduce_axes's column engine: one output's node over a run of its
// lanes. The output's items are read a fixed step apart (a column), folded a lane at a time
// (lane_fold, the tree's leaves), and the lanes combined by a binary counter (pairwise_fold),
// whose carries are exactly the tree's pairwise combines: a run of 2^k lanes starting at a
// multiple of 2^k gives the tree's node over them, and a run that ends at the output's last lane
// gives that node with its missing right parts dropped, as the tree's rule says
// (rk/detail/tree.hpp). Adjacent threads own adjacent outputs, so each load of an item row is a
// coalesced run.

#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/tree.hpp>

#include <type_traits>

namespace rk::detail
{
/// The node over lanes [lane_begin, lane_end) of the `item_count` items of `items`. Full lanes go
/// two at a time, all sixteen (for 4-byte items) loads issued before the first combine: a column's
/// loads are a stride apart, and one lane's worth in flight per thread left the memory idle.
template <class T, class Items, class Op>
__device__ __forceinline__ T column_node(const Items& items, offset_t item_count, offset_t lane_begin,
                                         offset_t lane_end, Op& op)
{
  using item                = std::remove_cv_t<iterator_item_t<Items>>;
  constexpr int lane_items  = tile_lane_items<tree_item_t<Items>>;
  const offset_t full_lanes = item_count / lane_items;
  const offset_t paired_end = lane_end < full_lanes ? lane_end : full_lanes;
  pairwise_fold<T, column_fold_levels> fold;
  offset_t lane = lane_begin;
  if constexpr (std::is_trivially_default_constructible_v<item>)
  {
    for (; lane + 1 < paired_end; lane += 2)
    {
      item first[lane_items], second[lane_items];
      load_lane<lane_items>(items, lane * lane_items, first);
      load_lane<lane_items>(items, (lane + 1) * lane_items, second);
      fold.push(fold_lane<T>(first, op), op);
      fold.push(fold_lane<T>(second, op), op);
    }
  }
  for (; lane < lane_end; ++lane)
  {
    const offset_t first = lane * lane_items;
    const offset_t rest  = item_count - first;
    fold.push(lane_fold<lane_items, T>(items, first, rest < lane_items ? static_cast<int>(rest) : lane_items, op), op);
  }
  return fold.finish(op);
}
} // namespace rk::detail

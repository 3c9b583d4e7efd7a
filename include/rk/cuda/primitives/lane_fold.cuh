#pragma once
// A lane's fold and a tile's value: the leaves of rk's tree (rk/detail/tree.hpp), which every
// algorithm's block body computes the same way. A lane folds its items left to right; a tile
// combines its lanes with the warp's pairwise tree.

#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/tree.hpp>

#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// A window is one warp's worth of tiles, 2^5: the level of the tree a warp's shuffles reach.
inline constexpr int window_level = 5;
static_assert(warp_threads == 1 << window_level);

/// A full lane's items, loaded before any is combined: as 16-byte vectors where they lie on the
/// 16-byte grid in plain memory (a tile's lanes start 32 bytes apart, so a segment or row that
/// starts on the grid keeps every lane on it), item by item otherwise. Items that a transform
/// computes from such memory (rk::mean_var's states from floats) are computed from the vectors'
/// elements: layer norm's rk::mean_var took 80.0 µs so against 89.0 item by item (H200, 2^26
/// floats). Not where the items carry their positions (arg_min's indices): a lane's eight 64-bit
/// indices, all live at once, took segmented arg_min's rows kernel from 64 to 105 registers and
/// its rows of 256 floats from 155 to 203 µs (with 8-tile tree batches).
template <int LaneItems, class It>
__device__ __forceinline__ void load_lane(const It& first, offset_t begin,
                                          std::remove_cv_t<iterator_item_t<It>> (&v)[LaneItems])
{
  using item   = std::remove_cv_t<iterator_item_t<It>>;
  using source = vector_source<It>;
  if constexpr (source::vectorizable && !source::positional)
  {
    using element = std::remove_cv_t<std::remove_pointer_t<decltype(source::items(first))>>;
    if constexpr ((LaneItems * sizeof(element)) % vector_bytes == 0)
    {
      constexpr int per_vector = vector_bytes / static_cast<int>(sizeof(element));
      struct alignas(vector_bytes) vector
      {
        element part[per_vector];
      };
      const element* p = source::items(first) + begin;
      if (reinterpret_cast<std::uintptr_t>(p) % vector_bytes == 0)
      {
        const auto transform = source::transform_of(first);
#pragma unroll
        for (int k = 0; k < LaneItems / per_vector; ++k)
        {
          const vector w = reinterpret_cast<const vector*>(p)[k];
#pragma unroll
          for (int i = 0; i < per_vector; ++i)
          {
            const offset_t at     = begin + k * per_vector + i;
            v[k * per_vector + i] = settled_by<typename source::transform>(static_cast<item>(transform(w.part[i], at)));
          }
        }
        return;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < LaneItems; ++i)
  {
    v[i] = read_item(first, begin + i);
  }
}

/// The left fold of a full lane's loaded items.
template <class T, int LaneItems, class Item, class Op>
__device__ __forceinline__ T fold_lane(const Item (&v)[LaneItems], Op& op)
{
  T acc(v[0]);
#pragma unroll
  for (int i = 1; i < LaneItems; ++i)
  {
    acc = op(acc, static_cast<T>(v[i]));
  }
  return acc;
}

/// The left fold `T(x0) op x1 op ...` of the `count` >= 1 items from `first + begin`. A full run of
/// MaxItems items issues all its loads before the first combine, without predicates. A shorter
/// one, with `LoadsFirst` (a thread's slice of the block partials or of a tail, where short runs
/// are the rule), issues its loads predicated, all before the first combine: one memory round
/// trip. Without it (a lane of the tree, where most partial lanes hold a few items: segments of
/// 1 to 8 items, a tile's last lane) it folds as it loads, which measured 6-9 % faster on the
/// segment kernels' short paths than predicated loads (H100, rk_perf_segmented at 2^26). A run
/// longer than MaxItems is folded as it loads.
template <int MaxItems, bool LoadsFirst, class T, class It, class Count, class Op>
__device__ __forceinline__ T fold_items(const It& first, offset_t begin, Count count, Op& op)
{
  using item = std::remove_cv_t<iterator_item_t<It>>;
  if constexpr (std::is_trivially_default_constructible_v<item>)
  {
    if (count == MaxItems)
    {
      item v[MaxItems];
      load_lane<MaxItems>(first, begin, v);
      return fold_lane<T>(v, op);
    }
  }
  if constexpr (LoadsFirst && std::is_trivially_copyable_v<item>)
  {
    if (count <= MaxItems)
    {
      uninitialized<item> v[MaxItems];
#pragma unroll
      for (int j = 0; j < MaxItems; ++j)
      {
        if (j < count)
        {
          v[j].emplace(read_item(first, begin + j));
        }
      }
      T acc(v[0].value);
#pragma unroll
      for (int j = 1; j < MaxItems; ++j)
      {
        if (j < count)
        {
          acc = op(acc, static_cast<T>(v[j].value));
        }
      }
      return acc;
    }
  }
  T acc(read_item(first, begin));
  for (Count i = 1; i < count; ++i)
  {
    acc = op(acc, static_cast<T>(read_item(first, begin + i)));
  }
  return acc;
}

/// One lane of the tree: the left fold of `count` (1..LaneItems) items from `first + begin`.
template <int LaneItems, class T, class It, class Op>
__device__ __forceinline__ T lane_fold(const It& first, offset_t begin, int count, Op& op)
{
  return fold_items<LaneItems, false, T>(first, begin, count, op);
}

/// The value of a tile of `count` items (1 to a tile's worth; 0 marks a group without a tile)
/// from `first + begin`, by the Width >= count / LaneItems lanes that hold it (`lane` is this
/// thread's place among them): each lane folds its items, lanes without items drop out, the
/// lanes combine pairwise (within groups of Width lanes where Width < 32: warp_reduce). Result valid
/// in the group's lane 0. Inlined: each caller's path is hot (a called copy in the segmented warps
/// measured 10-20 % slower).
template <int LaneItems, class T, int Width = warp_threads, class It, class Op>
__device__ __forceinline__ T tile_value(const It& first, offset_t begin, offset_t count, Op& op, int lane)
{
  const int lanes = static_cast<int>(ceil_div<LaneItems>(count));
  uninitialized<T> mine;
  if (lane < lanes)
  {
    const offset_t at   = offset_t{lane} * LaneItems;
    const offset_t left = count - at;
    mine.emplace(lane_fold<LaneItems, T>(first, begin + at, left < LaneItems ? static_cast<int>(left) : LaneItems, op));
  }
  return warp_reduce<1, Width>(mine.value, op, lane, lanes);
}
} // namespace rk::detail

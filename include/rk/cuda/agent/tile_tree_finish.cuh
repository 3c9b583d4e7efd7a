#pragma once
// The end of the reproducible tree, by one block once every part of a split has stored its node
// values and pieces: the cut nodes put together from their pieces, then the final tree over the
// node values. rk::two_pass's second kernel and rk::single_pass's last block run it, for
// rk::reduce and for the parts of every long segment.

#include <rk/cuda/agent/tile_tree.cuh>
#include <rk/cuda/primitives/block_combine.cuh>
#include <rk/cuda/tuning.cuh>

namespace rk::detail
{
/// Puts together the node that the boundary before part `boundary` cuts from the pieces both parts
/// stored. Climbing from the cut: the node of level j over the first tile right of the cut is,
/// one level up, its left sibling (a piece left of the cut) on its left, or its right sibling (a
/// piece right of the cut, absent past the last tile) on its right. It starts as the piece right
/// of the cut at the cut's alignment level. Entry 0 is that piece, entry e >= 1 the piece at
/// level low + e - 1; their loads go out cut_pieces_in_flight at a time.
template <class T, class Op>
__device__ T assemble_cut_node(const tile_split& split, offset_t boundary, const T* pieces, Op& op)
{
  const offset_t cut = split.part_begin(boundary);
  const int low      = __ffsll(static_cast<long long>(cut)) - 1;
  const int entries  = split.node_level - low + 1;
  uninitialized<T> acc;
  for (int e0 = 0; e0 < entries; e0 += cut_pieces_in_flight)
  {
    uninitialized<T> piece[cut_pieces_in_flight];
    bool left[cut_pieces_in_flight];
    bool here[cut_pieces_in_flight]; // a right sibling past the last tile is absent
#pragma unroll
    for (int k = 0; k < cut_pieces_in_flight; ++k)
    {
      const int e     = e0 + k;
      const int level = e == 0 ? low : low + e - 1;
      left[k]         = e > 0 && ((cut >> level) & 1) != 0;
      here[k] = e < entries && (e == 0 || left[k] || (cut >> level << level) + (offset_t{1} << level) < split.tiles);
      if (here[k])
      {
        piece[k].emplace(pieces[piece_slot(boundary, left[k] ? piece_side::left : piece_side::right, level)]);
      }
    }
#pragma unroll
    for (int k = 0; k < cut_pieces_in_flight; ++k)
    {
      if (e0 + k == 0)
      {
        acc.emplace(piece[k].value);
      }
      else if (here[k])
      {
        acc.value = left[k] ? op(piece[k].value, acc.value) : op(acc.value, piece[k].value);
      }
    }
  }
  return acc.value;
}

/// Levels of the per-thread fold in final_tree beyond that: up to 2^10 node values per thread.
inline constexpr int final_fold_levels = 11;

/// The top of the tree: the pairwise tree over `count` >= 1 node values, with one block. Each
/// thread folds an aligned run of a power-of-two count of them; the runs then combine through
/// the warp and block levels of the same tree. Result valid in thread 0.
template <int BlockThreads, class T, class Op>
__device__ T final_tree(const T* values, offset_t count, Op& op)
{
  int per_thread_log2 = 0;
  while ((offset_t{BlockThreads} << per_thread_log2) < count)
  {
    ++per_thread_log2;
  }
  const offset_t per_thread = offset_t{1} << per_thread_log2;
  const offset_t begin      = offset_t{threadIdx.x} * per_thread;
  uninitialized<T> mine;
  if (begin < count)
  {
    const offset_t end = begin + per_thread < count ? begin + per_thread : count;
    if (per_thread <= final_values_in_flight)
    {
      // Every load first, then the run's tree bottom-up (a left child without a right one stands
      // for its parent).
      const int here = static_cast<int>(end - begin);
      uninitialized<T> v[final_values_in_flight];
#pragma unroll
      for (int i = 0; i < final_values_in_flight; ++i)
      {
        if (i < here)
        {
          v[i].emplace(values[begin + i]);
        }
      }
#pragma unroll
      for (int width = 1; width < final_values_in_flight; width *= 2)
      {
#pragma unroll
        for (int i = 0; i + width < final_values_in_flight; i += 2 * width)
        {
          if (i + width < here)
          {
            v[i].value = op(v[i].value, v[i + width].value);
          }
        }
      }
      mine.emplace(v[0].value);
    }
    else
    {
      // The same pushes in the same order, their loads issued final_values_in_flight at a time
      // (one at a time, a long segment's 16 node values a thread cost 16 round trips).
      pairwise_fold<T, final_fold_levels> fold;
      for (offset_t i = begin; i < end; i += final_values_in_flight)
      {
        uninitialized<T> v[final_values_in_flight];
#pragma unroll
        for (int k = 0; k < final_values_in_flight; ++k)
        {
          if (i + k < end)
          {
            v[k].emplace(values[i + k]);
          }
        }
#pragma unroll
        for (int k = 0; k < final_values_in_flight; ++k)
        {
          if (i + k < end)
          {
            fold.push(v[k].value, op);
          }
        }
      }
      mine.emplace(fold.finish(op));
    }
  }
  return block_combine_prefix<BlockThreads>(mine.value, (count + per_thread - 1) >> per_thread_log2, op);
}

/// The end of a split's tree, by one block once every part's nodes and pieces are stored: puts
/// together every node a part boundary cuts, then runs the final tree over the node values. Run
/// by rk::two_pass's second kernel and by rk::single_pass's last block. Result valid in thread 0.
template <int BlockThreads, class T, class Op>
__device__ T finish_split(const tile_split& split, const tree_outputs<T>& out, Op& op)
{
  if (split.has_cuts())
  {
    for (offset_t boundary = 1 + threadIdx.x; boundary < split.parts; boundary += BlockThreads)
    {
      if (split.cuts_node(boundary))
      {
        const T node = assemble_cut_node<T>(split, boundary, out.pieces, op);
        ::new (static_cast<void*>(out.nodes + (split.part_begin(boundary) >> split.node_level))) T(node);
      }
    }
    __syncthreads(); // the cut nodes, stored above, are read below by other threads
  }
  return final_tree<BlockThreads, T>(out.nodes, split.nodes(), op);
}
} // namespace rk::detail

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
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/primitives/register_fold.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/axes_map.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/tree.hpp>

#include <cuda/std/bit>

#include <type_traits>

namespace rk::detail
{
/// One output's items where they lie a fixed step apart: item r at data[r * step], each read with
/// L2's line-wide fetch (load_fetching_line).
template <class U>
struct strided_column : view_reader<U>
{
  using typename view_reader<U>::value_type;
  using typename view_reader<U>::difference_type;

  const value_type* data;
  offset_t step;

  __device__ __forceinline__ value_type operator[](offset_t r) const
  {
    return load_fetching_line(data + r * step);
  }
  __device__ __forceinline__ value_type operator*() const
  {
    return load_fetching_line(data);
  }
  __device__ __forceinline__ strided_column operator+(offset_t n) const
  {
    return {{}, data + n * step, step};
  }
  __device__ __forceinline__ friend difference_type operator-(const strided_column& a, const strided_column& b)
  {
    return static_cast<difference_type>((a.data - b.data) / a.step);
  }
};

/// The pairwise tree over v[0, count) (count <= N, N a power of two), with the right parts past
/// `count` dropped as the tree's rule drops them: the same node as a binary counter fed v[0],
/// ..., v[count - 1], left in v[0]. Unrolled, with no counter: a full batch costs its N - 1
/// combines.
template <int N, class T, class Op>
__device__ __forceinline__ void pairwise_batch(uninitialized<T> (&v)[N], int count, Op& op)
{
  static_assert(N >= 1 && (N & (N - 1)) == 0, "a power of two");
#pragma unroll
  for (int step = 1; step < N; step *= 2)
  {
#pragma unroll
    for (int i = 0; i + step < N; i += 2 * step)
    {
      if (i + step < count)
      {
        v[i].emplace(op(v[i].value, v[i + step].value));
      }
    }
  }
}

/// The node over lanes [lane_begin, lane_end) of the `item_count` items of `items`. Full lanes go
/// column_group_lanes at a time: all their loads issued before the first combine (a column's
/// loads are a stride apart, and one lane's worth in flight per thread left the memory idle), the
/// group's lanes combined by an unrolled tree and pushed as one node (the counter's work once a
/// group, not once a lane). Runs start on multiples of 2^column_min_run_level lanes, so a group
/// is a node of the tree.
template <class T, int Levels = column_max_run_level + 1, class Items, class Op>
__device__ __forceinline__ T column_node(const Items& items, offset_t item_count, offset_t lane_begin,
                                         offset_t lane_end, Op& op)
{
  using item                = std::remove_cv_t<iterator_item_t<Items>>;
  constexpr int lane_items  = tile_lane_items<tree_item_t<Items>>;
  constexpr int group       = column_group_lanes;
  constexpr int group_level = cuda::std::bit_width(static_cast<unsigned>(group)) - 1;
  static_assert(group == 1 << group_level && group <= (1 << column_min_run_level),
                "a group of lanes (a power of two) is a node within a run");
  const offset_t full_lanes = item_count / lane_items;
  const offset_t full_end   = lane_end < full_lanes ? lane_end : full_lanes;
  register_fold<T, Levels> fold;
  offset_t lane = lane_begin;
  if constexpr (std::is_trivially_default_constructible_v<item>)
  {
    for (; lane + group <= full_end; lane += group)
    {
      item v[group][lane_items];
#pragma unroll
      for (int g = 0; g < group; ++g)
      {
        load_lane<lane_items>(items, (lane + g) * lane_items, v[g]);
      }
      uninitialized<T> nodes[group];
#pragma unroll
      for (int g = 0; g < group; ++g)
      {
        nodes[g].emplace(fold_lane<T>(v[g], op));
      }
      pairwise_batch(nodes, group, op);
      fold.template push_node<group_level>(nodes[0].value, op);
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

/// Adjacent outputs a column thread owns where every output is one lane and x's rows can be read as
/// vectors of them (one 16-byte load, or 8 bytes of 2-byte items, 4 of 1-byte ones, for four
/// outputs' items of one row).
template <class U>
inline constexpr int column_vector_outputs = is_vector_item_v<U> && sizeof(U) <= 8 ? (sizeof(U) == 8 ? 2 : 4) : 1;

/// The most lanes each of those outputs may have: as many as keep a thread at four lanes' values,
/// so two for 8-byte items, folded left to right (their pairwise node) within the thread's run.
/// With one, 8 x 2^23 doubles (two lanes an output) ran an output a thread at 86 registers, 1.48x
/// the probe; two lanes of each of two outputs, 1.00x (H200, rk_bench_axes).
template <class U>
inline constexpr int column_vector_lanes = column_vector_outputs<U> == 2 ? 2 : 1;
static_assert(column_vector_lanes<double> <= (1 << column_min_run_level), "a vector thread's lanes are one run");

/// The values of lane `lane` of V adjacent outputs, each item row of them read as one vector
/// (`first` on the vector's alignment, `step` a multiple of V): each output's lane folded as
/// column_node folds it (its items as the tree takes them, `value_of`: the item, or its transform
/// as T; then fold_lane, or left to right for a short last lane).
template <int V, class T, class U, class ValueOf, class Op>
__device__ __forceinline__ void column_lanes_vector(const U* first, offset_t step, const ValueOf& value_of,
                                                    offset_t item_count, offset_t lane, Op& op,
                                                    uninitialized<T> (&value)[V])
{
  constexpr int lane_items = tile_lane_items<U>;
  using item               = std::remove_cv_t<std::remove_reference_t<decltype(value_of(*first))>>;
  struct alignas(V * sizeof(U)) row_vector
  {
    U part[V];
  };
  const offset_t row  = lane * lane_items;
  const offset_t left = item_count - row;
  const int rows      = left < lane_items ? static_cast<int>(left) : lane_items;
  row_vector v[lane_items];
#pragma unroll
  for (int i = 0; i < lane_items; ++i)
  {
    if (i < rows)
    {
      v[i] = *reinterpret_cast<const row_vector*>(first + (row + i) * step);
    }
  }
#pragma unroll
  for (int c = 0; c < V; ++c)
  {
    item items[lane_items];
#pragma unroll
    for (int i = 0; i < lane_items; ++i)
    {
      if (i < rows)
      {
        items[i] = value_of(v[i].part[c]);
      }
    }
    if (rows == lane_items)
    {
      value[c].emplace(fold_lane<T>(items, op));
    }
    else
    {
      T acc(items[0]);
#pragma unroll
      for (int i = 1; i < lane_items; ++i)
      {
        if (i < rows)
        {
          acc = op(acc, static_cast<T>(items[i]));
        }
      }
      value[c].emplace(acc);
    }
  }
}

/// Whether the block's threads can hand T values to each other through shared memory in
/// combine_column_runs (a static buffer of a value per thread); larger T keep one run per column.
template <class T, int BlockThreads>
inline constexpr bool column_runs_fit = sizeof(T) * BlockThreads <= column_runs_shared_bytes;

/// Combines, for each of a block's `width` columns, the nodes of its `runs` adjacent runs of lanes
/// (thread run * width + column holds its run's node, `run` the calling thread's; the runs with any
/// lane, `busy_runs` of them, are a prefix) by the tree's pairwise rule: in step d = 1, 2, 4, ...
/// run r (a multiple of 2d) takes run r + d when that run has lanes. Runs of 2^k aligned lanes thus
/// give the node over runs * 2^k lanes, valid in the column's run-0 thread. The steps whose partner
/// is in the same warp (d * width < 32) are shuffles; only the others pass through shared memory, a
/// barrier each. Every thread of the block calls it.
template <int BlockThreads, class T, class Op>
__device__ __forceinline__ T combine_column_runs(const T& mine, int width, int runs, int run, int busy_runs,
                                                 bool column_busy, Op& op)
{
  __shared__ alignas(T) unsigned char raw[BlockThreads * sizeof(T)];
  T* slot       = reinterpret_cast<T*>(raw);
  const int t   = static_cast<int>(threadIdx.x);
  const bool on = column_busy && run < busy_runs;
  T value       = mine;
  int d         = 1;
  for (; d < runs && d * width < warp_threads; d *= 2)
  {
    const T right = shuffle_down(value, static_cast<unsigned>(d * width));
    if (on && (run & (2 * d - 1)) == 0 && run + d < busy_runs)
    {
      value = op(value, right);
    }
  }
  if (d >= runs)
  {
    return value;
  }
  if (on && (run & (d - 1)) == 0)
  {
    ::new (static_cast<void*>(slot + t)) T(value);
  }
  for (; d < runs; d *= 2)
  {
    __syncthreads();
    if (on && (run & (2 * d - 1)) == 0 && run + d < busy_runs)
    {
      slot[t] = op(slot[t], slot[t + d * width]);
    }
  }
  __syncthreads();
  return column_busy && run == 0 && busy_runs > 0 ? slot[t] : mine;
}
} // namespace rk::detail

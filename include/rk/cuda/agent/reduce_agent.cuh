#pragma once
// rk::reduce's block body as its kernels see it: how a kernel reads `Input` (16-byte vectors or
// an iterator), the launch shape its policy's tuning provider gives, the host-side plan of a
// call (how many blocks, which tiles each takes) and the scratch that plan writes; and the
// call's `init`, folded in once by whichever block produces the final value. The segment
// kernels run the same agent on the parts of long segments.

#include <rk/cuda/agent/grid_ordered.cuh>
#include <rk/cuda/agent/tile_tree.cuh>
#include <rk/cuda/primitives/shifted_chunks.cuh>
#include <rk/cuda/tuning.cuh>

#include <cstring>
#include <type_traits>

namespace rk::detail
{
/// The left operand folded into the result once: the call's `init`, or none (the local step of
/// a multi-GPU reduction, whose ranks' results are combined later).
template <class T>
struct initial_value
{
  uninitialized<T> value;
  bool present;

  template <class Op>
  __device__ T combine(const T& total, Op& op) const
  {
    return present ? op(value.value, total) : total;
  }
};

template <class T>
initial_value<T> with_init(const T& init)
{
  initial_value<T> i{};
  std::memcpy(static_cast<void*>(&i.value), &init, sizeof(T));
  i.present = true;
  return i;
}

template <class T>
initial_value<T> without_init()
{
  return initial_value<T>{};
}

/// A tuning provider's shapes with the tree `Shape`, whatever the provider chose.
template <class Provider, tree_shape Shape>
struct with_tree_shape
{
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    reduce_tuning t = Provider::template get<Item, vectorized>();
    t.tree          = Shape;
    return t;
  }
};

/// rk::atomic combines block results in arrival order, so a fixed tree would buy it nothing.
template <class Provider>
using as_grid_ordered = with_tree_shape<Provider, tree_shape::grid_ordered>;

/// Everything a kernel needs to know about how it reads `Input` (a raw pointer, 16-byte aligned on
/// the vectorized path, or an iterator) and how big its blocks are. `Provider` is the policy's
/// tuning provider. `ShiftedWords`: a raw array off the 16-byte grid (element_pointer) of 4- or
/// 8-byte items is read as shifted vectors in the tree's tiles (shifted_word_chunks). Kernels that
/// hold this body alone ask for it (the flat kernels, flat_reduce_agent; the fixed-size form's long
/// rows): in a kernel that holds both the vector and the element body (the CSR form's long and
/// few-segments kernels) its registers spilled 20-164 bytes a thread (ptxas, floats).
template <class Provider, class Input, class T, bool ShiftedWords = false>
struct reduce_agent
{
  using input_type                      = Input;
  using item                            = tree_item_t<Input>; // the item read from memory (its size fixes the tiles)
  static constexpr bool vectorized      = vector_source<Input>::vectorizable;
  static constexpr reduce_tuning tuning = Provider::template get<item, vectorized>();
  static constexpr bool pairwise        = tuning.tree == tree_shape::pairwise_tiles;
  static constexpr int block_threads    = tuning.block_threads;
  static constexpr int in_flight        = tuning.chunks_in_flight;
  /// Blocks per multiprocessor the kernels are compiled for (tuning.cuh).
  static constexpr int min_blocks_per_sm = reduce_min_blocks_per_sm(pairwise, sizeof(T), block_threads);
  static_assert(block_threads >= warp_threads && block_threads <= 1024 && block_threads % warp_threads == 0
                  && warp_threads % (block_threads / warp_threads) == 0,
                "rk tuning: block_threads must be 32 times a power of two (32, 64, ..., 1024)");
  static_assert(tuning.lane_units >= 1, "rk tuning: lane_units must be at least 1");
  static_assert(tuning.chunks_in_flight >= 1, "rk tuning: chunks_in_flight must be at least 1");
  static_assert(tuning.min_chunks_per_warp >= 1, "rk tuning: min_chunks_per_warp must be at least 1");
  static_assert(tuning.waves >= 1, "rk tuning: waves must be at least 1");
  static_assert(tuning.max_blocks >= 0, "rk tuning: max_blocks must be 0 (no cap) or positive");
  static_assert(!pairwise || block_threads / warp_threads * tuning.chunks_in_flight <= 4 * warp_threads,
                "rk tuning: block_threads / 32 * chunks_in_flight must be at most 128 (tiles a block holds at once)");

  /// A tile of the reproducible tree: each lane reads 32 bytes (two 16-byte vectors, or
  /// tile_lane_items elements through the iterator).
  static constexpr int lane_items     = tile_lane_items<item>;
  using transform                     = typename vector_source<Input>::transform;
  static constexpr bool shifted_words = ShiftedWords && is_element_pointer<Input>::value && shifts_words_v<item>;
  using tile_chunks                   = std::conditional_t<
                      vectorized, vector_chunks<item, T, tile_lane_bytes / vector_bytes, transform>,
                      std::conditional_t<shifted_words, shifted_word_chunks<item, T>, iterator_chunks<Input, T, lane_items>>>;
  using grid_chunks = std::conditional_t<vectorized, vector_chunks<item, T, tuning.lane_units, transform>,
                                         iterator_chunks<Input, T, tuning.lane_units>>;
  using chunks_type = std::conditional_t<pairwise, tile_chunks, grid_chunks>;
  static_assert(!pairwise || chunks_type::chunk_items == tile_items<item>, "a chunk is one tile of the tree");
  static constexpr int chunk_items = chunks_type::chunk_items;
  using plan_type                  = std::conditional_t<pairwise, tree_plan, range_plan>;

  /// The grid cap: the device's (waves of resident blocks), the tuning's, and the tree's.
  static offset_t grid_cap(offset_t device_blocks)
  {
    offset_t cap = device_blocks;
    if (tuning.max_blocks > 0 && tuning.max_blocks < cap)
    {
      cap = tuning.max_blocks;
    }
    if constexpr (pairwise)
    {
      cap = cap < max_tree_parts ? cap : max_tree_parts;
    }
    return cap;
  }

  __host__ __device__ static plan_type plan(offset_t n, offset_t max_blocks)
  {
    const offset_t min_chunks = offset_t{tuning.min_chunks_per_warp} * (block_threads / warp_threads);
    if constexpr (pairwise)
    {
      const offset_t tiles = ceil_div(n, offset_t{tile_items<item>});
      offset_t blocks      = ceil_div(tiles, min_chunks);
      blocks               = blocks < max_blocks ? blocks : max_blocks;
      return tree_plan{n, even_node_split(make_tile_split(tiles, blocks))};
    }
    else
    {
      return make_range_plan(n, chunk_items, max_blocks, static_cast<offset_t>(chunk_items) * min_chunks);
    }
  }

  /// The most scratch values a plan of at most `max_items` items on `max_blocks` blocks writes (a
  /// count in device memory: its scratch is leased before the count is known). Below
  /// max_node_level a split has at most two nodes a part; capped at it, the most items have the
  /// most nodes.
  static offset_t max_partial_values(offset_t max_items, offset_t max_blocks)
  {
    if constexpr (pairwise)
    {
      const offset_t most_items_nodes = plan(max_items, max_blocks).split.nodes();
      const offset_t nodes            = most_items_nodes > 2 * max_blocks ? most_items_nodes : 2 * max_blocks;
      return nodes + piece_slots(max_blocks);
    }
    else
    {
      return max_blocks;
    }
  }

  /// Scratch a plan's blocks write: node values and pieces, or one partial per block (rk::atomic,
  /// which writes none, leases them all the same: a block's worth of values).
  __host__ __device__ static offset_t partial_values(const plan_type& p)
  {
    if constexpr (pairwise)
    {
      return p.split.nodes() + piece_slots(p.split.parts);
    }
    else
    {
      return p.blocks;
    }
  }

  __host__ __device__ static tree_outputs<T> outputs(const tree_plan& p, T* partials)
  {
    return {partials, partials + p.split.nodes()};
  }

  __host__ __device__ static chunks_type chunks_of(const Input& first)
  {
    if constexpr (vectorized)
    {
      return chunks_type{vector_source<Input>::items(first), vector_source<Input>::transform_of(first)};
    }
    else if constexpr (pairwise && shifted_words)
    {
      return chunks_type::at(first.items);
    }
    else
    {
      return chunks_type{first};
    }
  }

  template <class Op>
  __device__ static maybe<T> reduce_part(Input first, const tree_plan& p, offset_t part, const tree_outputs<T>& out,
                                         Op& op)
  {
    const chunks_type chunks = chunks_of(first);
    return tree_reduce_part<block_threads, in_flight, lane_items, T>(first, chunks, p, part, out, op);
  }

  template <class Op>
  __device__ static T reduce_block(Input first, const range_plan& p, int block, Op& op)
  {
    const chunks_type chunks = chunks_of(first);
    if constexpr (tuning.tree == tree_shape::merged_lanes)
    {
      return block_merge_range<block_threads, in_flight, T>(first, chunks, p, block, op);
    }
    else
    {
      return block_reduce_range<block_threads, in_flight, T>(first, chunks, p, block, op);
    }
  }
};

/// The flat reduction's block body (rk::single_pass and rk::two_pass, and rk::explain's account of
/// them): its kernels hold this one body, so an array off the 16-byte grid takes shifted vectors.
template <class Provider, class Input, class T>
using flat_reduce_agent = reduce_agent<Provider, Input, T, true>;
} // namespace rk::detail

#pragma once
/// \file
/// Launch shapes of the GPU backends, in one place. A policy carries a tuning provider
/// (rk::default_tuning unless the caller injects another with `policy.tuned<Provider>()`), and the
/// kernels are compiled for the reduce_tuning it returns. The figures beside each choice were
/// measured with perf/rk_perf on the device named in perf/RESULTS.md; perf/NOTES.md has the runs.

namespace rk
{
/// Which reduction tree a tuning runs.
enum class tree_shape
{
  /// The default: the tree of rk/detail/tree.hpp, fixed by the input length, so results have the
  /// same bits on every GPU, grid, tuning and order-preserving backend, and under rk::host. A
  /// warp's "chunk" is one tile of that tree (32 lanes of 32 bytes of items), so `lane_units`
  /// plays no part.
  pairwise_tiles,
  /// rk's earlier shape, kept for comparison (the perf suite runs both): each block folds its
  /// share left to right, so float results depend on the grid. rk::atomic always runs it.
  grid_ordered
};

/// One backend's launch shape. A warp consumes its contiguous share of the input in "chunks" read
/// with coalesced loads and reduced in order with one warp reduction: under tree_shape::
/// pairwise_tiles a chunk is one tile of the reduction tree; under grid_ordered each lane takes
/// `lane_units` adjacent load units (16-byte vectors on the vectorized path, single elements on
/// the generic-iterator path).
struct reduce_tuning
{
  int block_threads;       ///< threads per block: 32 times a power of two, at most 1024
  int lane_units;          ///< adjacent load units per lane per chunk (grid_ordered only)
  int chunks_in_flight;    ///< chunks whose loads a warp issues before it uses the first
  int min_chunks_per_warp; ///< below this much work per warp, start fewer blocks
  int waves;               ///< grid cap, in waves of resident blocks (more waves balance slow SMs)
  int max_blocks  = 0;     ///< a further cap on the grid, 0 for none (tests use it: 1 block, 7, ...)
  tree_shape tree = tree_shape::pairwise_tiles;
};

/// The tuning rk uses unless told otherwise.
struct default_tuning
{
  /// `Item` is the type read from memory; `vectorized` says whether it is read as 16-byte vectors.
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    if constexpr (vectorized)
    {
      // Sweep of 16 shapes, H200, rk::single_pass sums (perf/NOTES.md, v3). 256/2/2/2/1 was the
      // fastest double shape at every size (2^26: 96.1 % of the probe, 2^28: 97.6 %) and within
      // 1-4 % of the fastest int32 shape from 2^18 up (2^18: 5.07 us, the fastest; 2^28: 97.7 %
      // of the probe against 98.8 % for 256/2/4/4/1). More waves were slower at every size.
      return reduce_tuning{256, 2, 2, 2, 1};
    }
    else
    {
      // Generic iterators (counting, transform, zip, ...) and the partials pass: one element
      // per load, four adjacent per lane so a chunk needs one warp reduction per 128 elements.
      return reduce_tuning{256, 4, 2, 1, 1};
    }
  }
};

/// A tuning provider that always answers `Tuning` (handy for tests and the perf sweep).
template <int BlockThreads, int LaneUnits, int ChunksInFlight, int MinChunksPerWarp, int Waves = 1, int MaxBlocks = 0,
          tree_shape Tree = tree_shape::pairwise_tiles>
struct fixed_tuning
{
  template <class, bool>
  static constexpr reduce_tuning get()
  {
    return reduce_tuning{BlockThreads, LaneUnits, ChunksInFlight, MinChunksPerWarp, Waves, MaxBlocks, Tree};
  }
};

/// rk::default_tuning's shapes with the grid-ordered tree: rk before the reproducible tree, for
/// the perf suite's comparison.
struct grid_ordered_tuning
{
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    reduce_tuning t = default_tuning::get<Item, vectorized>();
    t.tree          = tree_shape::grid_ordered;
    return t;
  }
};

/// The shapes of rk::arg_min, rk::arg_max and rk::arg_min_max over `Provider`'s. Their answer (the
/// first minimum or maximum) does not depend on how the items are grouped, so they need no fixed
/// tree, and their {value, index} pairs are 16 bytes or more: with a warp reduction per 256-item
/// tile, int32 arg_min ran at 1.2-1.7x the read probe on the H100 (2^24: 43.6 us, CUB's ArgMin
/// 29.3). The grid-ordered body with more vectors per lane runs fewer warp reductions. Sweep of
/// (lane_units, chunks_in_flight), H100, int32 / float arg_min, 2^24 and 2^28 us (CUB: 29.2-29.7,
/// 360): (4, 2) 29.7 / 361.6 int32, 33.7 / 373.8 float; (8, 1) 33.0 / 405.5, 35.3 / 411.3;
/// (8, 2) 32.9 / 412.2, 35.9 / 419.4; (16, 1) 35.3 / 418.1, 42.2 / 506.4 (perf/RESULTS.md).
template <class Provider>
struct arg_tuning
{
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    reduce_tuning t       = Provider::template get<Item, vectorized>();
    t.tree                = tree_shape::grid_ordered;
    t.lane_units          = 4;
    t.chunks_in_flight    = 2;
    t.min_chunks_per_warp = 1;
    return t;
  }
};
} // namespace rk

#pragma once
/// \file
/// Launch shapes of every GPU algorithm, in one place. rk::reduce's shapes come from the policy's
/// tuning provider (rk::default_tuning unless the caller injects another with
/// `policy.tuned<Provider>()`); the kernels are compiled for the reduce_tuning it returns. The
/// shapes of the segment kernels, the final passes and reduce_by_key's run pass follow below,
/// each a constant or a constexpr function of the sizes it depends on, with the one measured
/// figure that decided it (perf/bench: rk_bench_tuning, rk_bench_segmented, rk_bench_family, and
/// the hand-timed suites before them; the runs and the alternatives tried are in perf/NOTES.md
/// and perf/RESULTS.md). Every figure was
/// measured on sm_90 (H100, H200); no shape depends on the compute capability yet, because no
/// other architecture has been measured: one that differs gets its own answer here.

#include <rk/detail/tree.hpp>

#include <algorithm>
#include <cstddef>

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
  grid_ordered,
  /// grid_ordered's split, for operators that choose one of their operands and have an order-free
  /// `merge(a, b)` (the arg reductions, ties broken by index): each lane folds its own items in
  /// order across all of its chunks, and a block merges its lanes once, at the end, instead of
  /// running a warp reduction a chunk. Another operator is a compile-time error.
  merged_lanes
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
      // 256 threads, 2 vectors per lane, 2 tiles in flight: 97.6 % of the read probe for double
      // and 97.7 % for int32 at 2^28, the fastest of 16 shapes for double (H200).
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
/// tree, and their {value, index} pairs are 16 bytes or more: the grid-ordered body with four
/// vectors per lane runs fewer warp reductions of them than a tile tree (int32 arg_min at 2^24:
/// 29.7 us against 43.6 on the tile tree and CUB's 29.2, H100). Merged lanes merge a block's
/// lanes once instead of running a warp reduction a chunk (512 floats), with no barrier between
/// chunks: float arg_min at 2^28 240.0 us against 269.3 and CUB's
/// 241.0, double 467.6 against 510.2 and CUB's 470.7; 512-thread blocks took 0.8-3 % less than
/// 256 from 2^24 (float 2^28 238.0, 2^24 21.8 against 22.4) and 1 % more at 2^20 (H200).
template <class Provider>
struct arg_tuning
{
  template <class Item, bool vectorized>
  static constexpr reduce_tuning get()
  {
    reduce_tuning t       = Provider::template get<Item, vectorized>();
    t.tree                = tree_shape::merged_lanes;
    t.block_threads       = 512;
    t.lane_units          = 4;
    t.chunks_in_flight    = 2;
    t.min_chunks_per_warp = 1;
    return t;
  }
};
} // namespace rk

namespace rk::detail
{
// rk::reduce.

/// Blocks per multiprocessor rk::reduce's kernels are compiled for (a register budget): under the
/// reproducible tree and a T of at most 8 bytes, 1024 threads' worth (64 registers, which the body
/// fits without spills); ptxas alone gave it 72-95 registers, three 256-thread blocks per SM where
/// four fit. At 48 registers (five blocks) it spilled, and ran slower.
constexpr int reduce_min_blocks_per_sm(bool pairwise, std::size_t value_bytes, int block_threads)
{
  return pairwise && value_bytes <= 8 && block_threads < 1024 ? 1024 / block_threads : 1;
}

/// rk::single_pass runs a grid of 2 to this many blocks as one thread block cluster (sm_90 and
/// later, where the device has room for one): block 0 finishes from its own shared memory after
/// the cluster's barrier instead of the last block after a global counter. The largest cluster
/// Hopper allows (16; above 8 is non-portable, which runs_as_one_cluster asks for). rk::reduce_into,
/// cold, H200: the calls it takes (4-byte items 2^13-2^16, 8-byte 2^12-2^15) 8-16 % faster for
/// every type (float 2^14 6.19 -> 5.35 us, double 2^12 6.39 -> 5.60; the read probe 3.96 and
/// 3.91), the rest level within 1 %.
inline constexpr int single_pass_cluster_max_blocks = 16;

/// The one-cluster finish also needs the split's node values and pieces (partial_values) in block
/// 0's dynamic shared memory: at most this many bytes, which every T up to 16 bytes meets on 16
/// blocks (17 part boundaries' piece slots: 680 values).
inline constexpr std::size_t single_pass_cluster_values_bytes = 16384;

/// Partials per thread the grid-ordered final pass loads at once: a grid of up to 8 *
/// block_threads blocks is reduced in one memory round trip (larger grids still work, more
/// slowly).
inline constexpr int final_partials_per_thread = 8;

/// Pieces of a cut node whose loads a thread issues before it combines them (one memory round trip
/// per four levels instead of one per level). With eight, and eight node values in final_tree,
/// two-pass's second kernel took 96-105 registers (ptxas, sm_90) against 40-46 with four.
inline constexpr int cut_pieces_in_flight = 4;

/// Node values a thread of final_tree loads before it combines them: a grid of up to 1024 nodes
/// (four per thread of a 256-thread block) costs one memory round trip.
inline constexpr int final_values_in_flight = 4;

// rk::segmented_reduce (and rk::reduce_by_key's long runs).

/// Threads of the short-segment kernel.
inline constexpr int segment_block_threads = 256;

/// Blocks per SM the short-segment kernel is compiled for (a register budget: 64, no spills with the
/// tiny run's lengths as int). At five (48 registers) it spilled 80-108 bytes, 9.5 local loads a
/// 4096-item segment (ncu); four took CSR segments of 8 to 8192 items 1-11 % faster, 5-11 % at
/// 256-4096, for int32, float and double (H100, one session). Its 1-8-item segments are bound by
/// memory latency, so by the loads in flight per SM: those lost 2-6 % at four blocks until
/// tiny_batches went from four to eight (below). Three (80 registers) took 1.10-1.21x four's time
/// on CSR segments of 1 and 32 items and the irregular layouts; spending its extra registers on two
/// lane-group queue rounds in flight still left 32-item segments at 1.02-1.18x (H100, another session;
/// all measured before packed lanes replaced the lane-group queues).
inline constexpr int short_segment_min_blocks_per_sm = 4;

/// Batches of one-lane segments the short-segment kernel reduces in one step, each thread with
/// this many segments in flight: a batch at a time, that path waits on a round trip per segment.
/// At four blocks an SM, eight against four: 2^26 one-item segments 453.7 -> 429.4 us (int32),
/// 453.6 -> 429.3 (float), 623.7 -> 603.4 (double); five blocks with four batches had 426.3,
/// 444.0, 626.2 (H100, one session; a block's batches then, a warp's now). A warp with fewer
/// batches left runs the ones it has on this path: 2^20 one- to 32-item segments took 9-24 % less
/// time than five blocks with four batches, which sent such blocks through the lane-group queues
/// of the time (H100, another session).
inline constexpr int tiny_batches = 8;

/// Rounds of packed lanes (rk/cuda/agent/segment_groups.cuh: a warp's segments of at most a tile,
/// whole segments to a round of 32 lanes) whose loads a warp issues together. Four took 1.00-1.09x
/// two's time over ten CSR layouts at 2^26 (int32, float, double; doubles' 8-item segments the
/// worst): their items pushed the kernel past its 64 registers, into 3-60 more local loads and
/// stores (H100).
inline constexpr int packed_rounds_in_flight = 2;

/// Lanes a segment may span and still take the one-thread step above: two for items of 8 bytes or
/// more (8-item double segments took 373 us at 2^26 on lane groups, 183 us on threads, H200), one
/// for smaller items, whose two-lane step cost some instantiations 10-17 % on 1- to 4-item
/// segments (int32 all-1 349.5 -> 409.6 us, CUB-form float all-1 368.7 -> 411.1) while their
/// 9- to 16-item segments run well on lane groups.
template <class Item>
inline constexpr int tiny_segment_lanes = tile_lane_items<Item> <= 4 ? 2 : 1;

/// Full tiles whose loads a warp issues together (window_node). One at a time, the power law's
/// short-segment kernel took 55 us at 2^26 int32 for 11 % of the items, 45 us with two (H100, ncu);
/// four gave the kernel 80 registers, three blocks per SM instead of four, and was slower on every
/// short path.
inline constexpr int window_tiles_in_flight = 2;

/// States of at least this many bytes reduce window_node's batch of full tiles with the first
/// levels of their trees split between each pair of lanes (warp_reduce_tiles: 5 merges a lane
/// for two tiles instead of 10); smaller ones keep one warp_reduce a tile. On an H200 at 2^26
/// (rk_bench_axes, rk_bench_segmented), rk::mean_var's 16-byte state took layer norm's rows from
/// 165.0 to 122.4 us and batch norm's from 173.8 to 127.2; float and double sums over CSR segments
/// of 1024 and 4096 items were 1-4 % slower with it (double 4096: 147.8 -> 153.6 us), row sums
/// 1-3 % faster.
inline constexpr int split_tile_trees_min_bytes = 16;

/// Full tiles whose trees window_node builds together for states of split_tile_trees_min_bytes or
/// more (a power of two, a multiple of window_tiles_in_flight, at most a window): a lane combines
/// Trees - 1 + 5 - log2(Trees) times for the batch, 1.5 times a tile at 4 against 2.5 at 2. Its
/// states stay in registers across the whole kernel, so larger batches cost every row some
/// occupancy. H200, 2^26 floats, µs: rk::mean_var over layer norm's rows of 4 tiles / batch norm's
/// runs of 32 at 2, 4 and 8 tiles 96.7 / 110.6, 88.7 / 96.8, 88.8 / 95.7 (item by item), and with
/// vector loads 80.0 / 87.6 at 4, 80.1 / 87.8 at 8; segmented arg_min's rows of 256 / 4096 floats
/// (16-byte states, 40, 48 and 64 registers) 132.2 / 94.5, 137.7 / 90.4, 155.3 / 88.0.
inline constexpr int window_tree_batch_tiles = 4;
static_assert(window_tree_batch_tiles <= 32 && (window_tree_batch_tiles & (window_tree_batch_tiles - 1)) == 0
              && window_tree_batch_tiles % window_tiles_in_flight == 0);

/// Segments longer than this many tiles go on the long list, and fixed-size rows longer than it
/// are cut into parts of rk::reduce's block body (32 tiles: 8192 int32, 4096 doubles, a window:
/// a warp streams anything shorter with 16-byte loads). With 16, 8192 floats a segment took
/// 173 us at 2^26 (8192 of them filled the list of the time, whose one-block plan was the critical
/// path) against 80.6 with 32, and 4096 doubles 262 against 137; 8192-float rows took 71.8 us as a
/// block each against 64.2 on a warp each (H200). Before the warps' 16-byte loads, 32 had been
/// slower for 4096-double segments (310 against 249 us, H100).
inline constexpr offset_t long_segment_min_tiles = 32;
static_assert(long_segment_min_tiles <= 32, "a warp's segment or row is one window of tiles at most");

/// Fixed-size rows longer than a window of states of row_windows_min_state_bytes or more
/// (rk::mean_var's: the size stands in for a merge that costs more than its loads) go a warp per
/// chunk of windows, the chunks halved until there are jobs for 1/row_windows_min_wave_share of
/// the warps the GPU holds. Each window is folded by a register counter of row_windows_levels
/// levels, so a chunk is at most 2^(levels - 1) windows. Other rows are cut into parts of
/// rk::reduce's block body. H200, 2^26 items unless said, us, parts against windows: rk::mean_var
/// over 8 rows of 2^23 floats 147 against 92 (117 with jobs for every warp: more chunks, smaller),
/// 256 rows of 2^18 147 against 87, 2048 rows of 32768 149 against 80 (97 cut into 4096 chunks),
/// over 8 rows of 2^23 doubles 367 against 192. Double and 64-bit sums took the windows where
/// their rows filled every warp, on H200 figures against an earlier parts body (8192 rows of 8192
/// doubles 145 against 128); on today's parts they are faster at every shape that route took, on
/// two H100s, two rounds each (8192 x 8192 doubles 188.4 -> 186.3 and 194.0 -> 189.0 us; 2^28
/// items in rows of 16384 697.8 -> 688.8 and 721.1 -> 703.2; int64 alike), and on an H200 2^28
/// doubles in rows of 16384 ran at 1.09x the probe on the windows against 1.01-1.03x for the
/// lengths on parts. Float sums lose on the windows at every shape measured (8192 runs of 32768
/// items 1.04 against 1.18 the probe).
inline constexpr int row_windows_levels          = 8;
inline constexpr int row_windows_min_state_bytes = 16;
inline constexpr int row_windows_min_wave_share  = 2;

/// The tree level of a listed segment's parts: nodes of 2^level tiles (128: 32768 floats), one
/// part each; a segment of at most that many tiles is one part. A part's fixed costs (taking it,
/// reading its segment, warp 0's window trees, the arrival) want it long, the balance of the queue
/// short. H200, float sums at 2^26 on rk::single_pass, segments of 16384 / 65536 / 2^24 items,
/// and one segment (µs): level 5 93.8 / 87.2 / 85.5 / 82.6, level 6 77.6 / 80.7 / 79.6 / 82.5,
/// level 7 77.9 / 79.1 / 76.9 / 78.4, level 8 78.3 / 72.5 / 74.6 / 74.1 but 168.9 against 142.6 for
/// one segment of half the items beside millions of 1-8-item ones (its 512 parts leave the
/// queue's tail to a few blocks).
inline constexpr int long_segment_part_level = 7;

/// Parts a listed segment is cut into at most (each one node of its tree, of
/// long_segment_part_level for segments of up to this many such nodes, larger nodes past that):
/// the block that finishes a segment folds this many node values, 16 per thread, four loads at a
/// time.
inline constexpr offset_t long_segment_max_parts = 4096;

/// Parts a call's long list holds at most (each costs the scratch three words of record, an owner,
/// a list entry, a node value and an arrival word): twice the parts 2^28 doubles can make (65,520,
/// as one-part segments of 4097 items, the shortest listed). A segment that finds the list full
/// goes to a warp: slower for millions of items, never wrong.
inline constexpr offset_t long_segment_part_capacity = offset_t{1} << 17;

/// Calls of the CSR and CUB forms with at most this many segments skip the long list: every block
/// reads every segment's bounds and cuts each into parts in proportion to its tiles, about one part
/// a block (rk/cuda/agent/few_segments.cuh). The long list's 128-tile parts drain a block's loads
/// at every boundary: H200, 2^26 items, us, list against few-segments path: one segment of floats
/// 75.9 against 69.8 (rk::reduce_into 66.1), of doubles 143.6 against 132.5 (128.3); 64 segments
/// of 2^20 floats 75.4 against 70.2, of doubles 142.1 against 132.9. 64: two segments a lane of
/// the warp that lays them out, in every block, before its first load; more (1024 segments of
/// 65536 floats stay on the list at 77.2) were not measured.
inline constexpr int few_segments_max = 64;

/// The long-segment kernel holds two block bodies (16-byte vectors and elements, for segments on
/// and off the 16-byte grid); ptxas alone gives it 100-127 registers, two 256-thread blocks per
/// SM, too few loads in flight. This asks for room for this many (the fixed-size form's long rows
/// too, whose kernels hold one body each: see one_agent).
inline constexpr int long_segment_min_blocks_per_sm = 4;

// rk::segmented_reduce's fixed-size form (rk/cuda/agent/segment_rows.cuh). Measured on an H200
// against a kernel that reads the items and writes the rows (float, 2^26 items).

/// Threads of the short-row kernels (a thread, a group of lanes or a warp per row).
inline constexpr int row_block_threads = 256;

/// Rows of at most one lane's items a thread reduces at once, every load issued first: one row at
/// a time, a thread waits a memory round trip per 4-32 bytes. Eight measured the same as four
/// (2^26 one-item float rows: 205 against 209 us, 4-item rows 88.5 against 87.4).
inline constexpr int lane_rows_in_flight = 4;

/// Bytes of items a thread of the one-lane row kernel has in flight at least: rows of fewer bytes
/// than lane_rows_in_flight of them fill take more rows a thread, up to 16. 2^26 rows of one int32
/// took 171.1 us at four rows a thread, 1.19x a read of the items and a write of the rows, and
/// 150.3 us (1.04x) at eight; floats 165.5 (1.11x) and 145.0 (1.01x). 64 bytes (16 rows of a
/// 4-byte item, 8 of a double) measured 150.0 for both 4-byte types and 274.5 against 271.6 for
/// one-double rows (H200).
inline constexpr int lane_row_bytes_in_flight = 32;

/// Rows a thread of the one-lane row kernel reduces at once, for rows of `RowItems` items.
template <class Item, int RowItems>
inline constexpr int lane_rows_in_flight_for = [] {
  const int fill = lane_row_bytes_in_flight / static_cast<int>(RowItems * sizeof(Item));
  return fill < lane_rows_in_flight ? lane_rows_in_flight : fill < 16 ? fill : 16;
}();

// rk::reduce_by_key's run pass.

/// Bytes of the widest of key, value item and accumulator that a thread of the run pass takes
/// (16 int32 keys with float values, 8 with doubles). The run pass is bound by its per-tile
/// latency (loads, the look-back, the staged stores) more than by bandwidth, so a larger tile
/// pays: at runs of 10^6 (int32 keys, float values, 2^24 items, H100) it took 72.8 us with 64
/// bytes against 87.9 with 32.
inline constexpr std::size_t run_pass_thread_bytes = 64;
/// Blocks per SM the run pass is compiled for: ptxas alone gives the 4096-item tile 76 registers
/// (three blocks); at four (64 registers, a few bytes of spills) the whole call at runs of 1000
/// (2^26 items) took 371 against 400 us.
inline constexpr int run_pass_blocks_per_sm = 4;

/// The run pass's tile for keys `Key`, value items `Item` and accumulator `T`: each thread takes
/// run_pass_thread_bytes of the widest of the three, at most 16 items. Fewer threads for wide
/// types keep the staging arrays within a block's 48 KiB of static shared memory. A run is short,
/// and reduced in the run pass, when it has at most short_max items: one lane's worth (its
/// segmented bits are a left fold) and at most a thread's (so it spans two threads at most).
template <class Key, class Item, class T>
struct run_pass_shape
{
  static constexpr std::size_t widest = std::max({sizeof(Key), sizeof(Item), sizeof(T)});
  static constexpr int threads        = widest <= 16 ? 256 : widest <= 64 ? 128 : widest <= 128 ? 64 : 32;
  static constexpr int items          = widest >= run_pass_thread_bytes     ? 1
                                      : run_pass_thread_bytes / widest > 16 ? 16
                                                                            : static_cast<int>(run_pass_thread_bytes / widest);
  static constexpr int short_max      = tile_lane_items<Item> < items ? tile_lane_items<Item> : items;
  static constexpr int tile_items     = threads * items;
};

// rk::reduce_axes's column engine (rk/cuda/kernels/reduce_axes.cuh).

/// Threads of the column kernels. A block covers up to column_block_threads adjacent outputs, so a
/// warp's loads of one item row are one coalesced run; with fewer outputs (a tall matrix's
/// columns) the threads left over take more runs of the same outputs' lanes.
inline constexpr int column_block_threads = 256;

/// The column nodes kernel's occupancy bound (blocks an SM), given explicitly. For states of at
/// most 8 bytes, one: with it ptxas budgets the vector kernel (four outputs a thread) 110
/// registers instead of 100 and keeps more of its loads in flight, at the same two blocks an SM:
/// 8 x 2^23 float columns 109.2 -> 100.2 us, every one-output-a-thread shape level (64 registers
/// either way). Bounds of 5 and 6 blocks (48 and 40 registers) made those shapes 5-23 % slower
/// (H200, rk_perf_axes). Larger states (rk::mean_var's), two: alone, ptxas gave the double
/// statistics' kernels 135 and 166 registers, one block an SM, and layer norm over a layout_left
/// 65536 x 1024 double array took 2.00x the probe, batch norm 2.13x; with two blocks (128
/// registers) 1.32x and 1.48x, float statistics level. Two blocks for every state made float
/// sums over a layout_left 2^24 x 4 array 1.06 -> 1.22x; three (85 registers) made float batch
/// norm 1.25 -> 1.45x (H200, rk_bench_axes).
constexpr int column_nodes_min_blocks(std::size_t state_bytes)
{
  return state_bytes > 8 ? 2 : 1;
}

/// Threads the column engine aims for, in units of the GPU's resident threads: enough runs of
/// every column to keep the memory busy while each thread folds its lanes one after another.
inline constexpr int column_waves = 2;

/// A column thread's run is at least 2^column_min_run_level lanes (32 float rows), so a thread has
/// loads in flight for a while before its node is combined.
inline constexpr int column_min_run_level = 2;

/// Full lanes a column thread loads before it combines them, pushed into its counter as one node.
/// Two: four (72 registers instead of 64, 3 blocks an SM instead of 4) made 8192 x 8192 and
/// 2^23 x 8 float columns 1 % slower and 2^20 x 64 1 % faster (H200, rk_bench_axes).
inline constexpr int column_group_lanes = 2;

/// A column thread's run is at most 2^column_max_run_level lanes (512 float rows): its counter
/// (register_fold) keeps that many levels and one more in registers. Longer columns are cut into
/// more chunks, which the finish combines.
inline constexpr int column_max_run_level = 6;

/// Where a column block's columns are consecutive runs of one output and it combines them (the
/// column engine over runs, grid.across), its rows are at least 128 bytes wide, a thread's run at
/// least 2^column_across_min_run_level lanes (where the block can be that wide) and at most
/// 2^column_across_max_run_level, with every run in one chunk. The runs lie a step of a whole
/// array's axis apart: with rows of 32 bytes (8 floats), layout_left's axes (0, 2) of 32 x 256 x
/// 8192 floats took 1.30x the probe and all axes of 8192 x 8192 doubles 1.71x; with 64 bytes 1.25x
/// and 1.22x; with 128, 1.07x and 1.14x (H200, rk_bench_axes). Runs of 8 lanes a thread (256 x 512
/// x 512 floats, axes (0, 2): two block-wide combines for 64 items a thread) took 1.18x.
inline constexpr int column_across_row_bytes     = 128;
inline constexpr int column_across_min_run_level = 5;
inline constexpr int column_across_max_run_level = 8;

/// Shared memory a column block may use to combine its runs (a value per thread): T of up to 64
/// bytes. Larger T keep one run per output in a block.
inline constexpr std::size_t column_runs_shared_bytes = 16384;

/// Chunk nodes a column finish thread loads before it combines them, and so the most it folds:
/// the finish spreads an output's chunks over enough threads for one round of loads.
inline constexpr int column_finish_batch = 8;

/// Levels of the column finish's per-thread binary counter over chunk nodes (2^47 of them).
inline constexpr int column_fold_levels = 48;

// rk::accumulator over pageable host memory (rk/cuda/dispatch/accumulator.cuh).

/// Bytes of each of the accumulator's two pinned staging buffers: the host copies a chunk's next
/// piece into one while the GPU reduces the other. Large enough that the per-piece launches and the
/// event wait are a small part of a piece's copy (32 MiB take about 2 ms at 15 GB/s).
inline constexpr std::size_t accumulator_staging_bytes = std::size_t{32} << 20;

/// Host threads that copy a piece into a staging buffer (one per MiB at most). 32 GiB of pageable
/// floats went through at 5.3 GiB/s with one thread and 24.4 with eight, against 6.8-7.5 for
/// cudaMemcpyAsync from the same memory (H100 host, 16 cores).
inline constexpr int accumulator_staging_copy_threads = 8;

// rk::nccl (rk/nccl/dispatch.cuh).

/// The most bytes of a shard that rk::nccl's call through symmetric memory, with no offset given,
/// reduces in one kernel on a guessed offset (symmetric_shard_partials_kernel, one block an SM);
/// larger shards exchange the lengths first and reduce at the offset found, in three kernels at
/// rk::reduce's occupancy. Float shards a rank, µs a call (2x H200): 2^22, 19.7 against 21.6;
/// 2^24, 38.0 against 37.5; 2^26, 94.0 against 82.8.
inline constexpr std::size_t nccl_guessed_offset_max_bytes = std::size_t{32} << 20;
} // namespace rk::detail

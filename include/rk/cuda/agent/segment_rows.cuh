#pragma once
// The fixed-size form's block bodies: rows of one length, so how each row is read follows from
// that length alone, with no list, no plan and no offsets. Every row gets rk::reduce's tree
// counted from its own first item (rk/detail/tree.hpp), as every segment does:
//  - rows of at most one lane's items: a thread per row, several rows in flight (more for rows
//    of one item);
//  - rows of up to half a tile: a group of 2, 4, 8 or 16 lanes per row, several rows per warp;
//  - rows of up to long_segment_min_tiles tiles: a warp per row, tile by tile (window_node);
//  - longer rows of states of 16 bytes or more (rk::mean_var's): a warp per row or per chunk of a
//    row, window by window, the windows folded by a register counter (register_fold), a row's
//    chunks joined in order;
//  - else rk::reduce's block body over a row's parts, every row cut alike
//    (rk/cuda/agent/segment_parts.cuh), the parts put together as a long segment's are.

#include <rk/cuda/agent/segment_groups.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/lane_fold.cuh>
#include <rk/cuda/primitives/register_fold.cuh>
#include <rk/cuda/tuning.cuh>
#include <rk/detail/segments.hpp>
#include <rk/detail/tree.hpp>

#include <algorithm>
#include <type_traits>

namespace rk::detail
{
/// How the long rows of a fixed-size call are cut: `parts` blocks per row, each a part of the
/// same tile split. Where a row's tree has more than one node at the split's level (more than one
/// part, or a row of more than 2^max_node_level tiles), its parts are joined: an arrival word per
/// row, and the row's node values and pieces at values_per_row() apart in the call's scratch;
/// otherwise its one block keeps its nodes.
struct row_parts
{
  offset_t rows;
  offset_t items; ///< per row
  offset_t parts; ///< per row
  tile_split split;

  RK_HOST_DEVICE constexpr offset_t jobs() const
  {
    return rows * parts;
  }
  RK_HOST_DEVICE constexpr bool joined() const
  {
    return split.nodes() > 1;
  }
  RK_HOST_DEVICE constexpr offset_t values_per_row() const
  {
    return joined() ? split.nodes() + piece_slots(parts) : 0;
  }
};

/// `blocks` blocks of `block_threads` threads share the long rows: a block per row where there
/// are enough rows, else each row cut into as many parts as keep one wave busy, but none under
/// `min_part_tiles` tiles.
template <class Item>
row_parts make_row_parts(offset_t rows, offset_t items, offset_t blocks, offset_t min_part_tiles)
{
  const offset_t tiles = ceil_div(items, offset_t{tile_items<Item>});
  offset_t parts       = rows >= blocks ? 1 : blocks / rows;
  parts                = std::min({parts, ceil_div(tiles, min_part_tiles), max_tree_parts});
  parts                = parts < 1 ? 1 : parts;
  return {rows, items, parts, make_tile_split(tiles, parts)};
}

/// Rows of `size` <= LaneItems items (0 included: every row gets init): a thread per row,
/// lane_rows_in_flight_for rows per thread. Where all of a thread's rows exist, every one of their
/// loads is issued before the first combine, without a branch between them (a branch per row kept
/// one row's loads in flight: 2^26 one-item float rows took 205 us, 1.3x a read of the items and
/// a write of the rows, with four or with eight rows per thread).
template <int BlockThreads, int LaneItems, class T, class Input, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_lane_rows(const Input& first, const fixed_segments& rows, Out& out,
                                                 const Init& init, Op& op)
{
  using item              = std::remove_cv_t<iterator_item_t<Input>>;
  constexpr int in_flight = lane_rows_in_flight_for<tree_item_t<Input>, LaneItems>; // as rows_launch sizes the grid
  const int n             = static_cast<int>(rows.size);
  const offset_t step     = offset_t{gridDim.x} * BlockThreads * in_flight;
  for (offset_t base = offset_t{blockIdx.x} * BlockThreads * in_flight + threadIdx.x; base < rows.count; base += step)
  {
    if constexpr (std::is_trivially_default_constructible_v<item>)
    {
      if (n > 0 && base + offset_t{in_flight - 1} * BlockThreads < rows.count)
      {
        item v[in_flight][LaneItems];
        // Rows of a lane's or half a lane's bytes (16 or 32) start on the 16-byte grid wherever
        // the first does: read as vectors (load_lane), not item by item, where a warp's scalar
        // loads ask for each 32-byte sector once per item.
        const auto load_whole_rows = [&](auto row_items) {
          constexpr int items_a_row = decltype(row_items)::value;
#pragma unroll
          for (int k = 0; k < in_flight; ++k)
          {
            item w[items_a_row];
            load_lane<items_a_row>(first, (base + offset_t{k} * BlockThreads) * items_a_row, w);
#pragma unroll
            for (int j = 0; j < items_a_row; ++j)
            {
              v[k][j] = w[j];
            }
          }
        };
        constexpr int half_lane = LaneItems / 2 > 0 ? LaneItems / 2 : 1;
        if (LaneItems > 1 && n == LaneItems)
        {
          load_whole_rows(std::integral_constant<int, LaneItems>{});
        }
        else if (LaneItems > 1 && n == half_lane)
        {
          load_whole_rows(std::integral_constant<int, half_lane>{});
        }
        else
        {
#pragma unroll
          for (int k = 0; k < in_flight; ++k)
          {
#pragma unroll
            for (int j = 0; j < LaneItems; ++j)
            {
              if (j < n)
              {
                v[k][j] = read_item(first, (base + offset_t{k} * BlockThreads) * n + j);
              }
            }
          }
        }
#pragma unroll
        for (int k = 0; k < in_flight; ++k)
        {
          T acc(v[k][0]);
#pragma unroll
          for (int j = 1; j < LaneItems; ++j)
          {
            if (j < n)
            {
              acc = op(acc, static_cast<T>(v[k][j]));
            }
          }
          out[base + offset_t{k} * BlockThreads] = apply_init(init, acc, op);
        }
        continue;
      }
    }
    uninitialized<T> value[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k)
    {
      const offset_t r = base + offset_t{k} * BlockThreads;
      if (r < rows.count)
      {
        value[k].emplace(n > 0 ? apply_init(init, fold_items<LaneItems, true, T>(first, r * n, n, op), op)
                               : empty_segment_value<T>(init));
      }
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k)
    {
      const offset_t r = base + offset_t{k} * BlockThreads;
      if (r < rows.count)
      {
        out[r] = value[k].value;
      }
    }
  }
}

/// Rows of 2 to 16 lanes: a group of `width` lanes per row (a power of two, at least the row's
/// lanes), warp_threads / width rows per warp at a time. A tile at most: tile_value's tree.
template <int BlockThreads, int LaneItems, class T, class Input, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_group_rows(const Input& first, const fixed_segments& rows, int width, Out& out,
                                                  const Init& init, Op& op)
{
  const int lane             = static_cast<int>(threadIdx.x) % warp_threads;
  const int rel              = lane & (width - 1);
  const offset_t per_warp    = warp_threads / width;
  const offset_t warp        = (offset_t{blockIdx.x} * BlockThreads + threadIdx.x) / warp_threads;
  const offset_t warps       = offset_t{gridDim.x} * (BlockThreads / warp_threads);
  const offset_t lane_offset = lane / width;
  // The whole warp loops while any of its groups has a row: tile_value's shuffles need every lane.
  for (offset_t base = warp * per_warp; base < rows.count; base += warps * per_warp)
  {
    const offset_t r = base + lane_offset;
    const bool has   = r < rows.count;
    const T v        = tile_value<LaneItems, T>(first, has ? r * rows.size : 0, has ? rows.size : 0, op, rel);
    if (has && rel == 0)
    {
      out[r] = apply_init(init, v, op);
    }
  }
}

/// Rows of more than 16 lanes and at most a window of tiles: a warp per row (window_node).
template <int BlockThreads, int LaneItems, class T, class Input, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_window_rows(const Input& first, const fixed_segments& rows, Out& out,
                                                   const Init& init, Op& op)
{
  const int lane       = static_cast<int>(threadIdx.x) % warp_threads;
  const offset_t warp  = (offset_t{blockIdx.x} * BlockThreads + threadIdx.x) / warp_threads;
  const offset_t warps = offset_t{gridDim.x} * (BlockThreads / warp_threads);
  for (offset_t r = warp; r < rows.count; r += warps)
  {
    const T v = window_node<LaneItems, T>(first, r * rows.size, rows.size, 0, op, lane);
    if (lane == 0)
    {
      out[r] = apply_init(init, v, op);
    }
  }
}

/// How the windows path cuts its rows of more than a window of tiles: each row into `chunks`
/// runs of `chunk_windows` windows (a power of two, so every chunk but a row's last is one node of
/// the row's tree), a warp per chunk. Where a row has more than one chunk, they are joined: an
/// arrival word per row and a value per chunk in the call's scratch.
struct row_windows
{
  offset_t rows;
  offset_t items;         ///< per row
  offset_t chunk_windows; ///< per chunk
  offset_t chunks;        ///< per row

  RK_HOST_DEVICE constexpr offset_t jobs() const
  {
    return rows * chunks;
  }
  RK_HOST_DEVICE constexpr bool joined() const
  {
    return chunks > 1;
  }
};

/// Rows of `items` items of `window` items a window: chunks of at most 2^(Levels - 1) windows
/// (what a register counter of Levels levels holds whole), halved until the rows' chunks are
/// `min_jobs` or more or a chunk is one window.
template <int Levels>
row_windows make_row_windows(offset_t rows, offset_t items, offset_t window, offset_t min_jobs)
{
  const offset_t windows = ceil_div(items, window);
  offset_t chunk         = offset_t{1} << (Levels - 1);
  while (chunk > 1 && chunk / 2 >= windows)
  {
    chunk /= 2;
  }
  while (chunk > 1 && rows * ceil_div(windows, chunk) < min_jobs)
  {
    chunk /= 2;
  }
  return {rows, items, chunk, ceil_div(windows, chunk)};
}

/// A row's chunk values, `chunks` of them in order, combined as the row's tree combines its
/// windows, by a whole warp (result valid in lane 0). Every chunk but the last is a node of
/// chunk_windows windows, so 32 aligned chunks are a node five levels up, which warp_reduce
/// builds as window_node builds a window from tiles (the last group cut short as a row's last
/// window is); lane 0 folds the groups' values as the windows path folds windows, and the last
/// group, whose pending nodes all lie below a group's level, is what finish() would have combined
/// first. A round trip per 32 chunks: a lane folding them one load at a time spent 350 us on
/// 8 rows of 512 chunks, where the rows' items took 90. Out of line, as many_windows, so that
/// its fold's stack frame costs the chunks' loop nothing.
template <class T, class Op>
__device__ __noinline__ T join_row_chunks(const T* values, offset_t chunks, Op op, int lane)
{
  pairwise_fold<T, 40 - 2 * window_level> groups; // chunks are windows or more, a group 32 of them
  for (offset_t g = 0; g < chunks; g += warp_threads)
  {
    const int in_group = static_cast<int>(chunks - g < warp_threads ? chunks - g : warp_threads);
    uninitialized<T> chunk;
    if (lane < in_group)
    {
      chunk.emplace(values[g + lane]);
    }
    const T group = warp_reduce(chunk.value, op, lane, in_group);
    if (lane == 0)
    {
      groups.push(group, op);
    }
  }
  uninitialized<T> all;
  if (lane == 0)
  {
    all.emplace(groups.finish(op));
  }
  return all.value;
}

/// The windows path: a warp per chunk of a row (row_windows), each window's node (window_node: a
/// level-5 node of the row's tree, truncated at its end) folded in lane 0 by a register counter,
/// whose carries are the tree's pairwise combines of the windows. A row of one chunk is stored by
/// its warp; of more, each chunk's value goes to `values` and, under part_join::last_block, the
/// last of the row's warps to arrive at arrivals[r] joins them (join_row_chunks), under
/// part_join::finish_kernel a kernel after this one. A kernel of its own: the counter in
/// reduce_window_rows's kernel cost every shorter row shape 4-22 % (its registers, and
/// many_windows' counter in local memory).
template <int BlockThreads, int LaneItems, int Levels, part_join Join, class T, class Input, class Out, class Init,
          class Op>
__device__ __forceinline__ void reduce_windows_rows(const Input& first, const row_windows& rows, T* values,
                                                    unsigned* arrivals, Out& out, const Init& init, Op& op)
{
  static_assert(Join != part_join::atomic, "every backend joins a row's chunks in the tree's order");
  constexpr offset_t window = offset_t{warp_threads} * warp_threads * LaneItems;
  const int lane            = static_cast<int>(threadIdx.x) % warp_threads;
  const offset_t warp       = (offset_t{blockIdx.x} * BlockThreads + threadIdx.x) / warp_threads;
  const offset_t warps      = offset_t{gridDim.x} * (BlockThreads / warp_threads);
  const offset_t windows    = ceil_div(rows.items, window);
  for (offset_t job = warp; job < rows.jobs(); job += warps)
  {
    const offset_t r            = job / rows.chunks;
    const offset_t first_window = (job - r * rows.chunks) * rows.chunk_windows;
    const offset_t end = first_window + rows.chunk_windows < windows ? first_window + rows.chunk_windows : windows;
    register_fold<T, Levels> chunk;
    fold_windows<LaneItems, T>(chunk, first, r * rows.items, rows.items, first_window, end, op, lane);
    if (!rows.joined())
    {
      if (lane == 0)
      {
        out[r] = apply_init(init, chunk.finish(op), op);
      }
      continue;
    }
    bool last = false;
    if (lane == 0)
    {
      values[job] = chunk.finish(op);
      last        = Join == part_join::last_block && arrive_last(arrivals[r], static_cast<unsigned>(rows.chunks));
    }
    if (broadcast_lane0(last))
    {
      const T all = join_row_chunks(values + r * rows.chunks, rows.chunks, op, lane);
      if (lane == 0)
      {
        out[r] = apply_init(init, all, op);
      }
    }
  }
}

} // namespace rk::detail

#pragma once
// The fixed-size form's launches (rk/cuda/agent/segment_rows.cuh). The host knows every row's
// length, so it picks the kernel that reads rows of that length, and itself cuts long rows into
// parts and picks the one block body that reads them all: nothing is listed or planned on the
// device, and no offsets are read. rk::segmented_reduce's fixed-size form and rk::reduce_axes's
// outputs run it.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/agent/segment_rows.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/kernels/segmented_reduce.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/integer.hpp>
#include <rk/detail/segments.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// One fixed-size segmented reduction's launch and the scratch it needs. Every backend runs the
/// reproducible tree here: a row's one block, group or warp needs no join, and a long row's parts
/// are joined by their last block (rk::atomic's hardware atomics would buy it nothing), or under
/// rk::two_pass by a second kernel. `Init` is T, or no_segment_init for the rows' tree values
/// alone (then no row may be empty).
template <gpu_backend Backend, class Provider, class Input, class Output, class T, class Op, class Init = T>
class rows_launch
{
public:
  using item                      = tree_item_t<Input>;
  static constexpr int lane_items = tile_lane_items<item>;
  static constexpr part_join join = Backend == gpu_backend::two_pass ? part_join::finish_kernel : part_join::last_block;
  using provider                  = with_tree_shape<Provider, tree_shape::pairwise_tiles>;
  using vector_agent              = reduce_agent<provider, Input, T>;
  // The long rows' kernels hold one body each (one_agent), so rows off the grid can take shifted vectors.
  using element_agent = typename element_agent_of<vector_agent::vectorized, provider, Input, T, true>::type;
  static constexpr auto lane_kernel    = lane_rows_kernel<lane_items, T, Input, Output, Init, Op>;
  static constexpr auto item_kernel    = lane_rows_kernel<1, T, Input, Output, Init, Op>; // rows of one item
  static constexpr auto group_kernel   = group_rows_kernel<lane_items, T, Input, Output, Init, Op>;
  static constexpr auto window_kernel  = window_rows_kernel<lane_items, T, Input, Output, Init, Op>;
  static constexpr auto windows_kernel = windows_rows_kernel<lane_items, join, T, Input, Output, Init, Op>;
  // Long rows: one kernel per agent, the host picks the one that reads every row (one_agent).
  static constexpr auto long_kernel = long_rows_kernel<vector_agent, join, T, Input, Output, Init, Op>;
  static constexpr auto long_element_kernel =
    long_rows_kernel<element_agent, join, T, typename element_agent::input_type, Output, Init, Op>;
  static constexpr int long_threads = vector_agent::block_threads;
  static_assert(element_agent::block_threads == long_threads, "both agents share the launch shape");

  rows_launch(const fixed_segments& rows, const device_facts& device)
      : rows_(rows)
  {
    const offset_t lanes = ceil_div(rows.size, offset_t{lane_items});
    const offset_t tiles = ceil_div(rows.size, offset_t{tile_items<item>});
    if (rows.size == 1)
    {
      path_ = path::item;
      grid_ = short_grid<item_kernel>(
        ceil_div(rows.count, offset_t{row_block_threads} * lane_rows_in_flight_for<item, 1>), device);
    }
    else if (lanes <= 1)
    {
      path_ = path::lane;
      grid_ = short_grid<lane_kernel>(
        ceil_div(rows.count, offset_t{row_block_threads} * lane_rows_in_flight_for<item, lane_items>), device);
    }
    else if (lanes <= 16)
    {
      path_  = path::group;
      width_ = lanes <= 2 ? 2 : lanes <= 4 ? 4 : lanes <= 8 ? 8 : 16;
      grid_  = short_grid<group_kernel>(ceil_div(rows.count, offset_t{row_block_threads / width_}), device);
    }
    else if (tiles <= long_segment_min_tiles)
    {
      path_ = path::window;
      grid_ = short_grid<window_kernel>(ceil_div(rows.count, offset_t{row_block_threads / warp_threads}), device);
    }
    else if (sizeof(T) >= row_windows_min_state_bytes)
    {
      path_                   = path::windows;
      const offset_t min_jobs = resident_warps<windows_kernel>(device) / row_windows_min_wave_share;
      windows_ = make_row_windows<row_windows_levels>(rows.count, rows.size, offset_t{warp_threads} * tile_items<item>,
                                                      min_jobs);
      grid_ = short_grid<windows_kernel>(ceil_div(windows_.jobs(), offset_t{row_block_threads / warp_threads}), device);
    }
    else
    {
      path_ = path::parts;
      // A part gets at least the body's minimum work (as reduce_agent::plan gives rk::reduce's blocks).
      const offset_t min_part_tiles = offset_t{vector_agent::tuning.min_chunks_per_warp}
                                    * (long_threads / warp_threads);
      const offset_t blocks = std::min(max_grid<long_kernel>(vector_agent::tuning, long_threads, device),
                                       max_grid<long_element_kernel>(element_agent::tuning, long_threads, device));
      long_rows_            = make_row_parts<item>(rows.count, rows.size, blocks, min_part_tiles);
      grid_                 = std::min(long_rows_.jobs(), blocks);
    }
  }

  std::size_t counter_words() const
  {
    const bool joined = (path_ == path::parts && long_rows_.joined()) || (path_ == path::windows && windows_.joined());
    return joined ? static_cast<std::size_t>(rows_.count) : 0;
  }
  std::size_t scratch_bytes() const
  {
    const offset_t values = path_ == path::parts                        ? long_rows_.values_per_row() * rows_.count
                          : path_ == path::windows && windows_.joined() ? windows_.jobs()
                                                                        : 0;
    return static_cast<std::size_t>(values) * sizeof(T);
  }

  /// Enqueues the launches on `stream`, with scratch_bytes() of device memory at `scratch` and
  /// counter_words() zeroed words at `counters`.
  void enqueue(Input input, Output output, Init init, const Op& op, void* scratch, unsigned* counters,
               cudaStream_t stream) const
  {
    const auto grid = static_cast<unsigned>(grid_);
    switch (path_)
    {
      case path::item:
        launch_kernel(item_kernel, grid, row_block_threads, stream,
                      "rk::segmented_reduce: launching the one-item row kernel", input, rows_, output, init, op);
        break;
      case path::lane:
        launch_kernel(lane_kernel, grid, row_block_threads, stream,
                      "rk::segmented_reduce: launching the one-lane row kernel", input, rows_, output, init, op);
        break;
      case path::group:
        launch_kernel(group_kernel, grid, row_block_threads, stream,
                      "rk::segmented_reduce: launching the lane-group row kernel", input, rows_, width_, output, init,
                      op);
        break;
      case path::window:
        launch_kernel(window_kernel, grid, row_block_threads, stream,
                      "rk::segmented_reduce: launching the warp row kernel", input, rows_, output, init, op);
        break;
      case path::windows: {
        T* values = static_cast<T*>(scratch);
        launch_kernel(windows_kernel, grid, row_block_threads, stream,
                      "rk::segmented_reduce: launching the warp long-row kernel", input, windows_, values, counters,
                      output, init, op);
        if constexpr (join == part_join::finish_kernel)
        {
          if (windows_.joined())
          {
            launch_kernel(windows_rows_finish_kernel<T, Output, Init, Op>,
                          static_cast<unsigned>(
                            std::min(ceil_div(rows_.count, offset_t{row_block_threads / warp_threads}), grid_)),
                          row_block_threads, stream, "rk::segmented_reduce: launching the warp long-row finish kernel",
                          windows_, values, output, init, op);
          }
        }
        break;
      }
      case path::parts: {
        T* values              = static_cast<T*>(scratch);
        const auto launch_long = [&](auto kernel, auto start) {
          launch_kernel(kernel, grid, long_threads, stream, "rk::segmented_reduce: launching the long-row kernel",
                        start, long_rows_, counters, values, output, init, op);
        };
        if constexpr (vector_agent::vectorized)
        {
          if (every_row_on_vector_grid(input))
          {
            launch_long(long_kernel, input);
          }
          else
          {
            launch_long(long_element_kernel, element_input(input));
          }
        }
        else
        {
          launch_long(long_kernel, input);
        }
        if constexpr (join == part_join::finish_kernel)
        {
          if (long_rows_.joined())
          {
            launch_kernel(long_rows_finish_kernel<long_threads, T, Output, Init, Op>,
                          static_cast<unsigned>(std::min(rows_.count, grid_)), long_threads, stream,
                          "rk::segmented_reduce: launching the long-row finish kernel", long_rows_, values, output,
                          init, op);
          }
        }
        break;
      }
    }
  }

private:
  /// Whether the vector agent can read every row of a vectorized input: its first item lies on the
  /// 16-byte grid (with_aligned_reads' rule), and a row is whole vectors long.
  bool every_row_on_vector_grid(const Input& input) const
  {
    return rows_.size * offset_t{sizeof(item)} % offset_t{vector_bytes} == 0
        && with_aligned_reads(input, [](auto start) { return std::is_same_v<decltype(start), Input>; });
  }

  enum class path
  {
    item,
    lane,
    group,
    window,
    windows,
    parts
  };

  /// A short-row kernel's grid: the blocks its rows need, at most one wave (each block loops).
  template <auto Kernel>
  static offset_t short_grid(offset_t needed, const device_facts& device)
  {
    const offset_t wave = offset_t{resident_blocks_per_sm<Kernel>(row_block_threads, device.ordinal)}
                        * device.multiprocessors;
    return std::max<offset_t>(1, std::min(needed, wave));
  }

  /// Warps of `Kernel` the GPU holds at once.
  template <auto Kernel>
  static offset_t resident_warps(const device_facts& device)
  {
    return offset_t{resident_blocks_per_sm<Kernel>(row_block_threads, device.ordinal)} * device.multiprocessors
         * (row_block_threads / warp_threads);
  }

  fixed_segments rows_;
  path path_     = path::lane;
  int width_     = 0;
  offset_t grid_ = 1;
  row_parts long_rows_{};
  row_windows windows_{};
};
} // namespace rk::detail

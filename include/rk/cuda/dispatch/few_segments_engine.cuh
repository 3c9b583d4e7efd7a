#pragma once
// The few-segments engine: rk::segmented_reduce's CSR and CUB forms with at most few_segments_max
// segments, on the backends with rk::reduce's tree. One kernel whose blocks lay the segments out
// themselves (rk/cuda/agent/few_segments.cuh) and reduce about one part of them each, joined by
// each segment's last part, or for rk::two_pass by a second kernel. rk::atomic's calls and calls
// of more segments take the segment engine's long list (rk/cuda/dispatch/segmented_engine.cuh).

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/kernels/segmented_reduce.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/segments.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace rk::detail
{
/// Whether a call of `count` segments of this form on this backend takes the few-segments engine.
template <gpu_backend Backend, class Segments>
bool takes_few_segments(offset_t count)
{
  return Backend != gpu_backend::atomic && !std::is_same_v<Segments, fixed_segments> && count <= few_segments_max;
}

/// The launches of a few-segments call and the scratch they take: node values for any lengths
/// (few_segments_values_bound) and an arrival word per segment, left at zero.
template <gpu_backend Backend, class Provider, class Input, class Segments, class Output, class T, class Op>
struct few_segments_launch
{
  static_assert(Backend != gpu_backend::atomic, "rk::atomic's calls take the long list");
  using item                      = tree_item_t<Input>;
  static constexpr part_join join = Backend == gpu_backend::two_pass ? part_join::finish_kernel : part_join::last_block;
  using provider                  = with_tree_shape<Provider, tree_shape::pairwise_tiles>;
  using vector_agent              = reduce_agent<provider, Input, T>;
  using element_agent             = typename element_agent_of<vector_agent::vectorized, provider, Input, T>::type;
  static constexpr auto kernel =
    few_segments_kernel<vector_agent, element_agent, join, T, Input, Segments, Output, T, Op>;
  static constexpr int threads = vector_agent::block_threads;

  offset_t grid;
  offset_t count;
  offset_t min_part_tiles;

  few_segments_launch(const device_facts& device, offset_t segments)
      : grid(max_grid<kernel>(vector_agent::tuning, threads, device))
      , count(segments)
      // A part gets at least the body's minimum work, as the fixed-size form's long rows do.
      , min_part_tiles(offset_t{vector_agent::tuning.min_chunks_per_warp} * (threads / warp_threads))
  {}

  std::size_t counter_words() const
  {
    return static_cast<std::size_t>(count);
  }
  std::size_t scratch_bytes() const
  {
    return static_cast<std::size_t>(few_segments_values_bound(grid, count)) * sizeof(T);
  }

  /// Enqueues the launches on `stream`, with scratch_bytes() of device memory at `scratch` and
  /// counter_words() zeroed words at `counters`.
  void enqueue(Input input, Segments segments, Output output, const T& init, const Op& op, void* scratch,
               unsigned* counters, cudaStream_t stream, const device_facts& device) const
  {
    T* values = static_cast<T*>(scratch);
    launch_kernel(kernel, static_cast<unsigned>(grid), threads, stream,
                  "rk::segmented_reduce: launching the few-segments kernel", input, segments, min_part_tiles, values,
                  counters, output, init, device_error_word(device.ordinal), op);
    if constexpr (join == part_join::finish_kernel)
    {
      launch_kernel(few_segments_finish_kernel<threads, item, T, Segments, Output, T, Op>,
                    static_cast<unsigned>(std::min(grid, count)), threads, stream,
                    "rk::segmented_reduce: launching the few-segments finish kernel", segments, grid, min_part_tiles,
                    values, output, init, op);
    }
  }
};
} // namespace rk::detail

#pragma once
// rk::segmented_reduce for the GPU policies: the checks, the scratch layout and the launches of
// rk/cuda/segmented_kernels.cuh. Stream-ordered: enqueues and returns.

#include <rk/cuda/dispatch.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/segmented_kernels.cuh>
#include <rk/detail/segmented_api.hpp>

#include <thrust/iterator/iterator_traits.h>
#include <thrust/type_traits/is_contiguous_iterator.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace rk
{
namespace detail
{
/// What a kernel reads or writes for an iterator: the raw pointer behind a contiguous one, checked
/// to be reachable from the device unless Thrust knows it is device memory; the iterator otherwise.
template <class It>
auto to_device_access(It it, const char* what, const device_facts& device)
{
  static_assert(!is_host_iterator_v<It>,
                "rk::segmented_reduce with a GPU policy cannot use this iterator: Thrust says it refers to host "
                "memory. Copy the data (or the offsets, or the output) to a thrust::device_vector, or use rk::host");
  if constexpr (thrust::is_contiguous_iterator_v<It>)
  {
    auto* p = thrust::unwrap_contiguous_iterator(it);
    if constexpr (!std::is_same_v<typename thrust::iterator_system<It>::type, thrust::device_system_tag>)
    {
      check_device_accessible(p, what, device);
    }
    return p;
  }
  else
  {
    return it;
  }
}

template <class OffsetIt>
auto to_device_segments(const csr_segments<OffsetIt>& s, const device_facts& device)
{
  auto offsets = to_device_access(s.offsets, "the segment offsets", device);
  return csr_segments<decltype(offsets)>{offsets, s.count};
}

template <class BeginIt, class EndIt>
auto to_device_segments(const bounded_segments<BeginIt, EndIt>& s, const device_facts& device)
{
  auto begins = to_device_access(s.begins, "the segment begin offsets", device);
  auto ends   = to_device_access(s.ends, "the segment end offsets", device);
  return bounded_segments<decltype(begins), decltype(ends)>{begins, ends, s.count};
}

inline fixed_segments to_device_segments(const fixed_segments& s, const device_facts&)
{
  return s;
}

inline std::size_t align_up(std::size_t bytes, std::size_t to)
{
  return (bytes + to - 1) / to * to;
}
} // namespace detail

template <gpu_backend Backend, class Provider>
explanation explain_segmented_dispatch(const gpu_policy<Backend, Provider>&, std::int64_t segments)
{
  static_assert(Backend != gpu_backend::atomic, "rk::segmented_reduce does not run rk::atomic yet");
  const char* backend = Backend == gpu_backend::two_pass ? "two_pass" : "single_pass";
  std::string why =
    std::string(Backend == gpu_backend::automatic ? "rk::device runs single_pass for segmented reduce (one pass; "
                                                    "rk::atomic is not available here). "
                                                  : "")
    + "Segments of up to one lane's items are folded by a thread, up to 16 lanes' by groups of 4, 8 or 16 lanes, up "
      "to 16 tiles by a warp; longer ones (up to 4096 of them) are split into parts in proportion to their length, "
      "reduced by rk::reduce's block body and put together "
    + (Backend == gpu_backend::two_pass ? "by a second kernel" : "by the last block of each segment to finish")
    + "; each segment gets rk::reduce's tree";
  return {to_string(Backend), backend, backend, segments, why, true};
}

template <gpu_backend Backend, class Provider, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, const Segments& host_segments,
                        OutputIt out, T init, BinaryOp user_op)
{
  static_assert(Backend != gpu_backend::atomic,
                "rk::segmented_reduce does not run rk::atomic yet: use rk::single_pass or rk::device (one pass, exact "
                "for every associative operator, the same bits on every GPU)");
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  check_device_errors(); // an earlier call's bad segment, reported now rather than never
  if (host_segments.count == 0)
  {
    return;
  }
  const detail::device_facts& device = detail::current_device_facts();
  const cudaStream_t stream          = policy.stream;
  auto input                         = detail::to_device_access(first, "the input range", device);
  auto segments                      = detail::to_device_segments(host_segments, device);
  auto output                        = detail::to_device_access(out, "the output", device);
  using Input                        = decltype(input);
  using Output                       = decltype(output);
  using item                         = std::remove_cv_t<detail::iterator_item_t<Input>>;
  using provider                     = detail::with_tree_shape<Provider, tree_shape::pairwise_tiles>;
  using vector_agent                 = detail::reduce_agent<provider, Input, T>;
  using element_agent = std::conditional_t<vector_agent::vectorized,
                                           detail::reduce_agent<provider, detail::element_pointer<item>, T>, vector_agent>;
  constexpr bool single_pass = Backend != gpu_backend::two_pass;
  constexpr auto short_kernel =
    detail::short_segments_kernel<item, T, Input, decltype(segments), Output, Op>;
  constexpr auto long_kernel =
    detail::long_segments_kernel<vector_agent, element_agent, single_pass, T, Input, Output, Op>;

  // Grids: the short kernel at most one block per 32 segments; the long kernel one wave, whose
  // size is also the number of parts the plan spreads over the listed segments.
  const std::int64_t short_cap =
    std::int64_t{detail::resident_blocks_per_sm<short_kernel>(detail::segment_block_threads, device.ordinal)}
    * device.multiprocessors;
  const std::int64_t short_grid = std::min<std::int64_t>(short_cap, (host_segments.count + 31) / 32);
  const std::int64_t long_grid =
    detail::max_grid<long_kernel>(vector_agent::tuning, vector_agent::block_threads, device);

  // Scratch: [counters | list arrays | node and piece values].
  constexpr std::size_t capacity = detail::long_segment_capacity;
  detail::long_segment_list list{};
  list.parts_target                  = long_grid;
  const std::size_t counter_words    = 1 + static_cast<std::size_t>(list.parts_capacity()) + capacity + capacity;
  const std::size_t counters_bytes   = detail::align_up(counter_words * sizeof(unsigned), 256);
  const std::size_t list_bytes       = detail::align_up((4 * capacity + 1) * sizeof(detail::offset_t), 256);
  const std::size_t values_bytes =
    static_cast<std::size_t>(detail::long_segment_list::values_needed<T>(long_grid)) * sizeof(T);
  detail::scratch_lease scratch =
    detail::lease_scratch(device.ordinal, stream, sizeof(T), counters_bytes + list_bytes + values_bytes);
  auto* base             = static_cast<unsigned char*>(scratch.partials);
  auto* counters         = reinterpret_cast<unsigned*>(base);
  list.appended          = counters;
  list.boundary_arrivals = counters + 1;
  list.segment_arrivals  = counters + 1 + list.parts_capacity() + capacity;
  auto* arrays           = reinterpret_cast<detail::offset_t*>(base + counters_bytes);
  list.segment           = arrays;
  list.first_item        = arrays + capacity;
  list.items             = arrays + 2 * capacity;
  list.part_prefix       = arrays + 3 * capacity;
  T* values              = reinterpret_cast<T*>(base + counters_bytes + list_bytes);

  detail::throw_on_error(cudaMemsetAsync(counters, 0, counter_words * sizeof(unsigned), stream),
                         "rk::segmented_reduce: zeroing the long-segment counters");
  unsigned long long* error_word = detail::device_error_word(device.ordinal);
  detail::launch_kernel(short_kernel, static_cast<unsigned>(short_grid), detail::segment_block_threads, stream,
                        "rk::segmented_reduce: launching the short-segment kernel", input, segments, output, init,
                        list, error_word, op);
  detail::launch_kernel(detail::long_segments_plan_kernel<item>, 1, detail::segment_block_threads, stream,
                        "rk::segmented_reduce: launching the long-segment plan", list);
  detail::launch_kernel(long_kernel, static_cast<unsigned>(long_grid), vector_agent::block_threads, stream,
                        "rk::segmented_reduce: launching the long-segment kernel", input, list, values, output, init,
                        op);
  if constexpr (!single_pass)
  {
    constexpr int finish_threads = vector_agent::block_threads;
    detail::launch_kernel(detail::long_segments_finish_kernel<finish_threads, item, T, Output, Op>,
                          static_cast<unsigned>(std::min<std::int64_t>(long_grid, capacity)), finish_threads, stream,
                          "rk::segmented_reduce: launching the long-segment finish kernel", list, values, output, init,
                          op);
  }
  scratch.close();
}
} // namespace rk

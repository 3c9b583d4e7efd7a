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

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

namespace rk
{
namespace detail
{
/// What a kernel reads or writes for an iterator: the raw pointer behind a contiguous one, checked
/// to be reachable from the device unless Thrust knows it is device memory; an input adaptor
/// (rk/detail/input_adaptors.hpp) over what its base becomes; the iterator otherwise.
template <class It>
auto to_device_access(It it, const char* what, const device_facts& device)
{
  if constexpr (is_input_adaptor<It>::value)
  {
    // A pointer base as a pointer to const, which the kernels' 16-byte path reads.
    auto base = to_device_access(it.base, what, device);
    if constexpr (std::is_pointer_v<decltype(base)>)
    {
      return it.rebase(static_cast<const std::remove_pointer_t<decltype(base)>*>(base));
    }
    else
    {
      return it.rebase(base);
    }
  }
  else
  {
    static_assert(!is_host_iterator_v<It>,
                  "rk::segmented_reduce and rk::reduce_by_key with a GPU policy cannot use this iterator: Thrust says "
                  "it refers to host memory. Copy the data (or the offsets, or the output) to a "
                  "thrust::device_vector, wrap raw device pointers in thrust::device_ptr (thrust::device_pointer_cast) "
                  "before adapting or zipping them, or use rk::host");
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

/// What the kernels write for an output: to_device_access's, or for the segmented arg forms'
/// writer, the same writer over what its output and segments become.
template <class OutputIt>
auto to_device_output(OutputIt out, const device_facts& device)
{
  if constexpr (is_segment_relative_output<OutputIt>::value)
  {
    auto at       = to_device_access(out.out, "the output", device);
    auto segments = to_device_segments(out.segments, device);
    return segment_relative_output<decltype(at), decltype(segments)>{at, segments};
  }
  else
  {
    return to_device_access(out, "the output", device);
  }
}

inline std::size_t align_up(std::size_t bytes, std::size_t to)
{
  return (bytes + to - 1) / to * to;
}
} // namespace detail

namespace detail
{
/// The block body for a vectorizable input's segments that do not start on the 16-byte grid: the
/// same input read element by element (no such segments for other inputs).
template <bool Vectorized, class Provider, class Input, class T>
struct element_agent_of
{
  using type = reduce_agent<Provider, Input, T>;
};
template <class Provider, class Input, class T>
struct element_agent_of<true, Provider, Input, T>
{
  using type = reduce_agent<Provider, element_input_t<Input>, T>;
};

/// One segmented reduction's launches and the scratch they need: [long-list arrays | node and
/// piece values], plus the lease's sync_counters, which the kernels leave at zero as they found
/// them (no memset per call). The size depends on the device and T, not on the segments (the long
/// list has a fixed capacity), so a caller that needs scratch of its own (rk::reduce_by_key) can
/// take both in one lease.
template <gpu_backend Backend, class Provider, class Input, class Segments, class Output, class T, class Init, class Op>
struct segmented_launch
{
  // The item read from memory: its size fixes the tiles, and every kernel must count them alike
  // (an input adaptor's items are its base's).
  using item                      = tree_item_t<Input>;
  static constexpr part_join join = Backend == gpu_backend::two_pass ? part_join::finish_kernel
                                  : Backend == gpu_backend::atomic   ? part_join::atomic
                                                                     : part_join::last_block;
  // rk::atomic combines parts in arrival order, so a fixed tree would buy it nothing.
  using provider =
    with_tree_shape<Provider, join == part_join::atomic ? tree_shape::grid_ordered : tree_shape::pairwise_tiles>;
  using vector_agent  = reduce_agent<provider, Input, T>;
  using element_agent = typename element_agent_of<vector_agent::vectorized, provider, Input, T>::type;
  static constexpr auto short_kernel =
    short_segments_kernel<item, T, join == part_join::atomic, Input, Segments, Output, Init, Op>;
  static constexpr auto long_kernel =
    long_segments_kernel<vector_agent, element_agent, join, T, Input, Output, Init, Op>;
  static constexpr std::size_t capacity = long_segment_capacity;

  std::int64_t short_cap;
  std::int64_t long_grid;
  std::size_t list_bytes;
  std::size_t values_bytes;

  explicit segmented_launch(const device_facts& device)
  {
    // Grids: the short kernel one wave at most, and at most one block per 32 segments; the long
    // kernel one wave, whose blocks take the plan's parts from a queue.
    short_cap = std::int64_t{resident_blocks_per_sm<short_kernel>(segment_block_threads, device.ordinal)}
              * device.multiprocessors;
    long_grid    = max_grid<long_kernel>(vector_agent::tuning, vector_agent::block_threads, device);
    list_bytes   = align_up((5 * capacity + 1) * sizeof(offset_t), 256);
    values_bytes = join == part_join::atomic
                   ? 0
                   : static_cast<std::size_t>(long_segment_list::values_needed<T>(long_grid)) * sizeof(T);
  }

  std::size_t scratch_bytes() const
  {
    return list_bytes + values_bytes;
  }

  /// Enqueues the launches on `stream`, with scratch_bytes() of device memory at `scratch` and the
  /// lease's `counters` (zero).
  void enqueue(Input input, Segments segments, Output output, Init init, const Op& op, void* scratch,
               sync_counters* counters, cudaStream_t stream, const device_facts& device) const
  {
    long_segment_list list{};
    list.parts_target     = long_grid;
    list.appended         = &counters->long_appended;
    list.parts_taken      = &counters->long_parts_taken;
    list.departures       = &counters->long_departures;
    list.segment_arrivals = counters->long_segment_arrivals;
    auto* base            = static_cast<unsigned char*>(scratch);
    auto* arrays          = reinterpret_cast<offset_t*>(base);
    list.segment          = arrays;
    list.first_item       = arrays + capacity;
    list.items            = arrays + 2 * capacity;
    list.order            = arrays + 3 * capacity;
    list.part_prefix      = arrays + 4 * capacity;
    T* values             = reinterpret_cast<T*>(base + list_bytes);

    unsigned long long* error_word = device_error_word(device.ordinal);
    const std::int64_t short_grid  = std::min<std::int64_t>(short_cap, (segments.count + 31) / 32);
    launch_kernel(short_kernel, static_cast<unsigned>(short_grid), segment_block_threads, stream,
                  "rk::segmented_reduce: launching the short-segment kernel", input, segments, output, init, list,
                  error_word, op);
    try
    {
      launch_kernel(long_segments_plan_kernel<item>, 1, segment_block_threads, stream,
                    "rk::segmented_reduce: launching the long-segment plan", list);
      launch_kernel(long_kernel, static_cast<unsigned>(long_grid), vector_agent::block_threads, stream,
                    "rk::segmented_reduce: launching the long-segment kernel", input, list, values, output, init, op);
      if constexpr (join == part_join::finish_kernel)
      {
        constexpr int finish_threads = vector_agent::block_threads;
        launch_kernel(long_segments_finish_kernel<finish_threads, item, T, Output, Init, Op>,
                      static_cast<unsigned>(std::min<std::int64_t>(long_grid, capacity)), finish_threads, stream,
                      "rk::segmented_reduce: launching the long-segment finish kernel", list, values, output, init, op);
      }
    }
    catch (...)
    {
      // The short kernel is enqueued and raises the list's counters, and the kernel that would
      // have zeroed them will not run: zero them behind it for the scratch's next user.
      (void) cudaMemsetAsync(counters, 0, sizeof(sync_counters), stream);
      throw;
    }
  }
};

/// rk::atomic combines into the output in place: it must be contiguous memory holding T itself.
template <gpu_backend Backend, class OutputIt, class T>
inline constexpr bool segmented_output_fits_v =
  Backend != gpu_backend::atomic
  || (thrust::is_contiguous_iterator_v<OutputIt>
      && std::is_same_v<typename std::iterator_traits<OutputIt>::value_type, T>);

/// What rk::device runs for segmented reduce: rk::atomic for an integer T whose op has a hardware
/// atomic, into contiguous memory of T (exact, so the bits are single_pass's), single_pass
/// otherwise. The long segments' parts then skip the reproducible tree's node stores and the
/// per-segment last-block pass. H100, rk_perf_segmented, int32 2^26 (perf/RESULTS.md): one segment
/// 112.1 -> 105.0 us, 65536-item segments 118.5 -> 110.4, power law 149.1 -> 141.5; rows without
/// long segments unchanged (all 1: 455.8 / 454.7).
template <gpu_backend Backend, class T, class Op, class OutputIt>
inline constexpr gpu_backend segmented_backend_v = Backend == gpu_backend::automatic
                                                    && prefers_atomic_v<T, Op> && atomic_eligible_v<T, Op>
                                                    && segmented_output_fits_v<gpu_backend::atomic, OutputIt, T>
                                                   ? gpu_backend::atomic
                                                   : Backend;
} // namespace detail

/// What rk::segmented_reduce runs for these types on this policy: the backend segmented_dispatch
/// instantiates (segmented_backend_v), so the answer is the one that runs.
template <gpu_backend Backend, class Provider, class InputIt, class OutputIt, class T, class BinaryOp>
explanation explain_segmented_dispatch(const gpu_policy<Backend, Provider>&, InputIt, std::int64_t segments, OutputIt,
                                       const T&, const BinaryOp&)
{
  using Op                  = detail::device_operator_t<BinaryOp>;
  constexpr gpu_backend run = detail::segmented_backend_v<Backend, T, Op, OutputIt>;
  constexpr bool atomic     = run == gpu_backend::atomic;
  const char* backend       = run == gpu_backend::two_pass ? "two_pass" : atomic ? "atomic" : "single_pass";
  std::string why =
    std::string(Backend != gpu_backend::automatic ? ""
                : atomic ? "rk::device runs rk::atomic here: an integer T whose op has a hardware atomic (add, min, "
                           "max, and, or, xor), into contiguous memory of T; exact, so the same bits as single_pass, "
                           "and faster on long segments. "
                         : "rk::device runs single_pass here (one pass, the same bits on every GPU); it would run "
                           "rk::atomic only for an integer T whose op has a hardware atomic, into contiguous memory "
                           "of T. ")
    + "Segments of up to one lane's items are folded by a thread, up to 16 lanes' by groups of 4, 8 or 16 lanes, up "
      "to 16 tiles by a warp; longer ones (up to 8192 of them) are cut into parts of about a block's share of "
      "their items, which the blocks take from a queue longest first, reduced by rk::reduce's block body and put "
      "together "
    + (run == gpu_backend::two_pass ? std::string("by a second kernel; each segment gets rk::reduce's tree")
       : atomic
         ? std::string("with atomics into the output, which the first kernel seeds with init (grid-ordered tree in "
                       "each part: floating-point results of long segments may differ from run to run, integer "
                       "results are exact)")
         : std::string("by the last block of each segment to finish; each segment gets rk::reduce's tree"));
  // As rk::explain: integer atomics are exact, so their bits do not depend on the order.
  const bool exact = !atomic
                  || (std::is_integral_v<T> && detail::atomic_kind_v<Op, T> != detail::atomic_kind::compare_and_swap);
  return {to_string(Backend), backend, backend, segments, why, exact};
}

template <gpu_backend Backend, class Provider, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, const Segments& host_segments,
                        OutputIt out, T init, BinaryOp user_op)
{
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  if constexpr (!detail::segmented_output_fits_v<Backend, OutputIt, T>)
  {
    static_assert(detail::segmented_output_fits_v<Backend, OutputIt, T>,
                  "rk::segmented_reduce with rk::atomic combines into the output with atomics: pass contiguous device "
                  "memory whose value type is T, the type of init (a pointer, thrust::device_ptr or device_vector "
                  "iterator), or use rk::single_pass for a fancy output iterator");
  }
  else
  {
    check_device_errors(); // an earlier call's bad segment, reported now rather than never
    if (host_segments.count == 0)
    {
      return;
    }
    const detail::device_facts& device = detail::current_device_facts();
    auto input                         = detail::to_device_access(first, "the input range", device);
    auto segments                      = detail::to_device_segments(host_segments, device);
    auto output                        = detail::to_device_output(out, device);
    constexpr gpu_backend backend      = detail::segmented_backend_v<Backend, T, Op, OutputIt>;
    if constexpr (backend == gpu_backend::atomic)
    {
      // rk::device picks atomic for integer T only, where a T* off sizeof(T) is no valid pointer:
      // it throws rather than instantiate single_pass as well for that case (rk::reduce_into, whose
      // choice is made at run time anyway, falls back instead).
      detail::check_atomic_output(output, "rk::segmented_reduce with rk::atomic");
    }
    const detail::segmented_launch<backend, Provider, decltype(input), decltype(segments), decltype(output), T, T, Op>
      launch(device);
    detail::scratch_lease scratch = detail::lease_scratch(device.ordinal, policy.stream, sizeof(T),
                                                          launch.scratch_bytes());
    launch.enqueue(input, segments, output, init, op, scratch.partials, scratch.counters, policy.stream, device);
    scratch.close();
  }
}
} // namespace rk

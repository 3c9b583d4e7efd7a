#pragma once
// The segment engine: the launches of segmented reduce's kernels over any segment source and
// output, and the scratch they need. rk::segmented_reduce runs it over the caller's segments,
// rk::reduce_by_key over the long runs its run pass lists, rk::reduce_axes over its outputs' items.
// The fixed-size form goes to the row engine (rk/cuda/dispatch/row_engine.cuh), calls of few
// segments to the few-segments engine (rk/cuda/dispatch/few_segments_engine.cuh).

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/segment_parts.cuh>
#include <rk/cuda/dispatch/backend_choice.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/few_segments_engine.cuh>
#include <rk/cuda/dispatch/row_engine.cuh>
#include <rk/cuda/kernels/segmented_reduce.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/integer.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// One segmented reduction's launches and the scratch they need: [long-list arrays | node values],
/// plus counter_words of the lease's counters, which the kernels leave at zero as they found them
/// (no memset per call). The sizes depend on the device, T and a bound on the segments, not on
/// their lengths, so a caller that needs scratch of its own (rk::reduce_by_key) can take both in
/// one lease before it knows them.
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

  std::int64_t short_cap;
  std::int64_t long_grid;
  bool long_waits;   ///< the long kernel may start early (launch_dependent_kernel)
  offset_t capacity; ///< parts the long list holds
  std::size_t counter_words;
  std::size_t list_bytes;
  std::size_t values_bytes;

  /// For calls of at most `max_segments` segments.
  segmented_launch(const device_facts& device, offset_t max_segments)
  {
    // Grids: the short kernel one wave at most, and no more blocks than give each warp a segment
    // (each warp takes an equal run of its block's, so a call of few segments spreads its longer
    // ones, which a warp reduces one at a time, over the most warps: against a block per 32
    // segments, 2^26 4-byte items in a random mix of 1 to 10^5 took 5.4-5.8 % less time, in
    // 8192-item segments 2.4-2.6 % less, in 4096-item ones 0.6-1.0 % more, doubles within 1 %;
    // H100, three runs against two); the long kernel one wave, whose blocks take the listed
    // segments' parts from a queue.
    short_cap = std::int64_t{resident_blocks_per_sm<short_kernel>(segment_block_threads, device.ordinal)}
              * device.multiprocessors;
    long_grid     = max_grid<long_kernel>(vector_agent::tuning, vector_agent::block_threads, device);
    long_waits    = waits_for_prior_grid<long_kernel>(device.ordinal);
    capacity      = long_segment_parts_for(max_segments);
    counter_words = long_segment_list::counter_words(capacity);
    list_bytes    = long_segment_list::array_bytes(capacity);
    values_bytes  = join == part_join::atomic ? 0 : static_cast<std::size_t>(capacity) * sizeof(T);
  }

  std::size_t scratch_bytes() const
  {
    return list_bytes + values_bytes;
  }

  /// Enqueues the launches on `stream`, with scratch_bytes() of device memory at `scratch` and
  /// counter_words zeroed words at `counters`.
  void enqueue(Input input, Segments segments, Output output, Init init, const Op& op, void* scratch,
               unsigned* counters, cudaStream_t stream, const device_facts& device) const
  {
    auto* base                   = static_cast<unsigned char*>(scratch);
    const long_segment_list list = long_segment_list::lay_out(base, counters, capacity);
    T* values                    = reinterpret_cast<T*>(base + list_bytes);

    unsigned long long* error_word = device_error_word(device.ordinal);
    const std::int64_t short_grid =
      std::min<std::int64_t>(short_cap, ceil_div<std::int64_t>(segments.count, segment_block_threads / warp_threads));
    launch_kernel(short_kernel, static_cast<unsigned>(short_grid), segment_block_threads, stream,
                  "rk::segmented_reduce: launching the short-segment kernel", input, segments, output, init, list,
                  error_word, op);
    try
    {
      // Launched to start as the short kernel's blocks leave: 2-3 µs less per call, whether or
      // not anything was listed (H200, float 2^26: 4096-item segments 70.4 -> 67.3 µs, one
      // segment 78.1 -> 75.9).
      launch_dependent_kernel(long_kernel, long_waits, static_cast<unsigned>(long_grid), vector_agent::block_threads,
                              stream, "rk::segmented_reduce: launching the long-segment kernel", input, list, values,
                              output, init, op);
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
      (void) cudaMemsetAsync(counters, 0, counter_words * sizeof(unsigned), stream);
      throw;
    }
  }
};
/// A segmented reduce over the caller's input, segments and output, on the policy's stream: the
/// call's checks (compile-time, then the device's pending error and the pointers), rk::device's
/// backend choice, the scratch and the launches. rk::segmented_reduce runs it over the caller's
/// segments, rk::reduce_axes over the virtual segments of its outputs.
template <gpu_backend Backend, class Provider, class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void enqueue_segmented_reduce(const gpu_policy<Backend, Provider>& policy, InputIt first, const Segments& host_segments,
                              OutputIt out, T init, BinaryOp user_op)
{
  const auto op = gpu_operator<Backend, InputIt, T>(user_op);
  using Op      = device_operator_t<BinaryOp>;
  if constexpr (!segmented_output_fits_v<Backend, OutputIt, T>)
  {
    static_assert(segmented_output_fits_v<Backend, OutputIt, T>,
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
    const device_facts& device = current_device_facts();
    // Segments that hold no items read nothing: their input may be anything (one past the end of
    // an empty array, say), so it is not checked.
    bool reads_items = true;
    if constexpr (std::is_same_v<Segments, fixed_segments>)
    {
      reads_items = host_segments.size > 0;
    }
    auto input                    = to_device_access(first, "the input range", reads_items ? &device : nullptr);
    auto segments                 = to_device_segments(host_segments, device);
    auto output                   = to_device_output(out, device);
    constexpr gpu_backend backend = segmented_backend_v<Backend, T, Op, OutputIt>;
    if constexpr (backend == gpu_backend::atomic)
    {
      // rk::device picks atomic for integer T only, where a T* off sizeof(T) is no valid pointer:
      // it throws rather than instantiate single_pass as well for that case (rk::reduce_into, whose
      // choice is made at run time anyway, falls back instead).
      check_atomic_output(output, "rk::segmented_reduce with rk::atomic");
    }
    if constexpr (std::is_same_v<Segments, fixed_segments>)
    {
      const rows_launch<backend, Provider, decltype(input), decltype(output), T, Op> launch(segments, device);
      scratch_lease scratch = lease_scratch(device.ordinal, policy.stream, launch.counter_words(), sizeof(T),
                                            launch.scratch_bytes());
      launch.enqueue(input, output, init, op, scratch.partials, scratch.counters, policy.stream);
      scratch.close();
    }
    else
    {
      if constexpr (backend != gpu_backend::atomic)
      {
        if (takes_few_segments<backend, decltype(segments)>(segments.count))
        {
          const few_segments_launch<backend, Provider, decltype(input), decltype(segments), decltype(output), T, Op> few(
            device, segments.count);
          scratch_lease scratch = lease_scratch(device.ordinal, policy.stream, few.counter_words(), sizeof(T),
                                                few.scratch_bytes());
          few.enqueue(input, segments, output, init, op, scratch.partials, scratch.counters, policy.stream, device);
          scratch.close();
          return;
        }
      }
      const segmented_launch<backend, Provider, decltype(input), decltype(segments), decltype(output), T, T, Op> launch(
        device, segments.count);
      scratch_lease scratch = lease_scratch(device.ordinal, policy.stream, launch.counter_words, sizeof(T),
                                            launch.scratch_bytes());
      launch.enqueue(input, segments, output, init, op, scratch.partials, scratch.counters, policy.stream, device);
      scratch.close();
    }
  }
}
} // namespace rk::detail

#pragma once
// rk::reduce_by_key for the GPU policies, built on rk::segmented_reduce: one pass of
// cub::DeviceSelect::UniqueByKey writes each run's first key to keys_out and its first position to
// the scratch ("heads"), the host reads the run count, and the runs are reduced as the CSR
// segments [heads[r], heads[r+1]) by segmented reduce's launches. One scratch lease holds the
// heads, CUB's temporary storage and segmented reduce's scratch.

#include <rk/cuda/segmented_dispatch.cuh>
#include <rk/detail/reduce_by_key_api.hpp>

#include <cub/device/device_select.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

namespace rk
{
namespace detail
{
/// Finds the runs and reduces them, with run heads (positions) of type `Head`: 32-bit where the
/// count allows, which halves the bytes of the heads that the search writes and segmented reduce
/// reads (H100, 2^26 int32 keys, runs of 1: 1015 us with 64-bit heads, 861 us with 32-bit ones).
/// Returns the run count.
template <class Head, gpu_backend Backend, class Provider, class T, class Keys, class Values, class UniqueKeys,
          class RunValues, class Init, class Op, class KeyEqual>
offset_t reduce_runs(const gpu_policy<Backend, Provider>& policy, Keys keys, std::int64_t n, Values values,
                     UniqueKeys unique_keys, RunValues run_values, const Init& init, const Op& op,
                     const KeyEqual& key_equal, const device_facts& device)
{
  const cudaStream_t stream = policy.stream;
  using segments_type       = csr_segments<const Head*>;
  const segmented_launch<Backend, Provider, Values, segments_type, RunValues, T, Init, Op> launch(device);

  // Scratch: [heads: n + 1 positions | CUB's temporary storage | segmented reduce's scratch].
  const thrust::counting_iterator<Head> positions(0);
  const pinned_slot run_count = acquire_pinned_slot();
  auto* runs                  = static_cast<Head*>(run_count.get());
  std::size_t cub_bytes       = 0;
  throw_on_error(cub::DeviceSelect::UniqueByKey(nullptr, cub_bytes, keys, positions, unique_keys,
                                                static_cast<Head*>(nullptr), runs, static_cast<Head>(n), key_equal,
                                                stream),
                 "rk::reduce_by_key: sizing the run search");
  const std::size_t heads_bytes = align_up(static_cast<std::size_t>(n + 1) * sizeof(Head), 256);
  cub_bytes                     = align_up(cub_bytes, 256);
  scratch_lease scratch =
    lease_scratch(device.ordinal, stream, sizeof(T), heads_bytes + cub_bytes + launch.scratch_bytes());
  auto* base  = static_cast<unsigned char*>(scratch.partials);
  auto* heads = reinterpret_cast<Head*>(base);
  throw_on_error(cub::DeviceSelect::UniqueByKey(base + heads_bytes, cub_bytes, keys, positions, unique_keys, heads,
                                                runs, static_cast<Head>(n), key_equal, stream),
                 "rk::reduce_by_key: finding the runs");
  throw_on_error(cudaStreamSynchronize(stream), "rk::reduce_by_key: waiting for the run count");
  Head count = 0;
  std::memcpy(&count, runs, sizeof(count));

  launch_kernel(store_init_kernel<Head>, 1, 1, stream, "rk::reduce_by_key: closing the last run",
                static_cast<Head>(n), heads + count);
  launch.enqueue(values, segments_type{heads, count}, run_values, init, op, base + heads_bytes + cub_bytes,
                 scratch.counters, stream, device);
  scratch.close();
  throw_on_error(cudaStreamSynchronize(stream), "rk::reduce_by_key: waiting for the run values");
  return count;
}
} // namespace detail

/// rk::reduce_by_key on a GPU policy (see rk/detail/reduce_by_key_api.hpp).
template <class T, gpu_backend Backend, class Provider, class KeyIt, class ValueIt, class KeyOut, class ValueOut,
          class Init, class BinaryOp, class KeyEqual>
std::pair<KeyOut, ValueOut> reduce_by_key_dispatch(const gpu_policy<Backend, Provider>& policy, KeyIt keys_first,
                                                   KeyIt keys_last, ValueIt values_first, KeyOut keys_out,
                                                   ValueOut values_out, const Init& init, BinaryOp user_op,
                                                   KeyEqual key_equal)
{
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  static_assert(Backend != gpu_backend::atomic,
                "rk::reduce_by_key does not run rk::atomic (it has no init to seed the runs' outputs with): use "
                "rk::single_pass or rk::device (one pass, exact for every associative operator)");
  detail::check_gpu_call<Backend, ValueIt, T, Op>();
  static_assert(detail::is_random_access_v<KeyIt> && !detail::is_host_iterator_v<KeyIt>,
                "rk::reduce_by_key with a GPU policy reads the keys through a random-access device iterator: copy "
                "them to a thrust::device_vector, or use rk::host");
  const std::int64_t n = detail::checked_distance(keys_first, keys_last);
  if (n == 0)
  {
    return {keys_out, values_out};
  }
  detail::check_not_capturing(policy.stream, "rk::reduce_by_key (it waits for the run count)");
  check_device_errors();
  const detail::device_facts& device = detail::current_device_facts();
  auto keys                          = detail::to_device_access(keys_first, "the keys", device);
  auto values                        = detail::to_device_access(values_first, "the values", device);
  auto unique_keys                   = detail::to_device_access(keys_out, "the keys output", device);
  auto run_values                    = detail::to_device_access(values_out, "the values output", device);
  // n + 1 heads, the last one n itself, must fit the head type.
  const detail::offset_t count =
    n < INT32_MAX
      ? detail::reduce_runs<std::int32_t, Backend, Provider, T>(policy, keys, n, values, unique_keys, run_values, init,
                                                                op, key_equal, device)
      : detail::reduce_runs<std::int64_t, Backend, Provider, T>(policy, keys, n, values, unique_keys, run_values, init,
                                                                op, key_equal, device);
  return {keys_out + count, values_out + count};
}
} // namespace rk

#pragma once
// rk::reduce_by_key for the GPU policies, built on rk::segmented_reduce. One pass over the data
// (reduce_runs_kernel, rk/cuda/kernels/reduce_by_key.cuh) writes each run's first key, reduces the
// short runs and lists the long ones in run order, with the run counts in a pinned slot; the host
// reads the counts, and the segment engine (rk/cuda/dispatch/segmented_engine.cuh) reduces the
// listed runs into their places. One
// scratch lease holds the list, the look-back's tile states and segmented reduce's scratch.

#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/segmented_engine.cuh>
#include <rk/cuda/kernels/reduce_by_key.cuh>
#include <rk/detail/integer.hpp>
#include <rk/reduce_by_key.hpp>

#include <thrust/iterator/permutation_iterator.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace rk
{
namespace detail
{
/// Finds the runs and reduces them, with positions and run numbers of type `Head`: 32-bit where
/// the count allows, which halves the list's bytes and keeps the look-back's tile state in one
/// 8-byte word. Returns the run count.
template <class Head, gpu_backend Backend, class Provider, class T, class Keys, class Values, class UniqueKeys,
          class RunValues, class Init, class Op, class KeyEqual>
offset_t reduce_runs(const gpu_policy<Backend, Provider>& policy, Keys keys, std::int64_t n, Values values,
                     UniqueKeys unique_keys, RunValues run_values, const Init& init, const Op& op,
                     const KeyEqual& key_equal, const device_facts& device)
{
  const cudaStream_t stream = policy.stream;
  using key_type            = std::remove_cv_t<iterator_item_t<Keys>>;
  using item                = std::remove_cv_t<iterator_item_t<Values>>;
  using shape               = run_pass_shape<key_type, item, T>;
  using long_segments       = bounded_segments<const Head*, const Head*>;
  using long_output         = thrust::permutation_iterator<RunValues, const Head*>;
  const offset_t tiles      = ceil_div(n, offset_t{shape::tile_items});
  if (tiles > INT_MAX)
  {
    throw error("rk::reduce_by_key: more than 2^31 tiles of keys (" + std::to_string(n) + " keys)");
  }
  // A long run has more than short_max items, or crosses a tile boundary.
  const offset_t capacity = n / (shape::short_max + 1) + tiles;
  const segmented_launch<Backend, Provider, Values, long_segments, long_output, T, Init, Op> launch(device, capacity);
  std::size_t tile_bytes = 0;
  throw_on_error(run_tile_state<Head>::AllocationSize(static_cast<int>(tiles), tile_bytes),
                 "rk::reduce_by_key: sizing the run pass");
  const std::size_t list_bytes = align_up(static_cast<std::size_t>(capacity) * sizeof(Head), 256);
  tile_bytes                   = align_up(tile_bytes, 256);

  // Scratch: [long runs | their begins | their ends | tile states | segmented reduce's scratch].
  scratch_lease scratch = lease_scratch(device.ordinal, stream, launch.counter_words, sizeof(T),
                                        3 * list_bytes + tile_bytes + launch.scratch_bytes());
  auto* base            = static_cast<unsigned char*>(scratch.partials);
  run_pass_outputs<Head> pass{};
  pass.long_run   = reinterpret_cast<Head*>(base);
  pass.long_begin = reinterpret_cast<Head*>(base + list_bytes);
  pass.long_end   = reinterpret_cast<Head*>(base + 2 * list_bytes);
  throw_on_error(pass.tiles.Init(static_cast<int>(tiles), base + 3 * list_bytes, tile_bytes),
                 "rk::reduce_by_key: the run pass's tile states");
  const pinned_slot totals = acquire_pinned_slot();
  pass.totals              = static_cast<Head*>(totals.get());
  launch_kernel(init_run_tiles_kernel<Head>, static_cast<unsigned>(ceil_div(tiles, offset_t{256})), 256, stream,
                "rk::reduce_by_key: preparing the run pass", pass.tiles, static_cast<int>(tiles));
  launch_kernel(reduce_runs_kernel<Head, key_type, item, T, Keys, Values, UniqueKeys, RunValues, Init, KeyEqual, Op>,
                static_cast<unsigned>(tiles), shape::threads, stream, "rk::reduce_by_key: launching the run pass", keys,
                values, static_cast<Head>(n), unique_keys, run_values, init, key_equal, op, pass);
  throw_on_error(cudaStreamSynchronize(stream), "rk::reduce_by_key: waiting for the run count");
  Head counts[2] = {};
  std::memcpy(counts, totals.get(), sizeof(counts));
  if (counts[1] > 0)
  {
    launch.enqueue(values, long_segments{pass.long_begin, pass.long_end, counts[1]},
                   long_output(run_values, pass.long_run), init, op, base + 3 * list_bytes + tile_bytes,
                   scratch.counters, stream, device);
    scratch.close();
    throw_on_error(cudaStreamSynchronize(stream), "rk::reduce_by_key: waiting for the long runs");
  }
  else
  {
    scratch.close(); // every run was short: the run pass, already waited for, wrote them all
  }
  return counts[0];
}
} // namespace detail

/// rk::reduce_by_key on a GPU policy (see rk/reduce_by_key.hpp).
template <class T, gpu_backend Backend, class Provider, class KeyIt, class ValueIt, class KeyOut, class ValueOut,
          class Init, class BinaryOp, class KeyEqual>
std::pair<KeyOut, ValueOut> reduce_by_key_dispatch(const gpu_policy<Backend, Provider>& policy, KeyIt keys_first,
                                                   KeyIt keys_last, ValueIt values_first, KeyOut keys_out,
                                                   ValueOut values_out, const Init& init, BinaryOp user_op,
                                                   KeyEqual key_equal)
{
  static_assert(Backend != gpu_backend::atomic,
                "rk::reduce_by_key has no rk::atomic path: its run pass writes each run's value once, in run order, "
                "so atomics would buy nothing. Use rk::device or rk::single_pass (exact for every associative "
                "operator)");
  const auto op = detail::gpu_operator<Backend, ValueIt, T>(user_op);
  static_assert(detail::is_random_access_v<KeyIt> && !detail::is_host_iterator_v<KeyIt>,
                "rk::reduce_by_key with a GPU policy reads the keys through a random-access device iterator: copy "
                "them to a thrust::device_vector, wrap raw device pointers in thrust::device_ptr "
                "(thrust::device_pointer_cast) before zipping them, or use rk::host");
  using key_type = std::remove_cv_t<detail::iterator_item_t<KeyIt>>;
  static_assert(std::is_trivially_copyable_v<key_type> && std::is_default_constructible_v<key_type>
                  && sizeof(key_type) <= detail::max_value_bytes,
                "rk::reduce_by_key with a GPU policy holds keys in registers and shared memory: the key type must be "
                "trivially copyable, default constructible and at most 256 bytes (integers, floats, plain structs, "
                "thrust::tuple and cuda::std::tuple of those, zip iterators over them); reduce a smaller key, or use "
                "rk::host for other keys");
  const std::int64_t n = detail::checked_distance(keys_first, keys_last);
  if (n == 0)
  {
    return {keys_out, values_out};
  }
  detail::check_not_capturing(policy.stream, "rk::reduce_by_key (it waits for the run count)");
  check_device_errors();
  const detail::device_facts& device = detail::current_device_facts();
  auto keys                          = detail::to_device_access(keys_first, "the keys", &device);
  auto values                        = detail::to_device_access(values_first, "the values", &device);
  auto unique_keys                   = detail::to_device_access(keys_out, "the keys output", &device);
  auto run_values                    = detail::to_device_access(values_out, "the values output", &device);
  // n + 1 heads, the last one n itself, must fit the head type.
  const detail::offset_t count =
    n < INT32_MAX ? detail::reduce_runs<std::int32_t, Backend, Provider, T>(policy, keys, n, values, unique_keys,
                                                                            run_values, init, op, key_equal, device)
                  : detail::reduce_runs<std::int64_t, Backend, Provider, T>(policy, keys, n, values, unique_keys,
                                                                            run_values, init, op, key_equal, device);
  return {keys_out + count, values_out + count};
}
} // namespace rk

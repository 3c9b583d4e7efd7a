#pragma once
// The property-test harness for the GPU policies: inputs live in thrust::device_vector, computed
// inputs are thrust transform iterators over a counting iterator. Without a GPU every test case
// declared with RK_GPU_TEST_CASE is skipped (and reported as skipped).

#include "../support/properties.hpp"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace rk_test
{
/// True when a CUDA device is usable (asked once).
bool gpu_available();

/// How many CUDA devices are usable (0 without a GPU).
int gpu_count();

/// A non-blocking stream for one test.
struct stream_guard
{
  cudaStream_t stream{};
  stream_guard()
  {
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  }
  ~stream_guard()
  {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  stream_guard(const stream_guard&)            = delete;
  stream_guard& operator=(const stream_guard&) = delete;
};

/// Holds `stream` with a spinning kernel until release() (or the destructor, or 10 s: a broken
/// test cannot hang the suite), so a test can see what waits for the stream and what does not.
class stream_hold
{
public:
  explicit stream_hold(cudaStream_t stream);
  ~stream_hold();
  void release();
  /// Leaves the hold in place beyond this object (for a thread that exits with its stream held):
  /// the caller stores 1 through the returned mapped flag, then frees it with cudaFreeHost.
  int* detach();
  stream_hold(const stream_hold&)            = delete;
  stream_hold& operator=(const stream_hold&) = delete;

private:
  int* flag_ = nullptr;
};

/// Runs body(t) for t in [0, count), each on a host thread of its own; returns how many threw.
template <class Body>
int run_on_threads(int count, Body body)
{
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
  {
    threads.emplace_back([&, t] {
      try
      {
        body(t);
      }
      catch (...)
      {
        ++failed;
      }
    });
  }
  for (auto& th : threads)
  {
    th.join();
  }
  return failed;
}

/// Sizes around the grid cap of the default tuning for a kernel input `Input` holding `T`:
/// cap * (1 and 2) chunks per warp, +-1.
template <class Input, class T, class Op>
std::vector<std::int64_t> grid_cap_sizes()
{
  using agent                  = rk::detail::reduce_agent<rk::default_tuning, Input, T>;
  using launcher               = rk::detail::single_pass_launcher<rk::default_tuning, Input, T, Op>;
  const std::int64_t cap       = launcher::max_blocks(rk::detail::current_device_facts());
  const std::int64_t chunk     = agent::chunk_items;
  const std::int64_t per_block = chunk * (agent::block_threads / 32);
  std::vector<std::int64_t> sizes;
  for (std::int64_t items : {per_block - 1, per_block, per_block + 1, chunk - 1, chunk, chunk + 1})
  {
    sizes.push_back(items);
  }
  for (std::int64_t tiles : {cap, 2 * cap})
  {
    for (std::int64_t d : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}})
    {
      sizes.push_back(tiles * per_block + d);
    }
  }
  return sizes;
}

template <class Policy, bool CommutativeOnly = false>
struct gpu_harness
{
  using policy_type                      = Policy;
  static constexpr bool commutative_only = CommutativeOnly;
  /// Partials come from rk::reduce_partial on `policy`.
  static constexpr bool plans_partials_itself = false;
  Policy policy{};

  template <class E>
  thrust::device_vector<E> upload(const std::vector<E>& items) const
  {
    return thrust::device_vector<E>(items.begin(), items.end());
  }

  template <class E>
  E* raw(thrust::device_vector<E>& items) const
  {
    return thrust::raw_pointer_cast(items.data());
  }

  template <class E>
  std::vector<E> download(const thrust::device_vector<E>& items) const
  {
    const thrust::host_vector<E> copy(items);
    return std::vector<E>(copy.begin(), copy.end());
  }

  template <class F>
  auto generated(F f, std::int64_t first) const
  {
    return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(first), f);
  }

  /// 2^k +- 1 up to 2^27 (2^18 under RK_TEST_QUICK), block, chunk and grid-cap sizes +- 1.
  std::vector<std::int64_t> sizes_full() const
  {
    auto sizes = power_sizes(5, quick_mode() ? 18 : 27);
    for (auto more : {grid_cap_sizes<const std::int32_t*, std::int32_t, rk::plus>(),
                      grid_cap_sizes<decltype(generated(to_segment{}, 0)), segment, segment_merge>()})
    {
      sizes.insert(sizes.end(), more.begin(), more.end());
    }
    return sizes;
  }
  std::vector<std::int64_t> sizes_short() const
  {
    auto sizes = power_sizes(5, quick_mode() ? 12 : 20);
    for (std::int64_t s : {255, 257, 1023, 1025, 3 * 4096 + 1})
    {
      sizes.push_back(s);
    }
    return sizes;
  }
  std::int64_t large_count() const
  {
    return (std::int64_t{1} << 31) + 77;
  }
};
} // namespace rk_test

#define RK_GPU_TEST_CASE(name) TEST_CASE(name* doctest::skip(!rk_test::gpu_available()))

/// The property suites for one GPU policy, as test cases named "<label>: ...".
#define RK_GPU_PROPERTY_SUITES(label, harness)                                               \
  RK_GPU_TEST_CASE(label ": integer sums are exact and apply init once")                     \
  {                                                                                          \
    rk_test::integer_sums(harness{});                                                        \
  }                                                                                          \
  RK_GPU_TEST_CASE(label ": min, max, multiplies and bitwise ops are exact")                 \
  {                                                                                          \
    rk_test::integer_other_ops(harness{});                                                   \
  }                                                                                          \
  RK_GPU_TEST_CASE(label ": floating point: sums within bound, NaN and inf rules")           \
  {                                                                                          \
    rk_test::floating_point(harness{});                                                      \
  }                                                                                          \
  RK_GPU_TEST_CASE(label ": empty and reversed ranges, types without a default constructor") \
  {                                                                                          \
    rk_test::special_cases(harness{});                                                       \
  }                                                                                          \
  RK_GPU_TEST_CASE(label ": more than 2^31 items through a counting iterator")               \
  {                                                                                          \
    rk_test::large_counts(harness{});                                                        \
  }

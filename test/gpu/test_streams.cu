// Streams, threads and graphs: concurrent calls on their own streams, the stream-ordered API,
// CUDA-graph replays of a single-pass reduction, and "waits for its stream only".

#include "gpu_harness.cuh"

#include <thrust/fill.h>
#include <thrust/sequence.h>

#include <atomic>
#include <stdexcept>

namespace
{
std::int64_t reduce_with(int which, cudaStream_t s, const std::int32_t* first, std::int64_t n)
{
  switch (which % 4)
  {
    case 0:
      return rk::reduce(rk::device.on(s), first, first + n, std::int64_t{0});
    case 1:
      return rk::reduce(rk::single_pass.on(s), first, first + n, std::int64_t{0});
    case 2:
      return rk::reduce(rk::two_pass.on(s), first, first + n, std::int64_t{0});
    default:
      return rk::reduce(rk::atomic.on(s), first, first + n, std::int64_t{0});
  }
}

} // namespace

RK_GPU_TEST_CASE("8 host threads, each on its own stream, 200 reductions each, all exact")
{
  const std::int64_t n = std::int64_t{1} << 22;
  const auto items     = rk_test::random_items<std::int32_t>(n, 50, rk_test::small_integer<std::int32_t>);
  std::vector<std::int64_t> prefix(n + 1, 0);
  for (std::int64_t i = 0; i < n; ++i)
  {
    prefix[i + 1] = prefix[i] + items[i];
  }
  const thrust::device_vector<std::int32_t> input(items.begin(), items.end());
  const std::int32_t* data = thrust::raw_pointer_cast(input.data());

  std::atomic<int> wrong{0};
  const int failed = rk_test::run_on_threads(8, [&](int t) {
    rk_test::stream_guard guard;
    for (int i = 0; i < (rk_test::quick_mode() ? 20 : 200); ++i)
    {
      const std::int64_t len   = (std::int64_t{t} * 7919 + std::int64_t{i} * 104729) % n + 1;
      const std::int64_t first = (std::int64_t{i} * 31) % (n - len + 1);
      wrong += reduce_with(t + i, guard.stream, data + first, len) != prefix[first + len] - prefix[first];
    }
  });
  CHECK(wrong == 0);
  CHECK(failed == 0);
}

RK_GPU_TEST_CASE("4 host threads on cudaStreamPerThread, one handle for four streams, all exact")
{
  const std::int64_t n  = (std::int64_t{1} << 20) + 7;
  const auto items      = rk_test::random_items<std::int32_t>(n, 51, rk_test::small_integer<std::int32_t>);
  std::int64_t expected = 0;
  for (auto x : items)
  {
    expected += x;
  }
  const thrust::device_vector<std::int32_t> input(items.begin(), items.end());
  const std::int32_t* data = thrust::raw_pointer_cast(input.data());
  std::atomic<int> wrong{0};
  const int failed = rk_test::run_on_threads(4, [&](int) {
    std::int64_t* out = nullptr;
    if (cudaMallocAsync(&out, sizeof(std::int64_t), cudaStreamPerThread) != cudaSuccess)
    {
      throw std::runtime_error("cudaMallocAsync failed");
    }
    for (int i = 0; i < (rk_test::quick_mode() ? 10 : 100); ++i)
    {
      // reduce_into on this handle uses rk::atomic for int64 at this size: concurrent grids
      // sharing counters would hang or give wrong answers.
      rk::reduce_into(rk::device.on(cudaStreamPerThread), data, data + n, out, std::int64_t{0});
      std::int64_t got = 0;
      cudaMemcpyAsync(&got, out, sizeof(got), cudaMemcpyDeviceToHost, cudaStreamPerThread);
      cudaStreamSynchronize(cudaStreamPerThread);
      wrong += got != expected;
      wrong += rk::reduce(rk::device.on(cudaStreamPerThread), data, data + n, std::int64_t{0}) != expected;
    }
    cudaFreeAsync(out, cudaStreamPerThread);
    cudaStreamSynchronize(cudaStreamPerThread);
  });
  CHECK(wrong == 0);
  CHECK(failed == 0);
}

RK_GPU_TEST_CASE("reduce_into is stream-ordered and writes init for an empty range")
{
  rk_test::stream_guard guard;
  thrust::device_vector<std::int64_t> out(3, -1);
  const thrust::counting_iterator<std::int64_t> count(0);
  rk::reduce_into(rk::device.on(guard.stream), count, count + 1000, out.data(), std::int64_t{1});
  rk::reduce_into(rk::two_pass.on(guard.stream), count, count, out.data() + 1, std::int64_t{77});
  rk::reduce_into(rk::atomic.on(guard.stream), count, count + 5, thrust::raw_pointer_cast(out.data()) + 2,
                  std::int64_t{0}, rk::maximum{});
  REQUIRE(cudaStreamSynchronize(guard.stream) == cudaSuccess);
  CHECK(out[0] == 1 + 999 * 1000 / 2);
  CHECK(out[1] == 77);
  CHECK(out[2] == 4);
}

RK_GPU_TEST_CASE("a captured single-pass reduction replays 100 times over changing data")
{
  rk_test::stream_guard guard;
  const std::int64_t n = 3'000'017;
  thrust::device_vector<std::int32_t> input(n);
  thrust::device_vector<std::int64_t> out(1);
  const auto policy = rk::single_pass.on(guard.stream);
  // An eager call first: the stream's cached scratch exists, and the graph must still not use it.
  rk::reduce_into(policy, input.begin(), input.end(), out.data(), std::int64_t{0});
  REQUIRE(cudaStreamSynchronize(guard.stream) == cudaSuccess);

  cudaGraph_t graph{};
  REQUIRE(cudaStreamBeginCapture(guard.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  rk::reduce_into(policy, input.begin(), input.end(), out.data(), std::int64_t{5});
  REQUIRE(cudaStreamEndCapture(guard.stream, &graph) == cudaSuccess);
  cudaGraphExec_t exec{};
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);

  int wrong = 0;
  for (int replay = 0; replay < 100; ++replay)
  {
    thrust::sequence(thrust::cuda::par.on(guard.stream), input.begin(), input.end(), replay - 1000, 0);
    thrust::fill(thrust::cuda::par.on(guard.stream), input.begin() + replay, input.begin() + replay + 1, 1000);
    REQUIRE(cudaGraphLaunch(exec, guard.stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(guard.stream) == cudaSuccess);
    const std::int64_t expected = 5 + (n - 1) * std::int64_t{replay - 1000} + 1000;
    wrong += out[0] != expected;
  }
  CHECK(wrong == 0);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

RK_GPU_TEST_CASE("rk::reduce on a stream waits for that stream only")
{
  rk_test::stream_guard busy, mine;
  const thrust::counting_iterator<std::int64_t> count(0);
  // The first call on a stream allocates its scratch, and allocation may synchronize the device;
  // the guarantee is for every call after that.
  CHECK(rk::reduce(rk::device.on(mine.stream), count, count + 10, std::int64_t{0}) == 45);
  rk_test::stream_hold hold(busy.stream);
  CHECK(rk::reduce(rk::device.on(mine.stream), count, count + 100000, std::int64_t{0}) == 99999LL * 100000 / 2);
  CHECK(cudaStreamQuery(busy.stream) == cudaErrorNotReady); // the other stream is still held
  hold.release();
  CHECK(cudaStreamSynchronize(busy.stream) == cudaSuccess);
}

RK_GPU_TEST_CASE("rk::explain reports the GPU backend and why")
{
  thrust::device_vector<float> v(1000);
  const auto automatic = rk::explain(rk::device, v.begin(), v.end(), 0.0f);
  CHECK(automatic.policy == "device");
  CHECK(automatic.backend == "single_pass"); // floating point: rk::device stays deterministic
  CHECK(automatic.stream_ordered_backend == "single_pass");
  thrust::device_vector<std::int32_t> ints(1 << 20);
  const auto integers = rk::explain(rk::device, ints.begin(), ints.end(), 0);
  CHECK(integers.backend == "single_pass");           // value-returning: copy-free single pass
  CHECK(integers.stream_ordered_backend == "atomic"); // stream-ordered: integer atomics measured faster
  CHECK(automatic.to_string().find("16-byte vectors") != std::string::npos);

  const auto segments = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                        rk_test::to_segment{});
  const auto ordered  = rk::explain(rk::device, segments, segments + 10, rk_test::segment{0, 0},
                                    rk_test::segment_merge{});
  CHECK(ordered.backend == "single_pass");
  CHECK(ordered.reason.find("not known to be commutative") != std::string::npos);

  thrust::device_vector<std::int8_t> bytes(10);
  const auto no_route = rk::explain(rk::device, bytes.begin(), bytes.end(), std::int8_t{0});
  CHECK(no_route.reason.find("no atomic route") != std::string::npos);

  CHECK(rk::explain(rk::two_pass, v.begin(), v.end(), 0.0f).backend == "two_pass");
  CHECK(rk::explain(rk::device, v.begin(), v.begin(), 0.0f).backend == "none");
}

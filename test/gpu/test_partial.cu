// Partials on the GPU policies: pieces reduced on the GPU (and, every other piece, on rk::host)
// combine to rk::reduce's bits; records written on the device, combined there or copied back; the
// accumulator over device, pinned and pageable chunks (it refuses capture); a captured
// rk::reduce_partial_into replayed; pieces planned on the GPU from an offset only it knows, as
// rk::nccl plans a shard's.

#include "../support/partial_properties.hpp"
#include "gpu_harness.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace
{
using device_harness      = rk_test::gpu_harness<rk::device_policy>;
using two_pass_harness    = rk_test::gpu_harness<rk::two_pass_policy>;
using single_pass_harness = rk_test::gpu_harness<rk::single_pass_policy>;

/// rk::device's partials planned on the GPU, as rk::nccl plans a shard's partial when the ranks
/// find the offsets there: the offset in device memory as a sum of two lengths
/// (summed_offset_plan_kernel), the node kernel on the limits the host set from the length alone.
struct planned_on_gpu_harness : device_harness
{
  static constexpr bool plans_partials_itself = true;

  template <class T, class It, class Op>
  rk::partial<T> reduce_partial(It first, It last, std::int64_t offset, Op op) const
  {
    namespace d            = rk::detail;
    const std::int64_t n   = last - first;
    const auto launch      = d::make_partial_launch<T>(policy, first, n, d::offset_on_device, op);
    using planner          = typename std::remove_const_t<decltype(launch)>::planner;
    const std::int64_t a[] = {offset / 3, offset - offset / 3};
    const thrust::device_vector<std::int64_t> lengths(a, a + 2);
    thrust::device_vector<unsigned char> plan(sizeof(d::partial_device_plan));
    thrust::device_vector<unsigned char> values(std::max<std::size_t>(launch.scratch_bytes(), 16));
    thrust::device_vector<unsigned> counters(launch.counter_words(), 0u);
    thrust::device_vector<unsigned char> record(sizeof(rk::partial<T>));
    auto* plan_at = reinterpret_cast<d::partial_device_plan*>(thrust::raw_pointer_cast(plan.data()));
    d::summed_offset_plan_kernel<planner>
      <<<1, d::partial_plan_threads>>>(thrust::raw_pointer_cast(lengths.data()), 2, launch.limits(), plan_at);
    launch.enqueue_planned(plan_at, reinterpret_cast<rk::partial<T>*>(thrust::raw_pointer_cast(record.data())),
                           thrust::raw_pointer_cast(values.data()), thrust::raw_pointer_cast(counters.data()));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    // The nodes' arrival words are back at zero for the next user of the scratch.
    const thrust::host_vector<unsigned> left(counters);
    CHECK(std::count(left.begin(), left.end(), 0u) == static_cast<std::ptrdiff_t>(left.size()));
    rk::partial<T> p;
    REQUIRE(cudaMemcpy(&p, thrust::raw_pointer_cast(record.data()), sizeof(p), cudaMemcpyDeviceToHost) == cudaSuccess);
    return p;
  }
};

std::vector<float> spread_floats(std::int64_t n)
{
  std::vector<float> v;
  for (std::int64_t i = 0; i < n; ++i)
  {
    v.push_back(rk_test::spread_value<float>{}(i));
  }
  return v;
}
} // namespace

RK_GPU_TEST_CASE("partials: pieces reduced on rk::device, cut anywhere, combine to rk::reduce's bits")
{
  rk_test::partials_combine_to_reduce_bits(device_harness{});
}

RK_GPU_TEST_CASE("partials: pieces reduced on rk::two_pass and rk::single_pass combine to rk::reduce's bits")
{
  rk_test::partials_combine_to_reduce_bits(two_pass_harness{});
  rk_test::partials_combine_to_reduce_bits(single_pass_harness{});
}

RK_GPU_TEST_CASE("partials: pieces planned on the GPU from an offset only it knows combine to rk::reduce's bits")
{
  rk_test::partials_combine_to_reduce_bits(planned_on_gpu_harness{});
  // Long pieces, whose nodes share a full grid and split over many blocks.
  const std::int64_t n          = (std::int64_t{1} << 25) + 1234;
  const std::vector<float> host = spread_floats(n);
  const thrust::device_vector<float> v(host.begin(), host.end());
  const float want = rk::reduce(rk::device, v.begin(), v.end(), 0.25f, rk::plus{});
  for (std::int64_t cut : {std::int64_t{0}, std::int64_t{12345}, std::int64_t{1} << 24, n - 3})
  {
    CAPTURE(cut);
    const planned_on_gpu_harness h;
    const auto a = h.reduce_partial<float>(v.begin(), v.begin() + cut, 0, rk::plus{});
    const auto b = h.reduce_partial<float>(v.begin() + cut, v.end(), cut, rk::plus{});
    CHECK(rk_test::same_bytes(rk::finish(rk::combine(a, b, rk::plus{}), 0.25f, rk::plus{}), want));
  }
  rk_test::partial_above_2_31(planned_on_gpu_harness{});
}

RK_GPU_TEST_CASE("partials: rk::accumulator over device chunks has rk::reduce's bits")
{
  rk_test::accumulator_matches_reduce(device_harness{});
  rk_test::accumulator_matches_reduce(single_pass_harness{});
}

RK_GPU_TEST_CASE("partials: rk::accumulator over pageable and pinned host chunks has rk::reduce's bits")
{
  // Longer than one staging buffer (32 MiB, 2^23 floats), so a chunk takes both buffers in turn.
  const std::int64_t n          = (std::int64_t{1} << 24) + 4097;
  const std::vector<float> host = spread_floats(n);
  const thrust::device_vector<float> v(host.begin(), host.end());
  const float want          = rk::reduce(rk::device, v.begin(), v.end(), 0.25f, rk::plus{});
  const std::int64_t cuts[] = {0, 5, 3'000'001, (std::int64_t{1} << 23) + 3, n};
  rk::accumulator from_vector(rk::device, 0.25f, rk::plus{});
  for (int k = 0; k < 4; ++k)
  {
    from_vector.add(host.begin() + cuts[k], host.begin() + cuts[k + 1]);
  }
  CHECK(rk_test::same_bytes(from_vector.result(), want));
  rk::accumulator whole(rk::two_pass, 0.25f, rk::plus{});
  whole.add(host.data(), host.data() + n);
  CHECK(rk_test::same_bytes(whole.result(), want));
  // Pinned, pageable and device chunks in one sequence.
  float* pinned = nullptr;
  REQUIRE(cudaHostAlloc(reinterpret_cast<void**>(&pinned), cuts[2] * sizeof(float), cudaHostAllocDefault)
          == cudaSuccess);
  std::copy(host.begin(), host.begin() + cuts[2], pinned);
  rk::accumulator mixed(rk::single_pass, 0.25f, rk::plus{});
  mixed.add(pinned, pinned + cuts[2]);
  mixed.add(host.begin() + cuts[2], host.begin() + cuts[3]);
  mixed.add(v.begin() + cuts[3], v.end());
  CHECK(rk_test::same_bytes(mixed.result(), want));
  cudaFreeHost(pinned);
  // Once add() returns, the pageable chunk is the caller's again.
  std::vector<float> reused(host.begin(), host.begin() + cuts[3]);
  rk::accumulator changed_after(rk::device, 0.25f, rk::plus{});
  changed_after.add(reused.begin(), reused.end());
  std::fill(reused.begin(), reused.end(), 1e30f);
  changed_after.add(v.begin() + cuts[3], v.end());
  CHECK(rk_test::same_bytes(changed_after.result(), want));
  // Found by the soak: a piece whose bytes split into whole pages per copying thread plus a few
  // (2^21 + 1 floats: 8 MiB + 4 bytes over eight threads) lost its last item.
  const std::int64_t m = (std::int64_t{1} << 21) + 1;
  const float want_m   = rk::reduce(rk::device, v.begin(), v.begin() + m, 0.25f, rk::plus{});
  rk::accumulator pages(rk::device, 0.25f, rk::plus{});
  pages.add(host.begin(), host.begin() + m);
  CHECK(rk_test::same_bytes(pages.result(), want_m));
}

RK_GPU_TEST_CASE("partials: a piece of more than 2^31 items through a computed iterator (rk::device)")
{
  rk_test::partial_above_2_31(device_harness{});
}

RK_GPU_TEST_CASE("partials: records written on the device, combined there and on the host")
{
  const std::int64_t n          = (1 << 20) + 333;
  const std::vector<float> host = spread_floats(n);
  const thrust::device_vector<float> v(host.begin(), host.end());
  const float want          = rk::reduce(rk::host, host.begin(), host.end(), 0.5f, rk::plus{});
  const std::int64_t cuts[] = {0, 5, 4096 + 7, 700001, n};
  thrust::device_vector<rk::partial<float>> records(4);
  auto* d = thrust::raw_pointer_cast(records.data());
  for (int k = 0; k < 4; ++k)
  {
    rk::reduce_partial_into(rk::device, v.begin() + cuts[k], v.begin() + cuts[k + 1], cuts[k], d + k, rk::plus{});
  }
  // On the host, from copies of the records.
  const thrust::host_vector<rk::partial<float>> copies(records);
  auto whole = copies[0];
  for (int k = 1; k < 4; ++k)
  {
    whole = rk::combine(whole, copies[k], rk::plus{});
  }
  CHECK(rk_test::same_bytes(rk::finish(whole, 0.5f, rk::plus{}), want));
  // On the device, in another grouping: (0 1) (2 3), then the two.
  rk::combine_into(rk::device, d, d + 1, d, rk::plus{});
  rk::combine_into(rk::device, d + 2, d + 3, d + 2, rk::plus{});
  rk::combine_into(rk::device, d, d + 2, d + 3, rk::plus{});
  const rk::partial<float> on_device = records[3];
  CHECK(rk_test::same_bytes(rk::finish(on_device, 0.5f, rk::plus{}), want));
  // Pieces that are not adjacent: the device's record is one rk::finish rejects.
  rk::combine_into(rk::device, d + 1, d + 2, d, rk::plus{});
  const rk::partial<float> failed = records[0];
  CHECK_THROWS_AS(rk::finish(failed, 0.5f, rk::plus{}), rk::error);
  // A record in pageable host memory is refused before the launch (where the GPU cannot read it).
  rk::partial<float> on_host = copies[0];
  if (!rk::detail::current_device_facts().pageable_memory_access)
  {
    CHECK_THROWS_AS(rk::combine_into(rk::device, &on_host, d + 1, d, rk::plus{}), rk::host_memory_error);
    CHECK_THROWS_AS(rk::combine_into(rk::device, d, &on_host, d, rk::plus{}), rk::host_memory_error);
    CHECK_THROWS_AS(rk::combine_into(rk::device, d, d + 1, &on_host, rk::plus{}), rk::host_memory_error);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
  else
  {
    // HMM or ATS: the GPU reads pageable memory, so rk accepts it, and the combine must be right
    // (records[1] still holds piece 1).
    rk::combine_into(rk::device, &on_host, d + 1, d, rk::plus{});
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const rk::partial<float> first_two = records[0];
    CHECK(rk_test::same_bytes(rk::finish(first_two, 0.5f, rk::plus{}),
                              rk::finish(rk::combine(copies[0], copies[1], rk::plus{}), 0.5f, rk::plus{})));
  }
}

RK_GPU_TEST_CASE("partials: a captured rk::reduce_partial_into replays with the same bits")
{
  const std::int64_t n          = 300007;
  const std::vector<float> host = spread_floats(n);
  const thrust::device_vector<float> v(host.begin(), host.end());
  thrust::device_vector<rk::partial<float>> records(2);
  auto* d = thrust::raw_pointer_cast(records.data());
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  rk::reduce_partial_into(rk::device.on(stream), v.begin(), v.begin() + 1001, 0, d, rk::plus{});
  rk::reduce_partial_into(rk::device.on(stream), v.begin() + 1001, v.end(), 1001, d + 1, rk::plus{});
  rk::combine_into(rk::device.on(stream), d, d + 1, d, rk::plus{});
  {
    // An accumulator's records live across calls: it refuses the capture and leaves it intact.
    rk::accumulator acc(rk::device.on(stream), 0.0f, rk::plus{});
    CHECK_THROWS_AS(acc.add(v.begin(), v.end()), rk::error);
  }
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  const float want = rk::reduce(rk::host, host.begin(), host.end(), 0.0f, rk::plus{});
  for (int replay = 0; replay < 3; ++replay)
  {
    REQUIRE(cudaMemsetAsync(d, 0xcd, 2 * sizeof(rk::partial<float>), stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const rk::partial<float> whole = records[0];
    CHECK(rk_test::same_bytes(rk::finish(whole, 0.0f, rk::plus{}), want));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// Found by the GPU suite: while the records came from the default memory pool (cudaMallocAsync on
// the legacy stream), "a thread that exits with a call pending" (test_scratch.cu), run after the
// value-returning partials and the accumulator, hung on an H100: a thread's first CUDA call, after
// another thread had exited with work pending, never returned.
RK_GPU_TEST_CASE("partials: after value-returning partials, a thread that exits with a call pending leaves the next "
                 "thread's calls running")
{
  const std::int64_t n          = 100003;
  const std::vector<float> host = spread_floats(n);
  const thrust::device_vector<float> v(host.begin(), host.end());
  const float want = rk::reduce(rk::host, host.begin(), host.end(), 0.0f, rk::plus{});
  for (int round = 0; round < 3; ++round)
  {
    const rk::partial<float> p = rk::reduce_partial(rk::device, v.begin(), v.end(), 0, rk::plus{});
    CHECK(rk_test::same_bytes(rk::finish(p, 0.0f, rk::plus{}), want));
    {
      rk::accumulator acc(rk::single_pass, 0.0f, rk::plus{});
      acc.add(v.begin(), v.begin() + 777);
      acc.add(v.begin() + 777, v.end());
      CHECK(rk_test::same_bytes(acc.result(), want));
    }
    thrust::device_vector<float> out(1, -1.0f);
    std::atomic<int*> release{nullptr};
    std::thread leaver([&] {
      rk_test::stream_hold hold(cudaStreamPerThread);
      rk::reduce_into(rk::device.on(cudaStreamPerThread), v.begin(), v.end(), out.data(), 0.0f);
      release = hold.detach();
    });
    leaver.join();
    std::atomic<bool> next_done{false};
    float next_sum = -1.0f;
    std::thread next([&] {
      next_sum  = rk::reduce(rk::device.on(cudaStreamPerThread), v.begin(), v.end(), 0.0f);
      next_done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    *reinterpret_cast<volatile int*>(release.load()) = 1;
    next.join();
    CHECK(next_done);
    CHECK(rk_test::same_bytes(next_sum, want));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    cudaFreeHost(release.load());
    CHECK(rk_test::same_bytes(static_cast<float>(out[0]), want));
  }
}

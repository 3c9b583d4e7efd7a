// Partials on the GPU policies: pieces reduced on the GPU (and, every other piece, on rk::host)
// combine to rk::reduce's bits; records written on the device, combined there or copied back; the
// accumulator over device chunks; a captured rk::reduce_partial_into replayed.

#include "../support/partial_properties.hpp"
#include "gpu_harness.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

#include <cstdint>
#include <vector>

namespace
{
using device_harness      = rk_test::gpu_harness<rk::device_policy>;
using two_pass_harness    = rk_test::gpu_harness<rk::two_pass_policy>;
using single_pass_harness = rk_test::gpu_harness<rk::single_pass_policy>;

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

RK_GPU_TEST_CASE("partials: rk::accumulator over device chunks has rk::reduce's bits")
{
  rk_test::accumulator_matches_reduce(device_harness{});
  rk_test::accumulator_matches_reduce(single_pass_harness{});
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

// rk::device_count: rk::reduce_into and rk::transform_reduce_into over a count in device memory,
// written by a kernel earlier on the stream, have the bits of the same call with the count on the
// host, on every tree policy, for every count type; a count of zero stores init without calling
// op; a captured call replays with the count the pointer holds at each replay; bad counts throw.

#include "gpu_harness.cuh"

#include "../support/spread.hpp"
#include "../support/test_types.hpp"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace
{
using rk_test::affine;
using rk_test::affine_compose;
using rk_test::mat2;
using rk_test::mat2_multiply;
using rk_test::segment;
using rk_test::segment_merge;
using rk_test::to_segment;

/// Counts around the tree's tile and split boundaries, and above one block's reach.
const std::vector<std::int64_t> counts = {0, 1, 2, 31, 1023, 4097, 100003, (std::int64_t{1} << 20) + 37};

/// n spread floats (rk_test::spread_value) in device memory.
thrust::device_vector<float> spread_floats(std::int64_t n)
{
  std::vector<float> floats;
  for (std::int64_t i = 0; i < n; ++i)
  {
    floats.push_back(rk_test::spread_value<float>{}(i));
  }
  return thrust::device_vector<float>(floats.begin(), floats.end());
}

template <class T>
bool same_bits(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// For each count: a kernel writes it to device memory, then the counted call and the call with
/// the count on the host write two outputs, compared bit for bit.
template <class Count, class Policy, class It, class T, class Op>
void check_counted(const Policy& policy, It first, std::int64_t available, const T& init, Op op,
                   const std::string& what)
{
  thrust::device_vector<Count> d_n(1);
  thrust::device_vector<T> out(2);
  for (const std::int64_t n : counts)
  {
    if (n > available || static_cast<std::uint64_t>(n) > static_cast<std::uint64_t>(std::numeric_limits<Count>::max()))
    {
      continue;
    }
    thrust::fill(d_n.begin(), d_n.end(), static_cast<Count>(n)); // a kernel on the default stream, as the policy's
    rk::reduce_into(policy, first, rk::device_count(d_n.data()), out.data(), init, op);
    rk::reduce_into(policy, first, first + n, out.data() + 1, init, op);
    const T counted = out[0], hosted = out[1];
    CHECK_MESSAGE(same_bits(counted, hosted), what << ", count " << n << " (" << sizeof(Count) << "-byte count)");
  }
}

template <class Policy>
void check_policy(const Policy& policy, const char* name)
{
  const std::int64_t n = counts.back();
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<affine> maps;
  std::vector<mat2> matrices;
  for (std::int64_t i = 0; i < n; ++i)
  {
    floats.push_back(rk_test::spread_value<float>{}(i));
    doubles.push_back(rk_test::spread_value<double>{}(i));
    const auto u = static_cast<std::uint32_t>(i * 2654435761u);
    maps.push_back(affine{u | 1u, u >> 3});
    matrices.push_back(mat2{u | 1u, (u >> 5) & ~1u, (u >> 7) & ~1u, 3u}); // odd determinant: invertible
  }
  const thrust::device_vector<float> f(floats.begin(), floats.end());
  const thrust::device_vector<double> d(doubles.begin(), doubles.end());
  const thrust::device_vector<affine> a(maps.begin(), maps.end());
  const thrust::device_vector<mat2> m(matrices.begin(), matrices.end());
  const std::string p(name);
  check_counted<std::int64_t>(policy, f.begin(), n, 0.5f, rk::plus{}, p + ": float plus");
  check_counted<std::int32_t>(policy, f.begin() + 1, n - 1, 0.5f, rk::plus{}, p + ": float plus, unaligned start");
  check_counted<std::uint64_t>(policy, d.begin(), n, -0.25, rk::plus{}, p + ": double plus");
  check_counted<std::uint32_t>(policy, a.begin(), n, affine{3u, 1u}, affine_compose{}, p + ": affine compose");
  check_counted<std::int16_t>(policy, m.begin(), n, mat2{1u, 2u, 3u, 4u}, mat2_multiply{}, p + ": mat2 multiply");
  const auto gen = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_segment{});
  check_counted<std::int64_t>(policy, gen, n, segment{-3, 0}, segment_merge{}, p + ": segment merge (an iterator)");
}
} // namespace

RK_GPU_TEST_CASE("rk::device_count: rk::reduce_into has the bits of the host-count call on every tree policy")
{
  check_policy(rk::device, "rk::device");
  check_policy(rk::two_pass, "rk::two_pass");
  check_policy(rk::single_pass, "rk::single_pass");
}

RK_GPU_TEST_CASE("rk::device_count: rk::transform_reduce_into, and a count of zero stores init without calling op")
{
  const std::int64_t n                 = 300007;
  const thrust::device_vector<float> f = spread_floats(n);
  const auto square                    = [] __device__(float x) { return static_cast<double>(x) * x; };
  thrust::device_vector<std::int64_t> d_n(1, n);
  thrust::device_vector<double> out(2);
  rk::transform_reduce_into(rk::device, f.begin(), rk::device_count(d_n.data()), out.data(), 1.0, rk::plus{}, square);
  rk::transform_reduce_into(rk::device, f.begin(), f.end(), out.data() + 1, 1.0, rk::plus{}, square);
  const double counted = out[0], hosted = out[1];
  CHECK(same_bits(counted, hosted));

  thrust::fill(d_n.begin(), d_n.end(), std::int64_t{0});
  thrust::device_vector<std::int32_t> ints(3, 1);
  thrust::device_vector<std::int32_t> result(1, 0);
  rk::reduce_into(rk::device, ints.begin(), rk::device_count(d_n.data()), result.data(), 42,
                  rk_test::must_not_be_called{});
  const std::int32_t stored = result[0];
  CHECK(stored == 42);
  thrust::device_vector<segment> seg(1);
  const auto gen = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_segment{});
  rk::reduce_into(rk::two_pass, gen, rk::device_count(d_n.data()), seg.data(), segment{1, 2},
                  rk_test::must_not_be_called{});
  const segment empty = seg[0];
  CHECK(empty == segment{1, 2});
}

RK_GPU_TEST_CASE("rk::device_count: more than 2^31 items through an iterator")
{
  const std::int64_t n = (std::int64_t{1} << 31) + 37;
  const auto gen       = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_segment{});
  thrust::device_vector<std::int64_t> d_n(1, n);
  thrust::device_vector<segment> out(2);
  rk::reduce_into(rk::device, gen, rk::device_count(d_n.data()), out.data(), segment{-1, 0}, segment_merge{});
  rk::reduce_into(rk::device, gen, gen + n, out.data() + 1, segment{-1, 0}, segment_merge{});
  const segment counted = out[0], hosted = out[1];
  CHECK(counted == hosted);
  CHECK(counted == segment{-1, n});
}

RK_GPU_TEST_CASE("rk::device_count: a captured call replays with the count the pointer holds then")
{
  const std::int64_t n                 = 500009;
  const thrust::device_vector<float> f = spread_floats(n);
  thrust::device_vector<std::int64_t> d_n(1, 0);
  thrust::device_vector<float> out(1);
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  rk::reduce_into(rk::device.on(stream), f.begin(), rk::device_count(d_n.data()), out.data(), 0.0f, rk::plus{});
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (const std::int64_t k : {std::int64_t{7}, n, std::int64_t{0}, std::int64_t{65536} + 3})
  {
    REQUIRE(cudaMemcpyAsync(thrust::raw_pointer_cast(d_n.data()), &k, sizeof(k), cudaMemcpyHostToDevice, stream)
            == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    float got = 0;
    REQUIRE(cudaMemcpyAsync(&got, thrust::raw_pointer_cast(out.data()), sizeof(got), cudaMemcpyDeviceToHost, stream)
            == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const float want = rk::reduce(rk::device, f.begin(), f.begin() + k, 0.0f, rk::plus{});
    CHECK_MESSAGE(same_bits(got, want), "replay with count " << k);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

RK_GPU_TEST_CASE("rk::device_count: a negative count, or one above 2^46, stores init and is thrown by the next check")
{
  const thrust::device_vector<float> f(100, 1.0f);
  thrust::device_vector<float> out(1, -1.0f);
  rk::check_device_errors(); // nothing pending from earlier cases
  thrust::device_vector<std::int16_t> negative(1, std::int16_t{-5});
  rk::reduce_into(rk::device, f.begin(), rk::device_count(negative.data()), out.data(), 0.5f, rk::plus{});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const float init_stored = out[0];
  CHECK(init_stored == 0.5f);
  try
  {
    rk::check_device_errors();
    FAIL("the negative count was not reported");
  }
  catch (const rk::error& e)
  {
    CHECK(std::string(e.what()).find("rk::device_count") != std::string::npos);
    CHECK(std::string(e.what()).find("count of -5") != std::string::npos);
  }
  // Too large, on rk::two_pass; the next counted call throws it before it runs.
  thrust::device_vector<std::uint64_t> huge(1, (std::uint64_t{1} << 46) + 1);
  rk::reduce_into(rk::two_pass, f.begin(), rk::device_count(huge.data()), out.data(), 0.25f, rk::plus{});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const float second = out[0];
  CHECK(second == 0.25f);
  thrust::device_vector<std::int64_t> fine(1, 100);
  CHECK_THROWS_AS(rk::reduce_into(rk::device, f.begin(), rk::device_count(fine.data()), out.data(), 0.0f), rk::error);
  rk::reduce_into(rk::device, f.begin(), rk::device_count(fine.data()), out.data(), 0.0f);
  const float hundred = out[0];
  CHECK(hundred == 100.0f);
}

RK_GPU_TEST_CASE("rk::device_count: a null count, or one the GPU cannot read, throws rk::error before anything runs")
{
  const thrust::device_vector<float> f(10, 1.0f);
  thrust::device_vector<float> out(1, -1.0f);
  CHECK_THROWS_AS(rk::reduce_into(rk::device, f.begin(), rk::device_count(static_cast<const int*>(nullptr)), out.data(),
                                  0.0f),
                  rk::error);
  const float untouched = out[0];
  CHECK(untouched == -1.0f);
  std::int64_t on_the_stack = 5;
  if (rk::detail::current_device_facts().pageable_memory_access)
  {
    // HMM or ATS: the GPU reads pageable memory, so rk accepts the count there.
    rk::reduce_into(rk::device, f.begin(), rk::device_count(&on_the_stack), out.data(), 0.0f);
    const float five = out[0];
    CHECK(five == 5.0f);
  }
  else
  {
    CHECK_THROWS_AS(rk::reduce_into(rk::device, f.begin(), rk::device_count(&on_the_stack), out.data(), 0.0f),
                    rk::host_memory_error);
  }
}

// Bad input gets a clear error: host memory handed to a GPU policy, rk::cuda_error's contents.

#include "gpu_harness.cuh"

#include <thrust/universal_vector.h>

#include <string>

namespace
{
template <class Policy>
void check_host_memory_rejected(Policy policy)
{
  std::vector<std::int32_t> host(1000, 1);
  CHECK_THROWS_AS(rk::reduce(policy, host.data(), host.data() + host.size(), 0), rk::host_memory_error);
  try
  {
    (void) rk::reduce(policy, host.data(), host.data() + host.size(), 0);
  }
  catch (const rk::error& e)
  {
    CHECK(std::string(e.what()).find("pageable host pointer") != std::string::npos);
  }
}
} // namespace

RK_GPU_TEST_CASE("a pageable host pointer is rejected by every GPU policy, unless the GPU reads pageable memory")
{
  if (rk::detail::current_device_facts().pageable_memory_access)
  {
    // HMM or ATS: the GPU reads pageable memory, so rk accepts it.
    std::vector<std::int32_t> host(1000, 1);
    CHECK(rk::reduce(rk::device, host.data(), host.data() + host.size(), 0) == 1000);
    CHECK(rk::reduce(rk::atomic, host.data(), host.data() + host.size(), 0) == 1000);
    return;
  }
  check_host_memory_rejected(rk::device);
  check_host_memory_rejected(rk::two_pass);
  check_host_memory_rejected(rk::single_pass);
  check_host_memory_rejected(rk::atomic);

  std::int64_t host_out = 0;
  const thrust::counting_iterator<std::int64_t> count(0);
  CHECK_THROWS_AS(rk::reduce_into(rk::device, count, count + 10, &host_out, std::int64_t{0}), rk::host_memory_error);
}

RK_GPU_TEST_CASE("pinned and managed memory are device-accessible and accepted")
{
  std::int32_t* pinned = nullptr;
  REQUIRE(cudaMallocHost(&pinned, 1000 * sizeof(std::int32_t)) == cudaSuccess);
  for (int i = 0; i < 1000; ++i)
  {
    pinned[i] = i;
  }
  CHECK(rk::reduce(rk::device, pinned, pinned + 1000, 0) == 999 * 1000 / 2);
  cudaFreeHost(pinned);

  thrust::universal_vector<std::int32_t> managed(1000, 2);
  CHECK(rk::reduce(rk::single_pass, thrust::raw_pointer_cast(managed.data()),
                   thrust::raw_pointer_cast(managed.data()) + 1000, 0)
        == 2000);
}

RK_GPU_TEST_CASE("rk::cuda_error carries the code and CUDA's text")
{
  const rk::cuda_error e(cudaErrorInvalidValue, "context");
  CHECK(e.code() == cudaErrorInvalidValue);
  CHECK(std::string(e.what()).find("context") != std::string::npos);
  CHECK(std::string(e.what()).find(cudaGetErrorString(cudaErrorInvalidValue)) != std::string::npos);
  const rk::error& base = e;
  CHECK(std::string(base.what()).find("cudaErrorInvalidValue") != std::string::npos);
}

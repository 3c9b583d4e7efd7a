#include "../support/test_main.hpp"
#include "gpu_harness.cuh"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace
{
cudaError_t probe_status = cudaSuccess;
int device_count         = 0;

/// Whether this machine has an NVIDIA GPU, by the driver's own account (or RK_REQUIRE_GPU=1): a
/// GPU suite that cannot use it must fail, not skip, or a broken setup (a bad
/// CUDA_VISIBLE_DEVICES, a driver/runtime mismatch) would pass every check by skipping them.
bool gpu_present()
{
  if (const char* required = std::getenv("RK_REQUIRE_GPU"); required != nullptr && std::string(required) == "1")
  {
    return true;
  }
  std::error_code ignored;
  const std::filesystem::path gpus("/proc/driver/nvidia/gpus");
  return std::filesystem::is_directory(gpus, ignored) && !std::filesystem::is_empty(gpus, ignored);
}

std::string gpu_banner()
{
  if (!rk_test::gpu_available())
  {
    const std::string why = cudaGetErrorString(probe_status);
    if (gpu_present())
    {
      std::fprintf(stderr,
                   "[rk] FAILED: this machine has an NVIDIA GPU, but CUDA cannot use it (%s); check "
                   "CUDA_VISIBLE_DEVICES and that the driver matches the CUDA runtime\n",
                   why.c_str());
      std::exit(1);
    }
    return "[rk] no usable CUDA device (" + why + "): GPU test cases are skipped";
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  return std::string("[rk] GPU test cases run on ") + prop.name + " (sm_" + std::to_string(prop.major)
       + std::to_string(prop.minor) + ")";
}

const bool banner_registered = (rk_test::suite_banner = &gpu_banner, true);
} // namespace

bool rk_test::gpu_available()
{
  static const bool available = [] {
    probe_status = cudaGetDeviceCount(&device_count);
    if (probe_status == cudaSuccess && device_count == 0)
    {
      probe_status = cudaErrorNoDevice;
    }
    cudaGetLastError();
    return probe_status == cudaSuccess;
  }();
  return available;
}

int rk_test::gpu_count()
{
  return gpu_available() ? device_count : 0;
}

namespace
{
__global__ void spin_until_released(const volatile int* release)
{
  const long long start = clock64();
  while (*release == 0 && clock64() - start < 20'000'000'000LL)
  {
    __nanosleep(1000);
  }
}
} // namespace

rk_test::stream_hold::stream_hold(cudaStream_t stream)
{
  REQUIRE(cudaHostAlloc(&flag_, sizeof(int), cudaHostAllocMapped) == cudaSuccess);
  *flag_         = 0;
  int* on_device = nullptr;
  REQUIRE(cudaHostGetDevicePointer(&on_device, flag_, 0) == cudaSuccess);
  spin_until_released<<<1, 1, 0, stream>>>(on_device);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

void rk_test::stream_hold::release()
{
  *reinterpret_cast<volatile int*>(flag_) = 1;
}

int* rk_test::stream_hold::detach()
{
  return std::exchange(flag_, nullptr);
}

rk_test::stream_hold::~stream_hold()
{
  if (flag_ == nullptr)
  {
    return;
  }
  release();
  cudaDeviceSynchronize();
  cudaFreeHost(flag_);
}

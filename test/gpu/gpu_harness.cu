#include "../support/test_main.hpp"
#include "gpu_harness.cuh"

#include <string>

namespace
{
cudaError_t probe_status = cudaSuccess;

std::string gpu_banner()
{
  if (!rk_test::gpu_available())
  {
    return std::string("[rk] no usable CUDA device (") + cudaGetErrorString(probe_status)
         + "): GPU test cases are skipped";
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
    int count    = 0;
    probe_status = cudaGetDeviceCount(&count);
    if (probe_status == cudaSuccess && count == 0)
    {
      probe_status = cudaErrorNoDevice;
    }
    cudaGetLastError();
    return probe_status == cudaSuccess;
  }();
  return available;
}

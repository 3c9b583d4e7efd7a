// Standalone (not part of rk): kernels of rk::single_pass, rk::two_pass, CUB and a read probe at
// mid sizes, for ncu's kernel durations (where the time of a mid-size call goes).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <rk/reduce.cuh>
__global__ void probe_kernel(const uint4* in, std::int64_t vectors, unsigned* sink)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  unsigned acc              = 0;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < vectors; i += stride)
  {
    const uint4 a = in[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u)
    *sink = acc;
}
int main(int argc, char** argv)
{
  const int l          = std::atoi(argv[1]);
  const std::int64_t n = std::int64_t{1} << l;
  float* x;
  cudaMalloc(&x, n * 4);
  cudaMemset(x, 0, n * 4);
  float* o;
  cudaMalloc(&o, 64);
  unsigned* sink;
  cudaMalloc(&sink, 16);
  void* tmp      = nullptr;
  std::size_t tb = 0;
  cub::DeviceReduce::Sum(tmp, tb, x, o, n);
  cudaMalloc(&tmp, tb);
  for (int k = 0; k < 4; ++k)
  {
    rk::reduce_into(rk::single_pass, x, x + n, o, 0.0f, rk::plus{});
    rk::reduce_into(rk::two_pass, x, x + n, o + 1, 0.0f, rk::plus{});
    std::size_t b = tb;
    cub::DeviceReduce::Sum(tmp, b, x, o + 2, n);
    probe_kernel<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(x), n / 4, sink);
  }
  cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}

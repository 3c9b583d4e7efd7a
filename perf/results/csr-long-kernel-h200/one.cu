#include <cstdio>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>
int main()
{
  const long n = 1L << 26;
  double* x    = nullptr;
  double* o    = nullptr;
  cudaMalloc(&x, n * 8);
  cudaMalloc(&o, 1 << 20);
  cudaMemset(x, 0, n * 8);
  std::vector<long> h(65);
  for (long s = 0; s <= 64; ++s)
    h[s] = s * (n / 64);
  thrust::device_vector<long> offsets(h.begin(), h.end());
  cudaDeviceSynchronize();
  for (int i = 0; i < 10; ++i)
    rk::reduce_into(rk::device, x, x + n, o, 0.0);
  cudaDeviceSynchronize();
  for (int i = 0; i < 10; ++i)
    rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, 0.0, rk::plus{});
  cudaDeviceSynchronize();
  for (int i = 0; i < 10; ++i)
    rk::segmented_reduce(rk::device, x, 64, n / 64, o, 0.0, rk::plus{});
  cudaDeviceSynchronize();
  return 0;
}

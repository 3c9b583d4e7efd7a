#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
int main()
{
  const long n = 1L << 26;
  float* x     = nullptr;
  float* o     = nullptr;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&o, 1 << 20);
  cudaMemset(x, 0, n * 4);
  thrust::device_vector<long> offsets(2);
  offsets[0] = 0;
  offsets[1] = n;
  for (int i = 0; i < 5; ++i)
    rk::reduce_into(rk::device, x, x + n, o, 0.0f);
  for (int i = 0; i < 5; ++i)
    rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, 0.0f, rk::plus{});
  cudaDeviceSynchronize();
  return 0;
}

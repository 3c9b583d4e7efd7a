#include <cstdio>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>
template <class T>
void csr(const T* x, T* o, long segments, long length)
{
  std::vector<long> h(segments + 1);
  for (long s = 0; s <= segments; ++s)
    h[s] = s * length;
  thrust::device_vector<long> offsets(h.begin(), h.end());
  for (int i = 0; i < 3; ++i)
    rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, T(0), rk::plus{});
  cudaDeviceSynchronize();
}
int main()
{
  const long n = 1L << 26;
  float* x     = nullptr;
  float* o     = nullptr;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&o, 1 << 20);
  cudaMemset(x, 0, n * 4);
  csr(x, o, 8, n / 8);
  csr(x, o, 1024, n / 1024);
  return 0;
}

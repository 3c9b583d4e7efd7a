// 8 x 2^23 float column sums (rk::reduce_axes over axis 0) and a read+write probe, for ncu.
#include <cstdio>
#include <cuda/std/mdspan>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/sequence.h>

__global__ void probe(const float4* x, float4* out, long n4, long out4)
{
  long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
  float4 acc{0, 0, 0, 0};
  for (long k = i; k < n4; k += (long) gridDim.x * blockDim.x)
  {
    float4 v = x[k];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  for (long k = i; k < out4; k += (long) gridDim.x * blockDim.x)
    out[k] = acc;
}

int main()
{
  const long rows = 8, cols = 1L << 23;
  thrust::device_vector<float> x(rows * cols, 1.0f), out(cols);
  cuda::std::mdspan<const float, cuda::std::dextents<long, 2>> xv(thrust::raw_pointer_cast(x.data()), rows, cols);
  cuda::std::mdspan<float, cuda::std::dextents<long, 1>> ov(thrust::raw_pointer_cast(out.data()), cols);
  for (int i = 0; i < 3; ++i)
  {
    rk::reduce_axes(rk::device, xv, rk::axes{0}, ov, 0.0f, rk::plus{});
    probe<<<132 * 8, 256>>>(reinterpret_cast<const float4*>(thrust::raw_pointer_cast(x.data())),
                            reinterpret_cast<float4*>(thrust::raw_pointer_cast(out.data())), rows * cols / 4, cols / 4);
  }
  cudaDeviceSynchronize();
  std::printf("%s out[0] = %g\n", cudaGetErrorString(cudaGetLastError()), (float) out[0]);
}

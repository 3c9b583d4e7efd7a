// Column-shape timeline: rk::reduce_axes over the column shapes of rk_bench_axes, each followed by a
// read+write probe, for nsys (kernel durations and the gap between the nodes and finish kernels).
#include <cstdio>
#include <cstdlib>
#include <cuda/std/mdspan>
#include <rk/reduce.cuh>
#include <rk/statistics.hpp>
#include <thrust/device_vector.h>

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
using ext2 = cuda::std::dextents<long, 2>;
using ext3 = cuda::std::dextents<long, 3>;
using ext1 = cuda::std::dextents<long, 1>;

int main(int argc, char** argv)
{
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const long n   = 1L << 26;
  thrust::device_vector<float> x(n, 1.0f), out(n / 4);
  thrust::device_vector<rk::mean_var<float>> mv(256);
  const float* xp = thrust::raw_pointer_cast(x.data());
  float* op       = thrust::raw_pointer_cast(out.data());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto run = [&](int id, const char* name, long outs, auto&& f) {
    if (only >= 0 && only != id)
      return;
    float best = 1e9, bp = 1e9;
    for (int r = 0; r < reps; ++r)
    {
      cudaEventRecord(a);
      f();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      best = ms < best ? ms : best;
      cudaEventRecord(a);
      probe<<<132 * 8, 256>>>(reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(op), n / 4, outs / 4);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      cudaEventElapsedTime(&ms, a, b);
      bp = ms < bp ? ms : bp;
    }
    std::printf("%d %-28s rk %8.1f us  probe %8.1f us  ratio %.3f\n", id, name, best * 1e3, bp * 1e3, best / bp);
  };
  auto cols2 = [&](long r, long c) {
    return [=] {
      rk::reduce_axes(rk::device, cuda::std::mdspan<const float, ext2>(xp, r, c), rk::axes{0},
                      cuda::std::mdspan<float, ext1>(op, c), 0.0f, rk::plus{});
    };
  };
  run(0, "columns 8192x8192", 8192, cols2(8192, 8192));
  run(1, "first 2^23x8", 8, cols2(1L << 23, 8));
  run(2, "first 2^20x64", 64, cols2(1L << 20, 64));
  run(3, "first 8x2^23", 1L << 23, cols2(8, 1L << 23));
  run(4, "first 64x2^20", 1L << 20, cols2(64, 1L << 20));
  run(5, "middle 64x1024x1024", 65536, [&] {
    rk::reduce_axes(rk::device, cuda::std::mdspan<const float, ext3>(xp, 64, 1024, 1024), rk::axes{1},
                    cuda::std::mdspan<float, ext2>(op, 64, 1024), 0.0f, rk::plus{});
  });
  run(6, "axes02 256x512x512", 512, [&] {
    rk::reduce_axes(rk::device, cuda::std::mdspan<const float, ext3>(xp, 256, 512, 512), rk::axes{0, 2},
                    cuda::std::mdspan<float, ext1>(op, 512), 0.0f, rk::plus{});
  });
  run(7, "axes02 32x256x8192", 256, [&] {
    rk::reduce_axes(rk::device, cuda::std::mdspan<const float, ext3>(xp, 32, 256, 8192), rk::axes{0, 2},
                    cuda::std::mdspan<float, ext1>(op, 256), 0.0f, rk::plus{});
  });
  run(8, "batchnorm mean_var", 256 * 4, [&] {
    rk::transform_reduce_axes(rk::device, cuda::std::mdspan<const float, ext3>(xp, 32, 256, 8192), rk::axes{0, 2},
                              cuda::std::mdspan<rk::mean_var<float>, ext1>(thrust::raw_pointer_cast(mv.data()), 256),
                              rk::mean_var<float>{}, rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  });
  cudaDeviceSynchronize();
  std::printf("%s out[0] = %g\n", cudaGetErrorString(cudaGetLastError()), (float) out[0]);
}

// The standalone comparison behind the merged lanes' figures (perf/RESULTS.md, "arg_min's merged
// lanes"): rk::arg_min_into (the library: tree_shape::merged_lanes under arg_tuning), the same
// reduction under other shapes through rk::detail::reduce_range_into, cub::DeviceReduce::ArgMin and
// a read probe; median of 9 batches of back-to-back calls, inputs rotated over 512 MiB so that no
// call finds its items in L2. Not part of the build:
//   nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -Iinclude perf/results/merged-lanes-rows-h200/argbench-merged.cu \
//     build/librk.a -o argbench
#include <rk/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdio>
#include <vector>

template <class T>
struct gen
{
  __device__ T operator()(long long i) const
  {
    return static_cast<T>((i * 7919) % 100003);
  }
};

__global__ void probe_kernel(const float4* p, long long n4, float* sink)
{
  float acc = 0;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n4; i += 256ll * gridDim.x * 4)
  {
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
    {
      const long long j = i + k * 256ll * gridDim.x;
      v[k]              = j < n4 ? p[j] : float4{0, 0, 0, 0};
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
    {
      acc += v[k].x + v[k].y + v[k].z + v[k].w;
    }
  }
  if (acc == 12345.678f)
  {
    *sink = acc;
  }
}

template <class F>
float time_us(cudaStream_t s, F f, int reps)
{
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 9; ++r)
  {
    f(0);
    cudaEventRecord(a, s);
    for (int i = 0; i < reps; ++i)
    {
      f(i + 1);
    }
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000 / reps);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[4];
}

using merged = rk::tree_shape;
template <int Threads, int Units, int InFlight, rk::tree_shape Tree>
using shape = rk::fixed_tuning<Threads, Units, InFlight, 1, 1, 0, Tree>;

template <class T>
void run(const char* name, int log_n, cudaStream_t s, bool all_shapes)
{
  const long long n     = 1ll << log_n;
  const long long pool  = std::max(n, (512ll << 20) / (long long) sizeof(T));
  const long long count = pool / n;
  thrust::device_vector<T> items(pool);
  thrust::transform(thrust::counting_iterator<long long>(0), thrust::counting_iterator<long long>(pool), items.begin(),
                    gen<T>{});
  using result = rk::arg_result<T, std::ptrdiff_t>;
  thrust::device_vector<result> out(1);
  thrust::device_vector<T> cmin(1);
  thrust::device_vector<long long> cidx(1);
  thrust::device_vector<float> sink(1);
  const T* base = thrust::raw_pointer_cast(items.data());
  const auto in = [&](int i) { return base + (i % count) * n; };
  size_t tb     = 0;
  cub::DeviceReduce::ArgMin(nullptr, tb, base, cmin.data().get(), cidx.data().get(), n, s);
  thrust::device_vector<unsigned char> temp(tb);
  const int reps = log_n >= 26 ? 20 : 100;
  std::printf("%s 2^%d:", name, log_n);
  const auto report = [&](const char* what, float us, bool check) {
    std::printf(" %s %.2f", what, us);
    if (check)
    {
      cudaStreamSynchronize(s);
      const result got = out[0];
      size_t b         = tb;
      cub::DeviceReduce::ArgMin(temp.data().get(), b, in(reps), cmin.data().get(), cidx.data().get(), n, s);
      cudaStreamSynchronize(s);
      const long long want = cidx[0];
      if (got.index != want)
      {
        std::printf(" WRONG(%lld vs %lld)", (long long) got.index, want);
      }
    }
  };
  const auto time_shape = [&](const char* what, auto policy) {
    const float us = time_us(
      s,
      [&](int i) {
        rk::detail::reduce_range_into(policy, rk::detail::indexed(in(i)), rk::detail::indexed(in(i) + n),
                                      thrust::raw_pointer_cast(out.data()), rk::detail::first_minimum<>{});
      },
      reps);
    report(what, us, true);
  };
  for (int round = 0; round < 2; ++round)
  {
    std::printf(round == 0 ? "" : "\n%s 2^%d:", name, log_n);
    report("lib",
           time_us(s, [&](int i) { rk::arg_min_into(rk::device.on(s), in(i), in(i) + n, out.data()); }, reps), true);
    report("cub",
           time_us(
             s,
             [&](int i) {
               size_t b = tb;
               cub::DeviceReduce::ArgMin(temp.data().get(), b, in(i), cmin.data().get(), cidx.data().get(), n, s);
             },
             reps),
           false);
    report("probe",
           time_us(
             s,
             [&](int i) {
               probe_kernel<<<132 * 8, 256, 0, s>>>(reinterpret_cast<const float4*>(in(i)),
                                                    n * (long long) sizeof(T) / 16, sink.data().get());
             },
             reps),
           false);
    time_shape("old_go_256x4x2", rk::device.on(s).tuned<shape<256, 4, 2, merged::grid_ordered>>());
    if (all_shapes)
    {
      time_shape("m_256x4x4", rk::device.on(s).tuned<shape<256, 4, 4, merged::merged_lanes>>());
      time_shape("m_256x2x4", rk::device.on(s).tuned<shape<256, 2, 4, merged::merged_lanes>>());
      time_shape("m_256x2x2", rk::device.on(s).tuned<shape<256, 2, 2, merged::merged_lanes>>());
      time_shape("m_512x4x2", rk::device.on(s).tuned<shape<512, 4, 2, merged::merged_lanes>>());
      time_shape("m_256x4x2_w2", rk::device.on(s).tuned<rk::fixed_tuning<256, 4, 2, 1, 2, 0, merged::merged_lanes>>());
    }
  }
  std::printf("\n");
  std::fflush(stdout);
}

int main()
{
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int k : {20, 24, 26, 28})
  {
    run<float>("float", k, s, true);
    run<int>("int32", k, s, true);
    run<double>("double", k, s, false);
  }
}

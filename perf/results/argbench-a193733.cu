// The standalone comparison behind a193733's figures (perf/RESULTS.md, "arg_min's NaN rule"):
// rk::arg_min_into against cub::DeviceReduce::ArgMin, median of 7 batches of back-to-back calls.
// Not part of the build: nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -Iinclude \
//   perf/results/argbench-a193733.cu build/librk.a -o argbench   (the variant's include tree for 'v1')
// Standalone: rk::arg_min_into vs cub::DeviceReduce::ArgMin, float and int32, 2^20..2^28.
#include <algorithm>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <vector>
#ifndef VARIANT
#  define VARIANT "base"
#endif
template <class T>
struct gen
{
  __device__ T operator()(long long i) const
  {
    return static_cast<T>((i * 7919) % 100003);
  }
};
template <class F>
float time_us(cudaStream_t s, F f, int reps)
{
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 7; ++r)
  {
    f();
    cudaEventRecord(a, s);
    for (int i = 0; i < reps; ++i)
      f();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000 / reps);
  }
  std::sort(t.begin(), t.end());
  return t[3];
}
template <class T>
void run(const char* name, int log_n, cudaStream_t s)
{
  const long long n = 1ll << log_n;
  thrust::device_vector<T> items(n);
  thrust::transform(thrust::counting_iterator<long long>(0), thrust::counting_iterator<long long>(n), items.begin(),
                    gen<T>{});
  thrust::device_vector<rk::arg_result<T, std::ptrdiff_t>> rk_out(1);
  thrust::device_vector<T> cmin(1);
  thrust::device_vector<long long> cidx(1);
  const T* in = thrust::raw_pointer_cast(items.data());
  size_t tb   = 0;
  cub::DeviceReduce::ArgMin(nullptr, tb, in, cmin.data().get(), cidx.data().get(), n, s);
  thrust::device_vector<unsigned char> temp(tb);
  const int reps = log_n >= 26 ? 20 : 100;
  float trk = 0, tcub = 0;
  for (int round = 0; round < 2; ++round)
  {
    trk  = time_us(s, [&] { rk::arg_min_into(rk::device.on(s), in, in + n, rk_out.data()); }, reps);
    tcub = time_us(
      s,
      [&] {
        size_t b = tb;
        cub::DeviceReduce::ArgMin(temp.data().get(), b, in, cmin.data().get(), cidx.data().get(), n, s);
      },
      reps);
  }
  rk::arg_result<T, std::ptrdiff_t> got = rk_out[0];
  long long want                        = cidx[0];
  std::printf("%s %s 2^%d rk %.2f cub %.2f cub/rk %.3f %s\n", VARIANT, name, log_n, trk, tcub, tcub / trk,
              got.index == want ? "ok" : "WRONG");
}
int main(int argc, char** argv)
{
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  bool profile = argc > 1;
  if (profile)
  {
    run<float>("float", 24, s);
    return 0;
  }
  for (int k : {20, 22, 24, 26, 28})
  {
    run<float>("float", k, s);
    run<int>("int32", k, s);
  }
}

// rk::reduce_by_key against thrust::reduce_by_key, int32 keys and float values, whole calls (both wait for
// the run count), µs per call: the median of REPS calls timed with CUDA events. Built here once per
// variant of the headers (perf/RESULTS.md, "reduce_by_key's run pass, 2026-11-28"):
//   nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -I include -I $CUDA/include/cccl run-pass-exp.cu build/librk.a
//   ./a.out LOG2_N [REPS [RUN_LENGTH]]
#include <rk/reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <vector>

struct key_of
{
  long run, shift;
  __host__ __device__ int operator()(long i) const
  {
    return (int) ((i + shift) / run);
  }
};
struct val_of
{
  __host__ __device__ float operator()(long i) const
  {
    return (float) ((i * 2654435761u) % 1000) * 0.001f;
  }
};

template <class F>
float time_it(F f, int reps)
{
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps; ++r)
  {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv)
{
  int log_n        = argc > 1 ? atoi(argv[1]) : 26;
  int reps         = argc > 2 ? atoi(argv[2]) : 20;
  std::string only = argc > 3 ? argv[3] : "";
  long n           = 1L << log_n;
  thrust::device_vector<int> keys(n), uk(n), tk(n);
  thrust::device_vector<float> vals(n), rv(n), tv(n);
  thrust::transform(thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(n), vals.begin(), val_of{});
  struct c
  {
    const char* name;
    long run, shift;
  } cases[] = {{"1", 1, 0}, {"8", 8, 0}, {"8+3", 8, 3}, {"100", 100, 0}, {"1000", 1000, 0}, {"10^6", 1000000, 0}};
  for (auto cs : cases)
  {
    if (!only.empty() && only != cs.name)
      continue;
    thrust::transform(thrust::counting_iterator<long>(0), thrust::counting_iterator<long>(n), keys.begin(),
                      key_of{cs.run, cs.shift});
    long rk_runs = 0, th_runs = 0;
    auto rk_call = [&] {
      auto e  = rk::reduce_by_key(rk::device, keys.begin(), keys.end(), vals.begin(), uk.begin(), rv.begin(), 0.0f,
                                  cuda::std::plus<>{});
      rk_runs = e.first - uk.begin();
    };
    auto th_call = [&] {
      auto e  = thrust::reduce_by_key(keys.begin(), keys.end(), vals.begin(), tk.begin(), tv.begin());
      th_runs = e.first - tk.begin();
    };
    rk_call();
    th_call();
    bool ok = rk_runs == th_runs && thrust::equal(uk.begin(), uk.begin() + rk_runs, tk.begin());
    std::vector<float> a(rk_runs), b(rk_runs);
    thrust::copy(rv.begin(), rv.begin() + rk_runs, a.begin());
    thrust::copy(tv.begin(), tv.begin() + rk_runs, b.begin());
    double worst = 0;
    for (long i = 0; i < rk_runs; ++i)
      worst = std::max(worst, (double) std::abs(a[i] - b[i]) / (1e-6 + std::abs(b[i])));
    ok        = ok && worst < 1e-3;
    float trk = time_it(rk_call, reps), tth = time_it(th_call, reps);
    printf("2^%d runs %-5s  rk %8.1f us  thrust %8.1f us  rk/thrust %.3f  runs %ld %s\n", log_n, cs.name, trk, tth,
           trk / tth, rk_runs, ok ? "ok" : "MISMATCH");
  }
}

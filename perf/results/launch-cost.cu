// Experiment (not part of rk; perf/results/launch-cost-h100.txt has its output): what a launch
// costs with large kernel parameters, and where the partial, the accumulator and the device count
// spend their time against reduce_into.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <rk/reduce.cuh>
#include <vector>

#define CK(x)                                                          \
  do                                                                   \
  {                                                                    \
    cudaError_t e = (x);                                               \
    if (e != cudaSuccess)                                              \
    {                                                                  \
      std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                    \
    }                                                                  \
  } while (0)

template <int Bytes>
struct blob
{
  unsigned char b[Bytes];
};
template <int Bytes>
__global__ void param_kernel(blob<Bytes> p, int* out)
{
  if (threadIdx.x == 0 && blockIdx.x == 0)
    *out = p.b[Bytes - 1];
}

template <class F>
double time_us(F&& f, int reps, cudaStream_t s)
{
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i)
    f();
  std::vector<double> r;
  for (int t = 0; t < 7; ++t)
  {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < reps; ++i)
      f();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    r.push_back(ms * 1000.0 / reps);
  }
  std::sort(r.begin(), r.end());
  return r[3];
}

template <int Bytes>
void param_case(cudaStream_t s, int* d, unsigned blocks)
{
  blob<Bytes> p{};
  p.b[Bytes - 1] = 1;
  double us      = time_us([&] { param_kernel<Bytes><<<blocks, 256, 0, s>>>(p, d); }, 1000, s);
  std::printf("empty kernel, %5d-byte params, %4u blocks: %.3f us/launch\n", Bytes, blocks, us);
}

int main()
{
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* d;
  CK(cudaMalloc(&d, 64));
  for (unsigned blocks : {1u, 528u})
  {
    param_case<16>(s, d, blocks);
    param_case<1024>(s, d, blocks);
    param_case<2048>(s, d, blocks);
    param_case<4096>(s, d, blocks);
    param_case<5376>(s, d, blocks);
  }
  const long long big = 1ll << 28;
  float* x;
  CK(cudaMalloc(&x, big * sizeof(float) * 2));
  CK(cudaMemset(x, 0, big * sizeof(float) * 2));
  float* out;
  CK(cudaMalloc(&out, 64));
  long long* dn;
  CK(cudaMalloc(&dn, 8));
  rk::partial<float>* dp;
  CK(cudaMalloc(&dp, sizeof(rk::partial<float>)));
  auto pol = rk::device.on(s);
  for (long long n : {1ll << 12, 1ll << 16, 1ll << 20, 1ll << 24})
  {
    CK(cudaMemcpy(dn, &n, 8, cudaMemcpyHostToDevice));
    // rotate over slices so the input is not in L2 for the large sizes
    const long long slices = std::max(1ll, (2 * big) / n / 2);
    long long k            = 0;
    auto next              = [&] {
      k = (k + 1) % slices;
      return x + k * n;
    };
    double r = time_us(
      [&] {
        float* p = next();
        rk::reduce_into(pol, p, p + n, out, 0.0f, rk::plus{});
      },
      50, s);
    double c = time_us(
      [&] {
        float* p = next();
        rk::reduce_into(pol, p, rk::device_count(dn), out, 0.0f, rk::plus{});
      },
      50, s);
    double p0 = time_us(
      [&] {
        float* p = next();
        rk::reduce_partial_into<float>(pol, p, p + n, 0, dp, rk::plus{});
      },
      50, s);
    double p1 = time_us(
      [&] {
        float* p = next();
        rk::reduce_partial_into<float>(pol, p, p + n, 12345, dp, rk::plus{});
      },
      50, s);
    std::printf(
      "float n=2^%d: reduce_into %.2f  device_count %.2f (%.3f)  partial@0 %.2f (%.3f)  partial@12345 %.2f (%.3f) us\n",
      __builtin_ctzll(n), r, c, c / r, p0, p0 / r, p1, p1 / r);
  }
  {
    const long long n = 1ll << 24;
    double whole      = time_us([&] { rk::reduce_into(pol, x, x + big, out, 0.0f, rk::plus{}); }, 5, s);
    double sep        = time_us(
      [&] {
        for (int c = 0; c < 16; ++c)
          rk::reduce_into(pol, x + c * n, x + (c + 1) * n, out, 0.0f, rk::plus{});
      },
      5, s);
    double part = time_us(
      [&] {
        for (int c = 0; c < 16; ++c)
          rk::reduce_partial_into<float>(pol, x + c * n, x + (c + 1) * n, c * n, dp, rk::plus{});
      },
      5, s);
    double acc = time_us(
      [&] {
        rk::accumulator a(pol, 0.0f, rk::plus{});
        for (int c = 0; c < 16; ++c)
          a.add(x + c * n, x + (c + 1) * n);
      },
      5, s);
    std::printf("2^28 floats: one reduce_into %.1f, 16 reduce_into of 2^24 %.1f (%.3f), 16 partials %.1f (%.3f), "
                "accumulator %.1f (%.3f) us\n",
                whole, sep, sep / whole, part, part / whole, acc, acc / whole);
  }
  CK(cudaStreamSynchronize(s));
  std::printf("done\n");
}

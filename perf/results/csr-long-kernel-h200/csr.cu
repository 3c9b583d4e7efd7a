// perf/RESULTS.md's CSR experiments of 2026-11-29 (fifth session): see README.md here.
#include "../event_timer.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>
template <class T>
float csr(const T* x, T* o, long segments, long length, long shift)
{
  std::vector<long> h(static_cast<std::size_t>(segments + 1));
  for (long s = 0; s <= segments; ++s)
    h[static_cast<std::size_t>(s)] = s * length + (s > 0 && s < segments ? shift : 0);
  thrust::device_vector<long> offsets(h.begin(), h.end());
  return time_calls([&] { rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, T(0), rk::plus{}); });
}
template <class T>
float csr_list(const T* x, T* o, const std::vector<long>& h)
{
  thrust::device_vector<long> offsets(h.begin(), h.end());
  return time_calls([&] { rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, T(0), rk::plus{}); });
}
std::vector<long> half_plus_tiny(long n)
{
  std::vector<long> h{0, n / 2};
  for (long k = 0; h.back() < n; ++k)
    h.push_back(std::min(n, h.back() + 1 + k % 8));
  return h;
}
std::vector<long> power_law(long n)
{
  std::vector<long> h{0};
  unsigned long long z = 8;
  while (h.back() < n)
  {
    z              = z * 6364136223846793005ull + 1442695040888963407ull;
    const double u = (static_cast<double>(z >> 11) + 1.0) / 9007199254740992.0;
    long len       = static_cast<long>(std::pow(u, -1.26));
    h.push_back(std::min(n, h.back() + std::max(1L, std::min(len, n))));
  }
  return h;
}
template <class T>
float flat(const T* x, T* o, long n)
{
  return time_calls([&] { rk::reduce_into(rk::device, x, x + n, o, T(0)); });
}
int main()
{
  const long n = 1L << 28;
  void* x      = nullptr;
  void* o      = nullptr;
  cudaMalloc(&x, n * 8);
  cudaMalloc(&o, 1L << 29);
  cudaMemset(x, 0, n * 8);
  const auto* xd = static_cast<const double*>(x);
  const auto* xf = static_cast<const float*>(x);
  auto* od       = static_cast<double*>(o);
  auto* of       = static_cast<float*>(o);
  printf("double flat 2^26: %.1f us\n", flat(xd, od, 1L << 26));
  printf("float flat 2^26: %.1f us\n", flat(xf, of, 1L << 26));
  const long segs[][3] = {{8, 1L << 23, 0}, {64, 1L << 20, 0}, {1024, 65536, 0},        {4096, 16384, 0},
                          {8192, 8192, 0},  {16384, 4096, 0},  {64, (1L << 20) - 1, 0}, {16384, 4095, 0},
                          {4096, 16384, 1}, {8192, 8192, 2}};
  for (const auto& s : segs)
    printf("double csr %ld x %ld +%ld: %.1f us\n", s[0], s[1], s[2], csr(xd, od, s[0], s[1], s[2]));
  const auto ht = half_plus_tiny(1L << 26), pl = power_law(1L << 26);
  printf("power law segments %zu\n", pl.size() - 1);
  printf("double csr half+tiny: %.1f us\n", csr_list(xd, od, ht));
  printf("double csr power law: %.1f us\n", csr_list(xd, od, pl));
  printf("float csr half+tiny: %.1f us\n", csr_list(xf, of, ht));
  printf("float csr power law: %.1f us\n", csr_list(xf, of, pl));
  for (const auto& s : segs)
    printf("float csr %ld x %ld +%ld: %.1f us\n", s[0], s[1], s[2], csr(xf, of, s[0], s[1], s[2]));
  return 0;
}

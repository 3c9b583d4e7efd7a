#include <cstdio>
#include <cstring>
#include <random>
#include <rk/reduce.cuh>
#include <rk/reduce.hpp>
#include <thrust/device_vector.h>
#include <vector>
template <class T>
int check(std::mt19937_64& g, int count, auto policy, const char* name)
{
  const long lens[] = {0, 1, 7, 300, 8193, 100000, 3000001, 65536, 1 << 20};
  std::vector<long> h{static_cast<long>(g() % 5)};
  for (int s = 0; s < count; ++s)
    h.push_back(h.back() + lens[g() % 9] + static_cast<long>(g() % 3));
  const long n = h.back() + 3;
  std::vector<T> x(n);
  for (long i = 0; i < n; ++i)
    x[i] = static_cast<T>(static_cast<double>(g() % 1000003) * 1e-3 - 17.25);
  std::vector<T> expect(count);
  rk::segmented_reduce(rk::host, x.begin(), h.begin(), h.end(), expect.begin(), T(1.5));
  thrust::device_vector<T> dx(x.begin(), x.end());
  thrust::device_vector<long> dh(h.begin(), h.end());
  thrust::device_vector<T> out(count);
  rk::segmented_reduce(policy, dx.begin(), dh.begin(), dh.end(), out.begin(), T(1.5), rk::plus{});
  try
  {
    rk::check_device_errors();
  }
  catch (const std::exception& e)
  {
    printf("CSR call: %s\n", e.what());
  }
  std::vector<T> got(count);
  thrust::copy(out.begin(), out.end(), got.begin());
  int bad = 0;
  for (int s = 0; s < count; ++s)
    bad += std::memcmp(&got[s], &expect[s], sizeof(T)) != 0;
  // CUB form, reversed order
  std::vector<long> hb(count), he(count);
  for (int s = 0; s < count; ++s)
  {
    hb[s] = h[count - 1 - s];
    he[s] = h[count - s];
  }
  thrust::device_vector<long> db(hb.begin(), hb.end()), de(he.begin(), he.end());
  rk::segmented_reduce(policy, dx.begin(), count, db.begin(), de.begin(), out.begin(), T(1.5), rk::plus{});
  try
  {
    rk::check_device_errors();
  }
  catch (const std::exception& e)
  {
    printf("CUB call: %s\n", e.what());
  }
  thrust::copy(out.begin(), out.end(), got.begin());
  for (int s = 0; s < count; ++s)
    bad += std::memcmp(&got[s], &expect[count - 1 - s], sizeof(T)) != 0;
  for (int s = 0; s < count && s < 4; ++s)
    printf("  s %d [%ld, %ld) got %.9g expect %.9g\n", s, h[s], h[s + 1], (double) got[count - 1 - s],
           (double) expect[s]);
  printf("%s %s count %d items %ld: %d mismatches\n", name, sizeof(T) == 4 ? "float" : "double", count, n, bad);
  return bad;
}
int main()
{
  std::mt19937_64 g(7);
  int bad = 0;
  for (int count : {1, 2, 5, 37, 64, 65})
  {
    bad += check<float>(g, count, rk::single_pass, "single_pass");
    bad += check<double>(g, count, rk::two_pass, "two_pass");
    bad += check<float>(g, count, rk::device, "device");
    bad += check<double>(g, count, rk::device, "device");
  }
  printf("total mismatches %d\n", bad);
  return bad != 0;
}

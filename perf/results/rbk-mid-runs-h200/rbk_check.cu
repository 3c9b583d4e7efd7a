// reduce_by_key on the GPU against rk::host, bit for bit: floats, doubles, and a non-commutative
// operator (index ranges), over run layouts around the run pass's short and mid bounds.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <vector>

struct range
{
  std::int64_t b, e;
};
struct merge
{
  __host__ __device__ range operator()(const range& x, const range& y) const
  {
    return (x.e == y.b && x.b >= 0) ? range{x.b, y.e} : range{-1, -1};
  }
};
struct to_range
{
  __host__ __device__ range operator()(std::int64_t i) const
  {
    return {i, i + 1};
  }
};

std::vector<std::int64_t> layout(int kind, std::int64_t n, std::mt19937_64& g)
{
  std::vector<std::int64_t> L;
  std::int64_t at = 0;
  std::geometric_distribution<int> geo(1.0 / 64);
  while (at < n)
  {
    std::int64_t l;
    switch (kind)
    {
      case 0:
        l = 1 + g() % 300;
        break;
      case 1:
        l = 1 + geo(g);
        break;
      case 2:
        l = 100;
        break;
      case 3: {
        static const int v[] = {127, 128, 129, 255, 256, 257, 9, 8, 7, 4, 5, 3, 1, 2, 17, 16, 15, 33};
        l                    = v[g() % 18];
        break;
      }
      case 4:
        l = 1 + g() % 20;
        break;
      case 5:
        l = (g() % 4 == 0) ? 1 + g() % 5000 : 1 + g() % 40;
        break;
      default:
        l = 1 + g() % 3000;
    }
    l = std::min(l, n - at);
    L.push_back(l);
    at += l;
  }
  return L;
}

template <class F, class P>
int check_values(const P& p, const char* pn, const std::vector<std::int32_t>& keys, std::size_t runs, int kind)
{
  std::mt19937_64 g(kind * 7 + 1);
  std::vector<F> values(keys.size());
  for (auto& x : values)
    x = static_cast<F>(std::ldexp(static_cast<double>(g() % 1000003), -int(g() % 20)));
  std::vector<std::int32_t> uk(keys.size());
  std::vector<F> want(keys.size());
  rk::reduce_by_key(rk::host, keys.begin(), keys.end(), values.begin(), uk.begin(), want.begin(), F(0.25), rk::plus{});
  thrust::device_vector<std::int32_t> k(keys.begin(), keys.end()), ko(keys.size());
  thrust::device_vector<F> v(values.begin(), values.end()), vo(keys.size());
  auto e = rk::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), F(0.25), rk::plus{});
  std::vector<F> got(runs);
  thrust::copy(vo.begin(), vo.begin() + runs, got.begin());
  std::vector<std::int32_t> gk(runs);
  thrust::copy(ko.begin(), ko.begin() + runs, gk.begin());
  int bad          = (e.second - vo.begin()) != (std::ptrdiff_t) runs;
  std::size_t mism = 0, first = runs;
  for (std::size_t r = 0; r < runs; ++r)
    if (std::memcmp(&got[r], &want[r], sizeof(F)) || gk[r] != uk[r])
    {
      if (!mism)
        first = r;
      ++mism;
    }
  if (bad || mism)
    std::printf("FAIL %s %s kind %d n %zu: count %d, %zu mismatches (first run %zu)\n", pn,
                sizeof(F) == 4 ? "float" : "double", kind, keys.size(), bad, mism, first);
  return bad || mism;
}

template <class P>
int check_ranges(const P& p, const char* pn, const std::vector<std::int32_t>& keys, const std::vector<std::int64_t>& L)
{
  thrust::device_vector<std::int32_t> k(keys.begin(), keys.end()), ko(keys.size());
  thrust::device_vector<range> out(L.size());
  auto it = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_range{});
  rk::reduce_by_key(p, k.begin(), k.end(), it, ko.begin(), out.begin(), rk::equal_to{}, merge{});
  std::vector<range> got(L.size());
  thrust::copy(out.begin(), out.end(), got.begin());
  std::int64_t b   = 0;
  std::size_t mism = 0;
  for (std::size_t r = 0; r < L.size(); ++r)
  {
    if (got[r].b != b || got[r].e != b + L[r])
      ++mism;
    b += L[r];
  }
  if (mism)
    std::printf("FAIL %s ranges n %zu: %zu mismatches\n", pn, keys.size(), mism);
  return mism != 0;
}

int main()
{
  int fails = 0, cases = 0;
  std::mt19937_64 g(12345);
  for (std::int64_t n : {1ll, 300ll, 4095ll, 4097ll, 100003ll, 1ll << 20, (1ll << 22) + 17})
  {
    for (int kind = 0; kind < 7; ++kind)
    {
      auto L = layout(kind, n, g);
      std::vector<std::int32_t> keys;
      for (std::size_t r = 0; r < L.size(); ++r)
        keys.insert(keys.end(), L[r], static_cast<std::int32_t>(r % 3));
      fails += check_values<float>(rk::device, "device", keys, L.size(), kind);
      fails += check_values<float>(rk::two_pass, "two_pass", keys, L.size(), kind);
      fails += check_values<double>(rk::device, "device", keys, L.size(), kind);
      fails += check_values<double>(rk::single_pass, "single_pass", keys, L.size(), kind);
      fails += check_ranges(rk::device, "device", keys, L);
      cases += 5;
    }
  }
  std::printf("rbk_check: %d cases, %d failed\n", cases, fails);
  return fails != 0;
}

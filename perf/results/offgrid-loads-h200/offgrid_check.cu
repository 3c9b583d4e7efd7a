// Off-grid reads checked bit for bit against rk::host, built against the library headers of the commit RESULTS.md names.
// rk::reduce from 0-3 words past the 16-byte grid, bit for bit against rk::host: float, double,
// int32 sums and a non-commutative merge of 8-byte, 4-byte aligned pairs; sizes around lanes,
// tiles and nodes; rk::single_pass, rk::two_pass, rk::device, rk::reduce_into.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>
struct pair32
{
  std::int32_t b, e;
};
struct pair_merge
{
  __host__ __device__ pair32 operator()(pair32 x, pair32 y) const
  {
    return (x.e == y.b && x.b >= 0) ? pair32{x.b, y.e} : pair32{-1, -1};
  }
};
template <class V>
bool same(const V& a, const V& b)
{
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}
int fails = 0, cases = 0;
template <class V, class Op>
void check(const char* name, const std::vector<V>& host, V init, Op op)
{
  const std::size_t words = host.size() * sizeof(V) / 4;
  thrust::device_vector<std::uint32_t> buf(words + 8);
  for (int shift = 0; shift < 4; ++shift)
  {
    if (alignof(V) > 4 && shift % 2)
      continue;
    std::vector<std::uint32_t> w(words);
    std::memcpy(w.data(), host.data(), words * 4);
    thrust::copy(w.begin(), w.end(), buf.begin() + shift);
    const V* d = reinterpret_cast<const V*>(thrust::raw_pointer_cast(buf.data()) + shift);
    auto first = thrust::device_pointer_cast(d);
    thrust::device_vector<V> out(1);
    for (std::int64_t n : std::vector<std::int64_t>{1, 7, 8, 9, 255, 256, 257, 1023, 4095, 4096, 4097, 65535, 65537,
                                                    1000003, (std::int64_t{1} << 22) + 5, (std::int64_t) host.size()})
    {
      if (n > (std::int64_t) host.size())
        continue;
      const V want = rk::reduce(rk::host, host.begin(), host.begin() + n, init, op);
      const V a    = rk::reduce(rk::single_pass, first, first + n, init, op);
      const V b    = rk::reduce(rk::two_pass, first, first + n, init, op);
      const V c    = rk::reduce(rk::device, first, first + n, init, op);
      rk::reduce_into(rk::device, first, first + n, out.data(), init, op);
      const V e     = out[0];
      const bool ok = same(a, want) && same(b, want) && same(c, want) && same(e, want);
      cases += 4;
      if (!ok)
      {
        ++fails;
        std::printf("FAIL %s shift %d n %lld\n", name, shift, (long long) n);
      }
    }
    // Fixed-size rows whose starts fall 0-3 words past the grid (the long rows' kernels).
    for (std::int64_t size : {std::int64_t{70001}, std::int64_t{65536}, std::int64_t{300007}})
    {
      const std::int64_t rows = std::min<std::int64_t>(37, (std::int64_t) host.size() / size);
      std::vector<V> want(rows);
      rk::segmented_reduce(rk::host, host.begin(), rows, size, want.begin(), init, op);
      for (int b = 0; b < 3; ++b)
      {
        thrust::device_vector<V> got(rows);
        if (b == 0)
          rk::segmented_reduce(rk::device, first, rows, size, got.begin(), init, op);
        if (b == 1)
          rk::segmented_reduce(rk::two_pass, first, rows, size, got.begin(), init, op);
        if (b == 2)
          rk::segmented_reduce(rk::single_pass, first, rows, size, got.begin(), init, op);
        std::vector<V> h(rows);
        thrust::copy(got.begin(), got.end(), h.begin());
        ++cases;
        if (std::memcmp(h.data(), want.data(), rows * sizeof(V)))
        {
          ++fails;
          std::printf("FAIL %s rows of %lld shift %d backend %d\n", name, (long long) size, shift, b);
        }
      }
    }
  }
}
// Under compute-sanitizer initcheck: the words before and after the range are never written.
int raw_memory()
{
  const std::size_t n = 100003;
  float* buf          = nullptr;
  cudaMalloc(&buf, (n + 8) * sizeof(float));
  std::vector<float> h(n, 1.0f);
  int bad = 0;
  for (int shift = 1; shift < 4; ++shift)
  {
    cudaMemcpy(buf + shift, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const float s = rk::reduce(rk::device, thrust::device_pointer_cast(static_cast<const float*>(buf + shift)),
                               thrust::device_pointer_cast(static_cast<const float*>(buf + shift)) + n, 0.0f,
                               rk::plus{});
    bad += s != float(n);
  }
  cudaFree(buf);
  std::printf("raw memory: %d wrong\n", bad);
  return bad;
}
int main(int argc, char**)
{
  if (argc > 1)
    return raw_memory();
  const std::size_t n = (1u << 24) + 3;
  std::mt19937_64 g(7);
  std::vector<float> f(n);
  for (auto& x : f)
    x = std::ldexp(float(g() % 100003), -int(g() % 24));
  std::vector<double> d(n);
  for (auto& x : d)
    x = std::ldexp(double(g() % 100000007), -int(g() % 40));
  std::vector<std::int32_t> i(n);
  for (auto& x : i)
    x = int(g() % 1000) - 500;
  std::vector<pair32> p(n);
  for (std::size_t k = 0; k < n; ++k)
    p[k] = {int(k), int(k + 1)};
  check("float", f, 0.25f, rk::plus{});
  check("double", d, 0.25, rk::plus{});
  check("int32", i, 3, rk::plus{});
  std::vector<pair32> p2(n);
  for (std::size_t k = 0; k < n; ++k)
    p2[k] = {int(k), int(k + 1)};
  check("pair32 merge (init at 0)", p2, pair32{0, 0}, pair_merge{});
  std::printf("offgrid_check: %d checks, %d failed\n", cases, fails);
  return fails != 0;
}

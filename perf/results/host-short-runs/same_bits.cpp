// The same results before and after host_tree_root's shortcuts: host_tree_root and rk::host's
// segmented reduce over every length 1 to 300 and every 7th to 2200, from offsets 0, 1 and 5, for
// float and double sums of floats, double sums of doubles, float sums of uint8 and uint16 items,
// and a non-commutative float affine map; every result's bytes written to argv[1]. Build it
// against the library before (git archive <commit>^ include) and after, and compare the files
// with cmp: they were identical (perf/RESULTS.md, 2026-12-04).
#include <rk/reduce.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace
{
struct float_affine
{
  float a, b;
};
struct float_affine_compose
{
  float_affine operator()(float_affine x, float_affine y) const
  {
    return float_affine{x.a * y.a, y.a * x.b + y.b};
  }
};

template <class T, class E, class Op>
void write_results(std::FILE* f, const std::vector<E>& items, T init, Op op)
{
  for (std::int64_t n = 1; n <= 2200; n += (n < 300 ? 1 : 7))
  {
    for (std::int64_t at : {0, 1, 5})
    {
      const T root = rk::detail::host_tree_root<T>(items.begin() + at, n, op);
      std::fwrite(&root, sizeof root, 1, f);
      const std::vector<std::int64_t> offsets{at, at + n};
      std::vector<T> out(1);
      rk::segmented_reduce(rk::host, items.begin(), offsets.begin(), offsets.end(), out.begin(), init, op);
      std::fwrite(out.data(), sizeof(T), 1, f);
    }
  }
}
} // namespace

int main(int, char** argv)
{
  std::FILE* f = std::fopen(argv[1], "wb");
  std::mt19937_64 rng(7);
  std::vector<float> floats(3000);
  for (auto& x : floats)
  {
    x = std::ldexp(static_cast<float>(rng() % 1000003) - 500000.f, -static_cast<int>(rng() % 20));
  }
  std::vector<double> doubles(3000);
  for (auto& x : doubles)
  {
    x = std::ldexp(static_cast<double>(rng() % 1000003) - 500000., -static_cast<int>(rng() % 40));
  }
  std::vector<std::uint8_t> bytes(3000);
  for (auto& x : bytes)
  {
    x = static_cast<std::uint8_t>(rng());
  }
  std::vector<std::uint16_t> shorts(3000);
  for (auto& x : shorts)
  {
    x = static_cast<std::uint16_t>(rng());
  }
  std::vector<float_affine> maps(3000);
  for (auto& x : maps)
  {
    x = float_affine{0.75f + static_cast<float>(rng() % 1000) / 2000.f,
                     static_cast<float>(rng() % 1000) / 1000.f - 0.5f};
  }
  write_results<float>(f, floats, 0.5f, rk::plus{});
  write_results<double>(f, floats, 0.5, rk::plus{});
  write_results<double>(f, doubles, 0.25, rk::plus{});
  write_results<float>(f, bytes, 0.5f, rk::plus{});
  write_results<float>(f, shorts, 0.5f, rk::plus{});
  write_results<float_affine>(f, maps, float_affine{1.f, 0.f}, float_affine_compose{});
  std::fclose(f);
}

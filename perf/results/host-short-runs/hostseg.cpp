// rk::host's segmented reduce over 2^26 floats cut into segments of one length, on one thread:
// the best of three calls for each length given on the command line. Built against the library
// before and after host_tree_root's one-lane and one-tile shortcuts (perf/RESULTS.md, 2026-12-04):
//   g++ -std=c++17 -O3 -I<include> -I/usr/local/cuda/include/cccl hostseg.cpp -o hostseg -lpthread
//   ./hostseg 1 4 8 64 256 1024
#include <rk/reduce.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv)
{
  const std::int64_t n = std::int64_t{1} << 26;
  std::vector<float> items(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
  {
    items[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000) * 0.001f;
  }
  for (int a = 1; a < argc; ++a)
  {
    const std::int64_t length   = std::atoll(argv[a]);
    const std::int64_t segments = n / length;
    std::vector<float> out(static_cast<std::size_t>(segments));
    double best = 1e9;
    for (int rep = 0; rep < 3; ++rep)
    {
      const auto t0 = std::chrono::steady_clock::now();
      rk::segmented_reduce(rk::host.with_threads(1), items.begin(), segments, length, out.begin(), 0.0f, rk::plus{});
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("segments of %lld: %.1f ms (%.2f ns an item), a middle segment %g\n", static_cast<long long>(length),
                best * 1e3, best * 1e9 / static_cast<double>(n), static_cast<double>(out[out.size() / 2]));
  }
}

#include <chrono>
#include <cstdio>
#include <rk/reduce.hpp>
#include <rk/reduce_by_key.hpp>
#include <vector>
int main()
{
  for (int len : {1, 8, 1000})
  {
    const std::int64_t n = std::int64_t{1} << 25;
    std::vector<std::int32_t> keys(n);
    std::vector<float> vals(n, 1.0f), vo(n);
    std::vector<std::int32_t> ko(n);
    for (std::int64_t i = 0; i < n; ++i)
      keys[i] = static_cast<std::int32_t>(i / len);
    double best = 1e9;
    for (int rep = 0; rep < 3; ++rep)
    {
      auto t0 = std::chrono::steady_clock::now();
      auto e  = rk::reduce_by_key(rk::host, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin(), 0.0f,
                                  rk::plus{});
      auto t1 = std::chrono::steady_clock::now();
      best    = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (e.first - ko.begin() != (n + len - 1) / len)
        return 1;
    }
    std::printf("runs of %d: %.1f ms\n", len, best);
  }
}

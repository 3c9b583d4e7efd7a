// Whole rk::reduce_by_key calls (int32 keys, float values, 2^26 items, waiting for the run count),
// median of 15 with CUDA events, per run layout.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <rk/reduce.cuh>
#include <string>
#include <thrust/device_vector.h>
#include <vector>
int main(int argc, char** argv)
{
  const std::int64_t n             = std::int64_t{1} << 26;
  const int reps                   = argc > 1 ? std::atoi(argv[1]) : 15;
  std::vector<std::string> layouts = {"1", "8", "100", "1000", "1000000", "mix", "300"};
  if (argc > 2)
    layouts = {argv[2]};
  for (const auto& lay : layouts)
  {
    std::vector<std::int32_t> keys(n);
    std::mt19937_64 g(5);
    std::int32_t key = 0;
    for (std::int64_t i = 0; i < n; ++i)
    {
      bool head;
      if (lay == "mix")
        head = i == 0 || g() % 64 == 0;
      else if (lay == "300")
        head = i == 0 || g() % 300 == 0;
      else
        head = i % std::stoll(lay) == 0;
      key += head;
      keys[i] = key;
    }
    thrust::device_vector<std::int32_t> k(keys.begin(), keys.end()), ko(n);
    thrust::device_vector<float> v(n, 1.0f), vo(n);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < reps + 2; ++r)
    {
      cudaEventRecord(a);
      rk::reduce_by_key(rk::device, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), 0.0f, rk::plus{});
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r >= 2)
        t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    std::printf("runs %-8s median %8.1f us  (min %8.1f)\n", lay.c_str(), t[t.size() / 2], t[0]);
  }
}

// The rows of rk_bench_segmented, shared with the CUB peer's segmented benchmark so that both time
// the same segments over the same items: the row names (issue 8's and 28's length distributions),
// their CSR offsets, and the items. Standard library and CUDA only: the CUB peer compiles this
// against another CCCL than rk's.

#pragma once

#include "../../test/support/segments.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace rk_bench
{
/// Item i: integers from -8 to 8, every 17 consecutive ones summing to 0. Integer sums never
/// overflow, and a partial sum of k items is an integer of magnitude at most 8k, exact in float
/// while k <= 2^21, more than any thread of a GPU reduction of 2^28 items folds alone: so float
/// sums are exact in every grouping, and a peer's float results can be checked bit for bit.
template <class T>
struct small_item
{
  __host__ __device__ T operator()(std::int64_t i) const
  {
    return static_cast<T>(i % 17) - T(8);
  }
};

/// Every segment k items (1 to 2^24), one of n/2 items among 1-8-item ones, a power law, half the
/// segments empty, a random mix of 1 to 10^5 items, one segment.
inline const std::vector<std::string>& segment_row_names()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (std::int64_t len :
         {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{32}, std::int64_t{64},
          std::int64_t{256}, std::int64_t{1024}, std::int64_t{4096}, std::int64_t{8192}, std::int64_t{16384},
          std::int64_t{65536}, std::int64_t{1} << 20, std::int64_t{1} << 24})
    {
      v.push_back("all " + std::to_string(len));
    }
    v.push_back("one of n/2 + 1-8");
    v.push_back("power law");
    v.push_back("half empty");
    v.push_back("random mix 1-10^5");
    v.push_back("one segment");
    return v;
  }();
  return names;
}

/// The row's CSR offsets over `total` items, and its segment length where every segment has one
/// (else 0).
inline std::vector<std::int64_t> segment_row_offsets(const std::string& name, std::int64_t total,
                                                     std::int64_t& fixed_size)
{
  fixed_size = 0;
  if (name.rfind("all ", 0) == 0)
  {
    const std::int64_t len = std::stoll(name.substr(4));
    fixed_size             = len;
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(total / len) + 1);
    for (std::size_t s = 0; s < offsets.size(); ++s)
    {
      offsets[s] = static_cast<std::int64_t>(s) * len;
    }
    return offsets;
  }
  if (name == "one segment")
  {
    fixed_size = total;
    return {0, total};
  }
  const rk_test::segment_layout layout = name == "power law"         ? rk_test::segment_layout::power_law
                                       : name == "half empty"        ? rk_test::segment_layout::half_empty
                                       : name == "random mix 1-10^5" ? rk_test::segment_layout::random_mix
                                                                     : rk_test::segment_layout::huge_plus_tiny;
  return rk_test::make_offsets(layout, total);
}
} // namespace rk_bench

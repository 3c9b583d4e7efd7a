#pragma once
// What the GPU suites of rk::segmented_reduce share (the order-preserving backends' and
// rk::atomic's): the layouts' size, their items, and the fixed-size and CUB forms against rk::host
// (integer sums, which every backend gives exactly).

#include "../support/segments.hpp"
#include "../support/spread.hpp"
#include "gpu_harness.cuh"

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <vector>

namespace rk_test
{
inline std::int64_t layout_items()
{
  return quick_mode() ? std::int64_t{1} << 18 : std::int64_t{1} << 22;
}

template <class F>
struct spread_item
{
  __host__ __device__ F operator()(std::int64_t i) const
  {
    return spread_value<F>{}(i);
  }
};

/// Fixed sizes from 1 item to more than a block's share, then CUB's form: segments reversed,
/// overlapping, with gaps and empty ones, lengths from 0 to 200000 (the long ones listed).
template <class... Policies>
void fixed_and_cub_forms(Policies... policies)
{
  const std::int64_t n = 1 << 20;
  thrust::device_vector<int> items(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    items.begin(), spread_item<int>{});
  std::vector<int> host_items(static_cast<std::size_t>(n));
  thrust::copy(items.begin(), items.end(), host_items.begin());
  std::vector<std::int64_t> begins, ends;
  splitmix rng{5};
  for (int s = 0; s < 3000; ++s)
  {
    const auto len = static_cast<std::int64_t>(s % 7 == 0 ? rng.next() % 200000 : rng.next() % 300);
    const auto b   = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(n - len));
    begins.push_back(b);
    ends.push_back(b + (s % 11 == 0 ? 0 : len));
  }
  std::vector<long long> expected_cub(begins.size());
  rk::segmented_reduce(rk::host, host_items.begin(), begins.size(), begins.begin(), ends.begin(), expected_cub.begin(),
                       -5ll, rk::plus{});
  const thrust::device_vector<std::int64_t> d_begins(begins.begin(), begins.end()), d_ends(ends.begin(), ends.end());

  const auto on = [&](auto policy) {
    for (int size : {1, 3, 37, 300, 5000, 70000})
    {
      CAPTURE(size);
      const std::int64_t segments = n / size;
      std::vector<int> expected(static_cast<std::size_t>(segments));
      rk::segmented_reduce(rk::host, host_items.begin(), segments, size, expected.begin(), 9);
      thrust::device_vector<int> out(static_cast<std::size_t>(segments));
      rk::segmented_reduce(policy, items.begin(), segments, size, out.begin(), 9);
      std::vector<int> got(static_cast<std::size_t>(segments));
      thrust::copy(out.begin(), out.end(), got.begin());
      CHECK(got == expected);
    }
    thrust::device_vector<long long> out(begins.size());
    rk::segmented_reduce(policy, items.begin(), begins.size(), d_begins.begin(), d_ends.begin(), out.begin(), -5ll);
    std::vector<long long> got(begins.size());
    thrust::copy(out.begin(), out.end(), got.begin());
    CHECK(got == expected_cub);
  };
  (on(policies), ...);
}
} // namespace rk_test

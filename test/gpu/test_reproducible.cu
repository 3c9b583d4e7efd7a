// Same bits everywhere: rk's order-preserving GPU backends, eight tuning providers, forced grid
// caps, a start address off the 16-byte grid and rk::host on 1 to 64 threads all give the same
// bits, and the golden sums pinned in test/host/test_reproducible.cpp.

#include "../support/spread.hpp"
#include "gpu_harness.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace
{
using rk::fixed_tuning;

// Tuning providers of every shape the tree must not see: block sizes, loads in flight, work per
// warp, waves, and grid caps of 1, 7, the SM count of an H100/H200 and four times it.
using tunings =
  std::tuple<fixed_tuning<128, 1, 1, 1>, fixed_tuning<512, 1, 4, 2>, fixed_tuning<1024, 1, 1, 1>,
             fixed_tuning<64, 1, 3, 1, 2>, fixed_tuning<256, 1, 8, 4>, fixed_tuning<32, 1, 2, 1>,
             fixed_tuning<256, 1, 1, 1, 4>, fixed_tuning<256, 2, 2, 2, 1, 1>, fixed_tuning<256, 2, 2, 2, 1, 7>,
             fixed_tuning<256, 2, 2, 2, 1, 132>, fixed_tuning<128, 2, 2, 1, 1, 528>>;

std::vector<std::int64_t> bit_sizes()
{
  std::vector<std::int64_t> sizes{1, 2, 31, 33, 127, 128, 129, 255, 256, 257, 4095, 4097};
  for (int k : {12, 15, 17, 20, 23, 25, 27})
  {
    if (rk_test::quick_mode() && k > 20)
    {
      break;
    }
    sizes.push_back((std::int64_t{1} << k) - 1);
    sizes.push_back((std::int64_t{1} << k) + 1);
  }
  return sizes;
}

template <class T, class Op, class Input, class Check>
void for_every_gpu_shape(Input first, std::int64_t n, T init, Op op, Check check)
{
  check("two_pass", rk::reduce(rk::two_pass, first, first + n, init, op));
  check("single_pass", rk::reduce(rk::single_pass, first, first + n, init, op));
  check("device", rk::reduce(rk::device, first, first + n, init, op));
  std::apply(
    [&](auto... tuning) {
      (check("single_pass tuned", rk::reduce(rk::single_pass.tuned<decltype(tuning)>(), first, first + n, init, op)),
       ...);
      (check("two_pass tuned", rk::reduce(rk::two_pass.tuned<decltype(tuning)>(), first, first + n, init, op)), ...);
    },
    tunings{});
}

template <class F>
void sums_have_the_same_bits()
{
  const auto sizes        = bit_sizes();
  const std::int64_t most = sizes.back() + 1;
  thrust::device_vector<F> items(static_cast<std::size_t>(most) + 1);
  // Item i at index i + 1 too, so the range also starts off the 16-byte grid.
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(most),
                    items.begin(), rk_test::spread_value<F>{});
  // And at index i + s for s = 1, 2, 3: ranges 1 to 3 items past the 16-byte grid (the flat
  // kernels read 4- and 8-byte items there as shifted vectors).
  std::vector<thrust::device_vector<F>> shifted;
  for (int s = 1; s <= 3; ++s)
  {
    shifted.emplace_back(static_cast<std::size_t>(most) + 3);
    thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(most),
                      shifted.back().begin() + s, rk_test::spread_value<F>{});
  }
  std::vector<F> host(static_cast<std::size_t>(most));
  thrust::copy(items.begin(), items.begin() + most, host.begin());

  for (std::int64_t n : sizes)
  {
    CAPTURE(n);
    const F init     = F(0.25);
    const F expected = rk::reduce(rk::host.with_threads(1), host.begin(), host.begin() + n, init, rk::plus{});
    for (unsigned threads : {2u, 3u, 8u, 64u})
    {
      CAPTURE(threads);
      CHECK(
        rk_test::bits_of(rk::reduce(rk::host.with_threads(threads), host.begin(), host.begin() + n, init, rk::plus{}))
        == rk_test::bits_of(expected));
    }
    auto check = [&](const char* what, F got) {
      CAPTURE(what);
      CHECK(rk_test::bits_of(got) == rk_test::bits_of(expected));
    };
    for_every_gpu_shape(items.begin(), n, init, rk::plus{}, check);
    for (int s = 1; s <= 3; ++s)
    {
      CAPTURE(s);
      for_every_gpu_shape(shifted[static_cast<std::size_t>(s - 1)].begin() + s, n, init, rk::plus{}, check);
    }
    check("through an iterator",
          rk::reduce(
            rk::single_pass,
            thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::spread_value<F>{}),
            thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(n), rk_test::spread_value<F>{}),
            init, rk::plus{}));
  }
}
} // namespace

namespace
{
/// 8 bytes at 4-byte alignment: a range of them can start 1, 2 or 3 words past the 16-byte grid.
struct index_pair
{
  std::int32_t begin, end;
};
/// Joins adjacent index ranges, and marks any other pair broken: exact only in the items' order.
struct join_pairs
{
  __host__ __device__ index_pair operator()(index_pair a, index_pair b) const
  {
    return a.end == b.begin && a.begin >= 0 ? index_pair{a.begin, b.end} : index_pair{-1, -1};
  }
};
} // namespace

RK_GPU_TEST_CASE("same bits: a non-commutative reduce of 8-byte items 0 to 3 words past the 16-byte grid")
{
  const std::int64_t most = rk_test::quick_mode() ? (1 << 20) + 3 : (1 << 23) + 3;
  for (int shift = 0; shift < 4; ++shift)
  {
    CAPTURE(shift);
    // Pair i is [i, i + 1), written `shift` words into a buffer of words.
    std::vector<std::int32_t> words(static_cast<std::size_t>(2 * most + 4));
    for (std::int64_t i = 0; i < most; ++i)
    {
      words[static_cast<std::size_t>(shift + 2 * i)]     = static_cast<std::int32_t>(i);
      words[static_cast<std::size_t>(shift + 2 * i + 1)] = static_cast<std::int32_t>(i + 1);
    }
    const thrust::device_vector<std::int32_t> buffer(words.begin(), words.end());
    const auto* pairs = reinterpret_cast<const index_pair*>(thrust::raw_pointer_cast(buffer.data()) + shift);
    const auto first  = thrust::device_pointer_cast(pairs);
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{255}, std::int64_t{256}, std::int64_t{257}, std::int64_t{4097},
                           std::int64_t{65536 * 3 + 7}, most})
    {
      CAPTURE(n);
      auto check = [&](const char* what, index_pair got) {
        CAPTURE(what);
        CHECK(got.begin == 0);
        CHECK(got.end == n);
      };
      for_every_gpu_shape(first, n, index_pair{0, 0}, join_pairs{}, check);
    }
  }
}

RK_GPU_TEST_CASE("same bits: float sums on every GPU backend, tuning and grid cap, and under rk::host")
{
  sums_have_the_same_bits<float>();
}

RK_GPU_TEST_CASE("same bits: double sums on every GPU backend, tuning and grid cap, and under rk::host")
{
  sums_have_the_same_bits<double>();
}

RK_GPU_TEST_CASE("same bits: the golden sums of test/host/test_reproducible.cpp on every GPU backend")
{
  // scripts/gpu-check runs these cases on part of the GPU (MPS) and reports what they saw.
  std::printf("[rk] SMs visible: %d\n", rk::detail::current_device_facts().multiprocessors);
  constexpr std::int64_t n = 1000003;
  auto items               = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                             rk_test::spread_value<float>{});
  auto doubles             = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                             rk_test::spread_value<double>{});
  thrust::device_vector<float> f(items, items + n);
  thrust::device_vector<double> d(doubles, doubles + n);
  auto check_float = [](const char* what, float got) {
    CAPTURE(what);
    CHECK(rk_test::bits_of(got) == rk_test::bits_of(0x1.7b3e8cp+29f));
  };
  auto check_double = [](const char* what, double got) {
    CAPTURE(what);
    CHECK(rk_test::bits_of(got) == rk_test::bits_of(0x1.7b3e89694b80ap+29));
  };
  for_every_gpu_shape(f.begin(), n, 0.0f, rk::plus{}, check_float);
  for_every_gpu_shape(d.begin(), n, 0.0, rk::plus{}, check_double);
}

RK_GPU_TEST_CASE("same bits: rk::minimum over floats with NaN and signed zeros, and float affine maps")
{
  for (std::int64_t n : {257, 4097, 100003, (1 << 20) + 3})
  {
    CAPTURE(n);
    std::vector<float> host(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
    {
      const std::uint64_t h             = rk_test::splitmix64(static_cast<std::uint64_t>(i));
      host[static_cast<std::size_t>(i)] = h % 97 == 0 ? NAN
                                        : h % 13 == 0 ? (h & 1 ? -0.0f : 0.0f)
                                                      : float(h % 1000) - 500;
    }
    thrust::device_vector<float> items(host.begin(), host.end());
    const float expected = rk::reduce(rk::host, host.begin(), host.end(), 1e30f, rk::minimum{});
    for_every_gpu_shape(items.begin(), n, 1e30f, rk::minimum{}, [&](const char* what, float got) {
      CAPTURE(what);
      CHECK(rk_test::bits_of(got) == rk_test::bits_of(expected));
    });

    auto maps = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::to_float_affine{});
    std::vector<rk_test::float_affine> host_maps(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
    {
      host_maps[static_cast<std::size_t>(i)] = rk_test::to_float_affine{}(i);
    }
    thrust::device_vector<rk_test::float_affine> device_maps(host_maps.begin(), host_maps.end());
    const auto map = rk::reduce(rk::host, host_maps.begin(), host_maps.end(), rk_test::float_affine{1.0f, 0.0f},
                                rk_test::float_affine_compose{});
    auto check_map = [&](const char* what, rk_test::float_affine got) {
      CAPTURE(what);
      CHECK(rk_test::bits_of(got.a) == rk_test::bits_of(map.a));
      CHECK(rk_test::bits_of(got.b) == rk_test::bits_of(map.b));
    };
    check_map("single_pass, iterator", rk::reduce(rk::single_pass, maps, maps + n, rk_test::float_affine{1.0f, 0.0f},
                                                  rk_test::float_affine_compose{}));
    check_map("two_pass, iterator", rk::reduce(rk::two_pass, maps, maps + n, rk_test::float_affine{1.0f, 0.0f},
                                               rk_test::float_affine_compose{}));
    for_every_gpu_shape(device_maps.begin(), n, rk_test::float_affine{1.0f, 0.0f}, rk_test::float_affine_compose{},
                        check_map);
  }
}

RK_GPU_TEST_CASE("same bits: the grid-ordered tree (kept for comparison) is exact for integers")
{
  thrust::device_vector<std::int64_t> items(1 << 20, 3);
  CHECK(rk::reduce(rk::single_pass.tuned<rk::grid_ordered_tuning>(), items.begin(), items.end(), std::int64_t{1})
        == 3 * (1 << 20) + 1);
  CHECK(rk::reduce(rk::two_pass.tuned<rk::grid_ordered_tuning>(), items.begin(), items.end(), std::int64_t{1})
        == 3 * (1 << 20) + 1);
}

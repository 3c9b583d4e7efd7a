// Every kind of input on every backend: device_vector iterators, raw and misaligned device
// pointers, device_ptr, and Thrust's counting, constant, transform, zip and permutation iterators.

// thrust::constant_iterator is deprecated in newer CCCL (cuda::constant_iterator, which 3.0 lacks).
#define CCCL_IGNORE_DEPRECATED_API

#include "gpu_harness.cuh"

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <numeric>

namespace
{
struct square
{
  __host__ __device__ std::int64_t operator()(std::int32_t x) const
  {
    return std::int64_t{x} * x;
  }
};

struct product_of_pair
{
  template <class Tuple>
  __host__ __device__ std::int64_t operator()(const Tuple& t) const
  {
    return std::int64_t{thrust::get<0>(t)} * thrust::get<1>(t);
  }
};

struct reversed_index
{
  std::int64_t n;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const
  {
    return n - 1 - i;
  }
};

template <class Policy>
void check_every_input_kind(Policy policy)
{
  const std::int64_t n = 1000003;
  const auto ints      = rk_test::random_items<std::int32_t>(n, 40, rk_test::small_integer<std::int32_t>);
  const auto others    = rk_test::random_items<std::int32_t>(n, 41, rk_test::small_integer<std::int32_t>);
  const auto bytes     = rk_test::random_items<std::int8_t>(n, 42, rk_test::small_integer<std::int8_t>);
  const thrust::device_vector<std::int32_t> d_ints(ints.begin(), ints.end());
  const thrust::device_vector<std::int32_t> d_others(others.begin(), others.end());
  const thrust::device_vector<std::int8_t> d_bytes(bytes.begin(), bytes.end());
  const thrust::device_vector<double> d_doubles(ints.begin(), ints.end());

  auto host_sum = [&](std::int64_t from, std::int64_t to) {
    return std::accumulate(ints.begin() + from, ints.begin() + to, std::int64_t{0});
  };
  const std::int32_t* raw   = thrust::raw_pointer_cast(d_ints.data());
  const double* raw_doubles = thrust::raw_pointer_cast(d_doubles.data());

  SUBCASE("device_vector iterators, device_ptr and raw pointers, aligned or not")
  {
    CHECK(rk::reduce(policy, d_ints.begin(), d_ints.end(), std::int64_t{0}) == host_sum(0, n));
    CHECK(rk::reduce(policy, d_ints.data(), d_ints.data() + n, std::int64_t{0}) == host_sum(0, n));
    for (std::int64_t offset : {0, 1, 2, 3, 5})
    {
      for (std::int64_t trim : {0, 1, 3})
      {
        CAPTURE(offset);
        CAPTURE(trim);
        CHECK(rk::reduce(policy, raw + offset, raw + n - trim, std::int64_t{0}) == host_sum(offset, n - trim));
        CHECK(rk::reduce(policy, d_ints.data() + offset, d_ints.data() + n - trim, std::int64_t{0})
              == host_sum(offset, n - trim));
        CHECK(rk::reduce(policy, raw_doubles + offset, raw_doubles + n - trim, 0.0)
              == static_cast<double>(host_sum(offset, n - trim)));
      }
    }
    // Tiny misaligned ranges: all head, or head plus tail with no full chunk.
    for (std::int64_t len : {1, 2, 3, 4, 5, 17})
    {
      CAPTURE(len);
      CHECK(rk::reduce(policy, raw + 1, raw + 1 + len, std::int64_t{0}) == host_sum(1, 1 + len));
    }
    // int8 items widened into an int64 accumulator, from every alignment.
    const std::int8_t* raw_bytes = thrust::raw_pointer_cast(d_bytes.data());
    for (std::int64_t offset : {0, 1, 3, 15})
    {
      CAPTURE(offset);
      CHECK(rk::reduce(policy, raw_bytes + offset, raw_bytes + n, std::int64_t{0})
            == std::accumulate(bytes.begin() + offset, bytes.end(), std::int64_t{0}));
    }
  }

  SUBCASE("counting and constant iterators")
  {
    const thrust::counting_iterator<std::int64_t> count(0);
    CHECK(rk::reduce(policy, count, count + n, std::int64_t{5}) == 5 + n * (n - 1) / 2);
    const thrust::constant_iterator<std::int32_t> three(3);
    CHECK(rk::reduce(policy, three, three + n, std::int64_t{0}) == 3 * n);
  }

  SUBCASE("transform, zip and permutation iterators")
  {
    const auto squares            = thrust::make_transform_iterator(d_ints.begin(), square{});
    std::int64_t expected_squares = 0;
    for (auto x : ints)
    {
      expected_squares += std::int64_t{x} * x;
    }
    CHECK(rk::reduce(policy, squares, squares + n, std::int64_t{0}) == expected_squares);

    const auto pairs = thrust::make_transform_iterator(thrust::make_zip_iterator(d_ints.begin(), d_others.begin()),
                                                       product_of_pair{});
    std::int64_t expected_dot = 0;
    for (std::int64_t i = 0; i < n; ++i)
    {
      expected_dot += std::int64_t{ints[i]} * others[i];
    }
    CHECK(rk::reduce(policy, pairs, pairs + n, std::int64_t{0}) == expected_dot);

    const auto backwards = thrust::make_permutation_iterator(
      d_ints.begin(), thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), reversed_index{n}));
    CHECK(rk::reduce(policy, backwards, backwards + n, std::int64_t{0}) == host_sum(0, n));
  }
}
} // namespace

RK_GPU_TEST_CASE("rk::two_pass: every input kind")
{
  check_every_input_kind(rk::two_pass);
}
RK_GPU_TEST_CASE("rk::single_pass: every input kind")
{
  check_every_input_kind(rk::single_pass);
}
RK_GPU_TEST_CASE("rk::atomic: every input kind")
{
  check_every_input_kind(rk::atomic);
}
RK_GPU_TEST_CASE("rk::device: every input kind")
{
  check_every_input_kind(rk::device);
}

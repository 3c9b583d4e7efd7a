// Types, operators, inputs and launch shapes the README promises, at their edges: a commutative
// user type with no default constructor through the compare-and-swap route, the standard
// library's function objects, pairs at addresses 16-byte vectors cannot reach in step, injected
// tunings, cuda::std::span, registered and pageable host memory, another GPU's memory, and more
// than 2^31 items through a raw device pointer.

#include "gpu_harness.cuh"

#include <thrust/sequence.h>

#include <cuda/std/span>

#include <functional>
#include <limits>

namespace
{
/// {value, index} with no default constructor; arg_min keeps the smaller value, then the smaller
/// index: associative and commutative, 8 bytes, no hardware atomic.
struct value_index
{
  __host__ __device__ value_index(float v, std::int32_t i)
      : value(v)
      , index(i)
  {}
  float value;
  std::int32_t index;
  friend bool operator==(const value_index& a, const value_index& b)
  {
    return a.value == b.value && a.index == b.index;
  }
};

struct arg_min
{
  __host__ __device__ value_index operator()(const value_index& a, const value_index& b) const
  {
    return (b.value < a.value || (b.value == a.value && b.index < a.index)) ? b : a;
  }
};

struct to_value_index
{
  __host__ __device__ value_index operator()(std::int64_t i) const
  {
    // Many ties, the smallest value first seen far from the start.
    const auto hashed = static_cast<std::uint32_t>(i * 2654435761u) >> 20;
    // The minimum, -1, twice: the first one's index must win, whichever order blocks combine in.
    const bool minimum = i == 777'777 || i == 2'345'678;
    return value_index(minimum ? -1.0f : static_cast<float>(hashed % 1000), static_cast<std::int32_t>(i));
  }
};

/// A pair whose alignment (4) is below its size (8).
struct int_pair
{
  std::int32_t a, b;
  friend bool operator==(const int_pair& x, const int_pair& y)
  {
    return x.a == y.a && x.b == y.b;
  }
};

struct pair_sum
{
  __host__ __device__ int_pair operator()(const int_pair& x, const int_pair& y) const
  {
    return int_pair{x.a + y.a, x.b + y.b};
  }
};
} // namespace

template <>
struct rk::is_commutative<arg_min> : std::true_type
{};

static_assert(!std::is_default_constructible_v<value_index> && sizeof(value_index) == 8);

RK_GPU_TEST_CASE("a commutative 8-byte user type with no default constructor, on rk::device and rk::atomic")
{
  const std::int64_t n = 3'000'001;
  const auto items     = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_value_index{});
  value_index expected(std::numeric_limits<float>::infinity(), -1);
  for (std::int64_t i = 0; i < n; ++i)
  {
    expected = arg_min{}(expected, to_value_index{}(i));
  }
  REQUIRE(expected.index == 777'777);
  // Marked commutative above: rk::check_operator agrees, ties and infinities included.
  const auto inf   = std::numeric_limits<float>::infinity();
  const auto check = rk::check_operator<value_index>(
    arg_min{}, std::vector<value_index>{{1.0f, 3}, {1.0f, 2}, {-inf, 9}, {inf, 0}, {0.5f, 7}, {-inf, 4}});
  CHECK(check.associative);
  CHECK(check.commutative);
  const value_index init(std::numeric_limits<float>::infinity(), -1);
  CHECK(rk::reduce(rk::device, items, items + n, init, arg_min{}) == expected);
  CHECK(rk::reduce(rk::atomic, items, items + n, init, arg_min{}) == expected);
  // Thrust's containers would need a default constructor: a plain allocation holds the result.
  value_index* out = nullptr;
  REQUIRE(cudaMalloc(&out, sizeof(value_index)) == cudaSuccess);
  auto read_out = [&] {
    value_index got(0, 0);
    REQUIRE(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost) == cudaSuccess);
    return got;
  };
  rk::reduce_into(rk::device, items, items + n, out, init, arg_min{});
  CHECK(read_out() == expected);
  rk::reduce_into(rk::atomic, items, items + n, out, init, arg_min{});
  CHECK(read_out() == expected);
  cudaFree(out);
}

namespace
{
template <class Policy>
void standard_function_objects(Policy policy)
{
  const std::int64_t n = 1'000'003;
  std::vector<std::int32_t> host(n);
  std::int64_t sum    = 0;
  std::uint32_t xored = 0x5a5a;
  for (std::int64_t i = 0; i < n; ++i)
  {
    host[i] = static_cast<std::int32_t>((i * 7919) % 1001) - 500;
    sum += host[i];
    xored ^= static_cast<std::uint32_t>(host[i]);
  }
  const thrust::device_vector<std::int32_t> items(host.begin(), host.end());
  const auto as_unsigned = thrust::make_transform_iterator(items.begin(), [] __host__ __device__(std::int32_t x) {
    return static_cast<std::uint32_t>(x);
  });
  CHECK(rk::reduce(policy, items.begin(), items.end(), std::int64_t{3}, std::plus<std::int64_t>{}) == sum + 3);
  CHECK(rk::reduce(policy, items.begin(), items.end(), std::int64_t{3}, std::plus<>{}) == sum + 3);
  CHECK(rk::reduce(policy, as_unsigned, as_unsigned + n, 0x5a5au, std::bit_xor<>{}) == xored);
  CHECK(rk::reduce(policy, as_unsigned, as_unsigned + n, 0x5a5au, std::bit_xor<std::uint32_t>{}) == xored);
  thrust::device_vector<std::int64_t> out(1);
  rk::reduce_into(policy, items.begin(), items.end(), out.data(), std::int64_t{-1}, std::plus<std::int64_t>{});
  CHECK(out[0] == sum - 1);
}
} // namespace

RK_GPU_TEST_CASE("std::plus, std::plus<>, std::bit_xor<> work with every GPU policy")
{
  standard_function_objects(rk::device);
  standard_function_objects(rk::two_pass);
  standard_function_objects(rk::single_pass);
  standard_function_objects(rk::atomic);
}

RK_GPU_TEST_CASE("pairs at an address 16-byte vectors cannot reach in step are read by the whole grid")
{
  const std::int64_t n = (std::int64_t{1} << 22) + 3;
  thrust::device_vector<std::int32_t> storage(2 * n + 2);
  thrust::sequence(storage.begin(), storage.end(), 0);
  // storage[k] = k; pair i starting at int 1 is {2i + 1, 2i + 2}.
  const auto* shifted = reinterpret_cast<const int_pair*>(thrust::raw_pointer_cast(storage.data()) + 1);
  const auto* aligned = reinterpret_cast<const int_pair*>(thrust::raw_pointer_cast(storage.data()));
  REQUIRE(reinterpret_cast<std::uintptr_t>(shifted) % sizeof(int_pair) != 0);
  const int_pair init{5, 6};
  auto expected = [&](std::int64_t first) {
    std::int64_t a = 0, b = 0;
    for (std::int64_t i = 0; i < n; ++i)
    {
      a += 2 * i + first;
      b += 2 * i + first + 1;
    }
    return int_pair{static_cast<std::int32_t>(5 + a), static_cast<std::int32_t>(6 + b)};
  };
  CHECK(rk::reduce(rk::device, shifted, shifted + n, init, pair_sum{}) == expected(1));
  CHECK(rk::reduce(rk::two_pass, shifted, shifted + n, init, pair_sum{}) == expected(1));
  CHECK(rk::reduce(rk::device, aligned, aligned + n, init, pair_sum{}) == expected(0));
  // The call's own choice of input: the element reader, for the whole grid, whose tiles take
  // shifted 16-byte vectors (8-byte items at 4-byte alignment: 1 to 3 words past the grid).
  const auto& device = rk::detail::current_device_facts();
  rk::detail::with_kernel_input(shifted, &device, [](auto input) {
    CHECK(std::is_same_v<decltype(input), rk::detail::element_pointer<int_pair>>);
  });
  rk::detail::with_kernel_input(aligned, &device,
                                [](auto input) { CHECK(std::is_same_v<decltype(input), const int_pair*>); });
  const auto off_grid = rk::explain(rk::device, shifted, shifted + n, init, pair_sum{});
  CHECK(off_grid.reason.find("16-byte vectors shifted into place by shuffles") != std::string::npos);
  CHECK(off_grid.reason.find("not on a 16-byte boundary") != std::string::npos);
  CHECK(rk::explain(rk::device, aligned, aligned + n, init, pair_sum{}).reason.find("16-byte vectors")
        != std::string::npos);
}

RK_GPU_TEST_CASE("injected tunings: a one-warp block, and a grid of more than 8 * block_threads partials")
{
  using one_warp       = rk::fixed_tuning<32, 1, 1, 1>;
  using wide_grid      = rk::fixed_tuning<64, 1, 1, 1, 4>;
  const std::int64_t n = 5'000'011;
  const auto segments  = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                         rk_test::to_segment{});
  const rk_test::segment init{-2, 0};
  const rk_test::segment expected{-2, n};

  // The grid is capped by occupancy: make sure these shapes do exceed the one-round-trip final pass.
  using agent = rk::detail::reduce_agent<one_warp, decltype(segments), rk_test::segment>;
  using launcher =
    rk::detail::single_pass_launcher<one_warp, decltype(segments), rk_test::segment, rk_test::segment_merge>;
  const auto cap = launcher::max_blocks(rk::detail::current_device_facts());
  CHECK(cap > rk::detail::final_partials_per_thread * agent::block_threads);

  CHECK(rk::reduce(rk::single_pass.tuned<one_warp>(), segments, segments + n, init, rk_test::segment_merge{})
        == expected);
  CHECK(rk::reduce(rk::two_pass.tuned<one_warp>(), segments, segments + n, init, rk_test::segment_merge{}) == expected);
  CHECK(rk::reduce(rk::single_pass.tuned<wide_grid>(), segments, segments + n, init, rk_test::segment_merge{})
        == expected);
  CHECK(rk::reduce(rk::device.tuned<wide_grid>(), segments, segments + n, init, rk_test::segment_merge{}) == expected);
  const thrust::counting_iterator<std::int64_t> count(0);
  CHECK(rk::reduce(rk::atomic.tuned<one_warp>(), count, count + n, std::int64_t{1}) == 1 + n * (n - 1) / 2);
  thrust::device_vector<std::int32_t> ones(n, 1);
  CHECK(rk::reduce(rk::single_pass.tuned<one_warp>(), ones.data(), ones.data() + n, std::int64_t{0}) == n);
  CHECK(rk::reduce(rk::two_pass.tuned<wide_grid>(), ones.data() + 1, ones.data() + n, std::int64_t{0}) == n - 1);
}

RK_GPU_TEST_CASE("cuda::std::span iterators over device memory are read; over pageable memory they are refused")
{
  thrust::device_vector<std::int32_t> items(100'003, 2);
  const cuda::std::span<const std::int32_t> on_device(thrust::raw_pointer_cast(items.data()), items.size());
  CHECK(rk::reduce(rk::device, on_device.begin(), on_device.end(), std::int64_t{1}) == 1 + 2 * 100'003);
  CHECK(rk::reduce(rk::two_pass, on_device.begin() + 3, on_device.end(), 0) == 2 * 100'000);
  std::vector<std::int32_t> pageable(1000, 1);
  const cuda::std::span<const std::int32_t> on_host(pageable.data(), pageable.size());
  if (rk::detail::current_device_facts().pageable_memory_access)
  {
    CHECK(rk::reduce(rk::device, on_host.begin(), on_host.end(), 0) == 1000);
  }
  else
  {
    CHECK_THROWS_AS(rk::reduce(rk::device, on_host.begin(), on_host.end(), 0), rk::host_memory_error);
  }
}

RK_GPU_TEST_CASE("registered host memory is read by every GPU policy")
{
  std::vector<std::int32_t> host(1 << 20);
  for (std::size_t i = 0; i < host.size(); ++i)
  {
    host[i] = static_cast<std::int32_t>(i % 97);
  }
  std::int64_t expected = 0;
  for (auto x : host)
  {
    expected += x;
  }
  REQUIRE(cudaHostRegister(host.data(), host.size() * sizeof(std::int32_t), cudaHostRegisterDefault) == cudaSuccess);
  const std::int32_t* first = host.data();
  const std::int32_t* last  = host.data() + host.size();
  CHECK(rk::reduce(rk::device, first, last, std::int64_t{0}) == expected);
  CHECK(rk::reduce(rk::two_pass, first, last, std::int64_t{0}) == expected);
  CHECK(rk::reduce(rk::single_pass, first + 1, last, std::int64_t{0}) == expected);
  CHECK(rk::reduce(rk::atomic, first, last, std::int64_t{0}) == expected);
  CHECK(cudaHostUnregister(host.data()) == cudaSuccess);
}

// Needs two GPUs: skipped (and reported so) on machines with fewer.
TEST_CASE("another GPU's memory without peer access is refused with rk::error, and read with it"
          * doctest::skip(rk_test::gpu_count() < 2))
{
  std::int32_t* elsewhere = nullptr;
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  REQUIRE(cudaMalloc(&elsewhere, 1000 * sizeof(std::int32_t)) == cudaSuccess);
  REQUIRE(cudaMemset(elsewhere, 0, 1000 * sizeof(std::int32_t)) == cudaSuccess);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  cudaDeviceDisablePeerAccess(1);
  cudaGetLastError();
  try
  {
    (void) rk::reduce(rk::device, elsewhere, elsewhere + 1000, 0);
    FAIL("no exception");
  }
  catch (const rk::host_memory_error& e)
  {
    CHECK(std::string(e.what()).find("memory of GPU 1") != std::string::npos);
  }
  int can_access = 0;
  REQUIRE(cudaDeviceCanAccessPeer(&can_access, 0, 1) == cudaSuccess);
  if (can_access)
  {
    REQUIRE(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
    CHECK(rk::reduce(rk::device, elsewhere, elsewhere + 1000, 7) == 7);
    cudaDeviceDisablePeerAccess(1);
  }
  cudaFree(elsewhere);
}

RK_GPU_TEST_CASE("more than 2^31 items through a raw device pointer, 16-byte vectors, any alignment")
{
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  thrust::device_vector<std::int8_t> items(n, std::int8_t{1});
  items[0]               = 5;
  items[n - 1]           = 7;
  const std::int8_t* raw = thrust::raw_pointer_cast(items.data());
  CHECK(rk::reduce(rk::device, raw, raw + n, std::int64_t{0}) == n - 2 + 12);
  CHECK(rk::reduce(rk::two_pass, raw + 1, raw + n, std::int64_t{0}) == n - 2 + 7);
  thrust::device_vector<std::int64_t> out(1);
  rk::reduce_into(rk::atomic, raw, raw + n - 1, out.data(), std::int64_t{0});
  CHECK(out[0] == n - 2 + 5);
}

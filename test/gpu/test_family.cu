// The reduction family on the GPU policies: rk::transform_reduce, rk::arg_min / arg_max /
// arg_min_max and rk::reduce_by_key (bodies in test/support/family_properties.hpp), plus their
// stream-ordered forms and the GPU-only edges.

#include "../support/family_properties.hpp"
#include "../support/parity_properties.hpp"
#include "../support/spread.hpp"
#include "gpu_harness.cuh"

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using device_harness      = rk_test::gpu_harness<rk::device_policy>;
using two_pass_harness    = rk_test::gpu_harness<rk::two_pass_policy>;
using single_pass_harness = rk_test::gpu_harness<rk::single_pass_policy>;

RK_GPU_TEST_CASE(
  "rk::transform_reduce (GPU policies): sums, bits of rk::reduce over the transformed items, order, init once")
{
  rk_test::transform_reduce_properties(device_harness{});
  rk_test::transform_reduce_properties(two_pass_harness{});
  rk_test::transform_reduce_properties(single_pass_harness{});
}

RK_GPU_TEST_CASE("rk::arg_min / arg_max / arg_min_max (GPU policies): first occurrence, NaN, empty, 64-bit positions")
{
  rk_test::arg_properties(device_harness{});
  rk_test::arg_properties(two_pass_harness{});
  rk_test::arg_properties(single_pass_harness{});
}

RK_GPU_TEST_CASE("rk::transform_reduce and rk::arg_min (GPU policies): more than 2^31 items through iterators")
{
  rk_test::family_large_counts(device_harness{});
  rk_test::family_large_counts(two_pass_harness{});
}

RK_GPU_TEST_CASE("rk::reduce_by_key (GPU policies): run layouts, init once per run, Thrust's form, exact per run")
{
  rk_test::reduce_by_key_properties(device_harness{});
  rk_test::reduce_by_key_properties(two_pass_harness{});
}

namespace
{
/// Keys of 2^31 + 77 items: runs of three items up to item 4500 (short runs, reduced in the run
/// pass), then runs of 2^20 (the long list), so the run positions and numbers are 64-bit.
struct key_of_item
{
  __host__ __device__ std::int64_t operator()(std::int64_t i) const
  {
    return i < 4500 ? i / 3 : 1500 + ((i - 4500) >> 20);
  }
};
} // namespace

RK_GPU_TEST_CASE("rk::reduce_by_key (GPU policies): more than 2^31 items through iterators, short runs and long")
{
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  const auto keys      = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), key_of_item{});
  const auto ones      = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), rk_test::to_one{});
  const std::int64_t wide = ((n - 4500 - 1) >> 20) + 1; // runs of 2^20, the last one cut short
  const std::int64_t runs = 1500 + wide;
  const auto check        = [&](const auto& policy) {
    thrust::device_vector<std::int64_t> key_out(static_cast<std::size_t>(runs)),
      count_out(static_cast<std::size_t>(runs));
    const auto ends = rk::reduce_by_key(policy, keys, keys + n, ones, key_out.begin(), count_out.begin(),
                                               std::int64_t{5}, rk::plus{});
    REQUIRE(ends.first - key_out.begin() == runs);
    REQUIRE(ends.second - count_out.begin() == runs);
    const std::vector<std::int64_t> got_keys(key_out.begin(), key_out.end()),
      counts(count_out.begin(), count_out.end());
    std::int64_t wrong_keys = 0, wrong_counts = 0;
    for (std::int64_t r = 0; r < runs; ++r)
    {
      const std::int64_t want = r < 1500     ? 5 + 3
                                     : r + 1 < runs ? 5 + (std::int64_t{1} << 20)
                                                    : 5 + n - 4500 - ((wide - 1) << 20);
      wrong_keys += got_keys[static_cast<std::size_t>(r)] == r ? 0 : 1;
      wrong_counts += counts[static_cast<std::size_t>(r)] == want ? 0 : 1;
    }
    CHECK(wrong_keys == 0);
    CHECK(wrong_counts == 0);
  };
  check(rk::device);
  check(rk::two_pass);
}

RK_GPU_TEST_CASE("GPU policies: inputs are read-only (mutable zip inputs unchanged), const zip inputs compile")
{
  rk_test::read_only_properties(device_harness{});
  rk_test::read_only_properties(two_pass_harness{});
  rk_test::read_only_properties(single_pass_harness{});
  rk_test::read_only_properties(rk_test::gpu_harness<rk::atomic_policy, true>{});
}

RK_GPU_TEST_CASE(
  "rk::reduce_by_key (GPU policies): zip keys, tuple keys, keys with default member initializers, 64-byte keys")
{
  rk_test::key_type_properties(device_harness{});
  rk_test::key_type_properties(two_pass_harness{});
  rk_test::key_type_properties(single_pass_harness{});
}

RK_GPU_TEST_CASE(
  "rk::arg_min / arg_max / arg_max_last / arg_min_max (GPU policies): a caller's comparator, the last maximum")
{
  rk_test::arg_comparator_properties(device_harness{});
  rk_test::arg_comparator_properties(two_pass_harness{});
  rk_test::arg_comparator_properties(single_pass_harness{});
}

RK_GPU_TEST_CASE(
  "rk::segmented_arg_min / segmented_arg_max (GPU policies): three forms, empty segments, NaN, comparator")
{
  rk_test::segmented_arg_properties(device_harness{});
  rk_test::segmented_arg_properties(two_pass_harness{});
  rk_test::segmented_arg_properties(single_pass_harness{});
}

namespace
{
/// Runs of every length from 1 to 20 (three times over, so that short runs start at every offset
/// from a thread's and a tile's first item), then random lengths 1-40, then two long runs.
std::vector<std::int64_t> every_run_length()
{
  std::vector<std::int64_t> lengths;
  for (int pass = 0; pass < 3; ++pass)
  {
    for (std::int64_t length = 1; length <= 20; ++length)
    {
      lengths.push_back(length);
    }
  }
  const auto random = rk_test::random_run_lengths(30000, 40, 777);
  lengths.insert(lengths.end(), random.begin(), random.end());
  lengths.push_back(5000);
  lengths.push_back(100000);
  return lengths;
}

/// Runs on both sides of the run pass's bounds for mid runs (at most a tree tile: 128 doubles,
/// 256 floats, inside a run-pass tile of 2048 or 4096 items), each after a run of 1 to 17 items
/// so that they start at every offset, then random lengths up to 300.
std::vector<std::int64_t> mid_run_lengths()
{
  std::vector<std::int64_t> lengths;
  const std::int64_t around[] = {9, 17, 33, 127, 128, 129, 255, 256, 257};
  for (int k = 0; k < 300; ++k)
  {
    lengths.push_back(1 + k % 17);
    lengths.push_back(around[k % 9]);
  }
  const auto random = rk_test::random_run_lengths(3000, 300, 4242);
  lengths.insert(lengths.end(), random.begin(), random.end());
  return lengths;
}

template <class F, class Policy>
void check_run_bits(const Policy& policy, const std::vector<std::int64_t>& lengths)
{
  const auto keys = rk_test::run_keys(lengths);
  const auto n    = static_cast<std::int64_t>(keys.size());
  const auto runs = lengths.size();
  CAPTURE(n);
  const rk_test::spread_value<F> draw{77};
  std::vector<F> values(keys.size());
  for (std::int64_t i = 0; i < n; ++i)
  {
    values[static_cast<std::size_t>(i)] = draw(i);
  }
  // rk::host reduces every run with rk's tree, as segmented reduce does: the bits every GPU path must give.
  std::vector<std::int32_t> unused(keys.size());
  std::vector<F> want(keys.size()), want_thrust(keys.size());
  rk::reduce_by_key(rk::host, keys.begin(), keys.end(), values.begin(), unused.begin(), want.begin(), F(0.25),
                    rk::plus{});
  rk::reduce_by_key(rk::host, keys.begin(), keys.end(), values.begin(), unused.begin(), want_thrust.begin(),
                    rk::equal_to{}, rk::plus{});
  const thrust::device_vector<std::int32_t> k(keys.begin(), keys.end());
  const thrust::device_vector<F> v(values.begin(), values.end());
  thrust::device_vector<std::int32_t> key_out(keys.size());
  thrust::device_vector<F> value_out(keys.size());
  const auto same_bits = [&](const std::vector<F>& expected) {
    std::vector<F> got(runs);
    thrust::copy(value_out.begin(), value_out.begin() + static_cast<std::ptrdiff_t>(runs), got.begin());
    return std::memcmp(got.data(), expected.data(), runs * sizeof(F)) == 0;
  };
  const auto ends = rk::reduce_by_key(policy, k.begin(), k.end(), v.begin(), key_out.begin(), value_out.begin(),
                                      F(0.25), rk::plus{});
  REQUIRE(ends.second - value_out.begin() == static_cast<std::ptrdiff_t>(runs));
  CHECK(same_bits(want));
  rk::reduce_by_key(policy, k.begin(), k.end(), v.begin(), key_out.begin(), value_out.begin(), rk::equal_to{},
                    rk::plus{});
  CHECK(same_bits(want_thrust));
  // The values through an iterator (item loads instead of vectors).
  const auto drawn = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), draw);
  rk::reduce_by_key(policy, k.begin(), k.end(), drawn, key_out.begin(), value_out.begin(), F(0.25), rk::plus{});
  CHECK(same_bits(want));
  // Keys and values one item off the 16-byte grid: the run pass's full tiles fall back from
  // vector loads (CUB checks the alignment), with the same bits.
  thrust::device_vector<std::int32_t> k_off(keys.size() + 1);
  thrust::device_vector<F> v_off(keys.size() + 1);
  thrust::copy(k.begin(), k.end(), k_off.begin() + 1);
  thrust::copy(v.begin(), v.end(), v_off.begin() + 1);
  rk::reduce_by_key(policy, k_off.begin() + 1, k_off.end(), v_off.begin() + 1, key_out.begin(), value_out.begin(),
                    F(0.25), rk::plus{});
  CHECK(same_bits(want));
}
} // namespace

RK_GPU_TEST_CASE("rk::reduce_by_key (GPU policies): rk::host's bits for float and double runs of every length")
{
  const std::vector<std::vector<std::int64_t>> layouts = {
    every_run_length(), std::vector<std::int64_t>(2047, 1), std::vector<std::int64_t>(2049, 1), {9}, {2, 7}, {4, 4, 1},
    mid_run_lengths()};
  for (const auto& lengths : layouts)
  {
    check_run_bits<float>(rk::device, lengths);
    check_run_bits<float>(rk::two_pass, lengths);
    check_run_bits<double>(rk::device, lengths);
  }
}

RK_GPU_TEST_CASE("rk::transform_reduce on rk::atomic: integer sums of squares are exact")
{
  const auto items      = rk_test::random_items<std::int32_t>(1000003, 70, rk_test::small_integer<std::int32_t>);
  std::int64_t expected = 3;
  for (std::int32_t x : items)
  {
    expected += std::int64_t{x} * x;
  }
  const thrust::device_vector<std::int32_t> input(items.begin(), items.end());
  CHECK(rk::transform_reduce(rk::atomic, input.begin(), input.end(), std::int64_t{3}, rk::plus{},
                             rk_test::square_to_int64{})
        == expected);
}

RK_GPU_TEST_CASE("rk::transform_reduce_into and rk::arg_*_into: stream-ordered results in device memory")
{
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  thrust::device_vector<float> v(100001);
  thrust::sequence(v.begin(), v.end(), -50000.0f);
  thrust::device_vector<double> sum(1);
  rk::transform_reduce_into(rk::device.on(stream), v.begin(), v.end(), sum.data(), 1.0, rk::plus{},
                            [] __device__(float x) { return static_cast<double>(x) * x; });
  using result = rk::arg_result<float, std::ptrdiff_t>;
  thrust::device_vector<result> min(1), max(1), none(1, result{7.0f, 7});
  thrust::device_vector<rk::arg_min_max_result<float, std::ptrdiff_t>> both(1);
  rk::arg_min_into(rk::device.on(stream), v.begin(), v.end(), min.data());
  rk::arg_max_into(rk::two_pass.on(stream), v.begin(), v.end(), thrust::raw_pointer_cast(max.data()));
  rk::arg_min_max_into(rk::single_pass.on(stream), v.begin(), v.end(), both.data());
  rk::arg_min_into(rk::device.on(stream), v.begin(), v.begin(), none.data());
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  // sum of x^2 for x in [-50000, 50000] = 2 * 50000 * 50001 * 100001 / 6, plus init.
  CHECK(static_cast<double>(sum[0]) == 1.0 + 2.0 * 50000.0 * 50001.0 * 100001.0 / 6.0);
  CHECK(static_cast<result>(min[0]) == result{-50000.0f, 0});
  CHECK(static_cast<result>(max[0]) == result{50000.0f, 100000});
  const rk::arg_min_max_result<float, std::ptrdiff_t> b = both[0];
  CHECK(b.min == result{-50000.0f, 0});
  CHECK(b.max == result{50000.0f, 100000});
  CHECK(static_cast<result>(none[0]).index == -1);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

RK_GPU_TEST_CASE("rk::arg_*_into with a comparator, rk::arg_max_last_into, and segmented arg-min over raw pointers")
{
  rk_test::stream_guard guard;
  // -3 .. 3 twice: by magnitude the minimum is the first 0 and the maxima are the four +-3.
  const std::vector<float> items = {-3, -2, -1, 0, 1, 2, 3, -3, -2, -1, 0, 1, 2, 3};
  const thrust::device_vector<float> v(items.begin(), items.end());
  using result = rk::arg_result<float, std::ptrdiff_t>;
  thrust::device_vector<result> out(4, result{7.0f, 7});
  rk::arg_min_into(rk::device.on(guard.stream), v.begin(), v.end(), out.data(), rk_test::by_magnitude{});
  rk::arg_max_into(rk::single_pass.on(guard.stream), v.begin(), v.end(), out.data() + 1, rk_test::by_magnitude{});
  rk::arg_max_last_into(rk::two_pass.on(guard.stream), v.begin(), v.end(), out.data() + 2, rk_test::by_magnitude{});
  rk::arg_max_last_into(rk::device.on(guard.stream), v.begin(), v.end(), out.data() + 3);
  REQUIRE(cudaStreamSynchronize(guard.stream) == cudaSuccess);
  CHECK(static_cast<result>(out[0]) == result{0.0f, 3});
  CHECK(static_cast<result>(out[1]) == result{-3.0f, 0});
  CHECK(static_cast<result>(out[2]) == result{3.0f, 13});
  CHECK(static_cast<result>(out[3]) == result{3.0f, 13});
  // Raw device pointers, in and out, with offsets behind a raw pointer too.
  const std::vector<std::int64_t> host_offsets = {0, 7, 7, 14};
  const thrust::device_vector<std::int64_t> offsets(host_offsets.begin(), host_offsets.end());
  thrust::device_vector<result> mins(3, result{7.0f, 7});
  rk::segmented_arg_min(rk::device, thrust::raw_pointer_cast(v.data()), thrust::raw_pointer_cast(offsets.data()),
                        thrust::raw_pointer_cast(offsets.data()) + 4, thrust::raw_pointer_cast(mins.data()),
                        rk_test::by_magnitude{});
  CHECK(static_cast<result>(mins[0]) == result{0.0f, 3});
  CHECK(static_cast<result>(mins[1]).index == -1);
  CHECK(static_cast<result>(mins[2]) == result{0.0f, 3});
}

RK_GPU_TEST_CASE("rk::reduce_by_key (GPU): host pointers and a capturing stream are refused with rk::error")
{
  std::vector<int> host_keys(10, 1);
  thrust::device_vector<int> values(10, 1), key_out(10), value_out(10);
  if (!rk::detail::current_device_facts().pageable_memory_access)
  {
    CHECK_THROWS_AS(rk::reduce_by_key(rk::device, host_keys.data(), host_keys.data() + 10, values.begin(),
                                      key_out.begin(), value_out.begin(), 0, rk::plus{}),
                    rk::host_memory_error);
  }
  else
  {
    // HMM or ATS: the GPU reads pageable memory, so rk accepts it, and the run must be right.
    const auto ends = rk::reduce_by_key(rk::device, host_keys.data(), host_keys.data() + 10, values.begin(),
                                        key_out.begin(), value_out.begin(), 0, rk::plus{});
    CHECK(ends.first - key_out.begin() == 1);
    CHECK(static_cast<int>(value_out[0]) == 10);
  }
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  thrust::device_vector<int> keys(10, 1);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  CHECK_THROWS_AS(rk::reduce_by_key(rk::device.on(stream), keys.begin(), keys.end(), values.begin(), key_out.begin(),
                                    value_out.begin(), 0, rk::plus{}),
                  rk::error);
  cudaStreamEndCapture(stream, &graph);
  if (graph != nullptr)
  {
    cudaGraphDestroy(graph);
  }
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

namespace
{
struct square_float
{
  __host__ __device__ float operator()(float x) const
  {
    return x * x;
  }
};
struct scaled_index
{
  __host__ __device__ float operator()(std::int64_t i) const
  {
    return static_cast<float>(i % 2001 - 1000) * 1e-3f;
  }
};
} // namespace

// Found by the soak (test/soak/, seed 7): nvcc fused a transform's last multiply with the sum's
// add into one FMA, so a transformed float sum missed rk::host's (and rk::reduce's) bits by an ulp.
RK_GPU_TEST_CASE("same bits: a transform that ends in a multiply is not fused with the sum (transform_reduce, "
                 "transform iterators, segments over them)")
{
  for (const std::int64_t n : {5, 63, 2048, 16652, 196610, 1 << 20})
  {
    std::vector<float> h(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
    {
      h[static_cast<std::size_t>(i)] = scaled_index{}(i * 7 + 3);
    }
    const thrust::device_vector<float> d(h.begin(), h.end());
    const float gpu  = rk::transform_reduce(rk::device, d.begin(), d.end(), 0.5f, rk::plus{}, square_float{});
    const float host = rk::transform_reduce(rk::host, h.begin(), h.end(), 0.5f, rk::plus{}, square_float{});
    CHECK(std::memcmp(&gpu, &host, sizeof(float)) == 0);
    const float two      = rk::transform_reduce(rk::two_pass, d.begin() + 1, d.end(), 0.5f, rk::plus{}, square_float{});
    const float two_host = rk::transform_reduce(rk::host, h.begin() + 1, h.end(), 0.5f, rk::plus{}, square_float{});
    CHECK(std::memcmp(&two, &two_host, sizeof(float)) == 0);
    const auto computed = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), scaled_index{});
    const float from_iterator = rk::reduce(rk::device, computed, computed + n, 0.25f, rk::plus{});
    std::vector<float> items(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
    {
      items[static_cast<std::size_t>(i)] = scaled_index{}(i);
    }
    const float from_memory = rk::reduce(rk::host, items.begin(), items.end(), 0.25f, rk::plus{});
    CHECK(std::memcmp(&from_iterator, &from_memory, sizeof(float)) == 0);
    // Segments of 1000 items over the computed items: segmented reduce's short and long paths.
    const std::int64_t segments = n / 1000;
    thrust::device_vector<float> out(static_cast<std::size_t>(segments > 0 ? segments : 1));
    std::vector<float> want(static_cast<std::size_t>(segments > 0 ? segments : 1));
    rk::segmented_reduce(rk::device, computed, segments, std::int64_t{1000}, out.begin(), 0.25f, rk::plus{});
    rk::segmented_reduce(rk::host, items.begin(), segments, std::int64_t{1000}, want.begin(), 0.25f, rk::plus{});
    const std::vector<float> got(out.begin(), out.end());
    for (std::int64_t s = 0; s < segments; ++s)
    {
      CHECK(std::memcmp(&got[static_cast<std::size_t>(s)], &want[static_cast<std::size_t>(s)], sizeof(float)) == 0);
    }
  }
}

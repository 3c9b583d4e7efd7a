// Every public GPU algorithm called once on small inputs and checked against rk::host, bit for
// bit where the reproducible tree promises it. The CCCL 3.6 build (scripts/test) compiles and runs
// this suite instead of the full GPU suites: what it must prove there is that each algorithm's
// kernels build and give rk's answers against that CCCL; the properties themselves run in the
// first build, whose kernels are the same templates.

#include "gpu_harness.cuh"

#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace
{
struct square
{
  RK_HOST_DEVICE float operator()(float x) const
  {
    return x * x;
  }
};

template <class T>
bool same_bits(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool same_bits(const std::vector<T>& a, const thrust::device_vector<T>& b)
{
  const thrust::host_vector<T> got(b);
  return got.size() == a.size() && std::memcmp(got.data(), a.data(), a.size() * sizeof(T)) == 0;
}

/// 100,003 floats of mixed signs and magnitudes: enough for several tiles and blocks.
std::vector<float> drawn_floats()
{
  std::vector<float> v(100003);
  for (std::size_t i = 0; i < v.size(); ++i)
  {
    v[i] = static_cast<float>(static_cast<std::int64_t>(i * 2654435761u % 2001) - 1000) / 64.0f;
  }
  return v;
}

/// CSR offsets over n items: segments of 0 to 4,999 items.
std::vector<std::int64_t> csr_offsets(std::int64_t n)
{
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t k = 0; offsets.back() < n; ++k)
  {
    offsets.push_back(std::min<std::int64_t>(n, offsets.back() + k * 7919 % 5000));
  }
  return offsets;
}
} // namespace

RK_GPU_TEST_CASE("every algorithm: reduce and transform_reduce on each GPU backend, rk::host's bits")
{
  const auto h = drawn_floats();
  const thrust::device_vector<float> d(h.begin(), h.end());
  const float want = rk::reduce(rk::host, h.begin(), h.end(), 0.5f, rk::plus{});
  CHECK(same_bits(rk::reduce(rk::device, d.begin(), d.end(), 0.5f, rk::plus{}), want));
  CHECK(same_bits(rk::reduce(rk::two_pass, d.begin(), d.end(), 0.5f, rk::plus{}), want));
  CHECK(same_bits(rk::reduce(rk::single_pass, d.begin(), d.end(), 0.5f, rk::plus{}), want));
  const std::vector<std::int32_t> hi(h.begin(), h.end());
  const thrust::device_vector<std::int32_t> di(hi.begin(), hi.end());
  CHECK(rk::reduce(rk::atomic, di.begin(), di.end(), 3, rk::plus{}) == rk::reduce(rk::seq, hi.begin(), hi.end(), 3));
  CHECK(same_bits(rk::transform_reduce(rk::device, d.begin(), d.end(), 0.0f, rk::plus{}, square{}),
                  rk::transform_reduce(rk::host, h.begin(), h.end(), 0.0f, rk::plus{}, square{})));

  // Non-commutative and without identity: any reordering or a second init breaks the chain.
  const auto chain = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(1), rk_test::to_segment{});
  const auto got   = rk::reduce(rk::device, chain, chain + 300001, rk_test::segment{0, 1}, rk_test::segment_merge{});
  CHECK(got == rk_test::segment{0, 300002});

  thrust::device_vector<float> out(1);
  thrust::device_vector<std::int64_t> count(1, static_cast<std::int64_t>(h.size()));
  rk::reduce_into(rk::device, d.begin(), rk::device_count(count.data().get()), out.data(), 0.5f, rk::plus{});
  CHECK(same_bits(static_cast<float>(out[0]), want));
}

RK_GPU_TEST_CASE("every algorithm: segmented reduce in its three forms and reduce_by_key, rk::host's bits")
{
  const auto h       = drawn_floats();
  const auto n       = static_cast<std::int64_t>(h.size());
  const auto offsets = csr_offsets(n);
  const auto m       = static_cast<std::int64_t>(offsets.size()) - 1;
  const thrust::device_vector<float> d(h.begin(), h.end());
  const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());

  std::vector<float> want(static_cast<std::size_t>(m));
  rk::segmented_reduce(rk::host, h.begin(), offsets.begin(), offsets.end(), want.begin(), 0.5f, rk::plus{});
  thrust::device_vector<float> got(static_cast<std::size_t>(m));
  rk::segmented_reduce(rk::device, d.begin(), d_offsets.begin(), d_offsets.end(), got.begin(), 0.5f, rk::plus{});
  CHECK(same_bits(want, got));
  thrust::fill(got.begin(), got.end(), 0.0f);
  rk::segmented_reduce(rk::two_pass, d.begin(), m, d_offsets.begin(), d_offsets.begin() + 1, got.begin(), 0.5f,
                       rk::plus{});
  CHECK(same_bits(want, got));

  const std::int64_t rows = 97, row_length = n / rows;
  std::vector<float> want_rows(rows);
  rk::segmented_reduce(rk::host, h.begin(), rows, row_length, want_rows.begin(), 0.0f, rk::plus{});
  thrust::device_vector<float> got_rows(rows);
  rk::segmented_reduce(rk::device, d.begin(), rows, row_length, got_rows.begin(), 0.0f, rk::plus{});
  CHECK(same_bits(want_rows, got_rows));

  // A key per segment: the runs are the segments above (empty ones have no run).
  std::vector<std::int32_t> keys(h.size());
  for (std::int64_t s = 0; s < m; ++s)
  {
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
    {
      keys[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(s);
    }
  }
  std::vector<std::int32_t> want_keys(keys.size());
  std::vector<float> want_values(keys.size());
  const auto host_ends = rk::reduce_by_key(rk::host, keys.begin(), keys.end(), h.begin(), want_keys.begin(),
                                           want_values.begin(), 0.5f, rk::plus{});
  const auto runs      = host_ends.second - want_values.begin();
  want_keys.resize(static_cast<std::size_t>(runs));
  want_values.resize(static_cast<std::size_t>(runs));
  const thrust::device_vector<std::int32_t> d_keys(keys.begin(), keys.end());
  thrust::device_vector<std::int32_t> key_out(keys.size());
  thrust::device_vector<float> value_out(keys.size());
  const auto ends = rk::reduce_by_key(rk::device, d_keys.begin(), d_keys.end(), d.begin(), key_out.begin(),
                                      value_out.begin(), 0.5f, rk::plus{});
  REQUIRE(ends.second - value_out.begin() == runs);
  key_out.resize(static_cast<std::size_t>(runs));
  value_out.resize(static_cast<std::size_t>(runs));
  CHECK(same_bits(want_keys, key_out));
  CHECK(same_bits(want_values, value_out));
}

RK_GPU_TEST_CASE("every algorithm: arg_min, arg_max, arg_min_max and segmented_arg_min, rk::host's answers")
{
  auto h = drawn_floats();
  const thrust::device_vector<float> d(h.begin(), h.end());
  CHECK(rk::arg_min(rk::device, d.begin(), d.end()) == rk::arg_min(rk::host, h.begin(), h.end()));
  CHECK(rk::arg_max(rk::two_pass, d.begin(), d.end()) == rk::arg_max(rk::host, h.begin(), h.end()));
  CHECK(rk::arg_max_last(rk::device, d.begin(), d.end()) == rk::arg_max_last(rk::host, h.begin(), h.end()));
  const auto both = rk::arg_min_max(rk::device, d.begin(), d.end());
  CHECK(both.min == rk::arg_min(rk::host, h.begin(), h.end()));
  CHECK(both.max == rk::arg_max(rk::host, h.begin(), h.end()));

  const auto offsets = csr_offsets(static_cast<std::int64_t>(h.size()));
  const auto m       = offsets.size() - 1;
  using result       = rk::arg_result<float, std::ptrdiff_t>;
  std::vector<result> want(m);
  rk::segmented_arg_min(rk::host, h.begin(), offsets.begin(), offsets.end(), want.begin());
  const thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
  thrust::device_vector<result> got(m);
  rk::segmented_arg_min(rk::device, d.begin(), d_offsets.begin(), d_offsets.end(), got.begin());
  const thrust::host_vector<result> back(got);
  for (std::size_t s = 0; s < m; ++s)
  {
    CHECK(back[s] == want[s]);
  }
}

RK_GPU_TEST_CASE("every algorithm: reduce_axes and mean_var over axes, rk::host's bits")
{
  const auto h             = drawn_floats();
  const std::int64_t batch = 12, channels = 7, pixels = 1031;
  const thrust::device_vector<float> d(h.begin(), h.begin() + batch * channels * pixels);
  const cuda::std::mdspan x(d.data().get(), batch, channels, pixels);
  const cuda::std::mdspan xh(h.data(), batch, channels, pixels);

  std::vector<float> want(static_cast<std::size_t>(channels * pixels));
  rk::reduce_axes(rk::host, xh, rk::axes{0}, cuda::std::mdspan(want.data(), channels, pixels), 0.5f);
  thrust::device_vector<float> got(want.size());
  rk::reduce_axes(rk::device, x, rk::axes{0}, cuda::std::mdspan(got.data().get(), channels, pixels), 0.5f);
  CHECK(same_bits(want, got));
  std::vector<float> want_rows(static_cast<std::size_t>(batch * channels));
  rk::reduce_axes(rk::host, xh, rk::axes{2}, cuda::std::mdspan(want_rows.data(), batch, channels), 0.0f);
  thrust::device_vector<float> got_rows(want_rows.size());
  rk::reduce_axes(rk::two_pass, x, rk::axes{2}, cuda::std::mdspan(got_rows.data().get(), batch, channels), 0.0f);
  CHECK(same_bits(want_rows, got_rows));

  using state = rk::mean_var<float>;
  std::vector<state> want_stats(static_cast<std::size_t>(channels));
  rk::transform_reduce_axes(rk::host, xh, rk::axes{0, 2}, cuda::std::mdspan(want_stats.data(), channels), state{},
                            rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  thrust::device_vector<state> got_stats(want_stats.size());
  rk::transform_reduce_axes(rk::device, x, rk::axes{0, 2}, cuda::std::mdspan(got_stats.data().get(), channels), state{},
                            rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  CHECK(same_bits(want_stats, got_stats));
}

RK_GPU_TEST_CASE("every algorithm: partials combined across policies and the accumulator have rk::reduce's bits")
{
  const auto h           = drawn_floats();
  const std::int64_t cut = 40961;
  const thrust::device_vector<float> d(h.begin(), h.end());
  const float want = rk::reduce(rk::device, d.begin(), d.end(), 0.25f, rk::plus{});

  const auto a = rk::reduce_partial(rk::device, d.begin(), d.begin() + cut, 0, rk::plus{});
  const auto b = rk::reduce_partial(rk::host, h.begin() + cut, h.end(), cut, rk::plus{});
  CHECK(same_bits(rk::finish(rk::combine(a, b, rk::plus{}), 0.25f, rk::plus{}), want));

  rk::accumulator acc(rk::device, 0.25f, rk::plus{});
  acc.add(d.begin(), d.begin() + 7);
  acc.add(h.begin() + 7, h.begin() + cut); // pageable host memory
  acc.add(d.begin() + cut, d.end());
  CHECK(same_bits(acc.result(), want));
}

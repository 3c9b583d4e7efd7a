// rk::reduce_axes, rk::transform_reduce_axes, rk::fuse and rk::mean_var on the GPU policies:
// every layout and axis subset with the bits of rk::host, more than 2^31 items, and the same bits
// as the host for the statistics through every algorithm.

#include "axes_shapes.cuh"
#include "gpu_harness.cuh"

#include <rk/reduce.cuh>

#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace
{
using device_harness = rk_test::gpu_harness<rk::device_policy>;
using atomic_harness = rk_test::gpu_harness<rk::atomic_policy, true>;

std::vector<float> normal_floats(std::int64_t n, double mean, double deviation, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(mean, deviation);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v)
  {
    x = static_cast<float>(normal(rng));
  }
  return v;
}
} // namespace

// rk::two_pass and rk::single_pass in test_axes_backends.cu: the three instantiations of the
// shapes are this suite's longest compile, and two sources build in parallel.
RK_GPU_TEST_CASE("rk::reduce_axes (rk::device, rk::atomic): every layout and axis subset, bits of rk::host")
{
  rk_test::axes_shapes(device_harness{});
  rk_test::axes_properties_for_shape<3>(atomic_harness{}, {2, 31, 33});
}

RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): more than 2^31 uint8 items, every way of cutting them")
{
  const std::int64_t rows = (std::int64_t{1} << 20) + 1, cols = 2048; // 2^31 + 2048 items
  thrust::device_vector<std::uint8_t> data(static_cast<std::size_t>(rows * cols), std::uint8_t{1});
  cuda::std::mdspan<const std::uint8_t, cuda::std::dextents<std::int64_t, 2>> x(thrust::raw_pointer_cast(data.data()),
                                                                                rows, cols);
  thrust::device_vector<std::int64_t> out(static_cast<std::size_t>(rows), -1);
  cuda::std::mdspan<std::int64_t, cuda::std::dextents<std::int64_t, 1>> columns(thrust::raw_pointer_cast(out.data()),
                                                                                cols);
  rk::reduce_axes(rk::device, x, rk::axes{0}, columns, std::int64_t{0});
  CHECK(thrust::count(out.begin(), out.begin() + cols, rows) == cols);
  cuda::std::mdspan<std::int64_t, cuda::std::dextents<std::int64_t, 1>> row_sums(thrust::raw_pointer_cast(out.data()),
                                                                                 rows);
  rk::reduce_axes(rk::two_pass, x, rk::axes{1}, row_sums, std::int64_t{0});
  CHECK(thrust::count(out.begin(), out.end(), cols) == rows);
  cuda::std::mdspan<std::int64_t, cuda::std::extents<int>> total(thrust::raw_pointer_cast(out.data()));
  rk::reduce_axes(rk::single_pass, x, rk::axes{1, 0}, total, std::int64_t{5});
  CHECK(out[0] == rows * cols + 5);
}

namespace
{
struct square_of
{
  __host__ __device__ float operator()(float v) const
  {
    return v * v;
  }
};
} // namespace

// Column sums of a tall matrix (the column engine, a block's runs and a finish kernel) and sums of
// squares of its rows (the segment engine), captured once: each replay reads x as it is then.
RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): captured in a CUDA graph, a replay reads x as it is then")
{
  const std::int64_t rows = 40009, cols = 37;
  thrust::device_vector<float> d(static_cast<std::size_t>(rows * cols));
  thrust::device_vector<float> col_sums(cols), row_squares(rows);
  const cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> x(thrust::raw_pointer_cast(d.data()), rows,
                                                                               cols);
  const cuda::std::mdspan<float, cuda::std::dextents<std::int64_t, 1>> cs(thrust::raw_pointer_cast(col_sums.data()),
                                                                          cols);
  const cuda::std::mdspan<float, cuda::std::dextents<std::int64_t, 1>> rs(thrust::raw_pointer_cast(row_squares.data()),
                                                                          rows);
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  rk::reduce_axes(rk::device.on(stream), x, rk::axes{0}, cs, 0.5f);
  rk::transform_reduce_axes(rk::single_pass.on(stream), x, rk::axes{1}, rs, 0.0f, rk::plus{}, square_of{});
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (const std::uint64_t seed : {1u, 2u})
  {
    const std::vector<float> h = rk_test::spread_floats(rows * cols, seed);
    REQUIRE(cudaMemcpyAsync(thrust::raw_pointer_cast(d.data()), h.data(), h.size() * sizeof(float),
                            cudaMemcpyHostToDevice, stream)
            == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> xh(h.data(), rows, cols);
    std::vector<float> want_cols(cols), want_rows(rows);
    rk::reduce_axes(rk::host, xh, rk::axes{0}, cuda::std::mdspan(want_cols.data(), cols), 0.5f);
    rk::transform_reduce_axes(rk::host, xh, rk::axes{1}, cuda::std::mdspan(want_rows.data(), rows), 0.0f, rk::plus{},
                              square_of{});
    const std::vector<float> got_cols(col_sums.begin(), col_sums.end()),
      got_rows(row_squares.begin(), row_squares.end());
    CHECK_MESSAGE(std::equal(got_cols.begin(), got_cols.end(), want_cols.begin(), rk_test::bits_equal<float>),
                  "column sums, replay with seed " << seed);
    CHECK_MESSAGE(std::equal(got_rows.begin(), got_rows.end(), want_rows.begin(), rk_test::bits_equal<float>),
                  "row sums of squares, replay with seed " << seed);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// A wide array's few rows (each output one lane): a thread reads four adjacent columns as one
// vector and stores their four results as one, where out and x lie on the vector's grid. Every
// offset of out and of x from that grid (element by element then) gives the same bits.
RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): outputs of one lane, into an out and from an x off the vector's grid")
{
  const std::int64_t rows = 5, cols = 4100;
  const std::vector<float> h = rk_test::spread_floats(rows * cols + 3, 7);
  thrust::device_vector<float> d(h.begin(), h.end());
  thrust::device_vector<float> o(static_cast<std::size_t>(cols + 3));
  for (const int x_offset : {0, 1, 2})
  {
    const cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> xh(h.data() + x_offset, rows, cols);
    std::vector<float> want(static_cast<std::size_t>(cols));
    rk::reduce_axes(rk::host, xh, rk::axes{0}, cuda::std::mdspan(want.data(), cols), -0.25f);
    const cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> x(
      thrust::raw_pointer_cast(d.data()) + x_offset, rows, cols);
    for (const int out_offset : {0, 1, 2, 3})
    {
      thrust::fill(o.begin(), o.end(), -1.0f);
      rk::reduce_axes(rk::device, x, rk::axes{0},
                      cuda::std::mdspan<float, cuda::std::dextents<std::int64_t, 1>>(
                        thrust::raw_pointer_cast(o.data()) + out_offset, cols),
                      -0.25f);
      const std::vector<float> got(o.begin(), o.end());
      CHECK_MESSAGE(std::equal(want.begin(), want.end(), got.begin() + out_offset, rk_test::bits_equal<float>),
                    "x offset " << x_offset << ", out offset " << out_offset);
      const bool outside_kept = std::all_of(got.begin(), got.begin() + out_offset, [](float v) { return v == -1.0f; })
                             && std::all_of(got.begin() + out_offset + cols, got.end(),
                                            [](float v) { return v == -1.0f; });
      CHECK_MESSAGE(outside_kept, "nothing written outside out, out offset " << out_offset);
    }
  }
}

namespace
{
/// Sums over `axis` of a rows x cols matrix of spread values on every reproducible GPU policy,
/// against rk::host's bits.
template <class T>
void check_matrix_sums(std::int64_t rows, std::int64_t cols, int axis, std::uint64_t seed)
{
  const std::vector<float> spread = rk_test::spread_floats(rows * cols, seed);
  const std::vector<T> h(spread.begin(), spread.end());
  thrust::device_vector<T> d(h.begin(), h.end());
  const std::int64_t outputs = axis == 0 ? cols : rows;
  thrust::device_vector<T> o(static_cast<std::size_t>(outputs));
  const cuda::std::mdspan<const T, cuda::std::dextents<std::int64_t, 2>> xh(h.data(), rows, cols);
  std::vector<T> want(static_cast<std::size_t>(outputs));
  rk::reduce_axes(rk::host, xh, rk::axes{axis}, cuda::std::mdspan(want.data(), outputs), T(0.5));
  const cuda::std::mdspan<const T, cuda::std::dextents<std::int64_t, 2>> x(thrust::raw_pointer_cast(d.data()), rows,
                                                                           cols);
  const cuda::std::mdspan<T, cuda::std::dextents<std::int64_t, 1>> out(thrust::raw_pointer_cast(o.data()), outputs);
  const auto check = [&](const auto& policy, const char* name) {
    thrust::fill(o.begin(), o.end(), T(-1));
    rk::reduce_axes(policy, x, rk::axes{axis}, out, T(0.5));
    const std::vector<T> got(o.begin(), o.end());
    CHECK_MESSAGE(std::equal(got.begin(), got.end(), want.begin(), rk_test::bits_equal<T>),
                  name << ", " << rows << " x " << cols << " over axis " << axis << ", " << sizeof(T) << "-byte items");
  };
  check(rk::device, "rk::device");
  check(rk::two_pass, "rk::two_pass");
  check(rk::single_pass, "rk::single_pass");
}
} // namespace

// A tall matrix's few columns: so many chunks an output that each finish block takes one output,
// whose chunk nodes the nodes kernel lays out output by output (read as vectors in full batches,
// item by item in a short last one). On a 132-SM GPU the floats' 1,031 chunks fit the one-batch
// finish; the doubles' 2,061 and the 2^24 + 3 rows' 2,049 take the long-run one. The sanitizers
// run the first shape only.
RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): a tall matrix's columns, its chunk nodes output by output")
{
  check_matrix_sums<float>((std::int64_t{1} << 21) + 12345, 3, 0, 11);
  if (!rk_test::quick_mode())
  {
    check_matrix_sums<double>((std::int64_t{1} << 21) + 12345, 3, 0, 12);
    check_matrix_sums<float>((std::int64_t{1} << 24) + 3, 2, 0, 13);
  }
}

// A wide array's few rows, each output two lanes (the second short, or both full): a thread of
// doubles reads two adjacent outputs as one vector a row and folds each output's two lanes in
// order; floats of two lanes go an output a thread.
RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): outputs of two lanes, read as vectors")
{
  check_matrix_sums<float>(13, 4100, 0, 31);
  check_matrix_sums<float>(16, 4100, 0, 32);
  check_matrix_sums<double>(7, 4100, 0, 33);
  check_matrix_sums<double>(8, 4100, 0, 34);
}

RK_GPU_TEST_CASE("rk::explain_axes (GPU policies): the engine that runs, after the call's own checks")
{
  thrust::device_vector<float> d(64 * 1024), out(1024);
  float* o = thrust::raw_pointer_cast(out.data());
  const cuda::std::mdspan<const float, cuda::std::dextents<int, 2>> x(thrust::raw_pointer_cast(d.data()), 64, 1024);
  const rk::explanation columns = rk::explain_axes(rk::device, x, rk::axes{0}, cuda::std::mdspan(o, 1024), 0.0f);
  CHECK(columns.backend == "columns");
  CHECK(columns.reproducible);
  CHECK(columns.size == 64 * 1024);
  const rk::explanation rows = rk::explain_axes(rk::device, x, rk::axes{1}, cuda::std::mdspan(o, 64), 0.0f);
  CHECK(rows.backend == "single_pass");
  CHECK(rows.reproducible);
  CHECK(rows.reason.find("as x's rows in place") != std::string::npos);
  const cuda::std::mdspan<const float, cuda::std::dextents<int, 3>> x3(thrust::raw_pointer_cast(d.data()), 4, 16, 1024);
  const rk::explanation runs = rk::explain_axes(rk::two_pass, x3, rk::axes{2, 0}, cuda::std::mdspan(o, 16), 0.0f);
  CHECK(runs.backend == "runs");
  CHECK(runs.reproducible);
  const cuda::std::mdspan<const float, cuda::std::dextents<int, 3>> x3b(thrust::raw_pointer_cast(d.data()), 4, 16,
                                                                        1000);
  const rk::explanation mapped = rk::explain_axes(rk::two_pass, x3b, rk::axes{2, 0}, cuda::std::mdspan(o, 16), 0.0f);
  CHECK(mapped.backend == "two_pass");
  CHECK(mapped.reason.find("index map") != std::string::npos);
  const cuda::std::mdspan<const float, cuda::std::dextents<int, 3>, cuda::std::layout_left> left(
    thrust::raw_pointer_cast(d.data()), 4, 16, 1024);
  const rk::explanation left_runs = rk::explain_axes(rk::device, left, rk::axes{0, 2}, cuda::std::mdspan(o, 16), 0.0f);
  CHECK(left_runs.backend == "columns");
  CHECK(left_runs.reason.find("over runs") != std::string::npos);
  using strided = cuda::std::layout_stride::mapping<cuda::std::dextents<int, 1>>;
  const cuda::std::mdspan<int, cuda::std::dextents<int, 1>, cuda::std::layout_stride> gapped(
    reinterpret_cast<int*>(o), strided(cuda::std::dextents<int, 1>(64), cuda::std::array<int, 1>{2}));
  const cuda::std::mdspan<const int, cuda::std::dextents<int, 2>> xi(reinterpret_cast<const int*>(x.data_handle()), 64,
                                                                     1024);
  CHECK(rk::explain_axes(rk::atomic, xi, rk::axes{1}, gapped, 0).reason.find("throws rk::error") != std::string::npos);
  CHECK_THROWS_AS(rk::explain_axes(rk::device, x, rk::axes{2}, cuda::std::mdspan(o, 64), 0.0f), rk::error);
}

// Found by the soak (issue 27): an empty x's data handle was checked as the input of the segment
// engine, and one past the end of an allocation (or null) read as host memory.
RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): an empty x with any data handle writes init, reading nothing")
{
  thrust::device_vector<float> out(4, -1.0f);
  const cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 2>> x(nullptr, 0, 4);
  const cuda::std::mdspan<float, cuda::std::dextents<std::int64_t, 1>> o(thrust::raw_pointer_cast(out.data()), 4);
  rk::reduce_axes(rk::device, x, rk::axes{0}, o, 2.5f);
  CHECK(thrust::count(out.begin(), out.end(), 2.5f) == 4);
  thrust::fill(out.begin(), out.end(), -1.0f);
  rk::reduce_axes(rk::two_pass, x, rk::axes{0}, o, 1.5f);
  CHECK(thrust::count(out.begin(), out.end(), 1.5f) == 4);
  // The same through segmented reduce's fixed-size form: four segments of no items.
  thrust::fill(out.begin(), out.end(), -1.0f);
  rk::segmented_reduce(rk::device, static_cast<const float*>(nullptr), 4, 0, out.begin(), 0.5f, rk::plus{});
  CHECK(thrust::count(out.begin(), out.end(), 0.5f) == 4);
}

RK_GPU_TEST_CASE("rk::reduce_axes (GPU policies): host memory and rk::atomic into a strided out are errors")
{
  std::vector<float> host(12, 1.0f);
  thrust::device_vector<float> out(4, 0.0f);
  cuda::std::mdspan<const float, cuda::std::dextents<int, 2>> x_host(host.data(), 3, 4);
  cuda::std::mdspan<float, cuda::std::dextents<int, 1>> o(thrust::raw_pointer_cast(out.data()), 4);
  CHECK_THROWS_AS(rk::reduce_axes(rk::device, x_host, rk::axes{0}, o, 0.0f), rk::error);
  thrust::device_vector<int> items(12, 1), sums(8, 0);
  cuda::std::mdspan<const int, cuda::std::dextents<int, 2>> x(thrust::raw_pointer_cast(items.data()), 3, 4);
  using strided = cuda::std::layout_stride::mapping<cuda::std::dextents<int, 1>>;
  cuda::std::mdspan<int, cuda::std::dextents<int, 1>, cuda::std::layout_stride> every_other(
    thrust::raw_pointer_cast(sums.data()), strided(cuda::std::dextents<int, 1>(4), cuda::std::array<int, 1>{2}));
  CHECK_THROWS_WITH_AS(rk::reduce_axes(rk::atomic, x, rk::axes{0}, every_other, 0),
                       doctest::Contains("out must be one dense run"), rk::error);
  rk::reduce_axes(rk::device, x, rk::axes{0}, every_other, 0);
  CHECK(std::vector<int>(sums.begin(), sums.end()) == std::vector<int>{3, 0, 3, 0, 3, 0, 3, 0});
}

RK_GPU_TEST_CASE("rk::mean_var (GPU policies): the bits of rk::host through transform_reduce, axes, segments, keys")
{
  const std::int64_t n = 3000007;
  const auto v         = normal_floats(n, 1000.0, 1.0, 11);
  thrust::device_vector<float> d(v.begin(), v.end());
  using state      = rk::mean_var<float>;
  const state host = rk::transform_reduce(rk::host, v.begin(), v.end(), state{}, rk::mean_var_op<float>{},
                                          rk::to_mean_var<float>{});
  for (auto gpu : {rk::transform_reduce(rk::device, d.begin(), d.end(), state{}, rk::mean_var_op<float>{},
                                        rk::to_mean_var<float>{}),
                   rk::transform_reduce(rk::two_pass, d.begin(), d.end(), state{}, rk::mean_var_op<float>{},
                                        rk::to_mean_var<float>{})})
  {
    CHECK(rk_test::bits_equal(gpu, host));
  }
  // Batch norm: 8 x 5 x 75001 (batch, channel, pixels), statistics of every channel.
  const std::int64_t batch = 8, channels = 5, pixels = n / 40;
  cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 3>> x(thrust::raw_pointer_cast(d.data()), batch,
                                                                         channels, pixels);
  cuda::std::mdspan<const float, cuda::std::dextents<std::int64_t, 3>> xh(v.data(), batch, channels, pixels);
  thrust::device_vector<state> d_stats(static_cast<std::size_t>(channels));
  std::vector<state> h_stats(static_cast<std::size_t>(channels));
  rk::transform_reduce_axes(rk::device, x, rk::axes{0, 2},
                            cuda::std::mdspan(thrust::raw_pointer_cast(d_stats.data()), channels), state{},
                            rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  rk::transform_reduce_axes(rk::host, xh, rk::axes{0, 2}, cuda::std::mdspan(h_stats.data(), channels), state{},
                            rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
  const std::vector<state> got(d_stats.begin(), d_stats.end());
  for (std::int64_t c = 0; c < channels; ++c)
  {
    CHECK(rk_test::bits_equal(got[static_cast<std::size_t>(c)], h_stats[static_cast<std::size_t>(c)]));
    CHECK(got[static_cast<std::size_t>(c)].count == batch * pixels);
  }
  // Segments and runs of keys over per-item states.
  const std::vector<std::int64_t> offsets{0, 1000, 1000, 2000003, n};
  thrust::device_vector<std::int64_t> d_offsets(offsets.begin(), offsets.end());
  auto d_states = thrust::make_transform_iterator(d.begin(), rk::to_mean_var<float>{});
  std::vector<state> h_states(v.size());
  std::transform(v.begin(), v.end(), h_states.begin(), rk::to_mean_var<float>{});
  thrust::device_vector<state> d_seg(4);
  std::vector<state> h_seg(4);
  rk::segmented_reduce(rk::device, d_states, d_offsets.begin(), d_offsets.end(), d_seg.begin(), state{},
                       rk::mean_var_op<float>{});
  rk::segmented_reduce(rk::host, h_states.begin(), offsets.begin(), offsets.end(), h_seg.begin(), state{},
                       rk::mean_var_op<float>{});
  const std::vector<state> seg(d_seg.begin(), d_seg.end());
  for (std::size_t s = 0; s < 4; ++s)
  {
    CHECK(rk_test::bits_equal(seg[s], h_seg[s]));
  }
}

namespace
{
template <int I>
struct element
{
  template <class Tuple>
  __host__ __device__ float operator()(const Tuple& t) const
  {
    return cuda::std::get<I>(t);
  }
};
} // namespace

// The tree counts tiles in the items read (here the zip's pairs), so each element has the bits of
// a reduction of that element alone over the same zip.
RK_GPU_TEST_CASE("rk::fuse (GPU policies): sum and max of a zip in one pass, each with its bits alone")
{
  const auto a = rk_test::spread_floats(1000003, 3), b = rk_test::spread_floats(1000003, 4);
  thrust::device_vector<float> da(a.begin(), a.end()), db(b.begin(), b.end());
  using pair     = cuda::std::tuple<float, float>;
  const auto zip = thrust::make_zip_iterator(da.begin(), db.begin());
  const auto end = zip + static_cast<std::ptrdiff_t>(da.size());
  for (const pair both : {rk::reduce(rk::device, zip, end, pair{0.0f, -1e30f}, rk::fuse(rk::plus{}, rk::maximum{})),
                          rk::reduce(rk::two_pass, zip, end, pair{0.0f, -1e30f}, rk::fuse(rk::plus{}, rk::maximum{}))})
  {
    CHECK(rk_test::bits_equal(cuda::std::get<0>(both),
                              rk::transform_reduce(rk::device, zip, end, 0.0f, rk::plus{}, element<0>{})));
    CHECK(cuda::std::get<1>(both) == rk::reduce(rk::host, b.begin(), b.end(), -1e30f, rk::maximum{}));
  }
}

// rk_bench_axes: rk::reduce_axes and rk::transform_reduce_axes (rk::mean_var) on NVBench, on the
// shapes of issue 33 (float, layout_right, 2^26 items), against a probe that reads x once and
// writes out once. Every state is checked against the host before it is timed (a mismatch makes
// the exit status 1): x(i) = i % 7, so every sum is exact while it stays below 2^24.
//   reduce_axes    sums over one or two axes: rows, columns, the last axis at 4 to 1024 items an
//                  output, the first axis of tall and wide arrays, a middle axis, axes 0 and 2;
//   mean_var_axes  layer norm's and batch norm's statistics (rk::mean_var).
// perf/torch_axes.py times torch.sum / torch.var_mean on the same shapes; perf/bench_summary.py
// prints the tables and the targets from the JSON.

#include "common.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_axes";

struct axes_case
{
  std::string name;
  std::vector<std::int64_t> extents; // layout_right
  std::vector<int> axes;
};

constexpr std::int64_t mega = std::int64_t{1} << 20;

const std::vector<axes_case>& sum_cases()
{
  static const std::vector<axes_case> cases = {
    {"rows, 8192 x 8192", {8192, 8192}, {1}},
    {"columns, 8192 x 8192", {8192, 8192}, {0}},
    {"last axis, 2^24 x 4", {mega * 16, 4}, {1}},
    {"last axis, 2^20 x 64", {mega, 64}, {1}},
    {"last axis, 65536 x 1024", {65536, 1024}, {1}},
    {"first axis, 2^23 x 8", {mega * 8, 8}, {0}},
    {"first axis, 2^20 x 64", {mega, 64}, {0}},
    {"first axis, 64 x 2^20", {64, mega}, {0}},
    {"first axis, 8 x 2^23", {8, mega * 8}, {0}},
    {"middle axis, 64 x 1024 x 1024", {64, 1024, 1024}, {1}},
    {"axes 0 and 2, 32 x 256 x 8192", {32, 256, 8192}, {0, 2}},
    {"axes 0 and 2, 256 x 512 x 512", {256, 512, 512}, {0, 2}},
  };
  return cases;
}

const std::vector<axes_case>& statistics_cases()
{
  static const std::vector<axes_case> cases = {
    {"layer norm, 65536 x 1024", {65536, 1024}, {1}},
    {"batch norm, 32 x 256 x 8192", {32, 256, 8192}, {0, 2}},
  };
  return cases;
}

std::vector<std::string> names_of(const std::vector<axes_case>& cases)
{
  std::vector<std::string> names;
  for (const auto& c : cases)
  {
    names.push_back(c.name);
  }
  return names;
}

const axes_case& find_case(const std::vector<axes_case>& cases, const std::string& name)
{
  for (const auto& c : cases)
  {
    if (c.name == name)
    {
      return c;
    }
  }
  throw std::runtime_error("rk_bench_axes: no case named '" + name + "'");
}

bool is_reduced(const axes_case& c, std::size_t axis)
{
  for (int a : c.axes)
  {
    if (a == static_cast<int>(axis))
    {
      return true;
    }
  }
  return false;
}

/// Exact host sums of x's items per output (row-major over the kept axes): one pass over x.
std::vector<double> host_sums(const axes_case& c)
{
  const std::size_t rank = c.extents.size();
  std::int64_t outputs = 1, items = 1;
  for (std::size_t k = 0; k < rank; ++k)
  {
    items *= c.extents[k];
    outputs *= is_reduced(c, k) ? 1 : c.extents[k];
  }
  std::vector<double> sums(static_cast<std::size_t>(outputs), 0.0);
  std::vector<std::int64_t> digit(rank, 0);
  for (std::int64_t i = 0; i < items; ++i)
  {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < rank; ++k)
    {
      o = is_reduced(c, k) ? o : o * c.extents[k] + digit[k];
    }
    sums[static_cast<std::size_t>(o)] += static_cast<double>(i % 7);
    for (std::size_t k = rank; k-- > 0;)
    {
      if (++digit[k] < c.extents[k])
      {
        break;
      }
      digit[k] = 0;
    }
  }
  return sums;
}

/// Calls f(x as a rank-R mdspan, the output's rank-K extents).
template <std::size_t R, std::size_t K, class F>
void with_views(const axes_case& c, const float* x, F&& f)
{
  using x_extents   = cuda::std::dextents<std::int64_t, R>;
  using out_extents = cuda::std::dextents<std::int64_t, K>;
  cuda::std::array<std::int64_t, R> e{};
  cuda::std::array<std::int64_t, K> kept{};
  std::size_t j = 0;
  for (std::size_t a = 0; a < R; ++a)
  {
    e[a] = c.extents[a];
    if (!is_reduced(c, a))
    {
      kept[j++] = c.extents[a];
    }
  }
  f(cuda::std::mdspan<const float, x_extents>(x, x_extents(e)), out_extents(kept));
}

template <class F>
void with_case_views(const axes_case& c, const float* x, F&& f)
{
  if (c.extents.size() == 2)
  {
    with_views<2, 1>(c, x, f);
  }
  else if (c.axes.size() == 1)
  {
    with_views<3, 2>(c, x, f);
  }
  else
  {
    with_views<3, 1>(c, x, f);
  }
}

struct mod7
{
  __host__ __device__ float operator()(std::int64_t i) const
  {
    return static_cast<float>(i % 7);
  }
};

void axes_body(nvbench::state& state, bool statistics)
{
  const axes_case& c = find_case(statistics ? statistics_cases() : sum_cases(), state.get_string("Case"));
  std::int64_t items = 1;
  for (std::int64_t e : c.extents)
  {
    items *= e;
  }
  if (items != state.get_int64("Elements"))
  {
    state.skip("every shape holds 2^26 items");
    return;
  }
  std::int64_t outputs = items;
  for (int a : c.axes)
  {
    outputs /= c.extents[static_cast<std::size_t>(a)];
  }
  using stats = rk::mean_var<float>;
  thrust::device_vector<float> x(static_cast<std::size_t>(items));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(items),
                    x.begin(), mod7{});
  thrust::device_vector<stats> out(static_cast<std::size_t>(outputs));
  const float* in        = thrust::raw_pointer_cast(x.data());
  void* o                = thrust::raw_pointer_cast(out.data());
  const std::size_t each = statistics ? sizeof(stats) : sizeof(float);
  state.add_element_count(static_cast<std::size_t>(items));
  state.add_global_memory_reads<float>(static_cast<std::size_t>(items));
  state.add_global_memory_writes<unsigned char>(static_cast<std::size_t>(outputs) * each);
  const std::string& impl = state.get_string("Impl");
  if (impl == "probe")
  {
    thrust::device_vector<unsigned> sink(static_cast<std::size_t>(outputs) * each / 4);
    auto* s          = thrust::raw_pointer_cast(sink.data());
    const int blocks = rk_bench::probe_blocks(rk_bench::read_write_probe);
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      rk_bench::read_write_probe<<<blocks, rk_bench::probe_threads, 0, launch.get_stream()>>>(
        reinterpret_cast<const uint4*>(in), nullptr, items * 4 / 16, s, outputs * static_cast<std::int64_t>(each) / 4);
    });
    return;
  }
  const rk::axes reduced = c.axes.size() == 1 ? rk::axes{c.axes[0]} : rk::axes{c.axes[0], c.axes[1]};
  const auto call        = [&](cudaStream_t stream) {
    with_case_views(c, in, [&](auto xv, auto out_extents) {
      using kept = decltype(out_extents);
      if (statistics)
      {
        rk::transform_reduce_axes(rk::device.on(stream), xv, reduced,
                                         cuda::std::mdspan<stats, kept>(static_cast<stats*>(o), out_extents), stats{},
                                         rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
      }
      else
      {
        rk::reduce_axes(rk::device.on(stream), xv, reduced,
                               cuda::std::mdspan<float, kept>(static_cast<float*>(o), out_extents), 0.0f);
      }
    });
  };
  // Correctness first: a wrong result fails the run.
  const cudaStream_t setup = state.get_cuda_stream();
  call(setup);
  rk_bench::check(cudaStreamSynchronize(setup), "rk::reduce_axes");
  const std::vector<double> want = host_sums(c);
  const std::int64_t per         = items / outputs;
  std::size_t wrong              = 0;
  if (statistics)
  {
    thrust::host_vector<stats> got(out);
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      const double mean = want[i] / static_cast<double>(per);
      wrong += got[i].count != per || std::abs(got[i].mean - mean) > 1e-3 * (1 + mean);
    }
  }
  else
  {
    const float* sums = static_cast<const float*>(o);
    thrust::host_vector<float> got(thrust::device_pointer_cast(sums), thrust::device_pointer_cast(sums) + outputs);
    // Exact while every partial sum is an integer below 2^24; past it the tree's error bound.
    const double tolerance = per * 6 < (1 << 24) ? 0.0 : 1e-6 * std::log2(static_cast<double>(items));
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      wrong += std::abs(static_cast<double>(got[i]) - want[i]) > tolerance * want[i];
    }
  }
  if (wrong != 0)
  {
    rk_bench::fail(state, binary, std::to_string(wrong) + " wrong outputs");
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

void reduce_axes(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { axes_body(state, false); });
}

void mean_var_axes(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { axes_body(state, true); });
}
} // namespace

NVBENCH_BENCH(reduce_axes)
  .set_name("reduce_axes")
  .add_int64_power_of_two_axis("Elements", {26})
  .add_string_axis("Case", names_of(sum_cases()))
  .add_string_axis("Impl", {"rk::device", "probe"});

NVBENCH_BENCH(mean_var_axes)
  .set_name("mean_var_axes")
  .add_int64_power_of_two_axis("Elements", {26})
  .add_string_axis("Case", names_of(statistics_cases()))
  .add_string_axis("Impl", {"rk::device", "probe"});

NVBENCH_MAIN

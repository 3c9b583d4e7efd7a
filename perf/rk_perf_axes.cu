// rk_perf_axes: rk::reduce_axes and rk::transform_reduce_axes (rk::mean_var) on the shapes of
// issue 33, float, against a probe that reads x once and writes out once, in interleaved trials
// (trials.cuh). perf/torch_axes.py times torch.sum / torch.var_mean on the same shapes; the two
// tables go side by side in perf/RESULTS.md. Each sum is checked exactly against the host (items
// are small integers, so every grouping gives the same sum while the sums stay below 2^24).
//
//   rk_perf_axes [--quick]

#include "commit.hpp"
#include "cuda_check.cuh"
#include "probe.cuh"
#include "trials.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#define RK_PERF_CHECK(call) rk_perf::check((call), #call)

namespace
{

struct axes_case
{
  std::string name;
  std::vector<std::int64_t> extents; // layout_right
  std::vector<int> axes;
  bool statistics; // rk::mean_var instead of a sum
};

std::string shape_of(const axes_case& c)
{
  std::string s;
  for (std::size_t k = 0; k < c.extents.size(); ++k)
  {
    s += (k ? " × " : "") + std::to_string(c.extents[k]);
  }
  s += ", axes";
  for (int a : c.axes)
  {
    s += " " + std::to_string(a);
  }
  return s;
}

/// Exact host sums of x's items (x(i) = i % 7 in row-major order) per output: one pass over x.
std::vector<double> host_sums(const axes_case& c)
{
  const std::size_t rank = c.extents.size();
  std::vector<bool> reduced(rank, false);
  for (int a : c.axes)
  {
    reduced[static_cast<std::size_t>(a)] = true;
  }
  std::int64_t outputs = 1, items = 1;
  for (std::size_t k = 0; k < rank; ++k)
  {
    items *= c.extents[k];
    outputs *= reduced[k] ? 1 : c.extents[k];
  }
  std::vector<double> sums(static_cast<std::size_t>(outputs), 0.0);
  std::vector<std::int64_t> digit(rank, 0);
  for (std::int64_t i = 0; i < items; ++i)
  {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < rank; ++k)
    {
      o = reduced[k] ? o : o * c.extents[k] + digit[k];
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

template <std::size_t R, std::size_t K, class F>
void with_views(const axes_case& c, const float* x, F&& f)
{
  using xe = cuda::std::dextents<std::int64_t, R>;
  using oe = cuda::std::dextents<std::int64_t, K>;
  cuda::std::array<std::int64_t, R> e{};
  cuda::std::array<std::int64_t, K> k{};
  std::size_t j = 0;
  for (std::size_t a = 0; a < R; ++a)
  {
    e[a]         = c.extents[a];
    bool reduced = false;
    for (int r : c.axes)
    {
      reduced = reduced || r == static_cast<int>(a);
    }
    if (!reduced)
    {
      k[j++] = c.extents[a];
    }
  }
  f(cuda::std::mdspan<const float, xe>(x, xe(e)), oe(k));
}

void run_case(const axes_case& c, const rk_perf::timing_plan& plan, cudaStream_t stream, std::ostream& os, int& misses)
{
  std::int64_t items = 1, outputs = 1;
  for (std::size_t k = 0; k < c.extents.size(); ++k)
  {
    items *= c.extents[k];
  }
  outputs = items;
  for (int a : c.axes)
  {
    outputs /= c.extents[static_cast<std::size_t>(a)];
  }
  thrust::device_vector<float> x(static_cast<std::size_t>(items));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(items),
                    x.begin(), [] __device__(std::int64_t i) { return static_cast<float>(i % 7); });
  using state = rk::mean_var<float>;
  thrust::device_vector<state> out(static_cast<std::size_t>(outputs));
  thrust::device_vector<unsigned> sink(static_cast<std::size_t>(outputs * 4));
  const float* in              = thrust::raw_pointer_cast(x.data());
  void* o                      = thrust::raw_pointer_cast(out.data());
  const std::int64_t out_bytes = outputs * static_cast<std::int64_t>(c.statistics ? sizeof(state) : sizeof(float));
  auto rk_call                 = [&] {
    auto call = [&](auto xv, auto oext) {
      if (c.statistics)
      {
        rk::transform_reduce_axes(rk::device.on(stream), xv,
                                                  rk::axes(c.axes.size() == 1 ? rk::axes{c.axes[0]} : rk::axes{c.axes[0], c.axes[1]}),
                                                  cuda::std::mdspan<state, decltype(oext)>(static_cast<state*>(o), oext), state{},
                                                  rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
      }
      else
      {
        rk::reduce_axes(rk::device.on(stream), xv,
                        c.axes.size() == 1 ? rk::axes{c.axes[0]} : rk::axes{c.axes[0], c.axes[1]},
                                        cuda::std::mdspan<float, decltype(oext)>(static_cast<float*>(o), oext), 0.0f);
      }
    };
    if (c.extents.size() == 2)
    {
      with_views<2, 1>(c, in, call);
    }
    else
    {
      if (c.axes.size() == 1)
      {
        with_views<3, 2>(c, in, call);
      }
      else
      {
        with_views<3, 1>(c, in, call);
      }
    }
  };
  // Correctness first: a wrong result fails the suite.
  rk_call();
  RK_PERF_CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> want = host_sums(c);
  std::size_t wrong              = 0;
  if (c.statistics)
  {
    thrust::host_vector<state> got(out);
    const std::int64_t per = items / outputs;
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      const double mean = want[i] / static_cast<double>(per);
      wrong += got[i].count != per || std::abs(got[i].mean - mean) > 1e-3 * (1 + mean);
    }
  }
  else
  {
    thrust::device_vector<float> view(reinterpret_cast<float*>(thrust::raw_pointer_cast(out.data())),
                                      reinterpret_cast<float*>(thrust::raw_pointer_cast(out.data())) + outputs);
    thrust::host_vector<float> got(view);
    // Exact while every partial sum is an integer below 2^24; a float sum of more rounds, so
    // there the tree's error bound (n eps sum) applies.
    const double tolerance = want.empty() || (items / outputs) * 6 < (1 << 24) ? 0.0 : 1e-6 * std::log2(items);
    for (std::size_t i = 0; i < want.size(); ++i)
    {
      wrong += std::abs(static_cast<double>(got[i]) - want[i]) > tolerance * want[i];
    }
  }
  if (wrong != 0)
  {
    std::fprintf(stderr, "rk_perf_axes: %s: %zu wrong outputs\n", c.name.c_str(), wrong);
    std::exit(1);
  }
  unsigned* s  = thrust::raw_pointer_cast(sink.data());
  const auto t = rk_perf::time_interleaved(
    stream, plan, {{"rk", rk_call}, {"probe", [&] {
                                       rk_perf::probe_kernel<<<rk_perf::probe_blocks(), 256, 0, stream>>>(
                                         in, items * 4, s, out_bytes / 4);
                                     }}});
  const double ratio = rk_perf::paired(t, 0, 1);
  const double bound = c.statistics ? 1.15 : 1.10;
  misses += ratio > bound;
  char line[512];
  std::snprintf(line, sizeof line, "| %s | %s | %lld | %.1f | %.1f | %.2f | %s |\n", c.name.c_str(),
                shape_of(c).c_str(), static_cast<long long>(items / outputs), t[0].median_us, t[1].median_us, ratio,
                ratio <= bound ? "PASS" : "MISS");
  os << line << std::flush;
}
} // namespace

int main(int argc, char** argv)
{
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  cudaStream_t stream{};
  RK_PERF_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto plan = rk_perf::make_timing_plan(quick, 0, 0);
  cudaDeviceProp prop{};
  RK_PERF_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::cout << "# rk_perf_axes: " << prop.name << ", commit " << rk_perf::commit_id() << "\n\n"
            << "float, layout_right, 2^26 items; probe: a read of x and a write of out. Target: rk ≤ 1.10× the "
               "probe (≤ 1.15× for rk::mean_var).\n\n"
            << "| case | shape, reduced axes | items per output | rk::device µs | probe µs | rk / probe | target |\n"
            << "| --- | --- | ---: | ---: | ---: | ---: | :---: |\n";
  const std::int64_t m               = 1 << 20;
  const std::vector<axes_case> cases = {
    {"row sums", {8192, 8192}, {1}, false},
    {"column sums", {8192, 8192}, {0}, false},
    {"last axis, 4 per output", {m * 16, 4}, {1}, false},
    {"last axis, 64 per output", {m, 64}, {1}, false},
    {"last axis, 1024 per output", {65536, 1024}, {1}, false},
    {"first axis, tall", {m * 8, 8}, {0}, false},
    {"first axis, tall", {m, 64}, {0}, false},
    {"first axis, wide", {64, m}, {0}, false},
    {"first axis, wide", {8, m * 8}, {0}, false},
    {"middle axis", {64, 1024, 1024}, {1}, false},
    {"axes 0 and 2", {32, 256, 8192}, {0, 2}, false},
    {"axes 0 and 2", {256, 512, 512}, {0, 2}, false},
    {"layer norm (mean_var)", {65536, 1024}, {1}, true},
    {"batch norm (mean_var)", {32, 256, 8192}, {0, 2}, true},
  };
  int misses = 0;
  for (const auto& c : cases)
  {
    run_case(c, plan, stream, std::cout, misses);
  }
  std::cout << "\n" << misses << " of " << cases.size() << " cases miss the target\n";
  return 0;
}

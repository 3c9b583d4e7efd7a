// rk_perf_cub_peer: the newest CUB's sum, timed exactly as rk_perf times its rows, for rk_perf's
// report. Built only against the CCCL that RK_PERF_PEER_CCCL_INCLUDE_DIR names (3.6 and up, from
// scripts/fetch-cccl), never together with rk or the toolkit's CCCL: one binary, one CCCL.
//
// Rows, for int32, int64, float and double sums over 2^k elements (cubM.m = the CUB version):
//  - cubM.m                 the two-phase API (temporary storage allocated once), as rk_perf's cub row
//  - cubM.m env             the environment API, default requirements (run_to_run; CUB allocates
//                           its temporary storage with cudaMallocAsync on every call)
//  - cubM.m not_guaranteed  env + cuda::execution::require(determinism::not_guaranteed): the
//                           single-kernel atomic path
//  - cubM.m run_to_run      env + require(determinism::run_to_run)
//  - cubM.m gpu_to_gpu      env + require(determinism::gpu_to_gpu), float and double only (RFA;
//                           for integers CUB takes the run_to_run path anyway)
//  - cubM.m probe           the read probe, in the same trials: rk_perf's ratios to these rows go
//                           through it, since they come from another process (ratios.cuh)
// Method: rk_perf's (interleaved trials, the same pool rotation, warm-up and adaptive rule; see
// rk_perf.cu). Every result is checked once against the two-phase sum. Exit status as rk_perf's.

#include "cli.hpp"
#include "harness.cuh"
#include "ratios.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda/iterator>
#include <cuda/std/execution>
#include <cuda/stream_ref>

#include <fstream>
#include <iostream>
#include <stdexcept>

static_assert(CUB_VERSION >= 300600,
              "rk_perf_cub_peer must compile against CCCL >= 3.6 (RK_PERF_PEER_CCCL_INCLUDE_DIR), not the toolkit's");

namespace rk_perf
{
namespace
{
/// "cub3.6": how the peer's rows are named.
std::string row_prefix()
{
  return "cub" + std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000);
}

/// cub::DeviceReduce::Sum through the environment API, with 32-bit counts where they suffice.
template <class T, class Env>
void env_sum(const T* in, T* out, std::int64_t n, const Env& env)
{
  const cudaError_t status = n <= std::numeric_limits<int>::max()
                             ? cub::DeviceReduce::Sum(in, out, static_cast<int>(n), env)
                             : cub::DeviceReduce::Sum(in, out, n, env);
  check(status, "cub::DeviceReduce::Sum (environment API)");
}

/// The environment of a call on `stream`, with `requirements` (none, or one determinism).
template <class... Requirements>
auto make_env(cudaStream_t stream, Requirements... requirements)
{
  if constexpr (sizeof...(Requirements) == 0)
  {
    return cuda::std::execution::env{cuda::stream_ref{stream}};
  }
  else
  {
    return cuda::std::execution::env{cuda::stream_ref{stream}, cuda::execution::require(requirements...)};
  }
}

struct to_double
{
  __host__ __device__ double operator()(float x) const
  {
    return x;
  }
};

/// The float input's sum accumulated in double, rounded to float: gpu_to_gpu's reference. Its
/// reproducible accumulator is more accurate than a float tree, which drifts from the exact sum by
/// a few percent at 2^30 items (measured on an H100: 536873984 two-phase against 552299520 RFA).
float precise_sum(run_context& ctx, const input_slices<float>& in)
{
  const auto first          = cuda::transform_iterator(in.first(), to_double{});
  const auto n              = static_cast<std::int64_t>(in.size());
  const cudaStream_t stream = ctx.stream.get();
  std::size_t bytes         = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, first, static_cast<double*>(nullptr), n, stream), "sizing");
  void* temp  = nullptr;
  double* sum = nullptr;
  check(cudaMallocAsync(&temp, bytes, stream), "cudaMallocAsync");
  check(cudaMallocAsync(reinterpret_cast<void**>(&sum), sizeof(double), stream), "cudaMallocAsync");
  check(cub::DeviceReduce::Sum(temp, bytes, first, sum, n, stream), "the double-precision reference sum");
  const double result = copy_to_host(sum, stream);
  check(cudaFreeAsync(temp, stream), "cudaFreeAsync");
  check(cudaFreeAsync(sum, stream), "cudaFreeAsync");
  return static_cast<float>(result);
}

/// Checks the environment-API sum with `env` against `want` (`reference` names it), and returns
/// the contender `name` that times it.
template <class T, class Env>
contender checked_env_contender(run_context& ctx, const std::string& type, int log2n, std::string name,
                                input_slices<T>& in, const Env& env, const T& want,
                                const char* reference = "the two-phase CUB sum")
{
  const auto n = static_cast<std::int64_t>(in.size());
  env_sum(in.first(), ctx.result<T>(), n, env);
  ctx.checks.compare(case_name(type, log2n, name), copy_to_host(ctx.result<T>(), ctx.stream.get()), want, reference);
  return {std::move(name), [&ctx, &in, env, n] { env_sum(in.next(), ctx.result<T>(), n, env); }};
}

template <class T>
void measure_case(run_context& ctx, cub_storage& cub, input_slices<T>& in, int log2, std::vector<measurement>& results)
{
  namespace determinism      = cuda::execution::determinism;
  const std::string type     = type_traits<T>::name;
  const std::string cub_name = row_prefix();
  const cudaStream_t stream  = ctx.stream.get();
  const T want               = cub_result(ctx, cub, in);

  std::vector<contender> contenders = {cub_contender(ctx, cub, in, cub_name),
                                       checked_env_contender(ctx, type, log2, cub_name + " env", in, make_env(stream),
                                                             want),
                                       checked_env_contender(ctx, type, log2, cub_name + " not_guaranteed", in,
                                                             make_env(stream, determinism::not_guaranteed), want),
                                       checked_env_contender(ctx, type, log2, cub_name + " run_to_run", in,
                                                             make_env(stream, determinism::run_to_run), want)};
  if constexpr (std::is_same_v<T, float>)
  {
    contenders.push_back(checked_env_contender(ctx, type, log2, cub_name + " gpu_to_gpu", in,
                                               make_env(stream, determinism::gpu_to_gpu), precise_sum(ctx, in),
                                               "the sum accumulated in double"));
  }
  else if constexpr (std::is_floating_point_v<T>)
  {
    contenders.push_back(checked_env_contender(ctx, type, log2, cub_name + " gpu_to_gpu", in,
                                               make_env(stream, determinism::gpu_to_gpu), want));
  }
  contenders.push_back(probe_contender(ctx, in, cub_name + " probe"));
  for (auto& row : measure_interleaved<T>(ctx, type, log2, contenders))
  {
    results.push_back(std::move(row));
  }
}

void print_table(const std::string& type, const std::vector<int>& log2_sizes, const std::vector<measurement>& results)
{
  markdown_table table({"n", "impl", "us/call", "spread %", "GB/s", "vs " + row_prefix(), "% probe", "trials"}, 2);
  for (const int log2 : log2_sizes)
  {
    const measurement* two_phase = find(results, type, log2, row_prefix());
    const measurement* probe     = find(results, type, log2, row_prefix() + " probe");
    for (const auto& m : results)
    {
      if (m.type == type && m.log2n == log2 && m.device)
      {
        table.add_row({power_of_two(log2), m.impl, fixed(m.device->median_us, 2),
                       fixed(spread_percent(m.device->samples_us), 1), fixed(m.gbps(), 1),
                       relative_speed(results, m, two_phase, 1, 2), relative_speed(results, m, probe, 100, 1),
                       std::to_string(m.device->samples_us.size())});
      }
    }
  }
  std::cout << "\n## " << type << "\n\n";
  table.print(std::cout);
  std::cout.flush();
}

template <class T>
std::size_t largest_temp_bytes(const common_options& opt)
{
  return opt.wants_type(type_traits<T>::name) ? cub_temp_bytes_for<T>(opt.log2_sizes) : 0;
}

void print_usage(std::ostream& os)
{
  os << "usage: rk_perf_cub_peer [options]   (rk_perf runs it; see rk_perf --help)\n"
     << common_usage << "Exit status: 0, 1 if a result disagreed with the two-phase sum, 2 on an error.\n";
}

int run(const common_options& opt)
{
  run_context ctx(make_timing_plan(opt.quick, opt.trials, opt.max_trials));
  const run_facts facts = collect_run_facts(ctx);
  std::cout << "# rk_perf CUB peer: " << row_prefix() << "\n\n";
  print_run_facts(std::cout, ctx, facts);

  cub_storage cub(std::max({largest_temp_bytes<std::int32_t>(opt), largest_temp_bytes<std::int64_t>(opt),
                            largest_temp_bytes<float>(opt), largest_temp_bytes<double>(opt)}));
  std::vector<measurement> results;
  for_each_type<std::int32_t, std::int64_t, float, double>([&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!opt.wants_type(type_traits<T>::name))
    {
      return;
    }
    for (const int log2 : opt.log2_sizes)
    {
      if (auto in = prepare_case<T>(ctx, log2))
      {
        measure_case(ctx, cub, *in, log2, results);
      }
    }
    print_table(type_traits<T>::name, opt.log2_sizes, results);
  });

  std::ofstream out(opt.json_path);
  out << "{\n  \"mode\": \"cub_peer\",\n" << json_run_facts(ctx, facts) << json_results(results) << "\n}\n";
  if (!out)
  {
    throw std::runtime_error("writing " + opt.json_path + " failed");
  }
  std::cerr << "rk_perf_cub_peer: wrote " << opt.json_path << "\n";
  return ctx.checks.mismatches() > 0 ? 1 : 0;
}
} // namespace
} // namespace rk_perf

int main(int argc, char** argv)
{
  return rk_perf::run_main("rk_perf_cub_peer", rk_perf::print_usage, [&] {
    rk_perf::common_options opt;
    opt.json_path = "cub_peer.json";
    rk_perf::parse_arguments(argc, argv, opt);
    if (opt.help)
    {
      rk_perf::print_usage(std::cout);
      return 0;
    }
    rk_perf::finish_common_options(opt, rk_perf::default_log2_sizes());
    return rk_perf::run(opt);
  });
}

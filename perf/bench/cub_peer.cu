// rk_bench_cub_peer: the newest CUB's sum, beside rk_bench_reduce's rows. Built only against the
// CCCL that RK_PERF_PEER_CCCL_INCLUDE_DIR names (3.6 and up, from scripts/fetch-cccl), never
// together with rk or the toolkit's CCCL: one binary, one CCCL.
//
// Its benchmark is named "reduce" with rk_bench_reduce's axes, so perf/bench_summary.py reads the
// two runs' files as one ('reduce.json+cub_peer.json') and sets these rows in the same tables. Impl
// (cubM.m = the CUB version):
//  - cubM.m                 the two-phase API, temporary storage allocated once per state
//  - cubM.m env             the environment API, default requirements (run_to_run; CUB allocates
//                           its temporary storage with cudaMallocAsync in every call)
//  - cubM.m not_guaranteed  env + require(determinism::not_guaranteed): the one-kernel atomic path
//  - cubM.m run_to_run      env + require(determinism::run_to_run)
//  - cubM.m gpu_to_gpu      env + require(determinism::gpu_to_gpu), float and double only (RFA;
//                           for integers CUB takes the run_to_run path anyway)
// Every result is checked against the two-phase sum before it is timed; a mismatch makes the exit
// status 1. gpu_to_gpu's float sum is compared with the sum accumulated in double instead, and a
// difference is printed as a note: it measures CUB's accuracy, not whether the call ran.

#include "common.cuh"
#include "cub_peer.cuh"
#include "inputs.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/iterator>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#include <thrust/device_vector.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace
{
using value_types = nvbench::type_list<std::int32_t, std::int64_t, float, double>;

using rk_bench::cub_name;

/// cub::DeviceReduce::Sum through the environment API, with 32-bit counts where they suffice (as
/// the two-phase row and rk's own calls do).
template <class In, class Out, class Env>
void env_sum(In in, Out out, std::int64_t n, const Env& env)
{
  rk_bench::check(n <= std::numeric_limits<int>::max() ? cub::DeviceReduce::Sum(in, out, static_cast<int>(n), env)
                                                       : cub::DeviceReduce::Sum(in, out, n, env),
                  "cub::DeviceReduce::Sum (environment API)");
}

/// The environment of a call on `stream` with `requirements` (none, or one determinism).
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

template <class T>
void peer_body(nvbench::state& state)
{
  namespace determinism     = cuda::execution::determinism;
  const std::int64_t n      = state.get_int64("Elements");
  const std::string& impl   = state.get_string("Impl");
  const cudaStream_t setup  = state.get_cuda_stream();
  const std::string version = cub_name();
  thrust::device_vector<T> in(static_cast<std::size_t>(n));
  thrust::device_vector<T> out(1);
  rk_bench::fill_random(thrust::raw_pointer_cast(in.data()), static_cast<std::size_t>(n), setup);
  const T* first = thrust::raw_pointer_cast(in.data());
  T* result      = thrust::raw_pointer_cast(out.data());
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  state.add_global_memory_writes<T>(1);

  std::size_t bytes = 0;
  rk_bench::check(cub::DeviceReduce::Sum(nullptr, bytes, first, result, n, setup), "sizing CUB's sum");
  thrust::device_vector<std::uint8_t> temp(bytes);
  void* temp_ptr      = thrust::raw_pointer_cast(temp.data());
  const auto two_pass = [&](cudaStream_t stream) {
    std::size_t size = bytes;
    rk_bench::check(cub::DeviceReduce::Sum(temp_ptr, size, first, result, n, stream), "cub::DeviceReduce::Sum");
  };
  two_pass(setup);
  const T want = rk_bench::read_back(result, setup);

  // Checks the environment-API sum against `reference`, then times it. `accuracy_only`: a result
  // off the reference is CUB's inaccuracy, reported but still timed (the call did its work).
  const auto time_env = [&](auto requirement_env_of, const T& reference, bool accuracy_only = false) {
    env_sum(first, result, n, requirement_env_of(setup));
    const T got = rk_bench::read_back(result, setup);
    if (!rk_bench::results_match(got, reference))
    {
      const std::string what = impl + ": " + std::to_string(static_cast<double>(got)) + ", want "
                             + std::to_string(static_cast<double>(reference));
      if (accuracy_only)
      {
        std::fprintf(stderr, "rk_bench_cub_peer: note: %s: %s (timed anyway)\n", state.get_short_description().c_str(),
                     what.c_str());
      }
      else
      {
        rk_bench::fail(state, "rk_bench_cub_peer", what);
      }
    }
    state.exec(nvbench::exec_tag::no_batch,
               [&](nvbench::launch& launch) { env_sum(first, result, n, requirement_env_of(launch.get_stream())); });
  };
  if (impl == version)
  {
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { two_pass(launch.get_stream()); });
  }
  else if (impl == version + " env")
  {
    time_env([](cudaStream_t s) { return make_env(s); }, want);
  }
  else if (impl == version + " not_guaranteed")
  {
    time_env([](cudaStream_t s) { return make_env(s, determinism::not_guaranteed); }, want);
  }
  else if (impl == version + " run_to_run")
  {
    time_env([](cudaStream_t s) { return make_env(s, determinism::run_to_run); }, want);
  }
  else if (impl == version + " gpu_to_gpu")
  {
    if constexpr (!std::is_floating_point_v<T>)
    {
      state.skip("gpu_to_gpu is for floating-point sums (integers take the run_to_run path)");
    }
    else
    {
      T reference = want;
      if constexpr (std::is_same_v<T, float>)
      {
        // RFA's float sum against the sum accumulated in double, the most accurate at hand.
        thrust::device_vector<double> precise(1);
        env_sum(cuda::transform_iterator(first, to_double{}), thrust::raw_pointer_cast(precise.data()), n,
                make_env(setup));
        reference = static_cast<float>(rk_bench::read_back(thrust::raw_pointer_cast(precise.data()), setup));
      }
      // CUB 3.6's float sum of 2^30 items in [0, 1) came out 2.9 % above the double-accumulated sum
      // (H200): an accuracy finding about the peer, not a reason to leave its time out.
      time_env([](cudaStream_t s) { return make_env(s, determinism::gpu_to_gpu); }, reference,
               std::is_same_v<T, float>);
    }
  }
}

template <class T>
void reduce(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, "rk_bench_cub_peer", [&] { peer_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(reduce, NVBENCH_TYPE_AXES(value_types))
  .set_name("reduce")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(10, 30, 2))
  .add_string_axis("Impl", {cub_name(), cub_name() + " env", cub_name() + " not_guaranteed", cub_name() + " run_to_run",
                            cub_name() + " gpu_to_gpu"});

NVBENCH_MAIN

// rk_bench_reduce: rk::reduce_into on every GPU policy against cub::DeviceReduce::Sum (temporary
// storage allocated once per state) and a read probe, on NVBench. Axes: T (int32, int64, float,
// double), Elements (2^10 to 2^30) and Impl. NVBench times each call alone on cold L2 with CUDA
// events behind a blocking kernel (so the host's launch is not in the figure) and samples until
// the noise settles; perf/bench_summary.py turns its JSON into the tables and targets of
// perf/RESULTS.md. Every implementation's result is checked against CUB's before it is timed; a
// mismatch is reported on stderr and makes the exit status 1. Besides rk's policies, Impl holds
// "rk::single_pass grid-ordered" and "rk::two_pass grid-ordered": the same backends with the
// grid-ordered tree (rk::grid_ordered_tuning), what the reproducible tree is held to; and, for
// int64, "rk::single_pass affine", "rk::two_pass affine" and "rk::device affine": as many random
// affine maps composed in order (affine.cuh: non-commutative, 8 bytes like int64, so their time
// compares directly with the int64 sum's).
//
// A second benchmark, reduce_round_trip, times the value-returning calls from the host's side
// (rk::reduce; thrust::reduce, which allocates its temporary storage in every call; CUB, a copy of
// its result and a stream synchronize).

#include "affine.cuh"
#include "common.cuh"
#include "inputs.cuh"

#include <rk/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/universal_vector.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace
{
using value_types = nvbench::type_list<std::int32_t, std::int64_t, float, double>;

using rk_bench::failures;
using rk_bench::type_name;

/// The state's input (random values, rk_perf's seed) and CUB's sum of it, the reference.
template <class T>
struct sum_case
{
  std::int64_t n;
  thrust::device_vector<T> in;
  thrust::device_vector<T> out;
  thrust::device_vector<std::uint8_t> cub_temp;
  /// Pinned, as rk::reduce's own result slot is: CUB's round trip copies its result here.
  thrust::universal_host_pinned_vector<T> host_result;
  cudaStream_t setup; ///< the state's stream, for what is not timed
  T want{};

  /// NVBench's bandwidth columns count the items read once (what any sum must read).
  explicit sum_case(nvbench::state& state)
      : n(state.get_int64("Elements"))
      , in(static_cast<std::size_t>(n))
      , out(1)
      , host_result(1)
      , setup(state.get_cuda_stream())
  {
    rk_bench::fill_random(thrust::raw_pointer_cast(in.data()), static_cast<std::size_t>(n), setup);
    std::size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, first(), result(), n, setup);
    cub_temp.resize(bytes);
    cub_sum(setup);
    want = copy_result(setup);
    state.add_element_count(static_cast<std::size_t>(n));
    state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  }

  const T* first() const
  {
    return thrust::raw_pointer_cast(in.data());
  }
  T* result()
  {
    return thrust::raw_pointer_cast(out.data());
  }
  void cub_sum(cudaStream_t stream)
  {
    std::size_t bytes = cub_temp.size();
    cub::DeviceReduce::Sum(thrust::raw_pointer_cast(cub_temp.data()), bytes, first(), result(), n, stream);
  }
  T copy_result(cudaStream_t stream)
  {
    T* slot = thrust::raw_pointer_cast(host_result.data());
    rk_bench::check(cudaMemcpyAsync(slot, result(), sizeof(T), cudaMemcpyDeviceToHost, stream), "copying a result");
    rk_bench::check(cudaStreamSynchronize(stream), "waiting for a result");
    return *slot;
  }
  /// Records a mismatch of `got` against CUB's result, naming the state.
  void expect(const T& got, const std::string& impl) const
  {
    if (!rk_bench::results_match(got, want))
    {
      ++failures;
      std::fprintf(stderr, "rk_bench_reduce: %s %s, %lld items: %.17g, CUB %.17g\n", impl.c_str(), type_name<T>(),
                   static_cast<long long>(n), static_cast<double>(got), static_cast<double>(want));
    }
  }
};

/// Times rk::reduce_into with `policy`; its result is checked first, since a fast wrong answer
/// is not a figure. Cold samples only: the summary reads nothing else.
template <class T, class Policy>
void time_rk(nvbench::state& state, sum_case<T>& c, const Policy& policy, const std::string& impl)
{
  rk::reduce_into(policy.on(c.setup), c.first(), c.first() + c.n, c.result(), T{}, rk::plus{});
  c.expect(c.copy_result(c.setup), impl);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk::reduce_into(policy.on(launch.get_stream()), c.first(), c.first() + c.n, c.result(), T{}, rk::plus{});
  });
}

/// Times the composition of n random affine maps with `policy` (int64 rows only: the same bytes).
/// Checked against a fold on the host up to 2^24 maps, and above it against another backend's
/// composition (rk::single_pass's for rk::two_pass, else rk::two_pass's): every order-preserving
/// backend gives the same bits.
template <class T, class Policy>
void time_affine(nvbench::state& state, sum_case<T>& c, const Policy& policy, const std::string& impl)
{
  thrust::device_vector<rk_bench::affine> input(static_cast<std::size_t>(c.n));
  thrust::tabulate(thrust::cuda::par.on(c.setup), input.begin(), input.end(), rk_bench::random_map{});
  const rk_bench::affine* maps = thrust::raw_pointer_cast(input.data());
  thrust::device_vector<rk_bench::affine> out(1);
  auto* result   = thrust::raw_pointer_cast(out.data());
  const auto run = [&](const auto& p, cudaStream_t stream) {
    rk::reduce_into(p.on(stream), maps, maps + c.n, result, rk_bench::identity_map, rk_bench::compose_affine{});
  };
  rk_bench::affine want = rk_bench::identity_map;
  if (c.n <= (std::int64_t{1} << 24))
  {
    const thrust::host_vector<rk_bench::affine> host(input);
    for (const rk_bench::affine& f : host)
    {
      want = rk_bench::compose_affine{}(want, f);
    }
  }
  else if constexpr (std::is_same_v<Policy, std::decay_t<decltype(rk::two_pass)>>)
  {
    run(rk::single_pass, c.setup);
    want = rk_bench::read_back(result, c.setup);
  }
  else
  {
    run(rk::two_pass, c.setup);
    want = rk_bench::read_back(result, c.setup);
  }
  run(policy, c.setup);
  const rk_bench::affine got = rk_bench::read_back(result, c.setup);
  if (!(got == want))
  {
    rk_bench::fail(state, "rk_bench_reduce", impl + ": the maps' composition differs from the reference");
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { run(policy, launch.get_stream()); });
}

template <class T>
void reduce_body(nvbench::state& state)
{
  const std::string& impl = state.get_string("Impl");
  if (!std::is_same_v<T, std::int64_t> && impl.size() > 7 && impl.compare(impl.size() - 7, 7, " affine") == 0)
  {
    state.skip("the affine maps are int64's 8 bytes: int64 rows only"); // before the input is made
    return;
  }
  sum_case<T> c(state);
  if (impl == "probe")
  {
    // Reads the items and writes nothing: the practical speed of light of any sum.
    static_assert(16 % sizeof(T) == 0, "the probe reads 16-byte vectors");
    if (c.n * std::int64_t{sizeof(T)} % 16 != 0)
    {
      state.skip("the probe reads whole 16-byte vectors: Elements must be a multiple of 16 / sizeof(T)");
      return;
    }
    rk_bench::time_read_probe(state, c.first(), c.n * std::int64_t{sizeof(T)}, reinterpret_cast<unsigned*>(c.result()));
    return;
  }
  state.add_global_memory_writes<T>(1);
  if (impl == "rk::device")
  {
    time_rk(state, c, rk::device, impl);
  }
  else if (impl == "rk::single_pass")
  {
    time_rk(state, c, rk::single_pass, impl);
  }
  else if (impl == "rk::two_pass")
  {
    time_rk(state, c, rk::two_pass, impl);
  }
  else if (impl == "rk::atomic")
  {
    time_rk(state, c, rk::atomic, impl);
  }
  else if (impl == "rk::single_pass grid-ordered")
  {
    time_rk(state, c, rk::single_pass.tuned<rk::grid_ordered_tuning>(), impl);
  }
  else if (impl == "rk::two_pass grid-ordered")
  {
    time_rk(state, c, rk::two_pass.tuned<rk::grid_ordered_tuning>(), impl);
  }
  else if (impl == "rk::single_pass affine")
  {
    time_affine(state, c, rk::single_pass, impl);
  }
  else if (impl == "rk::two_pass affine")
  {
    time_affine(state, c, rk::two_pass, impl);
  }
  else if (impl == "rk::device affine")
  {
    time_affine(state, c, rk::device, impl);
  }
  else if (impl == "cub")
  {
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { c.cub_sum(launch.get_stream()); });
  }
}

template <class T>
void reduce(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, "rk_bench_reduce", [&] { reduce_body<T>(state); });
}

/// The value-returning calls, from the host's side: NVBench's CPU time of a synchronizing call.
template <class T>
void round_trip_body(nvbench::state& state)
{
  sum_case<T> c(state);
  const std::string& impl = state.get_string("Impl");
  if (impl == "rk::reduce")
  {
    c.expect(rk::reduce(rk::device.on(c.setup), c.first(), c.first() + c.n, T{}, rk::plus{}), impl);
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      static_cast<void>(rk::reduce(rk::device.on(launch.get_stream()), c.first(), c.first() + c.n, T{}, rk::plus{}));
    });
  }
  else if (impl == "thrust::reduce")
  {
    c.expect(thrust::reduce(thrust::cuda::par_nosync.on(c.setup), c.in.begin(), c.in.end(), T{}), impl);
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      static_cast<void>(
        thrust::reduce(thrust::cuda::par_nosync.on(launch.get_stream()), c.in.begin(), c.in.end(), T{}));
    });
  }
  else if (impl == "cub")
  {
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      c.cub_sum(launch.get_stream());
      static_cast<void>(c.copy_result(launch.get_stream()));
    });
  }
}

template <class T>
void reduce_round_trip(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, "rk_bench_reduce", [&] { round_trip_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(reduce, NVBENCH_TYPE_AXES(value_types))
  .set_name("reduce")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(10, 30, 2))
  .add_string_axis("Impl", {"rk::device", "rk::single_pass", "rk::two_pass", "rk::atomic", "cub", "probe",
                            "rk::single_pass grid-ordered", "rk::two_pass grid-ordered", "rk::single_pass affine",
                            "rk::two_pass affine", "rk::device affine"});

NVBENCH_BENCH_TYPES(reduce_round_trip, NVBENCH_TYPE_AXES(value_types))
  .set_name("reduce_round_trip")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(10, 20, 2))
  .add_string_axis("Impl", {"rk::reduce", "thrust::reduce", "cub"});

NVBENCH_MAIN

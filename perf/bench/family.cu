// rk_bench_family: the reduction family against its peers on NVBench (the old rk_perf_family's cases),
// every state checked before it is timed (a mismatch makes the exit status 1):
//   transform_reduce   square-then-sum of floats, against rk::reduce's sum of the same items (the
//                      same bytes) and the read probe;
//   arg_min            int32, int64, float and double, against cub::DeviceReduce::ArgMin
//                      (temporary storage allocated once per state) and the read probe;
//   segmented_arg_min  fixed-size float segments, against rk::segmented_reduce's minimum of the
//                      same segments, cub::DeviceSegmentedReduce::ArgMin (segments of 256 items or
//                      more: CUB runs a block per segment) and a probe that reads the items and
//                      writes 16 bytes a segment;
//   reduce_by_key      int32 keys, float values, runs of 1, 2, 8 (from item 0, and shifted by 3 so
//                      every run straddles two of rk's threads), 100, 1000 and 10^6 items, and a
//                      random mix (geometric lengths, 64 items on average), against
//                      thrust::reduce_by_key, cub::DeviceReduce::ReduceByKey (temporary storage
//                      allocated once per state; the run count copied to pinned host memory) and
//                      a probe that reads keys and values and writes a key and a value a run. Every
//                      call returns the run count to the host, so these are round trips:
//                      NVBench's CPU time of a synchronizing call.
// perf/bench_summary.py prints the tables and the targets from the JSON.

#include "common.cuh"

#include <rk/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace
{
constexpr const char* binary = "rk_bench_family";

/// Item i of the family's inputs: small integers, so every sum below is exact in float.
struct small_value
{
  __host__ __device__ float operator()(std::int64_t i) const
  {
    return static_cast<float>(i % 17) - 8.0f;
  }
};

/// Item i of the arg inputs: values that repeat only every 100003 items.
template <class T>
struct scattered_value
{
  __host__ __device__ T operator()(std::int64_t i) const
  {
    return static_cast<T>((i * 7919) % 100003);
  }
};

struct square
{
  __host__ __device__ float operator()(float x) const
  {
    return x * x;
  }
};

template <class T, class F>
thrust::device_vector<T> generate(std::int64_t n, F f)
{
  thrust::device_vector<T> v(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n), v.begin(),
                    f);
  return v;
}

/// Times the read-write probe over `bytes` of `a` (and of `b`, if not null), writing `words` words.
void time_probe(nvbench::state& state, const void* a, const void* b, std::int64_t bytes, unsigned* out,
                std::int64_t words)
{
  const int blocks = rk_bench::probe_blocks(rk_bench::read_write_probe);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk_bench::read_write_probe<<<blocks, rk_bench::probe_threads, 0, launch.get_stream()>>>(
      static_cast<const uint4*>(a), static_cast<const uint4*>(b), bytes / 16, out, words);
  });
}

void transform_reduce_body(nvbench::state& state)
{
  const std::int64_t n = state.get_int64("Elements");
  const auto items     = generate<float>(n, small_value{});
  thrust::device_vector<float> out(1);
  const float* in          = thrust::raw_pointer_cast(items.data());
  float* o                 = thrust::raw_pointer_cast(out.data());
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<float>(static_cast<std::size_t>(n));
  const std::string& impl = state.get_string("Impl");
  if (impl == "probe")
  {
    time_probe(state, in, nullptr, n * 4, reinterpret_cast<unsigned*>(o), 0);
    return;
  }
  // rk::transform_reduce has rk::reduce's tree, so its bits are those of rk::reduce over the
  // transformed items (a sum of squares passes 2^24 and rounds, so Thrust's grouping differs); the
  // plain sum of these items is exact in any grouping, so it must equal Thrust's.
  float want = 0.0f;
  if (impl == "rk::transform_reduce")
  {
    thrust::device_vector<float> squares(items.size());
    thrust::transform(thrust::cuda::par.on(setup), items.begin(), items.end(), squares.begin(), square{});
    want = rk::reduce(rk::device.on(setup), squares.begin(), squares.end(), 0.0f, rk::plus{});
  }
  else
  {
    want = thrust::reduce(thrust::cuda::par.on(setup), items.begin(), items.end(), 0.0f);
  }
  const auto call = [&](cudaStream_t s) {
    if (impl == "rk::transform_reduce")
    {
      rk::transform_reduce_into(rk::device.on(s), in, in + n, o, 0.0f, rk::plus{}, square{});
    }
    else
    {
      rk::reduce_into(rk::device.on(s), in, in + n, o, 0.0f, rk::plus{});
    }
  };
  call(setup);
  rk_bench::check(cudaStreamSynchronize(setup), "waiting for the check");
  if (static_cast<float>(out[0]) != want)
  {
    rk_bench::fail(state, binary,
                   impl == "rk::transform_reduce" ? "the sum differs from rk::reduce's over the squares"
                                                  : "the sum differs from thrust's");
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

template <class T>
void arg_min_body(nvbench::state& state)
{
  const std::int64_t n = state.get_int64("Elements");
  const auto items     = generate<T>(n, scattered_value<T>{});
  const T* in          = thrust::raw_pointer_cast(items.data());
  thrust::device_vector<rk::arg_result<T, std::ptrdiff_t>> rk_out(1);
  thrust::device_vector<T> cub_min(1);
  thrust::device_vector<std::int64_t> cub_index(1);
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  const std::string& impl = state.get_string("Impl");
  if (impl == "probe")
  {
    time_probe(state, in, nullptr, n * std::int64_t{sizeof(T)},
               reinterpret_cast<unsigned*>(thrust::raw_pointer_cast(cub_index.data())), 0);
    return;
  }
  std::size_t temp_bytes = 0;
  const auto cub_call    = [&](void* temp, cudaStream_t s) {
    return cub::DeviceReduce::ArgMin(temp, temp_bytes, in, thrust::raw_pointer_cast(cub_min.data()),
                                        thrust::raw_pointer_cast(cub_index.data()), n, s);
  };
  rk_bench::check(cub_call(nullptr, setup), "cub::DeviceReduce::ArgMin (temporary storage)");
  thrust::device_vector<unsigned char> temp(temp_bytes);
  void* t = thrust::raw_pointer_cast(temp.data());
  rk_bench::check(cub_call(t, setup), "cub::DeviceReduce::ArgMin");
  rk::arg_min_into(rk::device.on(setup), in, in + n, rk_out.data());
  rk_bench::check(cudaStreamSynchronize(setup), "waiting for the check");
  const rk::arg_result<T, std::ptrdiff_t> got = rk_out[0];
  if (got.index != static_cast<std::int64_t>(cub_index[0]) || got.value != static_cast<T>(cub_min[0]))
  {
    rk_bench::fail(state, binary, "rk::arg_min and CUB's ArgMin disagree");
  }
  state.add_global_memory_writes<T>(1);
  if (impl == "rk::arg_min")
  {
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      rk::arg_min_into(rk::device.on(launch.get_stream()), in, in + n, rk_out.data());
    });
  }
  else
  {
    state.exec(nvbench::exec_tag::no_batch,
               [&](nvbench::launch& launch) { static_cast<void>(cub_call(t, launch.get_stream())); });
  }
}

/// Segments whose arg_min value is not their minimum, or whose index lies outside the segment.
struct wrong_segment
{
  const rk::arg_result<float, std::ptrdiff_t>* arg;
  const float* minimum;
  std::int64_t length;
  __host__ __device__ bool operator()(std::int64_t s) const
  {
    return arg[s].value != minimum[s] || arg[s].index < 0 || arg[s].index >= length;
  }
};

struct segment_start
{
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const
  {
    return s * length;
  }
};

void segmented_arg_min_body(nvbench::state& state)
{
  const std::int64_t n        = state.get_int64("Elements");
  const std::int64_t length   = state.get_int64("SegmentLength");
  const std::int64_t segments = n / length;
  const std::string& impl     = state.get_string("Impl");
  if (impl == "cub" && length < 256)
  {
    state.skip("CUB runs a block per segment: segments of 256 items or more");
    return;
  }
  using result     = rk::arg_result<float, std::ptrdiff_t>;
  const auto items = generate<float>(n, scattered_value<float>{});
  const float* in  = thrust::raw_pointer_cast(items.data());
  thrust::device_vector<result> arg_out(static_cast<std::size_t>(segments));
  thrust::device_vector<float> min_out(static_cast<std::size_t>(segments));
  result* ao               = thrust::raw_pointer_cast(arg_out.data());
  float* mo                = thrust::raw_pointer_cast(min_out.data());
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<float>(static_cast<std::size_t>(n));
  state.add_global_memory_writes<result>(static_cast<std::size_t>(segments));
  if (impl == "probe")
  {
    time_probe(state, in, nullptr, n * 4, reinterpret_cast<unsigned*>(ao), segments * std::int64_t{sizeof(result) / 4});
    return;
  }
  rk::segmented_arg_min(rk::device.on(setup), in, segments, length, ao);
  rk::segmented_reduce(rk::device.on(setup), in, segments, length, mo, 3.0e38f, rk::minimum{});
  const auto wrong = thrust::count_if(thrust::cuda::par.on(setup), thrust::counting_iterator<std::int64_t>(0),
                                      thrust::counting_iterator<std::int64_t>(segments), wrong_segment{ao, mo, length});
  if (wrong != 0)
  {
    rk_bench::fail(state, binary, "rk::segmented_arg_min and rk::segmented_reduce's minimum disagree");
  }
  if (impl == "rk::segmented_arg_min")
  {
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      rk::segmented_arg_min(rk::device.on(launch.get_stream()), in, segments, length, ao);
    });
  }
  else if (impl == "rk::segmented_reduce")
  {
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      rk::segmented_reduce(rk::device.on(launch.get_stream()), in, segments, length, mo, 3.0e38f, rk::minimum{});
    });
  }
  else
  {
    const auto offsets = generate<std::int64_t>(segments + 1, segment_start{length});
    const auto* off    = thrust::raw_pointer_cast(offsets.data());
    thrust::device_vector<cub::KeyValuePair<int, float>> cub_out(static_cast<std::size_t>(segments));
    auto* co               = thrust::raw_pointer_cast(cub_out.data());
    std::size_t temp_bytes = 0;
    rk_bench::check(cub::DeviceSegmentedReduce::ArgMin(nullptr, temp_bytes, in, co, static_cast<int>(segments), off,
                                                       off + 1, setup),
                    "cub::DeviceSegmentedReduce::ArgMin (temporary storage)");
    thrust::device_vector<unsigned char> temp(temp_bytes);
    void* t = thrust::raw_pointer_cast(temp.data());
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
      std::size_t bytes = temp_bytes;
      cub::DeviceSegmentedReduce::ArgMin(t, bytes, in, co, static_cast<int>(segments), off, off + 1,
                                         launch.get_stream());
    });
  }
}

/// Key of item i for runs of `run` items shifted by `shift`.
struct run_key
{
  std::int64_t run;
  std::int64_t shift;
  __host__ __device__ std::int32_t operator()(std::int64_t i) const
  {
    return static_cast<std::int32_t>((i + shift) / run);
  }
};

/// 1 where item i starts a run of the random mix: item 0 and about one item in 64, placed by a
/// hash, so the run lengths are geometric (half of them under 45 items, one in 550 over 400).
struct mix_head
{
  __host__ __device__ std::int32_t operator()(std::int64_t i) const
  {
    std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return i == 0 || h % 64 == 0 ? 1 : 0;
  }
};

/// The keys of a RunLength: "mix", or "R" or "R+S" (runs of R items shifted by S).
thrust::device_vector<std::int32_t> run_keys(const std::string& layout, std::int64_t n)
{
  if (layout == "mix")
  {
    auto keys = generate<std::int32_t>(n, mix_head{});
    thrust::inclusive_scan(keys.begin(), keys.end(), keys.begin()); // run r's key is r + 1
    return keys;
  }
  const std::size_t plus   = layout.find('+');
  const std::int64_t run   = std::stoll(layout.substr(0, plus));
  const std::int64_t shift = plus == std::string::npos ? 0 : std::stoll(layout.substr(plus + 1));
  return generate<std::int32_t>(n, run_key{run, shift});
}

void reduce_by_key_body(nvbench::state& state)
{
  const std::int64_t n       = state.get_int64("Elements");
  const auto keys            = run_keys(state.get_string("RunLength"), n);
  const auto values          = generate<float>(n, small_value{});
  const std::int64_t runs    = thrust::inner_product(keys.begin(), keys.end() - 1, keys.begin() + 1, std::int64_t{1},
                                                     thrust::plus<std::int64_t>{}, thrust::not_equal_to<std::int32_t>{});
  const std::size_t capacity = static_cast<std::size_t>(n);
  thrust::device_vector<std::int32_t> keys_out(capacity), thrust_keys(capacity);
  thrust::device_vector<float> values_out(capacity), thrust_values(capacity);
  const auto* k            = thrust::raw_pointer_cast(keys.data());
  const auto* v            = thrust::raw_pointer_cast(values.data());
  auto* ko                 = thrust::raw_pointer_cast(keys_out.data());
  auto* vo                 = thrust::raw_pointer_cast(values_out.data());
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<std::int32_t>(static_cast<std::size_t>(n));
  state.add_global_memory_reads<float>(static_cast<std::size_t>(n));
  state.add_global_memory_writes<std::int32_t>(static_cast<std::size_t>(runs));
  state.add_global_memory_writes<float>(static_cast<std::size_t>(runs));
  const std::string& impl = state.get_string("Impl");
  if (impl == "probe")
  {
    // A round trip like the others: the probe's kernel and a stream synchronize. It writes a key
    // and a value a run, as words of a buffer of its own (keys_out holds n keys, not 2n words).
    thrust::device_vector<unsigned> probe_out(2 * static_cast<std::size_t>(runs));
    auto* po         = thrust::raw_pointer_cast(probe_out.data());
    const int blocks = rk_bench::probe_blocks(rk_bench::read_write_probe);
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      rk_bench::read_write_probe<<<blocks, rk_bench::probe_threads, 0, launch.get_stream()>>>(
        reinterpret_cast<const uint4*>(k), reinterpret_cast<const uint4*>(v), n * 4 / 16, po, 2 * runs);
      rk_bench::check(cudaStreamSynchronize(launch.get_stream()), "the probe");
    });
    return;
  }
  const auto got  = rk::reduce_by_key(rk::device.on(setup), k, k + n, v, ko, vo, 0.0f, rk::plus{});
  const auto want = thrust::reduce_by_key(thrust::cuda::par.on(setup), keys.begin(), keys.end(), values.begin(),
                                          thrust_keys.begin(), thrust_values.begin());
  const std::int64_t want_runs = want.first - thrust_keys.begin();
  // Integer-valued sums of at most 10^6 items of magnitude 8: exact in float, in any grouping.
  if (static_cast<std::int64_t>(got.first - ko) != want_runs || want_runs != runs
      || !thrust::equal(thrust::cuda::par.on(setup), keys_out.begin(), keys_out.begin() + runs, thrust_keys.begin())
      || !thrust::equal(thrust::cuda::par.on(setup), values_out.begin(), values_out.begin() + runs,
                        thrust_values.begin()))
  {
    rk_bench::fail(state, binary, "rk::reduce_by_key and thrust::reduce_by_key disagree");
  }
  if (impl == "rk::reduce_by_key")
  {
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      static_cast<void>(rk::reduce_by_key(rk::device.on(launch.get_stream()), k, k + n, v, ko, vo, 0.0f, rk::plus{}));
    });
  }
  else if (impl == "cub")
  {
    thrust::device_vector<std::int64_t> cub_runs(1);
    auto* nr               = thrust::raw_pointer_cast(cub_runs.data());
    std::size_t temp_bytes = 0;
    rk_bench::check(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, k, ko, v, vo, nr, ::cuda::std::plus<>{}, n,
                                                   setup),
                    "cub::DeviceReduce::ReduceByKey (temporary storage)");
    thrust::device_vector<unsigned char> temp(temp_bytes);
    void* t              = thrust::raw_pointer_cast(temp.data());
    std::int64_t* pinned = nullptr;
    rk_bench::check(cudaMallocHost(&pinned, sizeof(std::int64_t)), "pinned memory for CUB's run count");
    const std::unique_ptr<std::int64_t, cudaError_t (*)(void*)> owned(pinned, cudaFreeHost);
    // The call as a user who needs the count on the host makes it: the run count copied back and
    // waited for, like rk's and Thrust's.
    const auto call = [&](cudaStream_t stream) {
      std::size_t bytes = temp_bytes;
      cub::DeviceReduce::ReduceByKey(t, bytes, k, ko, v, vo, nr, ::cuda::std::plus<>{}, n, stream);
      cudaMemcpyAsync(pinned, nr, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream);
      rk_bench::check(cudaStreamSynchronize(stream), "cub::DeviceReduce::ReduceByKey");
    };
    // The outputs still hold rk's runs: overwrite them, so that the check sees CUB's.
    thrust::fill(thrust::cuda::par.on(setup), keys_out.begin(), keys_out.end(), -1);
    thrust::fill(thrust::cuda::par.on(setup), values_out.begin(), values_out.end(), -1.0e30f);
    call(setup);
    if (*pinned != runs
        || !thrust::equal(thrust::cuda::par.on(setup), keys_out.begin(), keys_out.begin() + runs, thrust_keys.begin())
        || !thrust::equal(thrust::cuda::par.on(setup), values_out.begin(), values_out.begin() + runs,
                          thrust_values.begin()))
    {
      rk_bench::fail(state, binary, "cub::DeviceReduce::ReduceByKey and thrust::reduce_by_key disagree");
    }
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) { call(launch.get_stream()); });
  }
  else
  {
    state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
      static_cast<void>(thrust::reduce_by_key(thrust::cuda::par.on(launch.get_stream()), k, k + n, v, ko, vo));
    });
  }
}

void transform_reduce(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { transform_reduce_body(state); });
}

template <class T>
void arg_min(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { arg_min_body<T>(state); });
}

void segmented_arg_min(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { segmented_arg_min_body(state); });
}

void reduce_by_key(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { reduce_by_key_body(state); });
}
} // namespace

NVBENCH_BENCH(transform_reduce)
  .set_name("transform_reduce")
  .add_int64_power_of_two_axis("Elements", nvbench::range(20, 28, 4))
  .add_string_axis("Impl", {"rk::transform_reduce", "rk::reduce", "probe"});

NVBENCH_BENCH_TYPES(arg_min, NVBENCH_TYPE_AXES(nvbench::type_list<std::int32_t, std::int64_t, float, double>))
  .set_name("arg_min")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(20, 28, 2))
  .add_string_axis("Impl", {"rk::arg_min", "cub", "probe"});

NVBENCH_BENCH(segmented_arg_min)
  .set_name("segmented_arg_min")
  .add_int64_power_of_two_axis("Elements", {26})
  .add_int64_axis("SegmentLength", {1, 8, 256, 4096, 65536})
  .add_string_axis("Impl", {"rk::segmented_arg_min", "rk::segmented_reduce", "cub", "probe"});

NVBENCH_BENCH(reduce_by_key)
  .set_name("reduce_by_key")
  .add_int64_power_of_two_axis("Elements", {26})
  .add_string_axis("RunLength", {"1", "2", "8", "8+3", "100", "1000", "1000000", "mix"})
  .add_string_axis("Impl", {"rk::reduce_by_key", "thrust::reduce_by_key", "cub", "probe"});

NVBENCH_MAIN

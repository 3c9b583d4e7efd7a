// rk_bench_partial: partials, the accumulator and counts on the GPU (the old rk_perf_partial's
// cases) on NVBench, float and double; every result is checked against rk::reduce's bits before it
// is timed (a mismatch makes the exit status 1: a fast wrong answer is not a figure).
//   reduce_partial    rk::reduce_partial_into of Elements items at offset 0 and at offset 12345
//                     (which cuts a lane: the most nodes, about two per level; read from where
//                     such a piece lies in memory, past a 16-byte boundary), against
//                     rk::reduce_into of as many items and the read probe (both from an aligned
//                     start). Target: each partial <= 1.05x rk::reduce_into from 2^20.
//   accumulator       rk::accumulator (rk::device) over 16 device chunks of Elements / 16 items
//                     (2^28 in all: chunks of 2^24), the constructor and the add() calls, which are
//                     stream-ordered (result() is not timed), against one rk::reduce_into of the
//                     same items. Target <= 1.05x. Beside them, "16 rk::reduce_into": the chunks
//                     reduced by a call each, nothing combined (the floor of a launch a chunk).
//   accumulator_host  rk::accumulator (rk::device) over Elements floats in host memory (2^33: 32 GiB),
//                     Memory pageable or pinned, in 1 GiB chunks, against cudaMemcpyAsync of the
//                     same chunks from the same memory into one device buffer; result() and the
//                     copies' wait are timed, so these are round trips: NVBench's CPU time of a
//                     synchronizing call. Target: the accumulator's bandwidth >= 0.90 of the copy's
//                     (accumulator time / copy time <= 1 / 0.9). The host buffers are made once per
//                     process, when a state first needs them (filling and pinning 32 GiB takes
//                     seconds), and both hold the same values, so pinned and pageable results are
//                     checked against one reference. A sample of 32 GiB takes 0.6 s (pinned)
//                     to 5 s (a pageable copy) on an H200: the states gather 3 samples or more,
//                     and their timeout is raised to 30 s where the command line's is shorter
//                     (about 2 minutes for the four states). Another size, for this benchmark alone:
//                       rk_bench_partial -b accumulator_host -a 'Elements[pow2]=30'
//                     (a -a before any -b changes every benchmark's Elements).
//   device_count      rk::reduce_into with its count in device memory (rk::device_count) against
//                     the count on the host, and the read probe. Target <= 1.10x from 2^20.
//   combine_finish    rk::combine then rk::finish of two host pieces (rk::reduce_partial on
//                     rk::host) whose lengths total Elements: CPU only, one pair per sample, so
//                     NVBench's CPU time is the time of one pair (with its timer's few tens of ns).
//                     Target < 2 us.
// perf/bench_summary.py prints the tables and the targets from the JSON:
//   rk_bench_partial --no-batch --max-noise 1 --timeout 0.5 --json partial.json

#include "common.cuh"
#include "inputs.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_partial";
using float_types            = nvbench::type_list<float, double>;

/// Where "partial at 12345" places its piece in the longer sequence: inside a lane for every item size.
constexpr std::int64_t lane_cut = 12345;

template <class T>
thrust::device_vector<T> random_items(std::int64_t n, cudaStream_t stream)
{
  thrust::device_vector<T> items(static_cast<std::size_t>(n));
  rk_bench::fill_random(thrust::raw_pointer_cast(items.data()), items.size(), stream);
  return items;
}

/// The peer of every target here: rk::reduce_into of [first, first + n) on rk::device, checked
/// against `want` (rk::reduce's bits), then timed.
template <class T>
void time_reduce_into(nvbench::state& state, const T* first, std::int64_t n, T* result, const T& want)
{
  const cudaStream_t setup = state.get_cuda_stream();
  rk::reduce_into(rk::device.on(setup), first, first + n, result, T{}, rk::plus{});
  if (!rk_bench::same_bits(rk_bench::read_back(result, setup), want))
  {
    rk_bench::fail(state, binary, "rk::reduce_into does not give rk::reduce's bits");
  }
  state.add_global_memory_writes<T>(1);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk::reduce_into(rk::device.on(launch.get_stream()), first, first + n, result, T{}, rk::plus{});
  });
}

template <class T>
void reduce_partial_body(nvbench::state& state)
{
  const std::int64_t n     = state.get_int64("Elements");
  const cudaStream_t setup = state.get_cuda_stream();
  const std::string& impl  = state.get_string("Impl");
  // "partial at 12345" reduces the piece [lane_cut, lane_cut + n) of a longer sequence, from where
  // it lies in memory (4 or 8 bytes past a 16-byte boundary); the others read n items from the
  // allocation's start, as a flat reduce usually does. Measured from that misaligned start, float
  // rk::reduce_into at 2^28 took 1.35x its aligned time on an H200: a baseline slowed that way
  // would flatter the partials.
  const std::int64_t offset = impl == "partial at 12345" ? lane_cut : 0;
  const auto items          = random_items<T>(offset + n, setup);
  const T* whole            = thrust::raw_pointer_cast(items.data());
  const T* first            = whole + offset;
  thrust::device_vector<T> out(1);
  thrust::device_vector<rk::partial<T>> record(1);
  T* result             = thrust::raw_pointer_cast(out.data());
  rk::partial<T>* piece = thrust::raw_pointer_cast(record.data());
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  if (impl == "probe")
  {
    rk_bench::time_read_probe(state, first, n * std::int64_t{sizeof(T)}, reinterpret_cast<unsigned*>(result));
    return;
  }
  const auto device = rk::device.on(setup);
  if (impl == "rk::reduce_into")
  {
    time_reduce_into(state, first, n, result, rk::reduce(device, first, first + n, T{}, rk::plus{}));
    return;
  }
  rk::reduce_partial_into(device, first, first + n, offset, piece, rk::plus{});
  const rk::partial<T> got = rk_bench::read_back(piece, setup);
  // A piece finishes only with the pieces before it, if any: here, the first `offset` items.
  const rk::partial<T> before = rk::reduce_partial(device, whole, first, 0, rk::plus{});
  if (!rk_bench::same_bits(rk::finish(rk::combine(before, got, rk::plus{}), T{}, rk::plus{}),
                           rk::reduce(device, whole, first + n, T{}, rk::plus{})))
  {
    rk_bench::fail(state, binary, "the partial does not finish to rk::reduce's bits");
  }
  state.add_global_memory_writes<rk::partial<T>>(1);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk::reduce_partial_into(rk::device.on(launch.get_stream()), first, first + n, offset, piece, rk::plus{});
  });
}

constexpr std::int64_t accumulator_chunks = 16;

template <class T>
void accumulator_body(nvbench::state& state)
{
  const std::int64_t n = state.get_int64("Elements");
  if (n % accumulator_chunks != 0)
  {
    state.skip("Elements must be a multiple of the 16 chunks");
    return;
  }
  const std::int64_t chunk = n / accumulator_chunks;
  const cudaStream_t setup = state.get_cuda_stream();
  const auto items         = random_items<T>(n, setup);
  const T* first           = thrust::raw_pointer_cast(items.data());
  thrust::device_vector<T> out(1);
  T* result               = thrust::raw_pointer_cast(out.data());
  const std::string& impl = state.get_string("Impl");
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  const T want = rk::reduce(rk::device.on(setup), first, first + n, T{}, rk::plus{});
  if (impl == "rk::reduce_into")
  {
    time_reduce_into(state, first, n, result, want);
    return;
  }
  if (impl == "16 rk::reduce_into")
  {
    // The floor of a launch a chunk: each chunk reduced on its own, nothing combined.
    thrust::device_vector<T> chunk_sums(accumulator_chunks);
    T* sums              = thrust::raw_pointer_cast(chunk_sums.data());
    const auto each_call = [&](cudaStream_t stream) {
      for (std::int64_t k = 0; k < accumulator_chunks; ++k)
      {
        rk::reduce_into(rk::device.on(stream), first + k * chunk, first + (k + 1) * chunk, sums + k, T{});
      }
    };
    each_call(setup);
    const T last = rk::reduce(rk::device.on(setup), first + n - chunk, first + n, T{}, rk::plus{});
    if (!rk_bench::same_bits(rk_bench::read_back(sums + accumulator_chunks - 1, setup), last))
    {
      rk_bench::fail(state, binary, "a chunk's rk::reduce_into does not give rk::reduce's bits");
    }
    state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { each_call(launch.get_stream()); });
    return;
  }
  const auto add_chunks = [&](auto& accumulator) {
    for (std::int64_t k = 0; k < accumulator_chunks; ++k)
    {
      accumulator.add(first + k * chunk, first + (k + 1) * chunk);
    }
  };
  {
    rk::accumulator checked(rk::device.on(setup), T{}, rk::plus{});
    add_chunks(checked);
    if (!rk_bench::same_bits(checked.result(), want))
    {
      rk_bench::fail(state, binary, "the accumulator does not give rk::reduce's bits");
    }
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) {
    rk::accumulator timed(rk::device.on(launch.get_stream()), T{}, rk::plus{});
    add_chunks(timed);
  });
}

/// Item i of accumulator_host's data.
float host_value(std::int64_t i)
{
  return static_cast<float>(i % 1024) * 0.001f;
}

/// Writes host_value(i) to data[i] for every i < n, on every core: one core takes many seconds
/// over 32 GiB.
void fill_host_items(float* data, std::int64_t n)
{
  const std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (std::int64_t t = 0; t < threads; ++t)
  {
    workers.emplace_back([=] {
      for (std::int64_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
      {
        data[i] = host_value(i);
      }
    });
  }
  for (std::thread& worker : workers)
  {
    worker.join();
  }
}

/// Whether `bytes` more fit in the host's memory (MemAvailable, less a tenth): with overcommit a
/// too-large allocation succeeds and the fill is killed, instead of the state being skipped.
bool fits_in_host_memory(std::int64_t bytes)
{
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  while (meminfo >> key >> kib)
  {
    if (key == "MemAvailable:")
    {
      return bytes <= kib / 10 * 9 * 1024;
    }
    meminfo.ignore(64, '\n');
  }
  return true; // not Linux, or no such line: let the allocation decide
}

/// accumulator_host's data, pageable and pinned: made when a state first needs it, grown when a
/// state needs more, and kept for the process's other states.
class host_items
{
public:
  /// Null where there is not enough memory.
  const float* pageable(std::int64_t n)
  {
    if (n > pageable_count_)
    {
      pageable_.reset();
      pageable_count_ = 0;
      if (!fits_in_host_memory(n * std::int64_t{sizeof(float)}))
      {
        return nullptr;
      }
      pageable_.reset(new (std::nothrow) float[static_cast<std::size_t>(n)]);
      if (pageable_ == nullptr)
      {
        return nullptr;
      }
      fill_host_items(pageable_.get(), n);
      pageable_count_ = n;
    }
    return pageable_.get();
  }

  /// Null where there is not enough memory or cudaHostAlloc fails.
  const float* pinned(std::int64_t n)
  {
    if (n > pinned_count_)
    {
      if (pinned_ != nullptr)
      {
        rk_bench::check(cudaFreeHost(pinned_), "freeing pinned host memory");
      }
      pinned_       = nullptr;
      pinned_count_ = 0;
      void* memory  = nullptr;
      if (!fits_in_host_memory(n * std::int64_t{sizeof(float)}))
      {
        return nullptr;
      }
      if (cudaHostAlloc(&memory, static_cast<std::size_t>(n) * sizeof(float), cudaHostAllocDefault) != cudaSuccess)
      {
        static_cast<void>(cudaGetLastError()); // not sticky: the other states run on
        return nullptr;
      }
      pinned_ = static_cast<float*>(memory);
      fill_host_items(pinned_, n);
      pinned_count_ = n;
    }
    return pinned_;
  }

  /// rk::reduce over the first n items, which both buffers hold: so the pinned and the pageable
  /// results are compared through it.
  float reference(const float* data, std::int64_t n)
  {
    const auto known = references_.find(n);
    if (known != references_.end())
    {
      return known->second;
    }
    const float sum = rk::reduce(rk::host, data, data + n, 0.0f, rk::plus{});
    references_.emplace(n, sum);
    return sum;
  }

private:
  std::unique_ptr<float[]> pageable_;
  std::int64_t pageable_count_ = 0;
  /// Never freed at exit: a static's destructor may run after the CUDA runtime has shut down, and
  /// the process's end releases it anyway.
  float* pinned_             = nullptr;
  std::int64_t pinned_count_ = 0;
  std::map<std::int64_t, float> references_;
};

host_items& shared_host_items()
{
  static host_items items;
  return items;
}

constexpr std::int64_t host_chunk_items = std::int64_t{1} << 28; // 1 GiB of floats
/// Enough for a few samples of about a second each, where --timeout asks for less.
constexpr double host_min_timeout_s = 30.0;

void accumulator_host_body(nvbench::state& state)
{
  const std::int64_t n      = state.get_int64("Elements");
  const std::string& memory = state.get_string("Memory");
  const std::string& impl   = state.get_string("Impl");
  host_items& host          = shared_host_items();
  const float* data         = memory == "pinned" ? host.pinned(n) : host.pageable(n);
  if (data == nullptr)
  {
    state.skip("no " + memory + " host memory for Elements floats: choose fewer with -a 'Elements[pow2]=30'");
    return;
  }
  const std::int64_t chunk = std::min(n, host_chunk_items);
  state.set_timeout(std::max(state.get_timeout(), host_min_timeout_s));
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<float>(static_cast<std::size_t>(n));
  if (impl == "rk::accumulator")
  {
    const auto accumulate = [&](cudaStream_t stream) {
      rk::accumulator accumulator(rk::device.on(stream), 0.0f, rk::plus{});
      for (std::int64_t at = 0; at < n; at += chunk)
      {
        accumulator.add(data + at, data + std::min(n, at + chunk));
      }
      return accumulator.result();
    };
    if (!rk_bench::same_bits(accumulate(state.get_cuda_stream()), host.reference(data, n)))
    {
      rk_bench::fail(state, binary, "the accumulator over " + memory + " memory does not give rk::reduce's bits");
    }
    state.exec(nvbench::exec_tag::sync,
               [&](nvbench::launch& launch) { static_cast<void>(accumulate(launch.get_stream())); });
    return;
  }
  thrust::device_vector<float> target(static_cast<std::size_t>(chunk));
  float* to = thrust::raw_pointer_cast(target.data());
  state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& launch) {
    for (std::int64_t at = 0; at < n; at += chunk)
    {
      const std::size_t bytes = static_cast<std::size_t>(std::min(n - at, chunk)) * sizeof(float);
      rk_bench::check(cudaMemcpyAsync(to, data + at, bytes, cudaMemcpyHostToDevice, launch.get_stream()),
                      "copying a chunk");
    }
    rk_bench::check(cudaStreamSynchronize(launch.get_stream()), "waiting for the copies");
  });
}

template <class T>
void device_count_body(nvbench::state& state)
{
  const std::int64_t n     = state.get_int64("Elements");
  const cudaStream_t setup = state.get_cuda_stream();
  const auto items         = random_items<T>(n, setup);
  const T* first           = thrust::raw_pointer_cast(items.data());
  thrust::device_vector<T> out(1);
  thrust::device_vector<std::int64_t> count(1, n);
  T* result                  = thrust::raw_pointer_cast(out.data());
  const std::int64_t* on_gpu = thrust::raw_pointer_cast(count.data());
  const std::string& impl    = state.get_string("Impl");
  state.add_element_count(static_cast<std::size_t>(n));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(n));
  if (impl == "probe")
  {
    rk_bench::time_read_probe(state, first, n * std::int64_t{sizeof(T)}, reinterpret_cast<unsigned*>(result));
    return;
  }
  const bool device_count = impl == "device count";
  const auto call         = [&](cudaStream_t stream) {
    if (device_count)
    {
      rk::reduce_into(rk::device.on(stream), first, rk::device_count(on_gpu), result, T{}, rk::plus{});
    }
    else
    {
      rk::reduce_into(rk::device.on(stream), first, first + n, result, T{}, rk::plus{});
    }
  };
  call(setup);
  if (!rk_bench::same_bits(rk_bench::read_back(result, setup),
                           rk::reduce(rk::device.on(setup), first, first + n, T{}, rk::plus{})))
  {
    rk_bench::fail(state, binary, impl + ": rk::reduce_into does not give rk::reduce's bits");
  }
  state.add_global_memory_writes<T>(1);
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

template <class T>
void combine_finish_body(nvbench::state& state)
{
  const std::int64_t n = state.get_int64("Elements");
  std::vector<T> items(static_cast<std::size_t>(n));
  const rk_bench::random_value<T> value{rk_bench::input_seed};
  for (std::int64_t i = 0; i < n; ++i)
  {
    items[static_cast<std::size_t>(i)] = value(static_cast<std::uint64_t>(i));
  }
  // Where pieces are cut in practice: inside a lane, so the front has a tail and the back a head.
  const std::int64_t split = n / 2 + 1;
  const auto front         = rk::reduce_partial(rk::host, items.begin(), items.begin() + split, 0, rk::plus{});
  const auto back          = rk::reduce_partial(rk::host, items.begin() + split, items.end(), split, rk::plus{});
  const T want             = rk::reduce(rk::host, items.begin(), items.end(), T{}, rk::plus{});
  T got                    = rk::finish(rk::combine(front, back, rk::plus{}), T{}, rk::plus{});
  if (!rk_bench::same_bits(got, want))
  {
    rk_bench::fail(state, binary, "combined pieces do not finish to rk::reduce's bits");
  }
  state.exec(nvbench::exec_tag::no_gpu,
             [&](nvbench::launch&) { got = rk::finish(rk::combine(front, back, rk::plus{}), T{}, rk::plus{}); });
  if (!rk_bench::same_bits(got, want))
  {
    rk_bench::fail(state, binary, "a timed pair did not finish to rk::reduce's bits");
  }
}

template <class T>
void reduce_partial_bench(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { reduce_partial_body<T>(state); });
}

template <class T>
void accumulator_bench(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { accumulator_body<T>(state); });
}

void accumulator_host_bench(nvbench::state& state)
{
  rk_bench::counting_failures(state, binary, [&] { accumulator_host_body(state); });
}

template <class T>
void device_count_bench(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { device_count_body<T>(state); });
}

template <class T>
void combine_finish_bench(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { combine_finish_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(reduce_partial_bench, NVBENCH_TYPE_AXES(float_types))
  .set_name("reduce_partial")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(16, 28, 4))
  .add_string_axis("Impl", {"rk::reduce_into", "partial at 0", "partial at 12345", "probe"});

NVBENCH_BENCH_TYPES(accumulator_bench, NVBENCH_TYPE_AXES(float_types))
  .set_name("accumulator")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", {28})
  .add_string_axis("Impl", {"rk::reduce_into", "rk::accumulator", "16 rk::reduce_into"});

NVBENCH_BENCH(accumulator_host_bench)
  .set_name("accumulator_host")
  .set_min_samples(3)
  .add_int64_power_of_two_axis("Elements", {33})
  .add_string_axis("Memory", {"pageable", "pinned"})
  .add_string_axis("Impl", {"rk::accumulator", "cudaMemcpyAsync"});

NVBENCH_BENCH_TYPES(device_count_bench, NVBENCH_TYPE_AXES(float_types))
  .set_name("device_count")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(12, 28, 4))
  .add_string_axis("Impl", {"host count", "device count", "probe"});

NVBENCH_BENCH_TYPES(combine_finish_bench, NVBENCH_TYPE_AXES(float_types))
  .set_name("combine_finish")
  .set_type_axes_names({"T"})
  .set_is_cpu_only(true)
  .add_int64_power_of_two_axis("Elements", {17})
  .add_string_axis("Impl", {"rk::combine + rk::finish"});

NVBENCH_MAIN

// rk_bench_segmented: rk::segmented_reduce against cub::DeviceSegmentedReduce::Sum (temporary
// storage allocated once per state) and two probes, on NVBench (rk_perf_segmented's cases): one
// probe reads the items and writes one value a segment (the fixed-size form's speed of light), the
// other also reads the CSR offsets (the CSR form's). Axes: T (int32, float, double, int64),
// Elements (2^26; 2^28 with -a), Segments (issue 8's and 28's length distributions: every segment
// k items, one of n/2 items among tiny ones, a power law, half the segments empty, a random mix of
// 1 to 10^5 items, one segment) and Impl: rk::device's CSR
// form with int32 offsets, its CUB form (begin and end offsets), the fixed-size form where every
// segment has one length, rk::two_pass, rk::atomic, CUB, the probes, rk::reduce_into over the
// same items for one segment, and for int64 rk::single_pass and the affine maps over the same
// bytes (a non-commutative operator's cost). A state that does not apply is skipped, saying why.
// Every rk form is checked against rk::device's bits (the same tree), and CUB and rk::atomic
// against them for integers, before it is timed; a mismatch makes the exit status 1.

#include "affine.cuh"
#include "common.cuh"
#include "segmented_cases.cuh"

#include <rk/reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_segmented";

using value_types = nvbench::type_list<std::int32_t, float, double, std::int64_t>;

/// Reads every item and, with `offsets`, the segments + 1 offsets, and writes one value a segment.
template <class T>
__global__ void segment_probe(const T* items, std::int64_t n, T* out, std::int64_t segments, const int* offsets)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  const auto* v             = reinterpret_cast<const uint4*>(items);
  for (std::int64_t i = tid; i < n * std::int64_t{sizeof(T)} / 16; i += stride)
  {
    const uint4 x = v[i];
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (offsets != nullptr)
  {
    for (std::int64_t s = tid; s <= segments; s += stride)
    {
      acc ^= static_cast<unsigned>(offsets[s]);
    }
  }
  for (std::int64_t s = tid; s < segments; s += stride)
  {
    out[s] = static_cast<T>(acc);
  }
}

/// Whether two device arrays of n values hold the same bytes.
template <class T>
bool same_bits(const T* a, const T* b, std::int64_t n, cudaStream_t stream)
{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compared as 32- or 64-bit words");
  using word     = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const auto* wa = reinterpret_cast<const word*>(a);
  const auto* wb = reinterpret_cast<const word*>(b);
  return thrust::equal(thrust::cuda::par.on(stream), wa, wa + n, wb);
}

template <class T>
void segmented_body(nvbench::state& state)
{
  const std::int64_t total = state.get_int64("Elements");
  const std::string& name  = state.get_string("Segments");
  const std::string& impl  = state.get_string("Impl");
  std::int64_t fixed_size  = 0;
  const auto offsets64     = rk_bench::segment_row_offsets(name, total, fixed_size);
  const std::int64_t segs  = static_cast<std::int64_t>(offsets64.size()) - 1;
  constexpr bool is_int64  = std::is_same_v<T, std::int64_t>;
  if ((impl == "rk fixed" && fixed_size == 0) || (impl == "rk::reduce_into" && segs != 1)
      || ((impl == "rk::single_pass" || impl == "rk affine") && !is_int64))
  {
    state.skip(impl == "rk fixed"          ? "the fixed-size form needs segments of one length"
               : impl == "rk::reduce_into" ? "rk::reduce_into is the one-segment row's peer"
                                           : "int64 rows only (the affine maps are its 8 bytes)");
    return;
  }
  const std::vector<int> offsets32(offsets64.begin(), offsets64.end());
  const thrust::device_vector<int> offsets(offsets32.begin(), offsets32.end());
  thrust::device_vector<T> items(static_cast<std::size_t>(total));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(total),
                    items.begin(), rk_bench::small_item<T>{});
  thrust::device_vector<T> out(static_cast<std::size_t>(segs)), reference(static_cast<std::size_t>(segs));
  const T* in              = thrust::raw_pointer_cast(items.data());
  T* o                     = thrust::raw_pointer_cast(out.data());
  const int* off           = thrust::raw_pointer_cast(offsets.data());
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(total));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(total));
  state.add_global_memory_writes<T>(static_cast<std::size_t>(segs));
  if (impl != "probe" && impl != "rk fixed" && impl != "rk::reduce_into")
  {
    state.add_global_memory_reads<int>(static_cast<std::size_t>(segs + 1)); // the CSR offsets
  }

  std::size_t temp_bytes = 0;
  rk_bench::check(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, o, segs, off, off + 1, setup),
                  "cub::DeviceSegmentedReduce::Sum (temporary storage)");
  thrust::device_vector<unsigned char> temp(impl == "cub" ? temp_bytes : 0);
  void* t = thrust::raw_pointer_cast(temp.data());
  thrust::device_vector<rk_bench::affine> maps_out(impl == "rk affine" ? static_cast<std::size_t>(segs) : 0);
  const auto* maps = reinterpret_cast<const rk_bench::affine*>(in);
  auto* m          = thrust::raw_pointer_cast(maps_out.data());

  const auto call = [&](cudaStream_t s) {
    if (impl == "rk::device")
    {
      rk::segmented_reduce(rk::device.on(s), in, off, off + segs + 1, o, T(0));
    }
    else if (impl == "rk CUB form")
    {
      rk::segmented_reduce(rk::device.on(s), in, segs, off, off + 1, o, T(0), rk::plus{});
    }
    else if (impl == "rk fixed")
    {
      rk::segmented_reduce(rk::device.on(s), in, segs, fixed_size, o, T(0));
    }
    else if (impl == "rk::two_pass")
    {
      rk::segmented_reduce(rk::two_pass.on(s), in, off, off + segs + 1, o, T(0));
    }
    else if (impl == "rk::atomic")
    {
      rk::segmented_reduce(rk::atomic.on(s), in, off, off + segs + 1, o, T(0));
    }
    else if (impl == "rk::single_pass")
    {
      rk::segmented_reduce(rk::single_pass.on(s), in, off, off + segs + 1, o, T(0));
    }
    else if (impl == "rk::reduce_into")
    {
      rk::reduce_into(rk::device.on(s), in, in + total, o, T(0));
    }
    else if (impl == "rk affine")
    {
      rk::segmented_reduce(rk::device.on(s), maps, off, off + segs + 1, m, rk_bench::identity_map,
                           rk_bench::compose_affine{});
    }
    else if (impl == "cub")
    {
      std::size_t bytes = temp_bytes;
      cub::DeviceSegmentedReduce::Sum(t, bytes, in, o, segs, off, off + 1, s);
    }
    else
    {
      const int blocks = rk_bench::probe_blocks(segment_probe<T>);
      segment_probe<T>
        <<<blocks, rk_bench::probe_threads, 0, s>>>(in, total, o, segs, impl == "CSR probe" ? off : nullptr);
    }
  };

  // The check: every rk form has rk::device's bits; CUB and rk::atomic too for integers (their
  // floating-point sums group differently); the affine maps on rk::device those on rk::single_pass.
  const bool checked = impl.rfind("rk", 0) == 0 || (impl == "cub" && std::is_integral_v<T>);
  if (checked && !(impl == "rk::atomic" && !std::is_integral_v<T>) )
  {
    T* ref = thrust::raw_pointer_cast(reference.data());
    rk::segmented_reduce(rk::device.on(setup), in, off, off + segs + 1, ref, T(0));
    call(setup);
    bool same = false;
    if (impl == "rk affine")
    {
      thrust::device_vector<rk_bench::affine> single(static_cast<std::size_t>(segs));
      rk::segmented_reduce(rk::single_pass.on(setup), maps, off, off + segs + 1,
                           thrust::raw_pointer_cast(single.data()), rk_bench::identity_map, rk_bench::compose_affine{});
      same = same_bits(reinterpret_cast<const std::int64_t*>(m),
                       reinterpret_cast<const std::int64_t*>(thrust::raw_pointer_cast(single.data())), segs, setup);
    }
    else
    {
      same = same_bits(o, static_cast<const T*>(ref), segs, setup);
    }
    if (!same)
    {
      rk_bench::fail(state, binary, "other bits than rk::device's");
    }
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

template <class T>
void segmented_reduce(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { segmented_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(segmented_reduce, NVBENCH_TYPE_AXES(value_types))
  .set_name("segmented_reduce")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", {26})
  .add_string_axis("Segments", rk_bench::segment_row_names())
  .add_string_axis("Impl", {"rk::device", "rk CUB form", "rk fixed", "rk::two_pass", "rk::atomic", "cub", "probe",
                            "CSR probe", "rk::reduce_into", "rk::single_pass", "rk affine"});

NVBENCH_MAIN

// rk_bench_cub_peer_segmented: the newest CUB's segmented sum, beside rk_bench_segmented's rows.
// Built only against the CCCL that RK_PERF_PEER_CCCL_INCLUDE_DIR names (3.6 and up), never together
// with rk or the toolkit's CCCL: one binary, one CCCL (cub_peer.cuh proves it).
//
// Its benchmark is named "segmented_reduce" with rk_bench_segmented's axes and rows
// (segmented_cases.cuh: the same segments over the same items), so perf/bench_summary.py reads the
// two runs' files as one ('segmented.json+cub_peer_segmented.json') and judges rk against these
// rows too. Impl (cubM.m = the CUB version), temporary storage allocated once per state:
//  - cubM.m        cub::DeviceSegmentedReduce::Sum over CSR offsets (int32, begin = end - 1)
//  - cubM.m fixed  its fixed-size overload (3.4 and up), where every segment has one length
// Every result is checked against the exact sums computed on the host before it is timed (the items
// make float sums exact in any grouping); a mismatch makes the exit status 1.

#include "common.cuh"
#include "cub_peer.cuh"
#include "segmented_cases.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_cub_peer_segmented";

using value_types = nvbench::type_list<std::int32_t, float, double, std::int64_t>;

/// Each segment's exact sum of rk_bench::small_item, as T.
template <class T>
std::vector<T> exact_sums(const std::vector<std::int64_t>& offsets)
{
  std::vector<T> sums(offsets.size() - 1);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
  {
    std::int64_t sum = 0;
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
    {
      sum += rk_bench::small_item<std::int64_t>{}(i);
    }
    sums[s] = static_cast<T>(sum);
  }
  return sums;
}

template <class T>
void peer_body(nvbench::state& state)
{
  const std::int64_t total  = state.get_int64("Elements");
  const std::string& name   = state.get_string("Segments");
  const std::string& impl   = state.get_string("Impl");
  const std::string version = rk_bench::cub_name();
  std::int64_t fixed_size   = 0;
  const auto offsets64      = rk_bench::segment_row_offsets(name, total, fixed_size);
  const std::int64_t segs   = static_cast<std::int64_t>(offsets64.size()) - 1;
  const bool fixed          = impl == version + " fixed";
  if (fixed && (fixed_size == 0 || fixed_size > std::numeric_limits<int>::max()))
  {
    state.skip("the fixed-size form needs segments of one length, at most 2^31 - 1 items");
    return;
  }
  const std::vector<int> offsets32(offsets64.begin(), offsets64.end());
  const thrust::device_vector<int> offsets(offsets32.begin(), offsets32.end());
  thrust::device_vector<T> items(static_cast<std::size_t>(total));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(total),
                    items.begin(), rk_bench::small_item<T>{});
  thrust::device_vector<T> out(static_cast<std::size_t>(segs));
  const T* in              = thrust::raw_pointer_cast(items.data());
  T* o                     = thrust::raw_pointer_cast(out.data());
  const int* off           = thrust::raw_pointer_cast(offsets.data());
  const int size           = static_cast<int>(fixed ? fixed_size : 0);
  const cudaStream_t setup = state.get_cuda_stream();
  state.add_element_count(static_cast<std::size_t>(total));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(total));
  state.add_global_memory_writes<T>(static_cast<std::size_t>(segs));
  if (!fixed)
  {
    state.add_global_memory_reads<int>(static_cast<std::size_t>(segs + 1)); // the CSR offsets
  }

  std::size_t temp_bytes = 0;
  rk_bench::check(fixed ? cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, o, segs, size, setup)
                        : cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, o, segs, off, off + 1, setup),
                  "cub::DeviceSegmentedReduce::Sum (temporary storage)");
  thrust::device_vector<unsigned char> temp(temp_bytes);
  void* t         = thrust::raw_pointer_cast(temp.data());
  const auto call = [&](cudaStream_t s) {
    std::size_t bytes = temp_bytes;
    rk_bench::check(fixed ? cub::DeviceSegmentedReduce::Sum(t, bytes, in, o, segs, size, s)
                          : cub::DeviceSegmentedReduce::Sum(t, bytes, in, o, segs, off, off + 1, s),
                    "cub::DeviceSegmentedReduce::Sum");
  };

  call(setup);
  rk_bench::check(cudaStreamSynchronize(setup), "the checked call");
  const thrust::host_vector<T> got(out);
  const std::vector<T> want = exact_sums<T>(offsets64);
  for (std::int64_t s = 0; s < segs; ++s)
  {
    if (got[static_cast<std::size_t>(s)] != want[static_cast<std::size_t>(s)])
    {
      rk_bench::fail(state, binary, "segment " + std::to_string(s) + " is not its exact sum");
      break;
    }
  }
  state.exec(nvbench::exec_tag::no_batch, [&](nvbench::launch& launch) { call(launch.get_stream()); });
}

template <class T>
void segmented_reduce(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { peer_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(segmented_reduce, NVBENCH_TYPE_AXES(value_types))
  .set_name("segmented_reduce")
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", {26})
  .add_string_axis("Segments", rk_bench::segment_row_names())
  .add_string_axis("Impl", {rk_bench::cub_name(), rk_bench::cub_name() + " fixed"});

NVBENCH_MAIN

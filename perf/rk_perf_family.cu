// rk_perf_family: the reduction family against its peers, in one run on one GPU, with the
// interleaved trials and paired ratios of trials.cuh:
//   transform_reduce  square-then-sum of floats, against rk::reduce's sum of the same array (the
//                     same bytes: the target is within 5 %) and a probe that only reads them;
//   arg_min           int32 and float, against cub::DeviceReduce::ArgMin (temporary storage
//                     allocated once) and the read probe;
//   segmented arg     rk::segmented_arg_min over fixed-size float segments, against
//                     rk::segmented_reduce's minimum over the same items (target: within 10 %),
//                     cub::DeviceSegmentedReduce::ArgMin (segments of 256 items or more: CUB runs
//                     a block per segment) and a probe that reads the items and writes 16 bytes a
//                     segment;
//   reduce_by_key     int32 keys, float values, run lengths 1, 8, 1000 and 10^6, against
//                     thrust::reduce_by_key on the same stream and a probe that reads keys and
//                     values and writes one key and one value per run. Both calls wait for the
//                     run count, so these are round trips (host timing).
//
//   rk_perf_family [--quick] [--sizes 20,24,28] [--only transform_reduce|arg_min|segmented_arg|reduce_by_key]
//                  [--run-length 1|8|1000|1000000]

#include "commit.hpp"
#include "cuda_check.cuh"
#include "trials.cuh"

#include <rk/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#define RK_PERF_CHECK(call) rk_perf::check((call), #call)

namespace
{
/// Reads `n` items of two arrays (16-byte vectors; `b` may be null) and writes `outputs` words to
/// each of two outputs: the bytes a job must move, and nothing else.
__global__ void probe_kernel(const void* a, const void* b, std::int64_t bytes, unsigned* out_a, unsigned* out_b,
                             std::int64_t outputs)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  for (std::int64_t i = tid; i < bytes / 16; i += stride)
  {
    const uint4 x = static_cast<const uint4*>(a)[i];
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
    if (b != nullptr)
    {
      const uint4 y = static_cast<const uint4*>(b)[i];
      acc ^= y.x ^ y.y ^ y.z ^ y.w;
    }
  }
  for (std::int64_t s = tid; s < outputs; s += stride)
  {
    out_a[s] = acc;
    out_b[s] = acc;
  }
  if (outputs == 0 && acc == 0x9e3779b9u)
  {
    out_a[0] = acc; // keeps the loads
  }
}

struct square
{
  __host__ __device__ float operator()(float x) const
  {
    return x * x;
  }
};

double paired(const std::vector<rk_perf::timing>& t, int a, int b)
{
  std::vector<double> q;
  for (std::size_t k = 0; k < t[a].samples_us.size(); ++k)
  {
    q.push_back(t[a].samples_us[k] / t[b].samples_us[k]);
  }
  return rk_perf::median(q);
}

int probe_blocks()
{
  int device = 0, sms = 0;
  RK_PERF_CHECK(cudaGetDevice(&device));
  RK_PERF_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms * 8;
}

void transform_reduce_rows(const std::vector<int>& sizes, const rk_perf::timing_plan& plan, cudaStream_t stream,
                           std::ostream& os)
{
  os << "\n### transform_reduce: square then sum, float\n\n"
     << "| items | rk::transform_reduce µs | rk::reduce µs | probe µs | transform / reduce | transform / probe | ≤ "
        "1.05× reduce |\n"
     << "| --- | ---: | ---: | ---: | ---: | ---: | :---: |\n";
  thrust::device_vector<unsigned> sink(2);
  for (int log_n : sizes)
  {
    const std::int64_t n = std::int64_t{1} << log_n;
    thrust::device_vector<float> items(static_cast<std::size_t>(n));
    thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                      items.begin(), [] __device__(std::int64_t i) { return static_cast<float>(i % 17) - 8.0f; });
    thrust::device_vector<float> out(1);
    const float* in = thrust::raw_pointer_cast(items.data());
    float* o        = thrust::raw_pointer_cast(out.data());
    unsigned* s     = thrust::raw_pointer_cast(sink.data());
    const auto t    = rk_perf::time_interleaved(
      stream, plan,
      {{"transform_reduce",
           [&] { rk::transform_reduce_into(rk::device.on(stream), in, in + n, o, 0.0f, rk::plus{}, square{}); }},
          {"reduce", [&] { rk::reduce_into(rk::device.on(stream), in, in + n, o, 0.0f, rk::plus{}); }},
          {"probe", [&] { probe_kernel<<<probe_blocks(), 256, 0, stream>>>(in, nullptr, n * 4, s, s + 1, 0); }}});
    const double vs_reduce = paired(t, 0, 1);
    char line[256];
    std::snprintf(line, sizeof line, "| 2^%d | %.2f | %.2f | %.2f | %.3f | %.3f | %s |\n", log_n, t[0].median_us,
                  t[1].median_us, t[2].median_us, vs_reduce, paired(t, 0, 2), vs_reduce <= 1.05 ? "PASS" : "MISS");
    os << line << std::flush;
  }
}

template <class T>
void arg_min_rows(const char* type, const std::vector<int>& sizes, const rk_perf::timing_plan& plan,
                  cudaStream_t stream, std::ostream& os)
{
  os << "\n### arg_min, " << type << "\n\n"
     << "| items | rk::arg_min_into µs | CUB ArgMin µs | probe µs | CUB / rk | rk / probe | ≥ CUB |\n"
     << "| --- | ---: | ---: | ---: | ---: | ---: | :---: |\n";
  thrust::device_vector<unsigned> sink(2);
  for (int log_n : sizes)
  {
    const std::int64_t n = std::int64_t{1} << log_n;
    thrust::device_vector<T> items(static_cast<std::size_t>(n));
    thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                      items.begin(), [] __device__(std::int64_t i) { return static_cast<T>((i * 7919) % 100003); });
    thrust::device_vector<rk::arg_result<T, std::ptrdiff_t>> rk_out(1);
    thrust::device_vector<T> cub_min(1);
    thrust::device_vector<std::int64_t> cub_index(1);
    const T* in            = thrust::raw_pointer_cast(items.data());
    std::size_t temp_bytes = 0;
    RK_PERF_CHECK(cub::DeviceReduce::ArgMin(nullptr, temp_bytes, in, thrust::raw_pointer_cast(cub_min.data()),
                                            thrust::raw_pointer_cast(cub_index.data()), n, stream));
    thrust::device_vector<unsigned char> temp(temp_bytes);
    unsigned* s  = thrust::raw_pointer_cast(sink.data());
    const auto t = rk_perf::time_interleaved(
      stream, plan,
      {{"rk", [&] { rk::arg_min_into(rk::device.on(stream), in, in + n, rk_out.data()); }},
       {"cub",
        [&] {
          std::size_t bytes = temp_bytes;
          cub::DeviceReduce::ArgMin(thrust::raw_pointer_cast(temp.data()), bytes, in,
                                    thrust::raw_pointer_cast(cub_min.data()),
                                    thrust::raw_pointer_cast(cub_index.data()), n, stream);
        }},
       {"probe", [&] { probe_kernel<<<probe_blocks(), 256, 0, stream>>>(in, nullptr, n * sizeof(T), s, s + 1, 0); }}});
    const rk::arg_result<T, std::ptrdiff_t> got = rk_out[0];
    if (got.index != static_cast<std::int64_t>(cub_index[0]))
    {
      throw std::runtime_error("arg_min: rk and CUB disagree on the index");
    }
    const double cub_rk = paired(t, 1, 0);
    char line[256];
    std::snprintf(line, sizeof line, "| 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", log_n, t[0].median_us,
                  t[1].median_us, t[2].median_us, cub_rk, paired(t, 0, 2), cub_rk >= 1.0 ? "PASS" : "MISS");
    os << line << std::flush;
  }
}

void segmented_arg_rows(int log_n, const rk_perf::timing_plan& plan, cudaStream_t stream, std::ostream& os)
{
  const std::int64_t n = std::int64_t{1} << log_n;
  os << "\n### segmented arg_min: float, fixed-size segments, 2^" << log_n << " items\n\n"
     << "| segment | segments | rk::segmented_arg_min µs | rk::segmented_reduce min µs | CUB ArgMin µs | probe µs "
        "| arg / reduce | arg / probe | ≤ 1.10× reduce |\n"
     << "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |\n";
  using result = rk::arg_result<float, std::ptrdiff_t>;
  thrust::device_vector<float> items(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    items.begin(), [] __device__(std::int64_t i) { return static_cast<float>((i * 7919) % 100003); });
  const float* in = thrust::raw_pointer_cast(items.data());
  for (const std::int64_t length :
       {std::int64_t{1}, std::int64_t{8}, std::int64_t{256}, std::int64_t{4096}, std::int64_t{65536}})
  {
    const std::int64_t segments = n / length;
    thrust::device_vector<result> arg_out(static_cast<std::size_t>(segments));
    thrust::device_vector<float> min_out(static_cast<std::size_t>(segments));
    result* ao          = thrust::raw_pointer_cast(arg_out.data());
    float* mo           = thrust::raw_pointer_cast(min_out.data());
    const bool with_cub = length >= 256;
    thrust::device_vector<cub::KeyValuePair<int, float>> cub_out(with_cub ? static_cast<std::size_t>(segments) : 0);
    thrust::device_vector<std::int64_t> offsets(with_cub ? static_cast<std::size_t>(segments + 1) : 0);
    thrust::transform(thrust::counting_iterator<std::int64_t>(0),
                      thrust::counting_iterator<std::int64_t>(static_cast<std::int64_t>(offsets.size())),
                      offsets.begin(), [length] __device__(std::int64_t s) { return s * length; });
    const std::int64_t* off = thrust::raw_pointer_cast(offsets.data());
    std::size_t temp_bytes  = 0;
    if (with_cub)
    {
      RK_PERF_CHECK(cub::DeviceSegmentedReduce::ArgMin(nullptr, temp_bytes, in,
                                                       thrust::raw_pointer_cast(cub_out.data()),
                                                       static_cast<int>(segments), off, off + 1, stream));
    }
    thrust::device_vector<unsigned char> temp(temp_bytes);
    std::vector<rk_perf::contender> impls = {
      {"rk", [&] { rk::segmented_arg_min(rk::device.on(stream), in, segments, length, ao); }},
      {"reduce",
       [&] { rk::segmented_reduce(rk::device.on(stream), in, segments, length, mo, 3.0e38f, rk::minimum{}); }},
      {"probe", [&] {
         auto* words = reinterpret_cast<unsigned*>(ao);
         probe_kernel<<<probe_blocks(), 256, 0, stream>>>(in, nullptr, n * 4, words, words + 2 * segments,
                                                          2 * segments);
       }}};
    if (with_cub)
    {
      impls.push_back({"cub", [&] {
                         std::size_t bytes = temp_bytes;
                         cub::DeviceSegmentedReduce::ArgMin(thrust::raw_pointer_cast(temp.data()), bytes, in,
                                                            thrust::raw_pointer_cast(cub_out.data()),
                                                            static_cast<int>(segments), off, off + 1, stream);
                       }});
    }
    const auto t = rk_perf::time_interleaved(stream, plan, impls);
    rk::segmented_arg_min(rk::device.on(stream), in, segments, length, ao);
    RK_PERF_CHECK(cudaStreamSynchronize(stream));
    const result last = arg_out[static_cast<std::size_t>(segments - 1)];
    if (static_cast<float>(min_out[static_cast<std::size_t>(segments - 1)]) != last.value || last.index < 0
        || last.index >= length)
    {
      throw std::runtime_error("segmented arg_min: rk::segmented_arg_min and rk::segmented_reduce disagree");
    }
    const double vs_reduce = paired(t, 0, 1);
    char cub_us[32]        = "n/a";
    if (with_cub)
    {
      std::snprintf(cub_us, sizeof cub_us, "%.1f", t[3].median_us);
    }
    char line[320];
    std::snprintf(line, sizeof line, "| %lld | %lld | %.1f | %.1f | %s | %.1f | %.3f | %.3f | %s |\n",
                  static_cast<long long>(length), static_cast<long long>(segments), t[0].median_us, t[1].median_us,
                  cub_us, t[2].median_us, vs_reduce, paired(t, 0, 2), vs_reduce <= 1.10 ? "PASS" : "MISS");
    os << line << std::flush;
  }
}

void reduce_by_key_rows(int log_n, std::int64_t only_run, const rk_perf::timing_plan& plan, cudaStream_t stream,
                        std::ostream& os)
{
  const std::int64_t n = std::int64_t{1} << log_n;
  os << "\n### reduce_by_key: int32 keys, float values, 2^" << log_n << " items (round trips)\n\n"
     << "| run length | runs | rk::reduce_by_key µs | thrust::reduce_by_key µs | probe µs | thrust / rk | rk / probe | "
        "≥ 2× thrust |\n"
     << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |\n";
  thrust::device_vector<float> values(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    values.begin(), [] __device__(std::int64_t i) { return static_cast<float>(i % 17) - 8.0f; });
  thrust::device_vector<std::int32_t> keys(static_cast<std::size_t>(n)), keys_out(static_cast<std::size_t>(n));
  thrust::device_vector<float> values_out(static_cast<std::size_t>(n));
  // Runs of 8 twice: from item 0, and shifted by 3 items, so that every run straddles two threads
  // of rk's run pass (8 keys per thread) and is finished from its neighbour's partial fold.
  struct layout
  {
    std::int64_t run, shift;
  };
  for (const layout l : {layout{1, 0}, layout{8, 0}, layout{8, 3}, layout{1000, 0}, layout{1000000, 0}})
  {
    const std::int64_t run = l.run, shift = l.shift;
    if (only_run != 0 && run != only_run)
    {
      continue;
    }
    thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                      keys.begin(),
                      [run, shift] __device__(std::int64_t i) { return static_cast<std::int32_t>((i + shift) / run); });
    const std::int64_t runs = (n + shift + run - 1) / run;
    auto* k                 = thrust::raw_pointer_cast(keys.data());
    auto* v                 = thrust::raw_pointer_cast(values.data());
    auto* ko                = thrust::raw_pointer_cast(keys_out.data());
    auto* vo                = thrust::raw_pointer_cast(values_out.data());
    const auto t            = rk_perf::time_host_interleaved(
      plan, {{"rk", [&] { rk::reduce_by_key(rk::device.on(stream), k, k + n, v, ko, vo, 0.0f, rk::plus{}); }},
                        {"thrust", [&] { thrust::reduce_by_key(thrust::cuda::par.on(stream), k, k + n, v, ko, vo); }},
                        {"probe", [&] {
                probe_kernel<<<probe_blocks(), 256, 0, stream>>>(k, v, n * 4, reinterpret_cast<unsigned*>(ko),
                                                                            reinterpret_cast<unsigned*>(vo), runs);
                RK_PERF_CHECK(cudaStreamSynchronize(stream));
              }}});
    const double thrust_rk = paired(t, 1, 0);
    char line[256];
    const std::string name = std::to_string(run) + (shift != 0 ? " (shifted " + std::to_string(shift) + ")" : "");
    std::snprintf(line, sizeof line, "| %s | %lld | %.1f | %.1f | %.1f | %.2f | %.2f | %s |\n", name.c_str(),
                  static_cast<long long>(runs), t[0].median_us, t[1].median_us, t[2].median_us, thrust_rk,
                  paired(t, 0, 2), thrust_rk >= 2.0 ? "PASS" : "MISS");
    os << line << std::flush;
  }
}
} // namespace

int main(int argc, char** argv)
{
  bool quick            = false;
  std::string sizes     = "20,24,28", only;
  std::int64_t only_run = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--quick")
    {
      quick = true;
      sizes = "20,24";
    }
    else if (a == "--sizes" && i + 1 < argc)
    {
      sizes = argv[++i];
    }
    else if (a == "--only" && i + 1 < argc)
    {
      only = argv[++i];
    }
    else if (a == "--run-length" && i + 1 < argc)
    {
      only_run = std::stoll(argv[++i]);
    }
    else
    {
      std::cerr << "usage: rk_perf_family [--quick] [--sizes 20,24,28] [--only "
                   "transform_reduce|arg_min|segmented_arg|reduce_by_key] "
                   "[--run-length 1|8|1000|1000000]\n";
      return 2;
    }
  }
  std::vector<int> logs;
  std::stringstream ss(sizes);
  for (std::string s; std::getline(ss, s, ',');)
  {
    logs.push_back(std::stoi(s));
  }
  cudaDeviceProp prop{};
  RK_PERF_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::cout << "# rk_perf_family\n\n- GPU: " << prop.name << "\n- commit " << rk_perf::commit_id() << ", CUB "
            << CUB_VERSION << "\n- medians of interleaved trials; ratios paired per trial\n";
  cudaStream_t stream;
  RK_PERF_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const rk_perf::timing_plan plan = rk_perf::make_timing_plan(quick, quick ? 3 : 7, quick ? 5 : 15);
  if (only.empty() || only == "transform_reduce")
  {
    transform_reduce_rows(logs, plan, stream, std::cout);
  }
  if (only.empty() || only == "arg_min")
  {
    arg_min_rows<std::int32_t>("int32", logs, plan, stream, std::cout);
    arg_min_rows<float>("float", logs, plan, stream, std::cout);
  }
  if (only.empty() || only == "segmented_arg")
  {
    segmented_arg_rows(quick ? 24 : 26, plan, stream, std::cout);
  }
  if (only.empty() || only == "reduce_by_key")
  {
    reduce_by_key_rows(quick ? 24 : 26, only_run, plan, stream, std::cout);
  }
  RK_PERF_CHECK(cudaStreamDestroy(stream));
  return 0;
}

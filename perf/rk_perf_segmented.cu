// rk_perf_segmented: rk::segmented_reduce against cub::DeviceSegmentedReduce::Sum (temporary
// storage allocated once) and a probe that only reads the items and writes one value per segment
// (the job's speed of light), for the segment-length distributions of the segmented issue, in one
// run on one GPU. Interleaved trials (trials.cuh), medians, paired ratios.
//
//   rk_perf_segmented [--quick] [--types int32,float,double] [--sizes 26,28]
//
// CSR form with int32 offsets (both rk and CUB read the same offsets); the all-k rows also run
// rk's fixed-size form, which reads no offsets.

#include "../test/support/segments.hpp"
#include "commit.hpp"
#include "cuda_check.cuh"
#include "trials.cuh"

#include <rk/reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#define RK_PERF_CHECK(call) rk_perf::check((call), #call)

namespace
{
std::string only_rows; // --row NAME[,NAME...]: those distributions only (for profiling and sweeps)
int mismatches = 0;    // rows whose rk forms (or CUB, for integers) disagree with rk::device

/// Reads every item (16-byte vectors) and writes one value per segment: what any segmented
/// reduction must move, and nothing else.
template <class T>
__global__ void probe_kernel(const T* items, std::int64_t n, T* out, std::int64_t segments)
{
  using vec             = uint4;
  constexpr int per_vec = sizeof(vec) / sizeof(T);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  const vec* v              = reinterpret_cast<const vec*>(items);
  for (std::int64_t i = tid; i < n / per_vec; i += stride)
  {
    const vec x = v[i];
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  for (std::int64_t s = tid; s < segments; s += stride)
  {
    T value;
    std::memcpy(&value, &acc, sizeof(T) < sizeof(acc) ? sizeof(T) : sizeof(acc));
    out[s] = value;
  }
}

struct row
{
  std::string name;
  std::vector<std::int64_t> offsets;
  std::int64_t fixed_size; // 0: not fixed
};

std::vector<row> make_rows(std::int64_t total)
{
  std::vector<row> rows;
  for (std::int64_t len : {std::int64_t{1}, std::int64_t{4}, std::int64_t{32}, std::int64_t{256}, std::int64_t{4096},
                           std::int64_t{65536}, std::int64_t{1} << 20, std::int64_t{1} << 24})
  {
    row r{"all " + std::to_string(len), {}, len};
    r.offsets.resize(static_cast<std::size_t>(total / len) + 1);
    for (std::size_t s = 0; s < r.offsets.size(); ++s)
    {
      r.offsets[s] = static_cast<std::int64_t>(s) * len;
    }
    rows.push_back(std::move(r));
  }
  rows.push_back({"one of n/2 + 1-8", rk_test::make_offsets(rk_test::segment_layout::huge_plus_tiny, total), 0});
  rows.push_back({"power law", rk_test::make_offsets(rk_test::segment_layout::power_law, total), 0});
  rows.push_back({"one segment", {0, total}, total});
  return rows;
}

template <class T>
void run_type(const char* type_name, int log_total, bool quick, std::ostream& os)
{
  const std::int64_t total = std::int64_t{1} << log_total;
  thrust::device_vector<T> items(static_cast<std::size_t>(total));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(total),
                    items.begin(), [] __device__(std::int64_t i) { return static_cast<T>(i % 17) - T(8); });
  cudaStream_t stream;
  RK_PERF_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const rk_perf::timing_plan plan = rk_perf::make_timing_plan(quick, quick ? 3 : 5, quick ? 5 : 9);
  os << "\n### " << type_name << ", 2^" << log_total << " items\n\n"
     << "| segments | count | rk::device µs | rk fixed µs | rk::two_pass µs | CUB µs | probe µs | rk / probe | CUB / rk | ≤ 1.3× probe | ≥ CUB |\n"
     << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | :---: |\n";
  for (const row& r : make_rows(total))
  {
    if (!only_rows.empty() && ("," + only_rows + ",").find("," + r.name + ",") == std::string::npos)
    {
      continue;
    }
    const std::int64_t segments = static_cast<std::int64_t>(r.offsets.size()) - 1;
    std::vector<int> offsets32(r.offsets.begin(), r.offsets.end());
    const thrust::device_vector<int> offsets(offsets32.begin(), offsets32.end());
    thrust::device_vector<T> out(static_cast<std::size_t>(segments));
    const T* in = thrust::raw_pointer_cast(items.data());
    T* o        = thrust::raw_pointer_cast(out.data());
    const int* off = thrust::raw_pointer_cast(offsets.data());
    std::size_t temp_bytes = 0;
    RK_PERF_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, o, segments, off, off + 1, stream));
    thrust::device_vector<unsigned char> temp(temp_bytes);
    void* t = thrust::raw_pointer_cast(temp.data());
    std::vector<rk_perf::contender> contenders{
      {"rk::device", [&] { rk::segmented_reduce(rk::device.on(stream), in, off, off + segments + 1, o, T(0)); }},
      {"rk fixed",
       [&] {
         if (r.fixed_size > 0)
         {
           rk::segmented_reduce(rk::device.on(stream), in, segments, r.fixed_size, o, T(0));
         }
       }},
      {"rk::two_pass",
       [&] { rk::segmented_reduce(rk::two_pass.on(stream), in, off, off + segments + 1, o, T(0)); }},
      {"cub",
       [&] {
         std::size_t bytes = temp_bytes;
         cub::DeviceSegmentedReduce::Sum(t, bytes, in, o, segments, off, off + 1, stream);
       }},
      {"probe", [&] { probe_kernel<<<132 * 8, 256, 0, stream>>>(in, total, o, segments); }}};
    const auto times = rk_perf::time_interleaved(stream, plan, contenders);
    // Every timed rk form must give rk::device's bits (the same tree), and integer sums CUB's.
    auto result_of = [&](int contender) {
      contenders[static_cast<std::size_t>(contender)].call();
      RK_PERF_CHECK(cudaStreamSynchronize(stream));
      std::vector<T> host(static_cast<std::size_t>(segments));
      RK_PERF_CHECK(cudaMemcpy(host.data(), o, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
      return host;
    };
    const std::vector<T> expected = result_of(0);
    std::vector<int> to_compare{2};
    if (r.fixed_size > 0)
    {
      to_compare.push_back(1);
    }
    if (std::is_integral_v<T>)
    {
      to_compare.push_back(3);
    }
    for (int c : to_compare)
    {
      if (std::memcmp(result_of(c).data(), expected.data(), expected.size() * sizeof(T)) != 0)
      {
        std::fprintf(stderr, "rk_perf_segmented: %s gives other values than rk::device (%s, %s, 2^%d)\n",
                     contenders[static_cast<std::size_t>(c)].name.c_str(), r.name.c_str(), type_name, log_total);
        mismatches += 1;
      }
    }
    // Paired ratios: per trial, then the median.
    auto ratio = [&](int a, int b) {
      std::vector<double> q;
      for (std::size_t k = 0; k < times[a].samples_us.size(); ++k)
      {
        q.push_back(times[a].samples_us[k] / times[b].samples_us[k]);
      }
      return rk_perf::median(q);
    };
    const double rk_probe = ratio(0, 4), cub_rk = ratio(3, 0);
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %lld | %.1f | %s | %.1f | %.1f | %.1f | %.2f | %.2f | %s | %s |\n",
                  r.name.c_str(), static_cast<long long>(segments), times[0].median_us,
                  r.fixed_size > 0 ? std::to_string(times[1].median_us).substr(0, std::to_string(times[1].median_us).find('.') + 2).c_str() : "-",
                  times[2].median_us, times[3].median_us, times[4].median_us, rk_probe, cub_rk,
                  rk_probe <= 1.3 ? "PASS" : "MISS", cub_rk >= 1.0 ? "PASS" : "MISS");
    os << line << std::flush;
  }
  RK_PERF_CHECK(cudaStreamDestroy(stream));
}
} // namespace

int main(int argc, char** argv)
{
  bool quick = false;
  std::string types = "int32,float,double", sizes = "26,28";
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--quick")
    {
      quick = true;
      sizes = "26";
    }
    else if (a == "--types" && i + 1 < argc)
    {
      types = argv[++i];
    }
    else if (a == "--row" && i + 1 < argc)
    {
      only_rows = argv[++i];
    }
    else if (a == "--sizes" && i + 1 < argc)
    {
      sizes = argv[++i];
    }
    else
    {
      std::cerr << "usage: rk_perf_segmented [--quick] [--types int32,float,double] [--sizes 26,28] [--row \"all 32,power law\"]\n";
      return 2;
    }
  }
  cudaDeviceProp prop{};
  RK_PERF_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::cout << "# rk_perf_segmented\n\n- GPU: " << prop.name << "\n- commit " << rk_perf::commit_id()
            << ", CUB " << CUB_VERSION << "\n- CSR form, int32 offsets; times are medians of interleaved trials; ratios "
               "are paired per trial\n";
  std::stringstream ts(types), ss;
  std::string type;
  while (std::getline(ts, type, ','))
  {
    std::stringstream sz(sizes);
    std::string s;
    while (std::getline(sz, s, ','))
    {
      const int log_total = std::stoi(s);
      if (type == "int32")
      {
        run_type<int>("int32", log_total, quick, std::cout);
      }
      else if (type == "float")
      {
        run_type<float>("float", log_total, quick, std::cout);
      }
      else if (type == "double")
      {
        run_type<double>("double", log_total, quick, std::cout);
      }
    }
  }
  if (mismatches > 0)
  {
    std::cerr << "rk_perf_segmented: " << mismatches << " results differ from rk::device's (above)\n";
    return 1;
  }
  std::cout << "\nEvery rk form gave rk::device's bits on every row, and CUB's for int32.\n";
  return 0;
}

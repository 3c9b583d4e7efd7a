// rk_perf_segmented: rk::segmented_reduce against cub::DeviceSegmentedReduce::Sum (temporary
// storage allocated once) and two probes: one reads the items and writes one value per segment
// (the fixed-size form's speed of light), the other also reads the CSR offsets (the CSR form's),
// for the segment-length distributions of issues 8 and 28, in one run on one GPU. Interleaved
// trials (trials.cuh), medians, paired ratios.
//
//   rk_perf_segmented [--quick] [--types int32,float,double,int64] [--sizes 26,28] [--row NAME,...]
//
// CSR form with int32 offsets (both rk and CUB read the same offsets); every row also runs rk's
// CUB form (begin and end offsets: the same array, sorted and contiguous), rk::two_pass and
// rk::atomic; the all-k rows rk's fixed-size form, which reads no offsets; one segment
// rk::reduce_into over the same items; int64 the affine maps over the same bytes.

#include "../test/support/segments.hpp"
#include "affine.cuh"
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

/// Reads every item (16-byte vectors) and writes one value per segment: what the fixed-size form
/// must move, and nothing else. With `offsets` it also reads the segments + 1 CSR offsets: what
/// the CSR form must move (issue 28's honest probes).
template <class T>
__global__ void probe_kernel(const T* items, std::int64_t n, T* out, std::int64_t segments,
                             const int* offsets = nullptr)
{
  using vec                 = uint4;
  constexpr int per_vec     = sizeof(vec) / sizeof(T);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid    = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  const vec* v              = reinterpret_cast<const vec*>(items);
  for (std::int64_t i = tid; i < n / per_vec; i += stride)
  {
    const vec x = v[i];
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
  // Issue 28's lengths; at 2^26 items the fixed-size rows of 4, 8, 64, 1024, 8192 and 2^20 are its
  // matrices (2^24 x 4, 2^23 x 8, 2^20 x 64, 2^16 x 1024, 8192 x 8192, 64 x 2^20).
  for (std::int64_t len :
       {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{32}, std::int64_t{64},
        std::int64_t{256}, std::int64_t{1024}, std::int64_t{4096}, std::int64_t{8192}, std::int64_t{16384},
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
  os
    << "\n### " << type_name << ", 2^" << log_total << " items\n\n"
    << "| segments | count | rk::device µs | rk fixed µs | rk CUB form µs | rk::two_pass µs | rk::atomic µs | CUB µs | "
       "probe µs | CSR probe µs | rk / CSR probe | fixed / probe | CUB / rk | ≤ 1.15× probe | ≥ CUB |\n"
    << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | :---: |\n";
  std::vector<std::string> notes, affine_rows;
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
    const T* in            = thrust::raw_pointer_cast(items.data());
    T* o                   = thrust::raw_pointer_cast(out.data());
    const int* off         = thrust::raw_pointer_cast(offsets.data());
    std::size_t temp_bytes = 0;
    RK_PERF_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in, o, segments, off, off + 1, stream));
    thrust::device_vector<unsigned char> temp(temp_bytes);
    void* t = thrust::raw_pointer_cast(temp.data());
    // The contenders this row runs, by name (a form that does not apply is left out, not timed).
    std::vector<rk_perf::contender> contenders{
      {"rk::device", [&] { rk::segmented_reduce(rk::device.on(stream), in, off, off + segments + 1, o, T(0)); }},
      {"rk CUB form",
       [&] { rk::segmented_reduce(rk::device.on(stream), in, segments, off, off + 1, o, T(0), rk::plus{}); }},
      {"rk::two_pass", [&] { rk::segmented_reduce(rk::two_pass.on(stream), in, off, off + segments + 1, o, T(0)); }},
      {"rk::atomic", [&] { rk::segmented_reduce(rk::atomic.on(stream), in, off, off + segments + 1, o, T(0)); }},
      {"cub",
       [&] {
         std::size_t bytes = temp_bytes;
         cub::DeviceSegmentedReduce::Sum(t, bytes, in, o, segments, off, off + 1, stream);
       }},
      {"probe", [&] { probe_kernel<<<132 * 8, 256, 0, stream>>>(in, total, o, segments); }},
      {"CSR probe", [&] { probe_kernel<<<132 * 8, 256, 0, stream>>>(in, total, o, segments, off); }}};
    if (r.fixed_size > 0)
    {
      contenders.push_back(
        {"rk fixed", [&] { rk::segmented_reduce(rk::device.on(stream), in, segments, r.fixed_size, o, T(0)); }});
    }
    if (segments == 1)
    {
      contenders.push_back(
        {"rk::reduce_into", [&] { rk::reduce_into(rk::device.on(stream), in, in + total, o, T(0)); }});
    }
    thrust::device_vector<rk_perf::affine> maps_out(std::is_same_v<T, std::int64_t> ? static_cast<std::size_t>(segments)
                                                                                    : 0);
    if constexpr (std::is_same_v<T, std::int64_t>)
    {
      // The same bytes as affine maps, composed in order: the non-commutative operator's cost.
      const auto* maps = reinterpret_cast<const rk_perf::affine*>(in);
      auto* m          = thrust::raw_pointer_cast(maps_out.data());
      contenders.push_back({"rk::single_pass", [&] {
                              rk::segmented_reduce(rk::single_pass.on(stream), in, off, off + segments + 1, o, T(0));
                            }});
      contenders.push_back({"rk affine", [&, maps, m] {
                              rk::segmented_reduce(rk::device.on(stream), maps, off, off + segments + 1, m,
                                                   rk_perf::identity_map, rk_perf::compose_affine{});
                            }});
    }
    auto index_of = [&](const char* name) {
      for (std::size_t c = 0; c < contenders.size(); ++c)
      {
        if (contenders[c].name == name)
        {
          return static_cast<int>(c);
        }
      }
      return -1;
    };
    const auto times = rk_perf::time_interleaved(stream, plan, contenders);
    // Every timed rk form must give rk::device's bits (the same tree), and integer sums CUB's and
    // rk::atomic's (a floating-point rk::atomic sum may differ in its last bits).
    auto result_of = [&](int contender) {
      contenders[static_cast<std::size_t>(contender)].call();
      RK_PERF_CHECK(cudaStreamSynchronize(stream));
      std::vector<T> host(static_cast<std::size_t>(segments));
      RK_PERF_CHECK(cudaMemcpy(host.data(), o, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
      return host;
    };
    const std::vector<T> expected = result_of(0);
    std::vector<const char*> to_compare{"rk CUB form", "rk::two_pass"};
    if (r.fixed_size > 0)
    {
      to_compare.push_back("rk fixed");
    }
    if (segments == 1)
    {
      to_compare.push_back("rk::reduce_into");
    }
    if (index_of("rk::single_pass") >= 0)
    {
      to_compare.push_back("rk::single_pass");
    }
    if (std::is_integral_v<T>)
    {
      to_compare.push_back("cub");
      to_compare.push_back("rk::atomic");
    }
    for (const char* name : to_compare)
    {
      if (std::memcmp(result_of(index_of(name)).data(), expected.data(), expected.size() * sizeof(T)) != 0)
      {
        std::fprintf(stderr, "rk_perf_segmented: %s gives other values than rk::device (%s, %s, 2^%d)\n", name,
                     r.name.c_str(), type_name, log_total);
        mismatches += 1;
      }
    }
    // Paired ratios: per trial, then the median.
    auto ratio = [&](const char* a, const char* b) {
      const auto& ta = times[static_cast<std::size_t>(index_of(a))];
      const auto& tb = times[static_cast<std::size_t>(index_of(b))];
      std::vector<double> q;
      for (std::size_t k = 0; k < ta.samples_us.size(); ++k)
      {
        q.push_back(ta.samples_us[k] / tb.samples_us[k]);
      }
      return rk_perf::median(q);
    };
    auto time_of = [&](const char* name) {
      char cell[32];
      const int c = index_of(name);
      std::snprintf(cell, sizeof cell, "%.1f", c < 0 ? 0.0 : times[static_cast<std::size_t>(c)].median_us);
      return std::string(c < 0 ? "-" : cell);
    };
    const double rk_probe = ratio("rk::device", "CSR probe"), cub_rk = ratio("cub", "rk::device");
    const bool fixed         = index_of("rk fixed") >= 0;
    const double fixed_probe = fixed ? ratio("rk fixed", "probe") : 0.0;
    if (segments == 1)
    {
      char note[256];
      std::snprintf(note, sizeof note,
                    "one segment: rk::device %s µs, rk::reduce_into over the same items %s µs, ratio %.3f "
                    "(target ≤ 1.05: %s)",
                    time_of("rk::device").c_str(), time_of("rk::reduce_into").c_str(),
                    ratio("rk::device", "rk::reduce_into"),
                    ratio("rk::device", "rk::reduce_into") <= 1.05 ? "PASS" : "MISS");
      notes.push_back(note);
    }
    if (index_of("rk affine") >= 0)
    {
      char note[256];
      std::snprintf(note, sizeof note, "| %s | %s | %s | %s | %.3f | %.3f | %s |", r.name.c_str(),
                    time_of("rk::device").c_str(), time_of("rk::single_pass").c_str(), time_of("rk affine").c_str(),
                    ratio("rk affine", "rk::device"), ratio("rk affine", "rk::single_pass"),
                    ratio("rk affine", "rk::device") <= 1.10 ? "PASS" : "MISS");
      affine_rows.push_back(note);
    }
    char line[512];
    char fixed_cell[16] = "-";
    if (fixed)
    {
      std::snprintf(fixed_cell, sizeof fixed_cell, "%.2f", fixed_probe);
    }
    // The verdict: CSR against its probe, and the fixed-size form (where the row has one) against its own.
    const bool within = rk_probe <= 1.15 && (!fixed || fixed_probe <= 1.15);
    std::snprintf(line, sizeof line,
                  "| %s | %lld | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %.2f | %s | %s |\n",
                  r.name.c_str(), static_cast<long long>(segments), time_of("rk::device").c_str(),
                  time_of("rk fixed").c_str(), time_of("rk CUB form").c_str(), time_of("rk::two_pass").c_str(),
                  time_of("rk::atomic").c_str(), time_of("cub").c_str(), time_of("probe").c_str(),
                  time_of("CSR probe").c_str(), rk_probe, fixed_cell, cub_rk, within ? "PASS" : "MISS",
                  cub_rk >= 1.0 ? "PASS" : "MISS");
    os << line << std::flush;
  }
  for (const std::string& note : notes)
  {
    os << "\n" << note << "\n";
  }
  if (!affine_rows.empty())
  {
    os << "\nThe non-commutative operator (affine maps, 8 bytes: the same bytes as int64) on rk::device (which "
          "runs single_pass for it), against int64 plus on rk::device (rk::atomic) and on rk::single_pass:\n\n"
       << "| segments | int64 plus, rk::device µs | int64 plus, single_pass µs | affine µs | affine / device plus | "
          "affine / single_pass plus | ≤ 1.10 |\n| --- | ---: | ---: | ---: | ---: | ---: | :---: |\n";
    for (const std::string& a : affine_rows)
    {
      os << a << "\n";
    }
  }
  os << std::flush;
  RK_PERF_CHECK(cudaStreamDestroy(stream));
}
} // namespace

int main(int argc, char** argv)
{
  bool quick        = false;
  std::string types = "int32,float,double,int64", sizes = "26,28";
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
      std::cerr << "usage: rk_perf_segmented [--quick] [--types int32,float,double,int64] [--sizes 26,28] [--row \"all "
                   "32,power law\"]\n";
      return 2;
    }
  }
  cudaDeviceProp prop{};
  RK_PERF_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::cout << "# rk_perf_segmented\n\n- GPU: " << prop.name << "\n- commit " << rk_perf::commit_id() << ", CUB "
            << CUB_VERSION
            << "\n- CSR form, int32 offsets; times are medians of interleaved trials; ratios "
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
      else if (type == "int64")
      {
        run_type<std::int64_t>("int64", log_total, quick, std::cout);
      }
      else
      {
        std::cerr << "rk_perf_segmented: unknown type " << type << " (int32, float, double, int64)\n";
        return 2;
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

// rk_perf_partial: partials (issue 29) against the flat reduce they must keep pace with, in
// interleaved trials (trials.cuh), float and double:
//  - rk::reduce_partial_into of n items at offset 0 and at an offset that cuts a lane (the most
//    nodes: about two per level), against rk::reduce_into of the same items and a read of them;
//  - rk::accumulator over 16 device chunks of 2^24 items against one rk::reduce_into of 2^28;
//  - rk::accumulator over host data (32 GiB by default, in 1 GiB chunks), pageable and pinned,
//    against cudaMemcpyAsync of the same bytes from the same memory into a device buffer;
//  - rk::reduce_into with its count in device memory (rk::device_count) against the count on the
//    host;
//  - rk::combine and rk::finish of two pieces on the host.
// Every result is checked against rk::reduce's bits before it is timed.
//
//   rk_perf_partial [--quick] [--host-gib N]

#include "commit.hpp"
#include "cuda_check.cuh"
#include "probe.cuh"
#include "trials.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#define RK_PERF_CHECK(call) rk_perf::check((call), #call)

namespace
{

template <class F>
thrust::device_vector<F> spread(std::int64_t n)
{
  thrust::device_vector<F> v(static_cast<std::size_t>(n));
  thrust::transform(thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n), v.begin(),
                    [] __device__(std::int64_t i) {
                      const std::uint64_t h = (static_cast<std::uint64_t>(i) + 1) * 0x9e3779b97f4a7c15ull;
                      return static_cast<F>(static_cast<double>(h >> 40) * 0x1p-20 - 8.0);
                    });
  return v;
}

template <class F>
bool same_bits(F a, F b)
{
  return std::memcmp(&a, &b, sizeof(F)) == 0;
}

template <class F>
void partial_rows(const char* type, int log2n, const rk_perf::timing_plan& plan, cudaStream_t stream, int& misses)
{
  const std::int64_t n   = std::int64_t{1} << log2n;
  const std::int64_t cut = 12345; // the piece [cut, cut + n) of a longer sequence
  const auto v           = spread<F>(n + cut);
  const auto first       = v.begin() + cut;
  thrust::device_vector<F> out(1);
  thrust::device_vector<rk::partial<F>> record(1);
  thrust::device_vector<unsigned> sink(1);
  F* o              = thrust::raw_pointer_cast(out.data());
  rk::partial<F>* r = thrust::raw_pointer_cast(record.data());
  const auto device = rk::device.on(stream);
  // Checked first: the piece at offset 0 finishes to rk::reduce's bits.
  rk::reduce_partial_into(device, first, first + n, 0, r, rk::plus{});
  RK_PERF_CHECK(cudaStreamSynchronize(stream)); // the copy below runs on another stream
  const rk::partial<F> p = record[0];
  const F want           = rk::reduce(device, first, first + n, F(0), rk::plus{});
  if (!same_bits(rk::finish(p, F(0), rk::plus{}), want))
  {
    std::fprintf(stderr, "rk_perf_partial: %s 2^%d: the partial does not finish to rk::reduce's bits\n", type, log2n);
    std::exit(1);
  }
  const rk::partial<F> cut_piece = rk::reduce_partial(device, first, first + n, cut, rk::plus{});
  const auto t                   = rk_perf::time_interleaved(
    stream, plan,
    {{"reduce_into", [&] { rk::reduce_into(device, first, first + n, o, F(0), rk::plus{}); }},
                       {"partial at 0", [&] { rk::reduce_partial_into(device, first, first + n, 0, r, rk::plus{}); }},
                       {"partial at 12345", [&] { rk::reduce_partial_into(device, first, first + n, cut, r, rk::plus{}); }},
                       {"probe", [&] {
        // n items' bytes from the allocation's aligned start (the probe reads 16-byte vectors).
        rk_perf::probe_kernel<<<rk_perf::probe_blocks(), 256, 0, stream>>>(thrust::raw_pointer_cast(v.data()),
                                                                                             n * static_cast<std::int64_t>(sizeof(F)),
                                                                                             thrust::raw_pointer_cast(sink.data()), 0);
      }}});
  const double at0 = rk_perf::paired(t, 1, 0), atcut = rk_perf::paired(t, 2, 0);
  const bool pass = log2n < 20 || (at0 <= 1.05 && atcut <= 1.05);
  misses += !pass;
  std::printf("| %s | 2^%d | %d | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %s |\n", type, log2n,
              cut_piece.node_count, t[0].median_us, t[1].median_us, t[2].median_us, t[3].median_us, at0, atcut,
              rk_perf::paired(t, 0, 3),
              log2n < 20 ? "(below 2^20)"
              : pass     ? "PASS"
                         : "MISS");
}

template <class F>
void accumulator_row(const char* type, const rk_perf::timing_plan& plan, cudaStream_t stream, int& misses)
{
  const std::int64_t chunk = std::int64_t{1} << 24, chunks = 16, n = chunk * chunks;
  const auto v = spread<F>(n);
  thrust::device_vector<F> out(1);
  F* o              = thrust::raw_pointer_cast(out.data());
  const auto device = rk::device.on(stream);
  rk::accumulator check(device, F(0), rk::plus{});
  for (std::int64_t k = 0; k < chunks; ++k)
  {
    check.add(v.begin() + k * chunk, v.begin() + (k + 1) * chunk);
  }
  if (!same_bits(check.result(), rk::reduce(device, v.begin(), v.end(), F(0), rk::plus{})))
  {
    std::fprintf(stderr, "rk_perf_partial: %s accumulator: not rk::reduce's bits\n", type);
    std::exit(1);
  }
  const auto t       = rk_perf::time_interleaved(stream, plan,
                                                 {{"reduce_into 2^28",
                                                   [&] { rk::reduce_into(device, v.begin(), v.end(), o, F(0), rk::plus{}); }},
                                                  {"accumulator 16 x 2^24", [&] {
                                               rk::accumulator acc(device, F(0), rk::plus{});
                                               for (std::int64_t k = 0; k < chunks; ++k)
                                               {
                                                 acc.add(v.begin() + k * chunk, v.begin() + (k + 1) * chunk);
                                               }
                                             }}});
  const double ratio = rk_perf::paired(t, 1, 0);
  misses += ratio > 1.05;
  std::printf("| %s | %.1f | %.1f | %.3f | %s |\n", type, t[0].median_us, t[1].median_us, ratio,
              ratio <= 1.05 ? "PASS" : "MISS");
}

/// rk::reduce_into with the count in device memory (rk::device_count) against the same call with
/// the count on the host, and a read of the items.
template <class F>
void device_count_row(const char* type, int log2n, const rk_perf::timing_plan& plan, cudaStream_t stream, int& misses)
{
  const std::int64_t n = std::int64_t{1} << log2n;
  const auto v         = spread<F>(n);
  thrust::device_vector<F> out(2);
  thrust::device_vector<std::int64_t> count(1, n);
  thrust::device_vector<unsigned> sink(1);
  F* o              = thrust::raw_pointer_cast(out.data());
  const auto device = rk::device.on(stream);
  rk::reduce_into(device, v.begin(), rk::device_count(count.data()), o, F(0), rk::plus{});
  rk::reduce_into(device, v.begin(), v.end(), o + 1, F(0), rk::plus{});
  RK_PERF_CHECK(cudaStreamSynchronize(stream));
  if (!same_bits(F(out[0]), F(out[1])))
  {
    std::fprintf(stderr, "rk_perf_partial: %s 2^%d: the device count does not give the host count's bits\n", type,
                 log2n);
    std::exit(1);
  }
  const auto t = rk_perf::time_interleaved(
    stream, plan,
    {{"host count", [&] { rk::reduce_into(device, v.begin(), v.end(), o, F(0), rk::plus{}); }},
     {"device count", [&] { rk::reduce_into(device, v.begin(), rk::device_count(count.data()), o, F(0), rk::plus{}); }},
     {"probe", [&] {
        rk_perf::probe_kernel<<<rk_perf::probe_blocks(), 256, 0, stream>>>(thrust::raw_pointer_cast(v.data()),
                                                                           n * static_cast<std::int64_t>(sizeof(F)),
                                                                           thrust::raw_pointer_cast(sink.data()), 0);
      }}});
  const double ratio = rk_perf::paired(t, 1, 0);
  const bool pass    = log2n < 20 || ratio <= 1.10;
  misses += !pass;
  std::printf("| %s | 2^%d | %.2f | %.2f | %.2f | %.3f | %s |\n", type, log2n, t[0].median_us, t[1].median_us,
              t[2].median_us, ratio,
              log2n < 20 ? "(below 2^20)"
              : pass     ? "PASS"
                         : "MISS");
}

/// Host round trips of two contenders, alternated A B, B A, ...; the median of each.
template <class A, class B>
std::pair<double, double> alternated_seconds(int reps, A a, B b)
{
  std::vector<double> ta, tb;
  const auto time = [](auto& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int r = 0; r < reps; ++r)
  {
    if (r % 2 == 0)
    {
      ta.push_back(time(a));
      tb.push_back(time(b));
    }
    else
    {
      tb.push_back(time(b));
      ta.push_back(time(a));
    }
  }
  return {rk_perf::median(ta), rk_perf::median(tb)};
}

/// The accumulator over `bytes` of host floats in `memory` (pageable or pinned), 1 GiB chunks,
/// against cudaMemcpyAsync of each chunk into one device buffer; result() and the copies' wait
/// timed. Returns the accumulator's result.
float host_data_row(const char* memory, const float* data, std::size_t bytes, int reps, cudaStream_t stream,
                    int& misses)
{
  const std::size_t chunk_bytes = std::min<std::size_t>(bytes, std::size_t{1} << 30);
  const std::int64_t n          = static_cast<std::int64_t>(bytes / sizeof(float));
  const std::int64_t chunk      = static_cast<std::int64_t>(chunk_bytes / sizeof(float));
  thrust::device_vector<float> target(static_cast<std::size_t>(chunk));
  float result               = 0;
  const auto [acc_s, copy_s] = alternated_seconds(
    reps,
    [&] {
      rk::accumulator acc(rk::device.on(stream), 0.0f, rk::plus{});
      for (std::int64_t at = 0; at < n; at += chunk)
      {
        acc.add(data + at, data + std::min(n, at + chunk));
      }
      result = acc.result();
    },
    [&] {
      for (std::int64_t at = 0; at < n; at += chunk)
      {
        const std::int64_t m = std::min(n - at, chunk);
        RK_PERF_CHECK(cudaMemcpyAsync(thrust::raw_pointer_cast(target.data()), data + at, m * sizeof(float),
                                      cudaMemcpyHostToDevice, stream));
      }
      RK_PERF_CHECK(cudaStreamSynchronize(stream));
    });
  const double gib   = static_cast<double>(bytes) / (1u << 30);
  const double ratio = copy_s / acc_s; // the accumulator's share of the copy's bandwidth
  misses += ratio < 0.90;
  std::printf("| %s | %.0f | %.1f | %.1f | %.3f | %s |\n", memory, gib, gib / acc_s, gib / copy_s, ratio,
              ratio >= 0.90 ? "PASS" : "MISS");
  std::fflush(stdout);
  return result;
}

template <class F>
void host_row(const char* type, int& misses)
{
  std::vector<F> h(100003);
  for (std::size_t i = 0; i < h.size(); ++i)
  {
    h[i] = static_cast<F>(static_cast<double>(i % 1000) * 0.001);
  }
  const auto a   = rk::reduce_partial(rk::host, h.begin(), h.begin() + 50001, 0, rk::plus{});
  const auto b   = rk::reduce_partial(rk::host, h.begin() + 50001, h.end(), 50001, rk::plus{});
  const int reps = 20000;
  F sink{};
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < reps; ++k)
  {
    sink += rk::finish(rk::combine(a, b, rk::plus{}), F(k), rk::plus{});
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
  misses += us > 2.0;
  std::printf("| %s | %.3f | %s |%s\n", type, us, us <= 2.0 ? "PASS" : "MISS", sink == F(-1) ? " " : "");
}
} // namespace

int main(int argc, char** argv)
{
  bool quick           = false;
  std::size_t host_gib = 32;
  for (int i = 1; i < argc; ++i)
  {
    if (std::strcmp(argv[i], "--quick") == 0)
    {
      quick = true;
    }
    else if (std::strcmp(argv[i], "--host-gib") == 0 && i + 1 < argc)
    {
      host_gib = static_cast<std::size_t>(std::atoll(argv[++i]));
    }
    else
    {
      std::fprintf(stderr, "usage: rk_perf_partial [--quick] [--host-gib N]\n");
      return 2;
    }
  }
  cudaStream_t stream{};
  RK_PERF_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto plan = rk_perf::make_timing_plan(quick, 0, 0);
  cudaDeviceProp prop{};
  RK_PERF_CHECK(cudaGetDeviceProperties(&prop, 0));
  int misses = 0;
  std::cout << "# rk_perf_partial: " << prop.name << ", commit " << rk_perf::commit_id() << "\n\n"
            << "rk::reduce_partial_into of n items (at offset 0, and at offset 12345, which cuts a lane) against "
               "rk::reduce_into of the same items (rk::device) and a read of them. Target: partial ≤ 1.05× "
               "reduce_into from 2^20.\n\n"
            << "| type | n | nodes at 12345 | reduce_into µs | partial at 0 µs | partial at 12345 µs | probe µs | "
               "at 0 / reduce_into | at 12345 / reduce_into | reduce_into / probe | target |\n"
            << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |\n"
            << std::flush;
  for (int log2n : {16, 20, 24, 28})
  {
    partial_rows<float>("float", log2n, plan, stream, misses);
  }
  for (int log2n : {20, 24, 27})
  {
    partial_rows<double>("double", log2n, plan, stream, misses);
  }
  std::cout << "\nrk::accumulator over 16 device chunks of 2^24 items against one rk::reduce_into of 2^28 "
               "(stream-ordered; result() not timed). Target ≤ 1.05×.\n\n"
            << "| type | reduce_into µs | accumulator µs | ratio | target |\n| --- | ---: | ---: | ---: | :---: |\n"
            << std::flush;
  accumulator_row<float>("float", plan, stream, misses);
  accumulator_row<double>("double", plan, stream, misses);
  if (host_gib > 0)
  {
    std::cout << "\nrk::accumulator (rk::device) over " << host_gib
              << " GiB of host floats in 1 GiB chunks against cudaMemcpyAsync of the same chunks from the same "
                 "memory (seconds: median of alternated runs, result() and the copies' wait included). Target: "
                 "≥ 0.90 of the copy's bandwidth.\n\n"
              << "| memory | GiB | accumulator GiB/s | cudaMemcpyAsync GiB/s | share | target |\n"
              << "| --- | ---: | ---: | ---: | ---: | :---: |\n"
              << std::flush;
    const std::size_t bytes = host_gib << 30;
    const int reps          = quick ? 2 : 3;
    const std::size_t items = bytes / sizeof(float);
    const std::unique_ptr<float[]> pageable(new float[items]); // written once, below
    for (std::size_t i = 0; i < items; ++i)
    {
      pageable[i] = static_cast<float>(i % 1024) * 0.001f;
    }
    const float from_pageable = host_data_row("pageable", pageable.get(), bytes, reps, stream, misses);
    float* pinned             = nullptr;
    if (cudaHostAlloc(reinterpret_cast<void**>(&pinned), bytes, cudaHostAllocDefault) != cudaSuccess)
    {
      cudaGetLastError();
      std::cout << "| pinned | " << host_gib << " | not measured: cudaHostAlloc failed | | | |\n";
    }
    else
    {
      std::copy(pageable.get(), pageable.get() + items, pinned);
      const float from_pinned = host_data_row("pinned", pinned, bytes, reps, stream, misses);
      RK_PERF_CHECK(cudaFreeHost(pinned));
      if (!same_bits(from_pinned, from_pageable))
      {
        std::fprintf(stderr, "rk_perf_partial: the accumulator's pinned and pageable results differ\n");
        return 1;
      }
    }
  }
  std::cout << "\nrk::reduce_into with the count in device memory (rk::device_count) against the count on the host "
               "(rk::device). Target ≤ 1.10× from 2^20.\n\n"
            << "| type | n | host count µs | device count µs | probe µs | device / host count | target |\n"
            << "| --- | ---: | ---: | ---: | ---: | ---: | :---: |\n"
            << std::flush;
  for (int log2n : {12, 16, 20, 24, 28})
  {
    device_count_row<float>("float", log2n, plan, stream, misses);
  }
  for (int log2n : {20, 27})
  {
    device_count_row<double>("double", log2n, plan, stream, misses);
  }
  std::cout << "\nrk::combine then rk::finish of two pieces on the host (µs per pair). Target < 2 µs.\n\n"
            << "| type | µs | target |\n| --- | ---: | :---: |\n";
  host_row<double>("double", misses);
  host_row<float>("float", misses);
  std::cout << "\n" << misses << " rows miss their target\n";
  return 0;
}

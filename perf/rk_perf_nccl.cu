// rk_perf_nccl: rk::nccl across the GPUs of one host (issue 10), one process, one host thread per
// GPU, a communicator from ncclCommInitAll. scripts/run runs it where there are two GPUs or more.
//
//   throughput  int32 and float sums of 2^30 and 2^32 items in all, split evenly over the GPUs:
//               rk::reduce_into with rk::nccl against rk::reduce_into with rk::device over the
//               same total on GPU 0 alone (or over half of it, the time doubled, where GPU 0
//               cannot hold the total beside its shard). Target: >= 1.9x with two GPUs.
//   latency     int32 and float sums of 2^10 ... 2^20 items per rank: the whole rk::nccl call;
//               rk::reduce_into with rk::device over the shard alone (what the gather adds to);
//               what a user writes for sums (cub::DeviceReduce::Sum, then ncclAllReduce of one
//               element); the gather-and-fold step alone (record, ncclAllGather, fold) against
//               ncclAllReduce of one element (target: no slower), a bare ncclAllGather of
//               one record, and two grouped ncclAllGathers (value, flag: a variant that would
//               need no record-writing kernel). The same through an rk::nccl_workspace: the
//               whole call, with the rank's offset found and given, and its step alone (one
//               kernel over NCCL symmetric memory); and the call as it was before the ranks
//               exchanged partials (shard value, then the symmetric step): target <= 1.5x.
//
// Method. Every trial times each contender once, the order rotated from trial to trial (as
// rk_perf does, perf/trials.cuh); a contender's time in a trial is CUDA events around `calls`
// back-to-back calls on each rank's stream, per call, the slowest rank's. All ranks make the
// same calls in the same order (NCCL needs it), with a host barrier between contenders. A
// contender of one GPU runs on rank 0 while the others wait at the barrier. Ratios are paired
// within trials: the median of the per-trial ratios with their interquartile interval; a target
// is PASS or MISS only if the whole interval lies on one side of it. One discarded trial warms
// every case up. Each case is checked once before it is timed: the rk::nccl result against the
// host's sum of every rank's rk::reduce of its shard. NCCL_NVLS_ENABLE=0 is set before NCCL
// starts (NVLink multicast can put a shared host's GPUs out of service).
//
//   rk_perf_nccl [--quick] [--gpus N] [--trials K] [--only throughput|latency] [--json FILE]

#include "cli.hpp"
#include "cuda_check.cuh"
#include "harness.cuh"
#include "ratios.cuh"
#include "trials.cuh"

#include <rk/nccl.cuh>

#include <cub/device/device_reduce.cuh>

#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace
{
using namespace rk_perf;

struct options
{
  bool quick = false;
  int gpus   = 0; ///< 0: every visible GPU
  int trials = 0; ///< 0: 7, or 3 with --quick
  std::string only;
  std::string json_path;
};

void nccl_check(ncclResult_t code, const char* what)
{
  if (code != ncclSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(code));
  }
}

/// All ranks' threads meet here between contenders.
class barrier
{
public:
  explicit barrier(int count)
      : count_(count)
  {}
  void wait()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++waiting_ == count_)
    {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_;
  int waiting_     = 0;
  long generation_ = 0;
};

/// What the rank threads share.
struct team
{
  int ranks;
  std::vector<ncclComm_t> comms;
  barrier meet;
  std::vector<double> slot;              ///< one figure per rank, exchanged through the barrier
  std::vector<std::vector<double>> runs; ///< per contender: rank 0's gathered per-trial times
  std::mutex print;
  int mismatches = 0;

  explicit team(int n)
      : ranks(n)
      , comms(n)
      , meet(n)
      , slot(n)
  {}
};

/// One contender of a case. `everyone`: all ranks call it (a collective, or a local call timed on
/// every GPU at once); otherwise rank 0 alone.
struct contender_spec
{
  std::string name;
  bool everyone;
  std::function<void()> call; ///< this rank's call: enqueues on its stream
};

class event_timer
{
public:
  event_timer()
  {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~event_timer()
  {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&)            = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Microseconds per call of `calls` back-to-back calls.
  double per_call(cudaStream_t stream, int calls, const std::function<void()>& call)
  {
    check(cudaEventRecord(start_, stream), "cudaEventRecord");
    for (int i = 0; i < calls; ++i)
    {
      call();
    }
    check(cudaEventRecord(stop_, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize (the timed calls failed)");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e3 / calls;
  }

private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_  = nullptr;
};

/// Interleaved trials of `contenders` (the same list, in the same order, on every rank). Returns,
/// on rank 0, each contender's per-trial time per call: the slowest participating rank's.
std::vector<std::vector<double>> run_trials(team& t, int rank, cudaStream_t stream,
                                            const std::vector<contender_spec>& contenders, int calls, int trials)
{
  event_timer timer;
  std::vector<std::vector<double>> samples(contenders.size());
  const std::size_t count = contenders.size();
  for (int trial = -1; trial < trials; ++trial) // trial -1 warms up and is discarded
  {
    for (std::size_t i = 0; i < count; ++i)
    {
      const std::size_t c = (static_cast<std::size_t>(trial + 1) + i) % count;
      t.meet.wait();
      double us = -1;
      if (contenders[c].everyone || rank == 0)
      {
        us = timer.per_call(stream, calls, contenders[c].call);
      }
      t.slot[rank] = us;
      t.meet.wait();
      if (rank == 0 && trial >= 0)
      {
        samples[c].push_back(*std::max_element(t.slot.begin(), t.slot.end()));
      }
      t.meet.wait(); // rank 0 has read the slots
    }
  }
  return samples;
}

/// Per-trial ratios a / b (paired), summarized.
estimate paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double scale = 1)
{
  std::vector<double> r;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
  {
    r.push_back(scale * a[i] / b[i]);
  }
  return summarize(r);
}

std::string interval(const estimate& e, int decimals)
{
  return fixed(e.median, decimals) + " [" + fixed(e.low, decimals) + ", " + fixed(e.high, decimals) + "]";
}

struct row
{
  std::string section, type, impl;
  std::int64_t items_per_rank;
  int ranks;
  std::vector<double> samples_us;
};
std::vector<row> json_rows;

/// rk::nccl's result checked against the host's sum of every rank's rk::reduce of its shard.
template <class T, class Policy>
void check_case(team& t, int rank, const Policy& policy, cudaStream_t stream, const T* shard, std::int64_t n,
                const std::string& what)
{
  const T mine = rk::reduce(rk::device.on(stream), shard, shard + n, T{0});
  t.meet.wait();
  t.slot[rank] = static_cast<double>(mine);
  t.meet.wait();
  double want = 0;
  for (double v : t.slot)
  {
    want += v;
  }
  t.meet.wait();
  const T got = rk::reduce(policy.on(stream), shard, shard + n, T{0});
  if (!results_match(got, static_cast<T>(want)))
  {
    std::lock_guard<std::mutex> lock(t.print);
    ++t.mismatches;
    std::cerr << "MISMATCH: " << what << " rank " << rank << ": rk::nccl gave " << got << ", the shards sum to " << want
              << '\n';
  }
}

template <class T>
void throughput_case(team& t, int rank, cudaStream_t stream, int log2_total, const options& opt, markdown_table& table)
{
  const std::int64_t total = std::int64_t{1} << log2_total;
  const std::int64_t n     = total / t.ranks;
  device_buffer shard(static_cast<std::size_t>(n) * sizeof(T));
  fill_random(static_cast<T*>(shard.get()), static_cast<std::size_t>(n), stream);
  device_buffer out(sizeof(T));
  // GPU 0 alone: the whole total beside its shard if it fits (with 1 GiB to spare), else half.
  device_buffer whole;
  std::int64_t one_gpu_n = 0;
  if (rank == 0)
  {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    one_gpu_n = static_cast<double>(total) * sizeof(T) + (1u << 30) < static_cast<double>(free_bytes) ? total
                                                                                                      : total / 2;
    whole     = device_buffer(static_cast<std::size_t>(one_gpu_n) * sizeof(T));
    fill_random(static_cast<T*>(whole.get()), static_cast<std::size_t>(one_gpu_n), stream);
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const T* in            = static_cast<const T*>(shard.get());
  T* result              = static_cast<T*>(out.get());
  const std::string what = std::string(type_traits<T>::name) + " sum of " + power_of_two(log2_total);
  check_case(t, rank, rk::nccl(t.comms[rank]), stream, in, n, what);

  const std::vector<contender_spec> contenders = {
    {"rk::nccl", true,
     [&] { rk::reduce_into(rk::nccl(t.comms[rank]).on(stream), in, in + n, result, T{0}, rk::plus{}); }},
    {"rk::device, GPU 0 alone", false,
     [&] {
       const T* all = static_cast<const T*>(whole.get());
       rk::reduce_into(rk::device.on(stream), all, all + one_gpu_n, result, T{0}, rk::plus{});
     }},
  };
  const int calls  = log2_total >= 32 ? 4 : 12;
  const int trials = opt.trials > 0 ? opt.trials : (opt.quick ? 3 : 7);
  const auto times = run_trials(t, rank, stream, contenders, opt.quick ? 2 : calls, trials);
  if (rank != 0)
  {
    return;
  }
  const bool halved   = one_gpu_n != total;
  const double scale  = halved ? 2.0 : 1.0;
  const estimate nccl = summarize(times[0]);
  std::vector<double> one(times[1]);
  for (double& x : one)
  {
    x *= scale;
  }
  const estimate single = summarize(one);
  const estimate speed  = paired_ratio(one, times[0]);
  const double bytes    = static_cast<double>(total) * sizeof(T);
  table.add_row({type_traits<T>::name, power_of_two(log2_total), std::to_string(t.ranks), fixed(nccl.median, 1),
                 fixed(gigabytes_per_second(bytes, nccl.median), 0),
                 fixed(single.median, 1) + (halved ? " (half, x2)" : ""),
                 fixed(gigabytes_per_second(bytes, single.median), 0), interval(speed, 2),
                 t.ranks >= 2 ? to_string(judge(speed, false, 1.9)) : "-"});
  json_rows.push_back({"throughput", type_traits<T>::name, "rk::nccl", n, t.ranks, times[0]});
  json_rows.push_back({"throughput", type_traits<T>::name,
                       halved ? "rk::device one GPU (half, x2)" : "rk::device one GPU", total, 1, one});
}

template <class T>
ncclDataType_t nccl_type()
{
  return std::is_same_v<T, float> ? ncclFloat : ncclInt32;
}

template <class T>
void latency_case(team& t, int rank, cudaStream_t stream, int log2n, const options& opt, markdown_table& table,
                  markdown_table& step_table, const rk::nccl_workspace& workspace)
{
  const std::int64_t n = std::int64_t{1} << log2n;
  device_buffer shard(static_cast<std::size_t>(n) * sizeof(T));
  fill_random(static_cast<T*>(shard.get()), static_cast<std::size_t>(n), stream);
  device_buffer out(2 * sizeof(T));
  const T* in           = static_cast<const T*>(shard.get());
  T* result             = static_cast<T*>(out.get());
  std::size_t cub_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, result, n, stream), "cub::DeviceReduce::Sum (size)");
  device_buffer cub_temp(cub_bytes > 0 ? cub_bytes : 1);
  device_buffer record(256 * static_cast<std::size_t>(t.ranks));
  check(cudaMemsetAsync(out.get(), 0, 2 * sizeof(T), stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(record.get(), 0, 256 * static_cast<std::size_t>(t.ranks), stream), "cudaMemsetAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const std::string what = std::string(type_traits<T>::name) + " sum of " + power_of_two(log2n) + " per rank";
  check_case(t, rank, rk::nccl(t.comms[rank]), stream, in, n, what);
  check_case(t, rank, rk::nccl(workspace), stream, in, n, what + " (workspace)");

  ncclComm_t comm                              = t.comms[rank];
  const rk::detail::nccl_rank me               = rk::detail::query_rank(comm, "rk_perf_nccl");
  const rk::detail::device_facts& facts        = rk::detail::current_device_facts();
  using record_type                            = rk::detail::maybe<T>;
  auto* records                                = static_cast<record_type*>(record.get());
  const std::vector<contender_spec> contenders = {
    {"rk::nccl (whole call)", true,
     [&] { rk::reduce_into(rk::nccl(comm).on(stream), in, in + n, result, T{0}, rk::plus{}); }},
    {"rk::device, shard only", true,
     [&] { rk::reduce_into(rk::device.on(stream), in, in + n, result, T{0}, rk::plus{}); }},
    {"cub Sum + ncclAllReduce", true,
     [&] {
       std::size_t bytes = cub_temp.bytes();
       check(cub::DeviceReduce::Sum(cub_temp.get(), bytes, in, result, n, stream), "cub::DeviceReduce::Sum");
       nccl_check(ncclAllReduce(result, result + 1, 1, nccl_type<T>(), ncclSum, comm, stream), "ncclAllReduce");
     }},
    {"gather-and-fold step", true,
     [&] { rk::detail::gather_and_fold(comm, nullptr, me, result, T{0}, result + 1, rk::plus{}, stream, facts); }},
    {"ncclAllReduce, 1 element", true,
     [&] { nccl_check(ncclAllReduce(result, result + 1, 1, nccl_type<T>(), ncclSum, comm, stream), "ncclAllReduce"); }},
    {"ncclAllGather, 1 record", true,
     [&] {
       nccl_check(ncclAllGather(records + me.rank, records, sizeof(record_type), ncclUint8, comm, stream),
                  "ncclAllGather");
     }},
    // A variant the step could use: values straight from the local result and flags from bytes
    // already in device memory, gathered in one NCCL group (no record-writing kernel).
    {"ncclAllGather x2, grouped", true,
     [&] {
       auto* values = static_cast<unsigned char*>(record.get());
       auto* flags  = values + 128 * static_cast<std::size_t>(t.ranks);
       nccl_check(ncclGroupStart(), "ncclGroupStart");
       nccl_check(ncclAllGather(values + me.rank * sizeof(T), values, sizeof(T), ncclUint8, comm, stream),
                  "ncclAllGather");
       nccl_check(ncclAllGather(flags + me.rank, flags, 1, ncclUint8, comm, stream), "ncclAllGather");
       nccl_check(ncclGroupEnd(), "ncclGroupEnd");
     }},
    {"rk::nccl(workspace) (whole call)", true,
     [&] { rk::reduce_into(rk::nccl(workspace).on(stream), in, in + n, result, T{0}, rk::plus{}); }},
    {"symmetric step", true,
     [&] { rk::detail::gather_and_fold(comm, &workspace, me, result, T{0}, result + 1, rk::plus{}, stream, facts); }},
    // The partials' call with this rank's offset given (no gather of the lengths, no wait).
    {"rk::nccl(workspace), offset given (whole call)", true,
     [&] {
       rk::reduce_into(rk::nccl(workspace).on(stream).with_offset(n * me.rank), in, in + n, result, T{0}, rk::plus{});
     }},
    // rk::nccl(workspace) as it was before the ranks exchanged partials (issue 10's call, the
    // baseline of issue 29's <= 1.5x): the shard's value without init from rk::device's flat
    // engine, then the symmetric step folds the ranks' values. Its bits depend on the rank count.
    {"values exchange (workspace), before partials", true,
     [&] {
       rk::detail::reduce_range_into(rk::device.on(stream), in, in + n, result + 1, rk::plus{});
       rk::detail::gather_and_fold(comm, &workspace, me, result + 1, T{0}, result, rk::plus{}, stream, facts);
     }},
  };
  const int trials = opt.trials > 0 ? opt.trials : (opt.quick ? 3 : 7);
  const auto times = run_trials(t, rank, stream, contenders, opt.quick ? 50 : 200, trials);
  if (rank != 0)
  {
    return;
  }
  std::vector<estimate> e;
  for (const auto& s : times)
  {
    e.push_back(summarize(s));
  }
  const estimate to_values        = paired_ratio(times[7], times[10]);
  const estimate offset_to_values = paired_ratio(times[9], times[10]);
  table.add_row({type_traits<T>::name, power_of_two(log2n), fixed(e[0].median, 2), fixed(e[7].median, 2),
                 fixed(e[9].median, 2), fixed(e[10].median, 2), fixed(e[1].median, 2), fixed(e[2].median, 2),
                 interval(paired_ratio(times[0], times[2]), 2), interval(paired_ratio(times[7], times[2]), 2),
                 interval(to_values, 2), interval(offset_to_values, 2),
                 t.ranks < 2 ? "-" : to_string(judge(to_values, true, 1.5)),
                 t.ranks < 2 ? "-" : to_string(judge(offset_to_values, true, 1.5))});
  const estimate step      = paired_ratio(times[3], times[4]);
  const estimate symmetric = paired_ratio(times[8], times[4]);
  const std::string verdict =
    t.ranks < 2 ? "-" : (workspace.symmetric() ? to_string(judge(symmetric, true, 1.0)) : "no symmetric memory");
  step_table.add_row({type_traits<T>::name, power_of_two(log2n), fixed(e[3].median, 2), fixed(e[8].median, 2),
                      fixed(e[4].median, 2), fixed(e[5].median, 2), fixed(e[6].median, 2), interval(step, 2),
                      interval(symmetric, 2), verdict});
  for (std::size_t c = 0; c < contenders.size(); ++c)
  {
    json_rows.push_back({"latency", type_traits<T>::name, contenders[c].name, n, t.ranks, times[c]});
  }
}

void rank_main(team& t, int rank, const options& opt, markdown_table& throughput, markdown_table& latency,
               markdown_table& step)
{
  check(cudaSetDevice(rank), "cudaSetDevice");
  stream_owner stream;
  if (opt.only.empty() || opt.only == "latency")
  {
    const rk::nccl_workspace workspace(t.comms[rank]); // collective: every rank thread makes one
    if (rank == 0)
    {
      std::lock_guard<std::mutex> lock(t.print);
      std::cout << "- rk::nccl_workspace: "
                << (workspace.symmetric() ? "symmetric memory (the one-kernel step)"
                                          : "no symmetric memory (" + workspace.reason() + ")")
                << "\n\n";
    }
    for (int k = 10; k <= 20; k += 2)
    {
      latency_case<std::int32_t>(t, rank, stream.get(), k, opt, latency, step, workspace);
      latency_case<float>(t, rank, stream.get(), k, opt, latency, step, workspace);
    }
    check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
  }
  if (opt.only.empty() || opt.only == "throughput")
  {
    for (const int k : {30, 32})
    {
      throughput_case<std::int32_t>(t, rank, stream.get(), k, opt, throughput);
      throughput_case<float>(t, rank, stream.get(), k, opt, throughput);
    }
  }
}

void usage(std::ostream& os)
{
  os << "usage: rk_perf_nccl [--quick] [--gpus N] [--trials K] [--only throughput|latency] [--json FILE]\n"
        "  rk::nccl across the GPUs of this host (one thread per GPU, ncclCommInitAll): throughput of int32\n"
        "  and float sums against one GPU, latency against rk::device and cub + ncclAllReduce, and the\n"
        "  gather-and-fold step (ncclAllGather, and one kernel over an rk::nccl_workspace's symmetric memory)\n"
        "  against ncclAllReduce of one element.\n";
}

void write_json(const std::string& path, int ranks, const std::vector<std::string>& gpus, int nccl_version)
{
  std::ofstream f(path);
  f << "{\n  \"suite\": \"rk_perf_nccl\",\n  \"commit\": " << json_string(commit_id())
    << ",\n  \"date\": " << json_string(utc_timestamp()) << ",\n  \"build_type\": " << json_string(build_type())
    << ",\n  \"nccl_version\": " << nccl_version << ",\n  \"ranks\": " << ranks << ",\n  \"gpus\": [";
  for (std::size_t i = 0; i < gpus.size(); ++i)
  {
    f << (i ? ", " : "") << json_string(gpus[i]);
  }
  f << "],\n  \"results\": [\n";
  for (std::size_t i = 0; i < json_rows.size(); ++i)
  {
    const row& r = json_rows[i];
    f << "    {\"section\": " << json_string(r.section) << ", \"type\": " << json_string(r.type)
      << ", \"impl\": " << json_string(r.impl) << ", \"items_per_rank\": " << r.items_per_rank
      << ", \"ranks\": " << r.ranks << ", \"median_us\": " << json_number(median(r.samples_us))
      << ", \"samples_us\": " << json_numbers(r.samples_us) << "}" << (i + 1 < json_rows.size() ? "," : "") << "\n";
  }
  f << "  ]\n}\n";
}
} // namespace

int main(int argc, char** argv)
{
  setenv("NCCL_NVLS_ENABLE", "0", 1); // before NCCL starts: see the header
  options opt;
  try
  {
    for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      const auto value      = [&]() -> std::string {
        if (i + 1 >= argc)
        {
          throw usage_error(arg + " needs a value");
        }
        return argv[++i];
      };
      if (arg == "--quick")
      {
        opt.quick = true;
      }
      else if (arg == "--gpus")
      {
        opt.gpus = std::stoi(value());
      }
      else if (arg == "--trials")
      {
        opt.trials = std::stoi(value());
      }
      else if (arg == "--only")
      {
        opt.only = value();
        if (opt.only != "throughput" && opt.only != "latency")
        {
          throw usage_error("--only takes throughput or latency");
        }
      }
      else if (arg == "--json")
      {
        opt.json_path = value();
      }
      else if (arg == "--help" || arg == "-h")
      {
        usage(std::cout);
        return 0;
      }
      else
      {
        throw usage_error("unknown option " + arg);
      }
    }
  }
  catch (const std::exception& e)
  {
    std::cerr << "rk_perf_nccl: " << e.what() << '\n';
    usage(std::cerr);
    return 2;
  }

  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0)
  {
    std::cout << "rk_perf_nccl: no CUDA GPU here\n";
    return 1;
  }
  const int ranks = opt.gpus > 0 ? std::min(opt.gpus, visible) : visible;
  try
  {
    team t(ranks);
    std::vector<int> devices(ranks);
    std::vector<std::string> names;
    for (int d = 0; d < ranks; ++d)
    {
      devices[d] = d;
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
      names.push_back(prop.name);
    }
    nccl_check(ncclCommInitAll(t.comms.data(), ranks, devices.data()), "ncclCommInitAll");
    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    std::cout << "# rk_perf_nccl: rk::nccl over " << ranks << " GPU(s), one process, one thread per GPU\n\n";
    std::cout << "- GPUs:";
    for (const auto& name : names)
    {
      std::cout << " " << name << ";";
    }
    std::cout << "\n- NCCL " << nccl_version << " (NCCL_NVLS_ENABLE=0), commit " << commit_id() << ", " << build_type()
              << " build, " << utc_timestamp() << "\n";
    if (ranks < 2)
    {
      std::cout << "- one GPU: the figures measure the code path, not a speed-up\n";
    }
    std::cout << "- each rank's local step: rk::detail::reduce_range_into (include/rk/cuda/dispatch.cuh)\n\n";

    markdown_table throughput(
      {"type", "items in all", "GPUs", "rk::nccl us", "GB/s", "one GPU us", "GB/s", "speed-up [IQR]", ">= 1.9x"}, 3);
    markdown_table latency({"type", "items per rank", "rk::nccl us", "rk::nccl(ws) us", "nccl(ws), offset given us",
                            "values (ws) us", "rk::device shard us", "cub + AllReduce us",
                            "nccl / (cub + AllReduce) [IQR]", "nccl(ws) / (cub + AllReduce) [IQR]",
                            "nccl(ws) / values [IQR]", "offset given / values [IQR]", "nccl(ws) <= 1.5x values",
                            "offset given <= 1.5x values"},
                           2);
    markdown_table step({"type", "items per rank", "AllGather step us", "symmetric step us", "AllReduce(1) us",
                         "AllGather(record) us", "2 AllGathers grouped us", "AllGather step / AllReduce [IQR]",
                         "symmetric / AllReduce [IQR]", "symmetric <= 1"},
                        2);
    std::vector<std::thread> threads;
    std::vector<std::string> errors(ranks);
    for (int r = 0; r < ranks; ++r)
    {
      threads.emplace_back([&, r] {
        try
        {
          rank_main(t, r, opt, throughput, latency, step);
        }
        catch (const std::exception& e)
        {
          errors[r] = e.what(); // the other ranks may now wait forever: reported, then the process exits
          std::cerr << "rk_perf_nccl: rank " << r << ": " << e.what() << '\n';
          std::_Exit(2);
        }
      });
    }
    for (auto& th : threads)
    {
      th.join();
    }
    if (opt.only.empty() || opt.only == "latency")
    {
      std::cout << "## Latency (device time per call, back to back; sums)\n\n"
                   "rk::nccl and rk::nccl(ws) exchange partials (one-GPU rk::reduce's bits whatever the rank "
                   "count) and find the rank's offset on the GPU from the shard lengths the ranks exchange (through "
                   "symmetric memory with a workspace, else an ncclAllGather); \"offset given\" skips "
                   "that; \"values (ws)\" is rk::nccl(ws) before partials (rk::device's shard value, then the "
                   "symmetric step: bits that depend on the rank count), the baseline of the 1.5x target.\n\n";
      latency.print(std::cout);
      std::cout << "\n## The gather-and-fold step against ncclAllReduce of one element\n\n";
      step.print(std::cout);
      std::cout << '\n';
    }
    if (opt.only.empty() || opt.only == "throughput")
    {
      std::cout << "## Throughput (sums, the total split evenly over the GPUs)\n\n";
      throughput.print(std::cout);
      std::cout << '\n';
    }
    for (ncclComm_t comm : t.comms)
    {
      ncclCommDestroy(comm);
    }
    if (!opt.json_path.empty())
    {
      write_json(opt.json_path, ranks, names, nccl_version);
      std::cout << "figures written to " << opt.json_path << '\n';
    }
    if (t.mismatches > 0)
    {
      std::cerr << "rk_perf_nccl: " << t.mismatches << " result mismatch(es)\n";
      return 1;
    }
    return 0;
  }
  catch (const std::exception& e)
  {
    std::cerr << "rk_perf_nccl: " << e.what() << '\n';
    return 2;
  }
}

// rk_bench_nccl: rk::nccl across the GPUs of one host (issue 10) on NVBench: one process, one
// persistent host thread per rank (GPU r is rank r), communicators from ncclCommInitAll, one
// rk::nccl_workspace per rank. Two CPU-only benchmarks, axes T (int32, float), Elements, Impl and
// Calls:
//
//   nccl_throughput  sums of Elements = 2^30 and 2^32 items in all, split evenly over the ranks:
//                    "rk::nccl" (rk::reduce_into with rk::nccl over the communicator) and
//                    "rk::nccl(workspace)" (the same through each rank's rk::nccl_workspace, the
//                    form the latency targets measure) against "rk::device, GPU 0
//                    alone" (rk::reduce_into with rk::device over the same total on GPU 0 while
//                    the other ranks idle; where GPU 0 cannot hold the total beside its shard, one
//                    call reduces half of it twice, and the state's "One-GPU pieces" says 2).
//                    Target: speed-up (one GPU's time / rk::nccl's) >= 1.9 with two ranks or more.
//   nccl_latency     sums of Elements = 2^10 ... 2^20 items per rank, eleven contenders: the whole
//                    rk::nccl call; rk::device over the shard alone (what the gather adds to); what
//                    a user writes for sums (cub::DeviceReduce::Sum, then ncclAllReduce of one
//                    element); the gather-and-fold step alone (record, ncclAllGather, fold); a bare
//                    ncclAllReduce of one element; a bare ncclAllGather of one record; two grouped
//                    ncclAllGathers (value, flag: a variant that would need no record-writing
//                    kernel); through the workspace: the whole call, its step alone (one kernel
//                    over NCCL symmetric memory), the whole call with the rank's offset given, and
//                    the call as it was before the ranks exchanged partials (the baseline).
//                    Targets (two ranks or more): rk::nccl(workspace) / values exchange <= 1.5, and
//                    the same with the offset given; gather-and-fold step / ncclAllReduce <= 1.0,
//                    and symmetric step / ncclAllReduce <= 1.0 where the state's "Symmetric" is 1.
//
// Method. NVBench times one device's stream, which a collective over several GPUs does not fit:
// these benchmarks are CPU-only and a sample is the wall time of Calls back-to-back calls on every
// rank, each rank enqueuing them on its own stream and waiting for it: the slowest rank's. EVERY
// FIGURE IS PER Calls CALLS (divide by the state's Calls for a call's time; NVBench's Elem/s and
// GlobalMem BW of nccl_throughput already count Calls totals). The clock starts once every rank's
// thread is awake and spinning (their wake-up is not in the sample) and stops when the last rank's
// stream is drained. All ranks make the same calls in the same order (NCCL needs it). Every state
// is checked before it is timed: rk::nccl's result (and in nccl_latency rk::nccl(workspace)'s,
// with and without the offset given) against the host's sum of every rank's rk::reduce of its
// shard; a mismatch is reported on stderr and makes the exit status 1. Each rank's shard is its
// slice of one random input, so no two ranks hold the same items. Every state records the rank
// count ("Ranks"); with one rank the figures measure the code path, not a speed-up, and the
// targets do not apply.
//
// The ranks are set up by the first state that runs (every visible GPU, or the first
// RK_BENCH_NCCL_GPUS of them) and ended when main's scope closes, before NVBench resets the device
// (or when an exception leaves main): their threads tear down their workspace and communicator,
// then are joined.
// NCCL_NVLS_ENABLE=0 is set when the program starts, before NCCL does (NVLink multicast can put a
// shared host's GPUs out of service). A rank that throws fails its state; if the others then wait
// for it in a collective for more than a minute, the run ends with exit status 2.
//
//   rk_bench_nccl --timeout 2 --json nccl.json    [-b nccl_latency] [-a Calls=50]
//
// --timeout bounds each state (wall-clock noise rarely settles to NVBench's 0.5 %); --devices and
// --no-batch do not apply to CPU-only benchmarks (RK_BENCH_NCCL_GPUS picks the GPUs).

// Defined before common.cuh brings in NVBench's main, which calls them: NCCL's environment first
// thing in main; a guard whose scope closes before NVBench's cudaDeviceReset ends the ranks there
// (see above), and also when an exception leaves NVBench's main early.
#define NVBENCH_MAIN_INITIALIZE_CUSTOM_PRE(argc, argv) set_nccl_environment()
#define NVBENCH_MAIN_INITIALIZE_CUSTOM_POST(argc, argv) \
  const team_guard ending_the_ranks {}

#include "common.cuh"
#include "inputs.cuh"

#include <rk/nccl.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/tabulate.h>

#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace
{
constexpr const char* binary = "rk_bench_nccl";

using value_types = nvbench::type_list<std::int32_t, float>;

using rk_bench::check;
using rk_bench::type_name;

void set_nccl_environment()
{
  setenv("NCCL_NVLS_ENABLE", "0", 1);
}

void nccl_check(ncclResult_t code, const char* what)
{
  if (code != ncclSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(code));
  }
}

template <class T>
ncclDataType_t nccl_type()
{
  return std::is_same_v<T, float> ? ncclFloat : ncclInt32;
}

/// Device memory of `count` items, uninitialized, on the current device.
template <class T>
class device_array
{
public:
  device_array() = default;
  explicit device_array(std::size_t count)
  {
    check(cudaMalloc(&data_, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  }
  device_array(device_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr))
  {}
  device_array& operator=(device_array&& other) noexcept
  {
    std::swap(data_, other.data_);
    return *this;
  }
  device_array(const device_array&)            = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array()
  {
    if (data_ != nullptr)
    {
      cudaFree(data_);
    }
  }

  T* get() const noexcept
  {
    return data_;
  }

private:
  T* data_ = nullptr;
};

/// Items [first, first + n) of the one random input the ranks sum together.
template <class T>
struct input_slice
{
  std::int64_t first;

  __host__ __device__ T operator()(std::int64_t i) const
  {
    return rk_bench::random_value<T>{rk_bench::input_seed}(static_cast<std::uint64_t>(first + i));
  }
};

template <class T>
void fill_slice(T* data, std::int64_t n, std::int64_t first, cudaStream_t stream)
{
  thrust::tabulate(thrust::cuda::par.on(stream), data, data + n, input_slice<T>{first});
}

/// What a rank's thread keeps for the whole run; its GPU is current in that thread.
struct rank_context
{
  int rank            = 0;
  ncclComm_t comm     = nullptr;
  cudaStream_t stream = nullptr;
  std::unique_ptr<rk::nccl_workspace> workspace;
  rk::detail::nccl_rank me{};
  const rk::detail::device_facts* facts = nullptr;
};

using rank_job = std::function<void(rank_context&)>;

/// The ranks: one thread per GPU that runs the jobs the benchmark's thread hands out, every rank
/// the same job at once (a collective needs every rank's call), and reports when all are done.
class team
{
public:
  explicit team(int ranks);
  team(const team&)            = delete;
  team& operator=(const team&) = delete;
  ~team();

  int ranks() const noexcept
  {
    return static_cast<int>(contexts_.size());
  }
  const rank_context& rank(int r) const
  {
    return *contexts_[static_cast<std::size_t>(r)];
  }

  /// Runs `job` on every rank (or on rank 0 alone) and waits for it; a rank's exception is
  /// rethrown here, naming the rank.
  void run(const rank_job& job, bool everyone = true);

  /// The same, timed by `timer` from the moment every participating rank is ready to start to the
  /// moment the last one has finished.
  void run_timed(nvbench::cpu_timer& timer, const rank_job& job, bool everyone);

  /// Each rank destroys its workspace, communicator and stream; then the threads are joined.
  void shut_down();

private:
  enum class mode
  {
    plain,
    timed,
    last
  };

  std::uint64_t issue(const rank_job& job, bool everyone, mode m);
  void serve(rank_context& r);
  void await();
  void rethrow_rank_errors();
  void give_up_if_stuck(std::chrono::steady_clock::time_point& deadline);

  std::vector<std::unique_ptr<rank_context>> contexts_;
  std::vector<std::thread> threads_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::uint64_t generation_ = 0; ///< the job's number; guarded by mutex_, like the three below
  const rank_job* job_      = nullptr;
  bool everyone_            = true;
  mode mode_                = mode::plain;

  std::atomic<int> armed_{0}; ///< participants spinning on go_, for a timed job
  std::atomic<std::uint64_t> go_{0};
  std::atomic<int> done_{0};

  std::mutex errors_mutex_;
  std::vector<std::string> errors_;
  std::atomic<bool> failed_{false};
};

team::team(int ranks)
    : errors_(static_cast<std::size_t>(ranks))
{
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks));
  std::vector<int> devices(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
  {
    devices[static_cast<std::size_t>(r)] = r;
  }
  nccl_check(ncclCommInitAll(comms.data(), ranks, devices.data()), "ncclCommInitAll");
  for (int r = 0; r < ranks; ++r)
  {
    auto context  = std::make_unique<rank_context>();
    context->rank = r;
    context->comm = comms[static_cast<std::size_t>(r)];
    contexts_.push_back(std::move(context));
  }
  for (auto& context : contexts_)
  {
    threads_.emplace_back([this, c = context.get()] { serve(*c); });
  }
  try
  {
    run([](rank_context& r) {
      check(cudaSetDevice(r.rank), "cudaSetDevice");
      check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
      r.me    = rk::detail::query_rank(r.comm, binary);
      r.facts = &rk::detail::current_device_facts();
      // Collective: every rank makes its own at once, from its own thread.
      r.workspace = std::make_unique<rk::nccl_workspace>(r.comm);
    });
  }
  catch (...)
  {
    shut_down();
    throw;
  }
}

team::~team()
{
  try
  {
    shut_down();
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "%s: ending the ranks: %s\n", binary, e.what());
  }
}

std::uint64_t team::issue(const rank_job& job, bool everyone, mode m)
{
  std::uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_      = &job;
    everyone_ = everyone;
    mode_     = m;
    armed_.store(0);
    done_.store(0);
    generation = ++generation_;
  }
  wake_.notify_all();
  return generation;
}

void team::serve(rank_context& r)
{
  std::uint64_t seen = 0;
  for (;;)
  {
    const rank_job* job = nullptr;
    bool everyone       = true;
    mode m              = mode::plain;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen     = generation_;
      job      = job_;
      everyone = everyone_;
      m        = mode_;
    }
    if (everyone || r.rank == 0)
    {
      if (m == mode::timed)
      {
        armed_.fetch_add(1);
        // A spin, not a condition variable: a wake-up would cost tens of microseconds, unevenly.
        while (go_.load(std::memory_order_acquire) != seen)
        {
        }
      }
      try
      {
        (*job)(r);
      }
      catch (const std::exception& e)
      {
        std::lock_guard<std::mutex> lock(errors_mutex_);
        errors_[static_cast<std::size_t>(r.rank)] = e.what();
        failed_.store(true);
      }
      catch (...)
      {
        std::lock_guard<std::mutex> lock(errors_mutex_);
        errors_[static_cast<std::size_t>(r.rank)] = "an exception of unknown type";
        failed_.store(true);
      }
    }
    done_.fetch_add(1, std::memory_order_acq_rel);
    if (m != mode::timed)
    {
      {
        // Between the waiter's test of done_ and its sleep, or after both: no lost wake-up.
        std::lock_guard<std::mutex> lock(mutex_);
      }
      finished_.notify_all();
    }
    if (m == mode::last)
    {
      return;
    }
  }
}

void team::give_up_if_stuck(std::chrono::steady_clock::time_point& deadline)
{
  if (!failed_.load())
  {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (deadline == std::chrono::steady_clock::time_point{})
  {
    deadline = now + std::chrono::minutes(1);
    return;
  }
  if (now < deadline)
  {
    return;
  }
  // The ranks that did not fail wait for the one that did inside a collective, and nothing can
  // call them back: NVBench's results are lost with the process.
  std::lock_guard<std::mutex> lock(errors_mutex_);
  for (std::size_t r = 0; r < errors_.size(); ++r)
  {
    if (!errors_[r].empty())
    {
      std::fprintf(stderr, "%s: rank %zu: %s\n", binary, r, errors_[r].c_str());
    }
  }
  std::fprintf(stderr, "%s: the other ranks have waited for the failed one for a minute: exiting\n", binary);
  std::fflush(stderr);
  std::_Exit(2);
}

void team::rethrow_rank_errors()
{
  if (!failed_.load())
  {
    return;
  }
  std::string message;
  {
    std::lock_guard<std::mutex> lock(errors_mutex_);
    for (std::size_t r = 0; r < errors_.size(); ++r)
    {
      if (!errors_[r].empty())
      {
        message += (message.empty() ? "rank " : "; rank ") + std::to_string(r) + ": " + errors_[r];
        errors_[r].clear();
      }
    }
    failed_.store(false);
  }
  throw std::runtime_error(message);
}

void team::await()
{
  std::chrono::steady_clock::time_point deadline{};
  {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!finished_.wait_for(lock, std::chrono::seconds(1), [&] { return done_.load() == ranks(); }))
    {
      give_up_if_stuck(deadline);
    }
  }
  rethrow_rank_errors();
}

void team::run(const rank_job& job, bool everyone)
{
  issue(job, everyone, mode::plain);
  await();
}

void team::run_timed(nvbench::cpu_timer& timer, const rank_job& job, bool everyone)
{
  const int participants         = everyone ? ranks() : 1;
  const std::uint64_t generation = issue(job, everyone, mode::timed);
  while (armed_.load(std::memory_order_acquire) != participants)
  {
  }
  timer.start();
  go_.store(generation, std::memory_order_release);
  std::chrono::steady_clock::time_point deadline{};
  while (done_.load(std::memory_order_acquire) != ranks())
  {
    give_up_if_stuck(deadline);
  }
  timer.stop();
  rethrow_rank_errors();
}

void team::shut_down()
{
  if (threads_.empty())
  {
    return;
  }
  const rank_job teardown = [](rank_context& r) {
    std::string failure;
    if (r.stream != nullptr && cudaStreamSynchronize(r.stream) != cudaSuccess)
    {
      failure = "cudaStreamSynchronize failed";
    }
    r.workspace.reset(); // before its communicator
    if (const ncclResult_t code = ncclCommDestroy(r.comm); code != ncclSuccess && failure.empty())
    {
      failure = std::string("ncclCommDestroy: ") + ncclGetErrorString(code);
    }
    r.comm = nullptr;
    if (r.stream != nullptr)
    {
      cudaStreamDestroy(r.stream);
      r.stream = nullptr;
    }
    if (!failure.empty())
    {
      throw std::runtime_error(failure);
    }
  };
  std::exception_ptr failure;
  try
  {
    issue(teardown, true, mode::last);
    await();
  }
  catch (...)
  {
    failure = std::current_exception();
  }
  for (std::thread& thread : threads_)
  {
    thread.join();
  }
  threads_.clear();
  if (failure)
  {
    std::rethrow_exception(failure);
  }
}

// Not a static object: its destructor would run after NVBench's cudaDeviceReset, and CUDA and
// NCCL calls after the context is gone crash. end_team() ends it from main's team_guard.
team* the_team = nullptr;
std::string team_failure; ///< why the ranks could not be set up: later states fail at once

int rank_count(int visible)
{
  const char* asked = std::getenv("RK_BENCH_NCCL_GPUS");
  if (asked == nullptr || *asked == '\0')
  {
    return visible;
  }
  char* end    = nullptr;
  const long n = std::strtol(asked, &end, 10);
  if (*end != '\0' || n < 1)
  {
    throw std::runtime_error(std::string("RK_BENCH_NCCL_GPUS=") + asked + ": expected a GPU count of 1 or more");
  }
  return static_cast<int>(std::min<long>(n, visible));
}

team& team_for(nvbench::state& state)
{
  if (the_team != nullptr)
  {
    return *the_team;
  }
  if (!team_failure.empty())
  {
    throw std::runtime_error(team_failure);
  }
  std::string description;
  try
  {
    int visible = 0;
    check(cudaGetDeviceCount(&visible), "cudaGetDeviceCount");
    const int ranks = rank_count(visible);
    description     = std::to_string(ranks) + " rank(s), one thread each:";
    for (int d = 0; d < ranks; ++d)
    {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
      description += " GPU " + std::to_string(d) + " " + prop.name + ";";
    }
    the_team = new team(ranks);
  }
  catch (const std::exception& e)
  {
    team_failure = std::string("setting up the ranks: ") + e.what();
    throw std::runtime_error(team_failure);
  }
  int version = 0;
  ncclGetVersion(&version);
  const rk::nccl_workspace& workspace = *the_team->rank(0).workspace;
  description += " NCCL " + std::to_string(version) + ", NCCL_NVLS_ENABLE="
               + (std::getenv("NCCL_NVLS_ENABLE") != nullptr ? std::getenv("NCCL_NVLS_ENABLE") : "")
               + "; rk::nccl_workspace: "
               + (workspace.symmetric() ? "symmetric memory (the one-kernel step)"
                                        : "no symmetric memory (" + workspace.reason() + ")");
  if (the_team->ranks() < 2)
  {
    description += "; one rank: the figures measure the code path, not a speed-up";
  }
  if (nvbench::printer_base* printer = state.get_benchmark().get_printer(); printer != nullptr)
  {
    printer->log(nvbench::log_level::info, std::string(binary) + ": " + description);
  }
  return *the_team;
}

void end_team()
{
  if (the_team == nullptr)
  {
    return;
  }
  try
  {
    the_team->shut_down();
  }
  catch (const std::exception& e)
  {
    ++rk_bench::failures;
    std::fprintf(stderr, "%s: ending the ranks: %s\n", binary, e.what());
  }
  delete the_team;
  the_team = nullptr;
}

/// Ends the ranks when main's scope closes: before NVBench resets the device, or on an exception.
struct team_guard
{
  team_guard()                             = default;
  team_guard(const team_guard&)            = delete;
  team_guard& operator=(const team_guard&) = delete;
  ~team_guard()
  {
    end_team();
  }
};

/// One `Shard` per rank for one state, made and destroyed on the rank's thread (its GPU current).
template <class Shard>
class per_rank
{
public:
  template <class Make>
  per_rank(team& t, Make make)
      : team_(t)
      , shards_(static_cast<std::size_t>(t.ranks()))
  {
    try
    {
      t.run([&](rank_context& r) { shards_[static_cast<std::size_t>(r.rank)] = make(r); });
    }
    catch (...)
    {
      free_on_ranks(); // the ranks that made theirs free them on their own threads
      throw;
    }
  }
  per_rank(const per_rank&)            = delete;
  per_rank& operator=(const per_rank&) = delete;
  ~per_rank()
  {
    free_on_ranks();
  }

  Shard& operator[](int rank)
  {
    return *shards_[static_cast<std::size_t>(rank)];
  }

private:
  void free_on_ranks() noexcept
  {
    try
    {
      team_.run([&](rank_context& r) { shards_[static_cast<std::size_t>(r.rank)].reset(); });
    }
    catch (const std::exception& e)
    {
      ++rk_bench::failures;
      std::fprintf(stderr, "%s: freeing a state's buffers: %s\n", binary, e.what());
    }
  }

  team& team_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

/// rk::nccl's result (the policy `make_policy` gives each rank) against the host's sum of every
/// rank's rk::reduce of its shard, which it returns.
template <class T, class Shards, class MakePolicy>
double check_sum(nvbench::state& state, team& t, Shards& shards, MakePolicy make_policy, const std::string& what)
{
  const auto ranks = static_cast<std::size_t>(t.ranks());
  std::vector<double> shard_sums(ranks);
  t.run([&](rank_context& r) {
    auto& s = shards[r.rank];
    shard_sums[static_cast<std::size_t>(r.rank)] =
      static_cast<double>(rk::reduce(rk::device.on(r.stream), s.first(), s.last(), T{0}));
  });
  double want = 0;
  for (const double sum : shard_sums)
  {
    want += sum;
  }
  std::vector<T> got(ranks);
  t.run([&](rank_context& r) {
    auto& s                               = shards[r.rank];
    got[static_cast<std::size_t>(r.rank)] = rk::reduce(make_policy(r).on(r.stream), s.first(), s.last(), T{0});
  });
  for (std::size_t r = 0; r < ranks; ++r)
  {
    if (!rk_bench::results_match(got[r], static_cast<T>(want)))
    {
      rk_bench::fail(state, binary,
                     what + ": rank " + std::to_string(r) + " got " + std::to_string(got[r]) + ", the shards sum to "
                       + std::to_string(want));
    }
  }
  return want;
}

/// NVBench's sample: `calls` calls on every participating rank, until the last rank's stream is
/// drained.
void time_calls(nvbench::state& state, team& t, const rank_job& call, std::int64_t calls, bool everyone)
{
  const rank_job sample = [&](rank_context& r) {
    for (std::int64_t i = 0; i < calls; ++i)
    {
      call(r);
    }
    check(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize (the timed calls failed)");
  };
  state.exec(nvbench::exec_tag::timer | nvbench::exec_tag::no_gpu,
             [&](nvbench::launch&, nvbench::cpu_timer& timer) { t.run_timed(timer, sample, everyone); });
}

void add_int64_summary(nvbench::state& state, const std::string& tag, const std::string& name,
                       const std::string& description, std::int64_t value)
{
  nvbench::summary& summary = state.add_summary(tag);
  summary.set_string("name", name);
  summary.set_string("description", description);
  summary.set_int64("value", value);
}

/// A rank's part of a latency state.
template <class T>
struct latency_shard
{
  std::int64_t n = 0;
  device_array<T> items;
  device_array<T> results; ///< two slots: a call's result and the step's input or output
  device_array<unsigned char> cub_temp;
  std::size_t cub_bytes = 0;
  /// 256 bytes a rank: one gathered record each, or the grouped gathers' values (the first half)
  /// and flags (the second).
  device_array<unsigned char> records;

  const T* first() const
  {
    return items.get();
  }
  const T* last() const
  {
    return items.get() + n;
  }
  T* result() const
  {
    return results.get();
  }
};

template <class T>
std::unique_ptr<latency_shard<T>> make_latency_shard(const rank_context& r, std::int64_t n, int ranks)
{
  auto s     = std::make_unique<latency_shard<T>>();
  s->n       = n;
  s->items   = device_array<T>(static_cast<std::size_t>(n));
  s->results = device_array<T>(2);
  fill_slice(s->items.get(), n, n * r.rank, r.stream);
  check(cub::DeviceReduce::Sum(nullptr, s->cub_bytes, s->first(), s->result(), n, r.stream),
        "cub::DeviceReduce::Sum (size)");
  s->cub_temp           = device_array<unsigned char>(s->cub_bytes);
  const std::size_t rec = 256 * static_cast<std::size_t>(ranks);
  s->records            = device_array<unsigned char>(rec);
  check(cudaMemsetAsync(s->results.get(), 0, 2 * sizeof(T), r.stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(s->records.get(), 0, rec, r.stream), "cudaMemsetAsync");
  check(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
  return s;
}

/// One call of the latency contender `impl` on a rank; empty for an unknown name.
template <class T>
rank_job latency_call(const std::string& impl, per_rank<latency_shard<T>>& shards, int ranks)
{
  using record_type = rk::detail::maybe<T>;
  if (impl == "rk::nccl (whole call)")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::reduce_into(rk::nccl(r.comm).on(r.stream), s.first(), s.last(), s.result(), T{0}, rk::plus{});
    };
  }
  if (impl == "rk::device, shard only")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::reduce_into(rk::device.on(r.stream), s.first(), s.last(), s.result(), T{0}, rk::plus{});
    };
  }
  if (impl == "cub Sum + ncclAllReduce")
  {
    return [&shards](rank_context& r) {
      auto& s           = shards[r.rank];
      std::size_t bytes = s.cub_bytes;
      check(cub::DeviceReduce::Sum(s.cub_temp.get(), bytes, s.first(), s.result(), s.n, r.stream),
            "cub::DeviceReduce::Sum");
      nccl_check(ncclAllReduce(s.result(), s.result() + 1, 1, nccl_type<T>(), ncclSum, r.comm, r.stream),
                 "ncclAllReduce");
    };
  }
  if (impl == "gather-and-fold step")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::detail::gather_and_fold(r.comm, nullptr, r.me, s.result(), T{0}, s.result() + 1, rk::plus{}, r.stream,
                                  *r.facts);
    };
  }
  if (impl == "ncclAllReduce, 1 element")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      nccl_check(ncclAllReduce(s.result(), s.result() + 1, 1, nccl_type<T>(), ncclSum, r.comm, r.stream),
                 "ncclAllReduce");
    };
  }
  if (impl == "ncclAllGather, 1 record")
  {
    return [&shards](rank_context& r) {
      auto* records = reinterpret_cast<record_type*>(shards[r.rank].records.get());
      nccl_check(ncclAllGather(records + r.me.rank, records, sizeof(record_type), ncclUint8, r.comm, r.stream),
                 "ncclAllGather");
    };
  }
  if (impl == "ncclAllGather x2, grouped")
  {
    // A variant the step could use: values straight from the local result and flags from bytes
    // already in device memory, gathered in one NCCL group (no record-writing kernel).
    return [&shards, ranks](rank_context& r) {
      unsigned char* values = shards[r.rank].records.get();
      unsigned char* flags  = values + 128 * static_cast<std::size_t>(ranks);
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      nccl_check(ncclAllGather(values + r.me.rank * sizeof(T), values, sizeof(T), ncclUint8, r.comm, r.stream),
                 "ncclAllGather");
      nccl_check(ncclAllGather(flags + r.me.rank, flags, 1, ncclUint8, r.comm, r.stream), "ncclAllGather");
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    };
  }
  if (impl == "rk::nccl(workspace) (whole call)")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::reduce_into(rk::nccl(*r.workspace).on(r.stream), s.first(), s.last(), s.result(), T{0}, rk::plus{});
    };
  }
  if (impl == "symmetric step")
  {
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::detail::gather_and_fold(r.comm, r.workspace.get(), r.me, s.result(), T{0}, s.result() + 1, rk::plus{},
                                  r.stream, *r.facts);
    };
  }
  if (impl == "rk::nccl(workspace), offset given (whole call)")
  {
    // The partials' call with this rank's offset given (no exchange of the lengths, no wait).
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::reduce_into(rk::nccl(*r.workspace).on(r.stream).with_offset(s.n * r.me.rank), s.first(), s.last(), s.result(),
                      T{0}, rk::plus{});
    };
  }
  if (impl == "values exchange (workspace), before partials")
  {
    // rk::nccl(workspace) as it was before the ranks exchanged partials (issue 10's call, the
    // baseline of issue 29's <= 1.5x): the shard's value without init from rk::device's flat
    // engine, then the symmetric step folds the ranks' values. Its bits depend on the rank count.
    return [&shards](rank_context& r) {
      auto& s = shards[r.rank];
      rk::detail::reduce_range_into(rk::device.on(r.stream), s.first(), s.last(), s.result() + 1, rk::plus{});
      rk::detail::gather_and_fold(r.comm, r.workspace.get(), r.me, s.result() + 1, T{0}, s.result(), rk::plus{},
                                  r.stream, *r.facts);
    };
  }
  return {};
}

template <class T>
void latency_body(nvbench::state& state)
{
  const std::int64_t n     = state.get_int64("Elements");
  const std::int64_t calls = state.get_int64("Calls");
  const std::string& impl  = state.get_string("Impl");
  if (calls < 1)
  {
    state.skip("Calls must be 1 or more");
    return;
  }
  team& t = team_for(state);
  per_rank<latency_shard<T>> shards(t, [&](rank_context& r) { return make_latency_shard<T>(r, n, t.ranks()); });
  const rank_job call = latency_call<T>(impl, shards, t.ranks());
  if (!call)
  {
    state.skip("no such Impl: " + impl);
    return;
  }
  const std::string what = std::string(type_name<T>()) + " sum of " + std::to_string(n) + " items per rank";
  check_sum<T>(state, t, shards, [](const rank_context& r) { return rk::nccl(r.comm); }, what);
  check_sum<T>(state, t, shards, [](const rank_context& r) { return rk::nccl(*r.workspace); }, what + " (workspace)");
  check_sum<T>(
    state, t, shards, [n](const rank_context& r) { return rk::nccl(*r.workspace).with_offset(n * r.me.rank); },
    what + " (workspace, offset given)");
  add_int64_summary(state, "rk/nccl/ranks", "Ranks", "GPUs in the communicator", t.ranks());
  add_int64_summary(state, "rk/nccl/symmetric", "Symmetric",
                    "1 where the workspace has symmetric memory (the one-kernel step), else 0",
                    t.rank(0).workspace->symmetric() ? 1 : 0);
  time_calls(state, t, call, calls, true);
}

template <class T>
void nccl_latency(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { latency_body<T>(state); });
}

/// A rank's part of a throughput state, and on rank 0 the one-GPU contender's input.
template <class T>
struct throughput_shard
{
  std::int64_t n = 0;
  device_array<T> items;
  device_array<T> result;
  device_array<T> whole; ///< rank 0: the input's first whole_n items
  std::int64_t whole_n = 0;

  const T* first() const
  {
    return items.get();
  }
  const T* last() const
  {
    return items.get() + n;
  }
};

template <class T>
std::unique_ptr<throughput_shard<T>> make_throughput_shard(const rank_context& r, std::int64_t total, int ranks)
{
  auto s                   = std::make_unique<throughput_shard<T>>();
  const std::int64_t begin = total * r.rank / ranks;
  s->n                     = total * (r.rank + 1) / ranks - begin;
  s->items                 = device_array<T>(static_cast<std::size_t>(s->n));
  s->result                = device_array<T>(1);
  fill_slice(s->items.get(), s->n, begin, r.stream);
  if (r.rank == 0)
  {
    // The whole total beside the shard if it fits with 1 GiB to spare, else half of it.
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const bool fits = static_cast<double>(total) * sizeof(T) + (1u << 30) < static_cast<double>(free_bytes);
    s->whole_n      = fits ? total : total / 2;
    s->whole        = device_array<T>(static_cast<std::size_t>(s->whole_n));
    fill_slice(s->whole.get(), s->whole_n, 0, r.stream);
  }
  check(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
  return s;
}

template <class T>
void throughput_body(nvbench::state& state)
{
  const std::int64_t total = state.get_int64("Elements");
  const std::int64_t calls = state.get_int64("Calls");
  const std::string& impl  = state.get_string("Impl");
  if (calls < 1)
  {
    state.skip("Calls must be 1 or more");
    return;
  }
  const bool one_gpu   = impl == "rk::device, GPU 0 alone";
  const bool workspace = impl == "rk::nccl(workspace)";
  if (!one_gpu && !workspace && impl != "rk::nccl")
  {
    state.skip("no such Impl: " + impl);
    return;
  }
  team& t = team_for(state);
  per_rank<throughput_shard<T>> shards(t,
                                       [&](rank_context& r) { return make_throughput_shard<T>(r, total, t.ranks()); });
  const std::string what = std::string(type_name<T>()) + " sum of " + std::to_string(total) + " items in all";
  const double want      = check_sum<T>(state, t, shards, [](const rank_context& r) { return rk::nccl(r.comm); }, what);
  if (workspace)
  {
    check_sum<T>(state, t, shards, [](const rank_context& r) { return rk::nccl(*r.workspace); }, what + " (workspace)");
  }
  throughput_shard<T>& gpu0 = shards[0];
  const std::int64_t pieces = total / gpu0.whole_n;
  if (one_gpu && pieces == 1)
  {
    // GPU 0's input is the concatenation of the shards: the same sum (halved, it has no reference).
    T got{};
    t.run(
      [&](rank_context& r) {
        got = rk::reduce(rk::device.on(r.stream), gpu0.whole.get(), gpu0.whole.get() + gpu0.whole_n, T{0});
      },
      false);
    if (!rk_bench::results_match(got, static_cast<T>(want)))
    {
      rk_bench::fail(state, binary,
                     what + ": rk::device on GPU 0 alone got " + std::to_string(got) + ", the shards sum to "
                       + std::to_string(want));
    }
  }
  add_int64_summary(state, "rk/nccl/ranks", "Ranks", "GPUs in the communicator", t.ranks());
  state.add_element_count(static_cast<std::size_t>(total * calls));
  state.add_global_memory_reads<T>(static_cast<std::size_t>(total * calls));
  if (!one_gpu)
  {
    time_calls(
      state, t,
      [&shards, workspace](rank_context& r) {
        auto& s = shards[r.rank];
        if (workspace)
        {
          rk::reduce_into(rk::nccl(*r.workspace).on(r.stream), s.first(), s.last(), s.result.get(), T{0}, rk::plus{});
        }
        else
        {
          rk::reduce_into(rk::nccl(r.comm).on(r.stream), s.first(), s.last(), s.result.get(), T{0}, rk::plus{});
        }
      },
      calls, true);
    return;
  }
  add_int64_summary(state, "rk/nccl/one_gpu_pieces", "One-GPU pieces",
                    "calls of rk::device over Elements / pieces items that one call of this contender makes (2 "
                    "where GPU 0 cannot hold Elements beside its shard)",
                    pieces);
  time_calls(
    state, t,
    [&gpu0, pieces](rank_context& r) {
      for (std::int64_t p = 0; p < pieces; ++p)
      {
        rk::reduce_into(rk::device.on(r.stream), gpu0.whole.get(), gpu0.whole.get() + gpu0.whole_n, gpu0.result.get(),
                        T{0}, rk::plus{});
      }
    },
    calls, false);
}

template <class T>
void nccl_throughput(nvbench::state& state, nvbench::type_list<T>)
{
  rk_bench::counting_failures(state, binary, [&] { throughput_body<T>(state); });
}
} // namespace

NVBENCH_BENCH_TYPES(nccl_latency, NVBENCH_TYPE_AXES(value_types))
  .set_name("nccl_latency")
  .set_is_cpu_only(true)
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", nvbench::range(10, 20, 2))
  .add_string_axis("Impl",
                   {"rk::nccl (whole call)", "rk::device, shard only", "cub Sum + ncclAllReduce",
                    "gather-and-fold step", "ncclAllReduce, 1 element", "ncclAllGather, 1 record",
                    "ncclAllGather x2, grouped", "rk::nccl(workspace) (whole call)", "symmetric step",
                    "rk::nccl(workspace), offset given (whole call)", "values exchange (workspace), before partials"})
  .add_int64_axis("Calls", {200});

NVBENCH_BENCH_TYPES(nccl_throughput, NVBENCH_TYPE_AXES(value_types))
  .set_name("nccl_throughput")
  .set_is_cpu_only(true)
  .set_type_axes_names({"T"})
  .add_int64_power_of_two_axis("Elements", {30, 32})
  .add_string_axis("Impl", {"rk::nccl", "rk::nccl(workspace)", "rk::device, GPU 0 alone"})
  .add_int64_axis("Calls", {4});

NVBENCH_MAIN

// rk_soak: a differential soak. Draws random calls from a seed (every algorithm, policy, kind of
// reduction, size, segment layout, aligned and misaligned starts, items in memory or computed),
// runs them on several host threads and streams at once, and checks every result against the
// host (rk::seq, or rk::host for float sums). Between rounds of ordinary calls it replays captured
// graphs concurrently, leaves calls pending behind an exiting thread, feeds bad input, and
// releases rk's cached memory.
//
//   rk_soak [--seconds S] [--calls N] [--seed N] [--threads T] [--max-log2 L] [--host-only]
//   RK_SOAK_SEED=N RK_SOAK_CALL=t.i rk_soak      replays one call alone and prints it
//
// Without a GPU (or with --host-only) it runs the host half: rk::seq and rk::host only.
// Exit status 1 if any check failed.

#include "soak_run.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace soak
{
namespace
{
/// The soak's device buffers, by size class (powers of two from 256 bytes), up to 8 GiB kept.
struct buffer_cache
{
  static constexpr std::size_t max_kept = std::size_t{8} << 30;
  std::mutex mutex;
  std::multimap<std::size_t, void*> free;
  std::size_t kept = 0;
};
buffer_cache& the_buffers()
{
  static buffer_cache cache;
  return cache;
}

/// Frees the cached buffers (at the end of a run, once every array is back: memcheck's leak check
/// counts what the process still holds).
void free_cached_buffers()
{
  auto& cache = the_buffers();
  std::lock_guard<std::mutex> guard(cache.mutex);
  for (const auto& [bytes, p] : cache.free)
  {
    cudaFree(p);
  }
  cache.free.clear();
  cache.kept = 0;
}
std::size_t size_class(std::size_t bytes)
{
  std::size_t c = 256;
  while (c < bytes)
  {
    c *= 2;
  }
  return c;
}
} // namespace

void* take_buffer(std::size_t bytes)
{
  const std::size_t c = size_class(bytes);
  auto& cache         = the_buffers();
  {
    std::lock_guard<std::mutex> guard(cache.mutex);
    if (const auto it = cache.free.find(c); it != cache.free.end())
    {
      void* p = it->second;
      cache.free.erase(it);
      cache.kept -= c;
      return p;
    }
  }
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, c), "cudaMalloc");
  return p;
}

void give_back_buffer(void* p, std::size_t bytes) noexcept
{
  const std::size_t c = size_class(bytes);
  auto& cache         = the_buffers();
  {
    std::lock_guard<std::mutex> guard(cache.mutex);
    if (cache.kept + c <= buffer_cache::max_kept)
    {
      cache.free.emplace(c, p);
      cache.kept += c;
      return;
    }
  }
  cudaFree(p);
}

namespace
{
struct options
{
  double seconds     = 60;
  std::int64_t calls = 0; ///< stop the ordinary calls after this many (0: no limit)
  std::uint64_t seed = 0;
  int threads        = 8;
  int max_log2       = 27;
  bool gpu           = true;
};

struct tally
{
  std::atomic<std::int64_t> calls{0}, checks{0}, failures{0};
  std::mutex print;
};

outcome run_call(const call& c, cudaStream_t stream)
{
  if (c.a <= algorithm::arg_min_max)
  {
    return run_flat(c, stream);
  }
  if (c.a == algorithm::reduce_by_key)
  {
    return run_by_key(c, stream);
  }
  if (c.over_axes())
  {
    return run_axes(c, stream);
  }
  if (c.in_pieces())
  {
    return run_pieces(c, stream);
  }
  return run_segmented(c, stream);
}

void report(tally& t, const call& c, const std::string& what)
{
  ++t.failures;
  std::lock_guard<std::mutex> lock(t.print);
  std::printf("rk_soak: FAIL call %d.%lld: %s: %s\n  replay: RK_SOAK_SEED=%llu RK_SOAK_CALL=%d.%lld rk_soak\n",
              c.thread, static_cast<long long>(c.index), c.describe().c_str(), what.c_str(),
              static_cast<unsigned long long>(c.seed), c.thread, static_cast<long long>(c.index));
  std::fflush(stdout);
}

/// RK_SOAK_VERBOSE=1 prints every call before it runs (for a crash, which leaves no report).
const bool verbose = std::getenv("RK_SOAK_VERBOSE") != nullptr;

/// Runs call c and records what it found; an exception is a failure too (a drawn call is valid).
void run_and_check(tally& t, const call& c, cudaStream_t stream)
{
  if (verbose)
  {
    std::lock_guard<std::mutex> lock(t.print);
    static const auto start = std::chrono::steady_clock::now();
    std::printf("rk_soak: %.1f s: call %d.%lld: %s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), c.thread,
                static_cast<long long>(c.index), c.describe().c_str());
    std::fflush(stdout);
  }
  try
  {
    const outcome o = run_call(c, stream);
    t.checks += o.checks;
    if (!o.ok)
    {
      report(t, c, o.what);
    }
  }
  catch (const std::exception& e)
  {
    report(t, c, std::string("threw: ") + e.what());
  }
  ++t.calls;
}

int max_log2(const options& o)
{
  return o.gpu ? o.max_log2 : std::min(o.max_log2, 20);
}

/// A stream of its own for a round's work, destroyed after everything declared after it (device
/// arrays free themselves on it).
struct own_stream
{
  cudaStream_t stream{};
  own_stream()
  {
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~own_stream()
  {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  own_stream(const own_stream&)            = delete;
  own_stream& operator=(const own_stream&) = delete;
};

using clock_type = std::chrono::steady_clock;

/// Round A: every thread draws and checks calls until `until`; a quarter of the threads use
/// cudaStreamPerThread, the others a stream of their own.
void ordinary_calls(const options& o, tally& t, std::vector<std::int64_t>& next_index, clock_type::time_point until)
{
  std::vector<std::thread> threads;
  for (int th = 0; th < o.threads; ++th)
  {
    threads.emplace_back([&, th] {
      cudaStream_t stream = cudaStreamPerThread;
      if (o.gpu && th % 4 != 3)
      {
        check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      }
      while (clock_type::now() < until && (o.calls == 0 || t.calls < o.calls))
      {
        run_and_check(t, draw_call(o.seed, th, next_index[th]++, o.gpu, max_log2(o)), stream);
      }
      // Nothing stream-ordered may be left on a per-thread stream when its thread exits (CUDA's
      // own teardown can hang on a pending stream-ordered free).
      if (o.gpu)
      {
        cudaStreamSynchronize(stream);
      }
      if (stream != cudaStreamPerThread)
      {
        cudaStreamDestroy(stream);
      }
    });
  }
  for (auto& th : threads)
  {
    th.join();
  }
}

/// Round B: every thread captures one stream-ordered call into a graph and replays it three
/// times, all threads at once; every replay's result is checked.
void graph_replays(const options& o, tally& t, std::int64_t round)
{
  std::vector<std::thread> threads;
  for (int th = 0; th < o.threads; ++th)
  {
    threads.emplace_back([&, th] {
      const call c = draw_call(o.seed, 100 + th, round, true, std::min(24, max_log2(o)));
      cudaStream_t stream{};
      check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      // The call's runner allocates its buffers, captures nothing itself, and checks what it
      // finds: run it once eagerly for the reference path, then capture a second run's rk call.
      run_and_check(t, c, stream);
      cudaGraph_t graph{};
      cudaGraphExec_t exec{};
      bool captured = false;
      try
      {
        // Capture a reduce_into of the call's shape over a buffer that stays alive for the replays.
        using C = u32_plus;
        host_items<C> host(c);
        const device_items<C> items(c, host, stream);
        const device_array<std::uint32_t> out(1, stream);
        check_cuda(cudaStreamSynchronize(stream), "preparing the graph's buffers");
        check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        rk::reduce_into(rk::device.on(stream), items.begin(), items.begin() + c.n, out.ptr(), C::init(), C::op{});
        check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        captured = true;
        check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        const std::uint32_t want = rk::reduce(rk::seq, host.begin(), host.begin() + c.n, C::init(), C::op{});
        for (int replay = 0; replay < 3; ++replay)
        {
          check_cuda(cudaMemsetAsync(out.get(), 0xcd, sizeof(std::uint32_t), stream), "clearing the output");
          check_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
          const std::uint32_t got = at<std::uint32_t>(out.download(1), 0);
          ++t.checks;
          if (got != want)
          {
            report(t, c,
                   "graph replay " + std::to_string(replay) + " of a captured reduce_into over the call's "
                     + std::to_string(c.n) + " uint32 items gave " + std::to_string(got) + ", the host "
                     + std::to_string(want));
          }
        }
      }
      catch (const std::exception& e)
      {
        if (!captured)
        {
          cudaGraph_t discard{};
          cudaStreamEndCapture(stream, &discard);
          if (discard)
          {
            cudaGraphDestroy(discard);
          }
        }
        report(t, c, std::string("graph replay threw: ") + e.what());
      }
      if (exec)
      {
        cudaGraphExecDestroy(exec);
      }
      if (graph)
      {
        cudaGraphDestroy(graph);
      }
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
      ++t.calls;
    });
  }
  for (auto& th : threads)
  {
    th.join();
  }
}

/// Round C: a thread enqueues reductions on its per-thread stream and exits without waiting; the
/// results are checked after the device has finished them.
void exiting_thread(const options& o, tally& t, std::int64_t round)
{
  constexpr int calls = 4;
  using C             = u32_plus;
  std::vector<call> drawn;
  std::vector<std::unique_ptr<host_items<C>>> hosts;
  std::vector<std::uint32_t*> inputs(calls), outputs(calls);
  for (int i = 0; i < calls; ++i)
  {
    drawn.push_back(draw_call(o.seed, 200, round * calls + i, true, std::min(22, max_log2(o))));
    hosts.push_back(std::make_unique<host_items<C>>(drawn.back()));
    const std::size_t items = static_cast<std::size_t>(drawn[i].offset + drawn[i].n);
    check_cuda(cudaMalloc(&inputs[i], (items ? items : 1) * sizeof(std::uint32_t)), "cudaMalloc");
    check_cuda(cudaMalloc(&outputs[i], sizeof(std::uint32_t)), "cudaMalloc");
    check_cuda(cudaMemcpy(inputs[i], hosts[i]->bytes.data(), items * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
               "uploading");
  }
  std::thread leaver([&] {
    for (int i = 0; i < calls; ++i)
    {
      const thrust::device_ptr<const std::uint32_t> first(inputs[i] + drawn[i].offset);
      rk::reduce_into(rk::device.on(cudaStreamPerThread), first, first + drawn[i].n,
                      thrust::device_ptr<std::uint32_t>(outputs[i]), C::init(), C::op{});
    }
    // Leaves with the reductions still pending on its per-thread stream.
  });
  leaver.join();
  check_cuda(cudaDeviceSynchronize(), "waiting for the exited thread's work");
  for (int i = 0; i < calls; ++i)
  {
    std::uint32_t got = 0;
    check_cuda(cudaMemcpy(&got, outputs[i], sizeof(got), cudaMemcpyDeviceToHost), "copying back");
    const auto* h            = hosts[i]->begin();
    const std::uint32_t want = rk::reduce(rk::seq, h, h + drawn[i].n, C::init(), C::op{});
    ++t.checks;
    ++t.calls;
    if (got != want)
    {
      report(t, drawn[i],
             "left pending by an exiting thread: " + std::to_string(got) + ", the host " + std::to_string(want));
    }
    cudaFree(inputs[i]);
    cudaFree(outputs[i]);
  }
}

/// 64 uint32 ones in device memory, for the bad-input calls.
device_array<std::uint32_t> ones(cudaStream_t stream)
{
  device_array<std::uint32_t> items(64, stream);
  const std::vector<std::uint32_t> host(64, 1u);
  check_cuda(cudaMemcpyAsync(items.get(), host.data(), 64 * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream),
             "uploading the items");
  check_cuda(cudaStreamSynchronize(stream), "uploading the items");
  return items;
}

/// Round D: bad input, each with its documented rk::error, leaving the outputs as they were; run
/// while the ordinary calls of round A go on, so a bad call that disturbed another would show.
void bad_input(tally& t, std::int64_t round)
{
  const own_stream owned;
  const cudaStream_t stream = owned.stream;
  call c{};
  c.thread          = 300;
  c.index           = round;
  const auto expect = [&](const char* what, bool threw_right, bool untouched) {
    ++t.checks;
    ++t.calls;
    if (!threw_right || !untouched)
    {
      report(t, c,
             std::string(what) + (threw_right ? "" : ": no rk::error (or the wrong one)")
               + (untouched ? "" : ": an output changed"));
    }
  };
  const device_array<std::uint32_t> items = ones(stream), out(64, stream, 0xcd);
  const thrust::device_ptr<const std::uint32_t> first(items.get());
  // A reversed range: rk::invalid_range, nothing written.
  bool threw = false;
  try
  {
    rk::reduce_into(rk::device.on(stream), first + 10, first + 5, out.ptr(), 0u, rk::plus{});
  }
  catch (const rk::invalid_range&)
  {
    threw = true;
  }
  expect("reduce_into over a reversed range", threw, at<std::uint32_t>(out.download(1), 0) == 0xcdcdcdcdu);
  threw = false;
  try
  {
    (void) rk::reduce(rk::device.on(stream), first + 10, first + 5, 0u, rk::plus{});
  }
  catch (const rk::invalid_range&)
  {
    threw = true;
  }
  expect("reduce over a reversed range", threw, true);
  // A value-returning call on a stream being captured: rk::error, and the capture can be ended.
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  threw = false;
  try
  {
    (void) rk::reduce(rk::device.on(stream), first, first + 64, 0u, rk::plus{});
  }
  catch (const rk::error&)
  {
    threw = true;
  }
  cudaGraph_t graph{};
  const bool ended = cudaStreamEndCapture(stream, &graph) == cudaSuccess;
  if (graph)
  {
    cudaGraphDestroy(graph);
  }
  cudaGetLastError();
  expect("value-returning reduce on a capturing stream", threw, ended);
}

/// Bad segments: the call enqueues, its kernel reports the bad segment, and the next
/// check_device_errors throws; the good segments are right and the bad one holds init. The report
/// goes to the device's one error word, which every segmented call checks first, so this runs
/// while no other call does (another thread's call would take the report).
void bad_segments(tally& t, std::int64_t round)
{
  const own_stream owned;
  const cudaStream_t stream = owned.stream;
  call c{};
  c.thread                                = 301;
  c.index                                 = round;
  const device_array<std::uint32_t> items = ones(stream), out(64, stream, 0xcd);
  const thrust::device_ptr<const std::uint32_t> first(items.get());
  const std::int64_t host_offsets[] = {0, 10, 5, 20};
  const device_array<std::int64_t> offsets(4, stream);
  check_cuda(cudaMemcpyAsync(offsets.get(), host_offsets, sizeof(host_offsets), cudaMemcpyHostToDevice, stream),
             "uploading offsets");
  rk::segmented_reduce(rk::device.on(stream), first, offsets.ptr(), offsets.ptr() + 4, out.ptr(), 100u, rk::plus{});
  check_cuda(cudaStreamSynchronize(stream), "waiting for the bad segments");
  bool threw = false;
  try
  {
    rk::check_device_errors();
  }
  catch (const rk::error&)
  {
    threw = true;
  }
  const auto values = out.download(4);
  const bool right  = at<std::uint32_t>(values, 0) == 110u && at<std::uint32_t>(values, 1) == 100u
                  && at<std::uint32_t>(values, 2) == 115u && at<std::uint32_t>(values, 3) == 0xcdcdcdcdu;
  ++t.checks;
  ++t.calls;
  if (!threw || !right)
  {
    report(t, c,
           std::string("segmented_reduce with decreasing offsets") + (threw ? "" : ": no rk::error")
             + (right ? "" : ": the outputs are not as documented"));
  }
}

int replay(const options& o, const char* which)
{
  int th          = 0;
  long long index = 0;
  if (std::sscanf(which, "%d.%lld", &th, &index) != 2)
  {
    std::fprintf(stderr, "rk_soak: RK_SOAK_CALL is thread.index, e.g. 3.1207\n");
    return 2;
  }
  tally t;
  const call c = draw_call(o.seed, th, index, o.gpu, std::min(th >= 200 ? 22 : th >= 100 ? 24 : 27, max_log2(o)));
  std::printf("rk_soak: replaying call %d.%lld of seed %llu: %s\n", th, index, static_cast<unsigned long long>(o.seed),
              c.describe().c_str());
  cudaStream_t stream = cudaStreamPerThread;
  if (o.gpu)
  {
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  run_and_check(t, c, stream);
  free_cached_buffers();
  std::printf("rk_soak: %lld checks, %s\n", static_cast<long long>(t.checks.load()), t.failures ? "FAILED" : "passed");
  return t.failures ? 1 : 0;
}
} // namespace
} // namespace soak

int main(int argc, char** argv)
{
  using namespace soak;
  options o;
  o.seed         = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  bool host_only = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc)
    {
      o.seconds = std::atof(argv[++i]);
    }
    else if (a == "--calls" && i + 1 < argc)
    {
      o.calls = std::max(0ll, std::atoll(argv[++i]));
    }
    else if (a == "--seed" && i + 1 < argc)
    {
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    }
    else if (a == "--threads" && i + 1 < argc)
    {
      o.threads = std::max(1, std::atoi(argv[++i]));
    }
    else if (a == "--max-log2" && i + 1 < argc)
    {
      o.max_log2 = std::clamp(std::atoi(argv[++i]), 4, 27);
    }
    else if (a == "--host-only")
    {
      host_only = true;
    }
    else
    {
      std::fprintf(stderr,
                   "usage: rk_soak [--seconds S] [--calls N] [--seed N] [--threads T] [--max-log2 L] [--host-only]\n"
                   "       RK_SOAK_SEED=N RK_SOAK_CALL=thread.index rk_soak   (replays one call)\n");
      return 2;
    }
  }
  if (const char* s = std::getenv("RK_SOAK_SEED"))
  {
    o.seed = std::strtoull(s, nullptr, 10);
  }
  int devices = 0;
  o.gpu       = !host_only && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  cudaGetLastError();
  if (const char* which = std::getenv("RK_SOAK_CALL"))
  {
    return replay(o, which);
  }
  if (!o.gpu)
  {
    o.threads = std::min(o.threads, 2);
  }
  std::printf("rk_soak: seed %llu, %d threads, %.0f s, %s\n", static_cast<unsigned long long>(o.seed), o.threads,
              o.seconds, o.gpu ? "GPU and host policies" : "host half (rk::seq, rk::host): no GPU in use");
  std::fflush(stdout);

  tally t;
  std::vector<std::int64_t> next_index(static_cast<std::size_t>(o.threads), 0);
  const auto start = clock_type::now();
  const auto end   = start + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(o.seconds));
  for (std::int64_t round = 0; clock_type::now() < end && (o.calls == 0 || t.calls < o.calls); ++round)
  {
    const auto slice = std::min(end, clock_type::now() + std::chrono::seconds(20));
    if (o.gpu)
    {
      std::thread bad([&] {
        try
        {
          bad_input(t, round);
        }
        catch (const std::exception& e)
        {
          std::printf("rk_soak: FAIL bad-input round %lld threw: %s\n", static_cast<long long>(round), e.what());
          ++t.failures;
        }
      });
      ordinary_calls(o, t, next_index, slice);
      bad.join();
      graph_replays(o, t, round);
      exiting_thread(o, t, round);
      bad_segments(t, round);
      check_cuda(cudaDeviceSynchronize(), "between rounds");
      rk::release_cached_memory();
    }
    else
    {
      ordinary_calls(o, t, next_index, slice);
    }
  }
  free_cached_buffers();
  const double took = std::chrono::duration<double>(clock_type::now() - start).count();
  std::printf("rk_soak: %lld calls (%.0f per s), %lld checks, %lld failures; seed %llu, %.0f s\n",
              static_cast<long long>(t.calls.load()), static_cast<double>(t.calls.load()) / took,
              static_cast<long long>(t.checks.load()), static_cast<long long>(t.failures.load()),
              static_cast<unsigned long long>(o.seed), took);
  return t.failures ? 1 : 0;
}

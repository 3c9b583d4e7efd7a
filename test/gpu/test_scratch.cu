// Who owns scratch: graphs replayed concurrently, threads that exit with work pending, a value-
// returning call waiting on a stream that another thread also uses, captures of first calls and
// of the atomic backend, a capture in another thread, and rk::release_cached_memory().

#include "gpu_harness.cuh"

#include <thrust/sequence.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace
{
using rk_test::stream_guard;
using rk_test::stream_hold;

/// n items 1, 2, ..., n (as int32) and their sum.
struct ramp
{
  thrust::device_vector<std::int32_t> items;
  std::int64_t sum;
  explicit ramp(std::int64_t n, std::int32_t from = 1)
      : items(n)
      , sum(n * (2 * std::int64_t{from} + n - 1) / 2)
  {
    thrust::sequence(items.begin(), items.end(), from);
  }
  const std::int32_t* begin() const
  {
    return thrust::raw_pointer_cast(items.data());
  }
  const std::int32_t* end() const
  {
    return begin() + items.size();
  }
};

/// A graph holding one rk::reduce_into, captured on `stream`, instantiated. The call must have
/// allocated its scratch inside the graph: that is what keeps graphs from sharing it.
struct captured_call
{
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};

  template <class Call>
  captured_call(cudaStream_t stream, Call call)
  {
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    call(stream);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    CHECK(count_nodes(cudaGraphNodeTypeMemAlloc) == 1);
    CHECK(count_nodes(cudaGraphNodeTypeMemFree) == 1);
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  }

  int count_nodes(cudaGraphNodeType type) const
  {
    std::size_t count = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess);
    int matching = 0;
    for (cudaGraphNode_t node : nodes)
    {
      cudaGraphNodeType t{};
      REQUIRE(cudaGraphNodeGetType(node, &t) == cudaSuccess);
      matching += t == type;
    }
    return matching;
  }
  ~captured_call()
  {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
};

std::int64_t read_back(const thrust::device_vector<std::int64_t>& v, std::size_t i)
{
  return v[i];
}

/// Two graphs captured on one stream, replayed at the same time on two others, many times; then
/// plain calls on the capture stream. Each graph owns its scratch, so no replay can see another's
/// counters, and the capture stream's own scratch stays clean.
template <class Policy>
void concurrent_replays(Policy policy)
{
  stream_guard capture, first, second;
  const ramp a(3'000'017), b(1'234'567, -500);
  thrust::device_vector<std::int64_t> out(2, -1);
  std::int64_t* result = thrust::raw_pointer_cast(out.data());
  const captured_call graph_a(capture.stream, [&](cudaStream_t s) {
    rk::reduce_into(policy.on(s), a.begin(), a.end(), result, std::int64_t{0});
  });
  const captured_call graph_b(capture.stream, [&](cudaStream_t s) {
    rk::reduce_into(policy.on(s), b.begin(), b.end(), result + 1, std::int64_t{7});
  });
  int wrong         = 0;
  const int replays = rk_test::quick_mode() ? 10 : 100;
  for (int replay = 0; replay < replays; ++replay)
  {
    REQUIRE(cudaGraphLaunch(graph_a.exec, first.stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(graph_b.exec, second.stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(first.stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(second.stream) == cudaSuccess);
    wrong += read_back(out, 0) != a.sum;
    wrong += read_back(out, 1) != b.sum + 7;
  }
  CHECK(wrong == 0);
  for (int call = 0; call < 10; ++call)
  {
    CHECK(rk::reduce(policy.on(capture.stream), a.begin(), a.end(), std::int64_t{1}) == a.sum + 1);
  }
}
} // namespace

RK_GPU_TEST_CASE("two graphs captured on one stream, replayed concurrently on two others: single_pass")
{
  concurrent_replays(rk::single_pass);
}

RK_GPU_TEST_CASE("two graphs captured on one stream, replayed concurrently on two others: atomic")
{
  concurrent_replays(rk::atomic);
}

RK_GPU_TEST_CASE("two graphs captured on one stream, replayed concurrently on two others: device (atomic for int64)")
{
  thrust::device_vector<std::int32_t> probe(1 << 20);
  REQUIRE(rk::explain(rk::device, probe.begin(), probe.end(), std::int64_t{0}).stream_ordered_backend == "atomic");
  concurrent_replays(rk::device);
}

RK_GPU_TEST_CASE("the first call on a fresh stream can be captured, for every backend")
{
  const ramp a(1'000'003);
  thrust::device_vector<std::int64_t> out(4, -1);
  std::int64_t* result = thrust::raw_pointer_cast(out.data());
  stream_guard s0, s1, s2, s3; // fresh: no rk call has run on them
  const captured_call g0(s0.stream, [&](cudaStream_t s) {
    rk::reduce_into(rk::device.on(s), a.begin(), a.end(), result + 0, std::int64_t{0});
  });
  const captured_call g1(s1.stream, [&](cudaStream_t s) {
    rk::reduce_into(rk::single_pass.on(s), a.begin(), a.end(), result + 1, std::int64_t{1});
  });
  const captured_call g2(s2.stream, [&](cudaStream_t s) {
    rk::reduce_into(rk::two_pass.on(s), a.begin(), a.end(), result + 2, std::int64_t{2});
  });
  const captured_call g3(s3.stream, [&](cudaStream_t s) {
    rk::reduce_into(rk::atomic.on(s), a.begin(), a.end(), result + 3, std::int64_t{3});
  });
  for (int replay = 0; replay < 3; ++replay)
  {
    for (const auto* g : {&g0, &g1, &g2, &g3})
    {
      REQUIRE(cudaGraphLaunch(g->exec, s0.stream) == cudaSuccess);
    }
    REQUIRE(cudaStreamSynchronize(s0.stream) == cudaSuccess);
    for (std::size_t i = 0; i < 4; ++i)
    {
      CHECK(read_back(out, i) == a.sum + static_cast<std::int64_t>(i));
    }
  }
}

RK_GPU_TEST_CASE("the value-returning rk::reduce refuses capture with rk::error, and the capture stays usable")
{
  stream_guard s;
  const ramp a(1000);
  REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  std::string message;
  try
  {
    (void) rk::reduce(rk::device.on(s.stream), a.begin(), a.end(), std::int64_t{0});
  }
  catch (const rk::error& e)
  {
    message = e.what();
  }
  cudaGraph_t graph{};
  CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
  cudaGraphDestroy(graph);
  CHECK(message.find("cannot be captured") != std::string::npos);
  CHECK(message.find("rk::reduce_into") != std::string::npos);
}

RK_GPU_TEST_CASE("a thread's first rk call works while another thread captures in global mode")
{
  const ramp a(2'000'003);
  thrust::device_vector<std::int64_t> out(2, -1);
  std::int64_t* result = thrust::raw_pointer_cast(out.data());
  stream_guard captured;
  std::promise<void> capturing, others_done;
  cudaError_t end_status = cudaErrorUnknown;
  cudaGraph_t graph{};
  std::thread capturer([&] {
    cudaStreamBeginCapture(captured.stream, cudaStreamCaptureModeGlobal);
    rk::reduce_into(rk::single_pass.on(captured.stream), a.begin(), a.end(), result, std::int64_t{0});
    capturing.set_value();
    others_done.get_future().wait();
    end_status = cudaStreamEndCapture(captured.stream, &graph);
  });
  capturing.get_future().wait();
  bool threw = false;
  {
    stream_guard fresh; // its scratch is allocated now, during the other thread's capture
    try
    {
      rk::reduce_into(rk::device.on(fresh.stream), a.begin(), a.end(), result + 1, std::int64_t{5});
      rk::reduce_into(rk::two_pass.on(fresh.stream), a.begin(), a.end(), result + 1, std::int64_t{5});
    }
    catch (const std::exception& e)
    {
      MESSAGE(e.what());
      threw = true;
    }
    others_done.set_value();
    capturer.join();
    CHECK(cudaStreamSynchronize(fresh.stream) == cudaSuccess);
  }
  CHECK_FALSE(threw);
  REQUIRE(end_status == cudaSuccess);
  CHECK(read_back(out, 1) == a.sum + 5);
  cudaGraphExec_t exec{};
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, captured.stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(captured.stream) == cudaSuccess);
  CHECK(read_back(out, 0) == a.sum);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

RK_GPU_TEST_CASE("rk::reduce_into returns while another thread's rk::reduce waits on the same stream")
{
  stream_guard shared;
  const ramp a(1'000'003);
  thrust::device_vector<std::int64_t> out(1, -1);
  // Warm the stream's scratch, so that nothing below allocates.
  CHECK(rk::reduce(rk::single_pass.on(shared.stream), a.begin(), a.end(), std::int64_t{0}) == a.sum);
  stream_hold hold(shared.stream);
  cudaEvent_t behind_hold{};
  REQUIRE(cudaEventCreateWithFlags(&behind_hold, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventRecord(behind_hold, shared.stream) == cudaSuccess);
  std::atomic<bool> waiter_started{false};
  std::int64_t waited = -1;
  std::thread waiter([&] {
    waiter_started = true;
    waited         = rk::reduce(rk::single_pass.on(shared.stream), a.begin(), a.end(), std::int64_t{3});
  });
  while (!waiter_started)
  {
    std::this_thread::yield();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50)); // let the waiter reach its wait
  rk::reduce_into(rk::device.on(shared.stream), a.begin(), a.end(), out.data(), std::int64_t{9});
  // Had reduce_into waited for the waiter's lock, it would have waited for the hold to end too.
  CHECK(cudaEventQuery(behind_hold) == cudaErrorNotReady);
  hold.release();
  waiter.join();
  CHECK(waited == a.sum + 3);
  REQUIRE(cudaStreamSynchronize(shared.stream) == cudaSuccess);
  CHECK(read_back(out, 0) == a.sum + 9);
  cudaEventDestroy(behind_hold);
}

RK_GPU_TEST_CASE("a thread that exits with a call pending does not hand its scratch to the next thread")
{
  const ramp a(4'000'037), b(3'000'017, 11);
  thrust::device_vector<std::int64_t> out(2, -1);
  std::int64_t* result = thrust::raw_pointer_cast(out.data());
  for (int round = 0; round < (rk_test::quick_mode() ? 2 : 4); ++round)
  {
    std::atomic<int*> release{nullptr};
    std::atomic<bool> released{false}, calls_returned{false};
    std::thread leaver([&] {
      // Hold this thread's per-thread stream, leave an atomic and a single-pass call behind the
      // hold, and exit before they run.
      stream_hold hold(cudaStreamPerThread);
      release = hold.detach();
      rk::reduce_into(rk::atomic.on(cudaStreamPerThread), a.begin(), a.end(), result, std::int64_t{0});
      rk::reduce_into(rk::single_pass.on(cudaStreamPerThread), a.begin(), a.end(), result, std::int64_t{1});
      calls_returned = !released; // stream-ordered calls return without waiting for the hold
    });
    // Lifts the hold after a while in any case, so a call that did wait cannot hang the test.
    std::thread releaser([&] {
      while (release.load() == nullptr)
      {
        std::this_thread::yield();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      released                                         = true;
      *reinterpret_cast<volatile int*>(release.load()) = 1;
    });
    leaver.join();
    // The exit parked the leaver's scratch behind its held calls: it waited for nothing.
    CHECK_FALSE(released);
    int wrong = 0;
    // Runs while the leaver's calls are still held, and may be given the leaver's std::thread::id.
    std::thread next([&] {
      for (int i = 0; i < 20; ++i)
      {
        rk::reduce_into(rk::atomic.on(cudaStreamPerThread), b.begin(), b.end(), result + 1, std::int64_t{2});
        wrong += rk::reduce(rk::single_pass.on(cudaStreamPerThread), b.begin(), b.end(), std::int64_t{0}) != b.sum;
        std::int64_t got = 0;
        cudaMemcpyAsync(&got, result + 1, sizeof(got), cudaMemcpyDeviceToHost, cudaStreamPerThread);
        cudaStreamSynchronize(cudaStreamPerThread);
        wrong += got != b.sum + 2;
      }
    });
    next.join();
    releaser.join();
    CHECK(calls_returned);
    CHECK(wrong == 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    cudaFreeHost(release.load());
    CHECK(read_back(out, 0) == a.sum + 1);
  }
}

RK_GPU_TEST_CASE("after rk::release_cached_memory(), every kind of call allocates again and works")
{
  stream_guard s;
  const ramp a(777'777);
  thrust::device_vector<std::int64_t> out(1, -1);
  CHECK(rk::reduce(rk::device.on(s.stream), a.begin(), a.end(), std::int64_t{0}) == a.sum);
  CHECK(rk::reduce(rk::device.on(cudaStreamPerThread), a.begin(), a.end(), std::int64_t{0}) == a.sum);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  rk::release_cached_memory();
  for (int i = 0; i < 3; ++i)
  {
    CHECK(rk::reduce(rk::device.on(s.stream), a.begin(), a.end(), std::int64_t{i}) == a.sum + i);
    CHECK(rk::reduce(rk::two_pass.on(cudaStreamPerThread), a.begin(), a.end(), std::int64_t{i}) == a.sum + i);
    rk::reduce_into(rk::atomic.on(s.stream), a.begin(), a.end(), out.data(), std::int64_t{i});
    REQUIRE(cudaStreamSynchronize(s.stream) == cudaSuccess);
    CHECK(read_back(out, 0) == a.sum + i);
    rk::release_cached_memory();
  }
}

RK_GPU_TEST_CASE("a failed launch of the caller's own is not reported as rk's")
{
  const ramp a(100'000);
  thrust::device_vector<std::int64_t> out(1);
  std::int64_t* result = thrust::raw_pointer_cast(out.data());
  int init             = 0;
  int* nowhere         = nullptr;
  void* args[]         = {&init, &nowhere};
  // 4096 threads a block: a launch that fails, its error left behind as the thread's last error.
  (void) cudaLaunchKernel(reinterpret_cast<const void*>(&rk::detail::store_init_kernel<int>), dim3(1), dim3(4096), args,
                          0, nullptr);
  REQUIRE(cudaPeekAtLastError() != cudaSuccess);
  std::int64_t got = -1;
  CHECK_NOTHROW(got = rk::reduce(rk::single_pass, a.begin(), a.end(), std::int64_t{0}));
  CHECK_NOTHROW(rk::reduce_into(rk::two_pass, a.begin(), a.end(), result, std::int64_t{1}));
  cudaGetLastError(); // the caller's error, which rk left alone; Thrust below would report it
  CHECK(got == a.sum);
  CHECK(read_back(out, 0) == a.sum + 1);
}

// NCCL properties over order and the call's contract: the non-commutative operators across the
// rank boundary, shards of more than 2^31 items, back-to-back stream-ordered calls, graph
// capture, and errors. Every rank makes the same calls in the same order.

#include "nccl_support.cuh"

#include <rk/nccl.cuh>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <string>
#include <vector>

namespace rk_test::nccl
{
namespace
{
/// Item i -> a 2x2 matrix with odd diagonal and even corners: an odd determinant, so it is
/// invertible mod 2^32 and products of these never collapse to zero.
struct to_mat2
{
  RK_HOST_DEVICE mat2 operator()(std::int64_t i) const
  {
    const auto k = static_cast<std::uint32_t>(i);
    return mat2{2 * (k % 5) + 1, 2 * (k % 3), 2 * (k % 7), 1};
  }
};

/// Item i -> x -> (2 (i mod 13) + 1) x + i mod 97 (odd slopes: every map stays visible).
struct to_affine
{
  RK_HOST_DEVICE affine operator()(std::int64_t i) const
  {
    const auto k = static_cast<std::uint32_t>(i);
    return affine{2 * (k % 13) + 1, k % 97};
  }
};

/// For every layout and total: reduce (value and into) this rank's shard of f(i), computed on
/// access, and compare with the left fold of f over everything the shards cover.
template <class T, class F, class Op, class Policy>
void check_order(const rank_env& env, report& out, const std::string& name, const Policy& policy, F f, T init, Op op,
                 const std::vector<std::int64_t>& totals)
{
  for (const std::int64_t total : totals)
  {
    for (const layout l : all_layouts)
    {
      const shard s        = shard_of(l, total, env.rank, env.ranks);
      const auto first     = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(s.begin), f);
      const auto all       = generating_iterator<F>(f, 0);
      const T expected     = fold(all, all + covered(l, total, env.ranks), init, op);
      const std::string at = " " + name + " (" + where(l, total, s) + ")";
      const T got          = rk::reduce(policy, first, first + s.size(), init, op);
      out.expect(got == expected, mismatch("rk::reduce" + at, got, expected));
      device_slot<T> result;
      rk::reduce_into(policy, first, first + s.size(), result.get(), init, op);
      const T into = result.read(env.stream);
      out.expect(into == expected, mismatch("rk::reduce_into" + at, into, expected));
    }
  }
}
} // namespace

void non_commutative(const rank_env& env, report& out)
{
  const std::vector<std::int64_t> totals = {1, 2, 5, 4097, (std::int64_t{1} << 20) + 1};
  const auto device                      = env.nccl().on(env.stream);
  // Segment merge: [-5, 0) then [0, 1), [1, 2), ... gives exactly [-5, covered) only if every
  // combine was adjacent and left to right, across the ranks too, with init once on the left.
  check_order(env, out, "segment merge", device, to_segment{}, segment{-5, 0}, segment_merge{}, totals);
  check_order(env, out, "2x2 matrix product", device, to_mat2{}, mat2{1, 2, 3, 5}, mat2_multiply{}, totals);
  check_order(env, out, "affine composition", device, to_affine{}, affine{3, 1}, affine_compose{}, totals);
  // The local backend named by the user.
  check_order(env, out, "segment merge, local two_pass", env.nccl(rk::two_pass).on(env.stream), to_segment{},
              segment{-5, 0}, segment_merge{}, {4097, (std::int64_t{1} << 20) + 1});
  check_order(env, out, "segment merge, local single_pass", env.nccl(rk::single_pass.on(env.stream)), to_segment{},
              segment{-5, 0}, segment_merge{}, {4097});

  // Items in memory (16-byte segments in a device_vector), not computed.
  const std::int64_t total = 300007;
  for (const layout l : {layout::even, layout::unequal, layout::first_empty})
  {
    const shard s = shard_of(l, total, env.rank, env.ranks);
    std::vector<segment> mine;
    for (std::int64_t i = s.begin; i < s.end; ++i)
    {
      mine.push_back(segment{i, i + 1});
    }
    const thrust::device_vector<segment> items(mine.begin(), mine.end());
    const segment want{-1, covered(l, total, env.ranks)};
    const segment got = rk::reduce(device, items.begin(), items.end(), segment{-1, 0}, segment_merge{});
    out.expect(got == want, mismatch("segment merge from a device_vector (" + where(l, total, s) + ")", got, want));
  }
}

void large_shards(const rank_env& env, report& out)
{
  // Rank r has 2^31 + 77 + 1000 r items: counts above 2^31 on every rank, and unequal shards.
  std::int64_t begin = 0, total = 0;
  for (int r = 0; r < env.ranks; ++r)
  {
    const std::int64_t n = (std::int64_t{1} << 31) + 77 + 1000 * r;
    if (r == env.rank)
    {
      begin = total;
    }
    total += n;
  }
  const std::int64_t n = (std::int64_t{1} << 31) + 77 + 1000 * env.rank;
  const auto policy    = env.nccl().on(env.stream);
  const auto index = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(begin), index_identity{});
  // Past 2^32 items in all the sum of the indices passes 2^63: summed as uint64, mod 2^64.
  const std::uint64_t sum  = rk::reduce(policy, index, index + n, std::uint64_t{3}, rk::plus{});
  const auto t             = static_cast<std::uint64_t>(total);
  const std::uint64_t want = 3 + (t % 2 == 0 ? (t / 2) * (t - 1) : t * ((t - 1) / 2));
  out.expect(sum == want, "sum of the global indices = " + std::to_string(sum) + ", expected " + std::to_string(want));
  const auto segments = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(begin), to_segment{});
  device_slot<segment> result;
  rk::reduce_into(policy, segments, segments + n, result.get(), segment{-2, 0}, segment_merge{});
  const segment got = result.read(env.stream);
  out.expect(got == segment{-2, total},
             mismatch("segment merge of " + std::to_string(total) + " items", got, segment{-2, total}));
}

namespace
{
/// Once the stream is done: call j's result, results[j], against want(j), for every call.
template <class T, class Want>
void expect_calls(const rank_env& env, report& out, const thrust::device_vector<T>& results, Want want)
{
  cuda_ok(cudaStreamSynchronize(env.stream), "cudaStreamSynchronize");
  std::vector<T> got(results.size());
  thrust::copy(results.begin(), results.end(), got.begin());
  for (int j = 0; j < static_cast<int>(got.size()); ++j)
  {
    const std::int64_t expected = want(j);
    out.expect(got[j] == expected,
               "call " + std::to_string(j) + " = " + std::to_string(got[j]) + ", expected " + std::to_string(expected));
  }
}
} // namespace

void back_to_back(const rank_env& env, report& out)
{
  // Eight calls enqueued without waiting, the shard rewritten on the same stream before each:
  // call j must see the j-th contents on every rank, and its own output slot.
  constexpr int calls = 8;
  const auto sizes    = [&](int r) { return std::int64_t{1000} * (r + 1) + 17 * r; };
  thrust::device_vector<std::int32_t> shard(sizes(env.rank));
  thrust::device_vector<std::int32_t> results(calls);
  const auto policy = env.nccl().on(env.stream);
  for (int j = 0; j < calls; ++j)
  {
    thrust::fill(thrust::cuda::par_nosync.on(env.stream), shard.begin(), shard.end(), (j + 1) * (env.rank + 1));
    rk::reduce_into(policy, shard.begin(), shard.end(), results.data() + j, j, rk::plus{});
  }
  expect_calls(env, out, results, [&](int j) {
    std::int64_t want = j;
    for (int r = 0; r < env.ranks; ++r)
    {
      want += sizes(r) * (j + 1) * (r + 1);
    }
    return want;
  });
}

namespace
{
/// Holds its stream back for `ns` nanoseconds of the GPU's global timer.
__global__ void delay_kernel(unsigned long long ns)
{
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
  {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
} // namespace

void out_of_step(const rank_env& env, report& out)
{
  // Sixteen calls back to back, a different rank held back 200 us before each: a rank that is
  // not held back finishes call j and reaches call j + 1 while the held one is still at call j.
  // Through a workspace, that is what its two banks of slots are for: each call must still get
  // its own shards.
  constexpr int calls = 16;
  const auto size     = [](int r) { return std::int64_t{1000} + r; };
  thrust::device_vector<std::int64_t> shard(size(env.rank));
  thrust::device_vector<std::int64_t> results(calls);
  const auto policy = env.nccl().on(env.stream);
  for (int j = 0; j < calls; ++j)
  {
    if (j % env.ranks == env.rank)
    {
      delay_kernel<<<1, 1, 0, env.stream>>>(200000);
      cuda_ok(cudaGetLastError(), "delay_kernel");
    }
    thrust::fill(thrust::cuda::par_nosync.on(env.stream), shard.begin(), shard.end(), std::int64_t{j + 1 + env.rank});
    rk::reduce_into(policy, shard.begin(), shard.end(), results.data() + j, std::int64_t{j}, rk::plus{});
  }
  expect_calls(env, out, results, [&](int j) {
    std::int64_t want = j;
    for (int r = 0; r < env.ranks; ++r)
    {
      want += size(r) * (j + 1 + r);
    }
    return want;
  });
}

void graph_capture(const rank_env& env, report& out)
{
  // Every rank captures the same call (thread-local mode: the other ranks of this process capture
  // at the same time) and replays it twice, the input rewritten between the replays.
  thrust::device_vector<std::int64_t> shard(5000 + env.rank);
  std::int64_t total = 0;
  for (int r = 0; r < env.ranks; ++r)
  {
    total += 5000 + r;
  }
  device_slot<segment> merged;
  device_slot<std::int64_t> sum;
  const auto segments = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_segment{});
  std::int64_t begin  = 0;
  for (int r = 0; r < env.rank; ++r)
  {
    begin += 5000 + r;
  }
  // Capturable with the shard offset found (on the GPU: nothing waits on the host) or given.
  const auto found = env.nccl().on(env.stream);
  const auto given = found.with_offset(begin);
  device_slot<segment> merged_found;
  cuda_ok(cudaStreamSynchronize(env.stream), "cudaStreamSynchronize");
  cuda_ok(cudaStreamBeginCapture(env.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  cudaGraph_t graph = nullptr;
  try
  {
    rk::reduce_into(found, shard.begin(), shard.end(), sum.get(), std::int64_t{-1}, rk::plus{});
    rk::reduce_into(given, segments + begin, segments + begin + shard.size(), merged.get(), segment{-7, 0},
                    segment_merge{});
    rk::reduce_into(found, segments + begin, segments + begin + shard.size(), merged_found.get(), segment{-7, 0},
                    segment_merge{});
  }
  catch (...)
  {
    cudaStreamEndCapture(env.stream, &graph);
    cudaGraphDestroy(graph);
    throw;
  }
  cuda_ok(cudaStreamEndCapture(env.stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  cuda_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int replay = 1; replay <= 2; ++replay)
  {
    thrust::fill(thrust::cuda::par_nosync.on(env.stream), shard.begin(), shard.end(), std::int64_t{replay});
    cuda_ok(cudaGraphLaunch(exec, env.stream), "cudaGraphLaunch");
    const std::int64_t got = sum.read(env.stream);
    out.expect(got == -1 + replay * total, "replay " + std::to_string(replay) + ": sum = " + std::to_string(got)
                                             + ", expected " + std::to_string(-1 + replay * total));
    const segment m = merged.read(env.stream);
    out.expect(m == segment{-7, total},
               mismatch("replay " + std::to_string(replay) + ": segment merge", m, segment{-7, total}));
    const segment f = merged_found.read(env.stream);
    out.expect(f == segment{-7, total},
               mismatch("replay " + std::to_string(replay) + ": segment merge, offset found", f, segment{-7, total}));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

void errors(const rank_env& env, report& out)
{
  const thrust::device_vector<std::int32_t> items(10, 1);
  // A forced NCCL failure: no communicator. Local to this rank, so no other rank waits for it.
  try
  {
    (void) rk::reduce(rk::nccl(nullptr).on(env.stream), items.begin(), items.end(), 0);
    out.expect(false, "rk::reduce with a null communicator did not throw");
  }
  catch (const rk::nccl_error& e)
  {
    out.expect(e.code() == ncclInvalidArgument, std::string("null communicator: code ") + ncclGetErrorString(e.code()));
    out.expect(std::string(e.what()).find("ncclCommCount") != std::string::npos,
               std::string("null communicator: what() = ") + e.what());
  }
  try
  {
    device_slot<std::int32_t> result;
    rk::reduce_into(rk::nccl(nullptr).on(env.stream), items.begin(), items.end(), result.get(), 0);
    out.expect(false, "rk::reduce_into with a null communicator did not throw");
  }
  catch (const rk::nccl_error&)
  {}
  // rk::nccl_error is an rk::error.
  bool caught = false;
  try
  {
    (void) rk::reduce(rk::nccl(nullptr), items.begin(), items.end(), 0);
  }
  catch (const rk::error&)
  {
    caught = true;
  }
  out.expect(caught, "rk::nccl_error was not caught as rk::error");
  // A workspace over no communicator: refused before any collective call.
  try
  {
    const rk::nccl_workspace workspace(nullptr);
    out.expect(false, "rk::nccl_workspace over a null communicator did not throw");
  }
  catch (const rk::nccl_error& e)
  {
    out.expect(e.code() == ncclInvalidArgument, std::string("null workspace: code ") + ncclGetErrorString(e.code()));
  }
  // The usual rk errors, thrown on every rank before anything is enqueued.
  try
  {
    (void) rk::reduce(env.nccl().on(env.stream), items.end(), items.begin(), 0);
    out.expect(false, "a reversed range did not throw");
  }
  catch (const rk::invalid_range&)
  {}
  // A negative shard offset, and one that puts the shard's end past 2^63 - 1 items.
  try
  {
    (void) env.nccl().with_offset(-1);
    out.expect(false, "with_offset(-1) did not throw");
  }
  catch (const rk::error& e)
  {
    out.expect(std::string(e.what()).find("negative") != std::string::npos,
               std::string("with_offset(-1) threw without naming the cause: ") + e.what());
  }
  try
  {
    (void) rk::reduce(env.nccl().on(env.stream).with_offset(INT64_MAX - 2), items.begin(), items.end(), 0);
    out.expect(false, "a shard offset past 2^63 - 1 items did not throw");
  }
  catch (const rk::error& e)
  {
    out.expect(std::string(e.what()).find("2^63") != std::string::npos,
               std::string("a shard offset past 2^63 - 1 items threw without naming the cause: ") + e.what());
  }
  // The value-returning call cannot be captured: it waits.
  cuda_ok(cudaStreamBeginCapture(env.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  bool refused = false;
  try
  {
    (void) rk::reduce(env.nccl().on(env.stream), items.begin(), items.end(), 0);
  }
  catch (const rk::error& e)
  {
    refused = std::string(e.what()).find("cannot be captured") != std::string::npos;
  }
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(env.stream, &graph);
  if (graph != nullptr)
  {
    cudaGraphDestroy(graph);
  }
  out.expect(refused, "rk::reduce with rk::nccl on a capturing stream was not refused");
  // Another GPU current than the communicator's.
  if (env.visible_gpus >= 2)
  {
    const int other = (env.device + 1) % env.visible_gpus;
    cuda_ok(cudaSetDevice(other), "cudaSetDevice");
    bool named = false;
    try
    {
      (void) rk::reduce(env.nccl(), items.begin(), items.end(), 0);
    }
    catch (const rk::error& e)
    {
      named = std::string(e.what()).find("cudaSetDevice(" + std::to_string(env.device) + ")") != std::string::npos;
    }
    cuda_ok(cudaSetDevice(env.device), "cudaSetDevice");
    out.expect(named, "a call with the wrong GPU current was not refused with the fix named");
  }
  // rk::explain names the local backend and the gather.
  const std::string e = rk::explain(env.nccl(), items.begin(), items.end(), 0, rk::plus{}).to_string();
  const char* step    = env.workspace != nullptr && env.workspace->symmetric() ? "symmetric memory" : "ncclAllGather";
  out.expect(e.find(step) != std::string::npos && e.find("nccl(device)") != std::string::npos,
             "rk::explain: " + e + " (expected to name " + step + ")");
}
} // namespace rk_test::nccl

// rk::nccl's suite: the properties of nccl_properties_*.cu on three setups.
//  - one rank: a communicator of one GPU (runs on any machine with a GPU);
//  - one process driving every visible GPU: ncclCommInitAll, one host thread per rank;
//  - two processes, one rank each: this process makes the NCCL unique id and starts a copy of
//    itself as rank 1 (GPU 1), passing the id (and the random seed) on its command line.
// The last two need two GPUs and are reported as skipped with fewer. NVLink multicast is off
// (NCCL_NVLS_ENABLE=0) before NCCL starts: it can put a shared host's GPUs out of service.

#include "../gpu/gpu_harness.cuh"
#include "../support/test_main.hpp"
#include "nccl_harness.cuh"

#include <doctest/doctest.h>

#include <nccl.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace
{
using rk_test::nccl::rank_env;
using rk_test::nccl::report;

const char* const helper_flag = "--rk-nccl-rank";

void check_nccl(ncclResult_t code, const char* what)
{
  REQUIRE_MESSAGE(code == ncclSuccess,
                  what << ": " << ncclGetErrorString(code) << " (" << ncclGetLastError(nullptr) << ")");
}

std::string to_hex(const ncclUniqueId& id)
{
  std::string hex;
  char byte[3];
  for (unsigned char c : id.internal)
  {
    std::snprintf(byte, sizeof(byte), "%02x", c);
    hex += byte;
  }
  return hex;
}

ncclUniqueId from_hex(const std::string& hex)
{
  ncclUniqueId id{};
  for (std::size_t i = 0; i < sizeof(id.internal) && 2 * i + 1 < hex.size(); ++i)
  {
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return id;
}

/// Runs every property as `rank` of `comm` on `device`, in the calling thread.
report run_rank(ncclComm_t comm, int rank, int ranks, int device)
{
  report out("rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " (GPU " + std::to_string(device) + ")");
  cudaSetDevice(device);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
  {
    out.expect(false, "cudaStreamCreateWithFlags failed");
    return out;
  }
  rank_env env{comm, rank, ranks, device, stream, rk_test::gpu_count()};
  rk_test::nccl::run_all_properties(env, out);
  // Again through a workspace (collective: every rank makes one here). Where NCCL has the device
  // API, the setups of two ranks or more (one host, GPUs with direct peer access) must get
  // symmetric memory: a workspace that fell back would test the ncclAllGather step twice. NCCL
  // gives a communicator of one rank none (no peers), so there the suite runs the workspace's
  // fallback.
  try
  {
    const rk::nccl_workspace workspace(comm);
    if (rank == 0)
    {
      std::printf("[rk] nccl: workspace over %d rank(s): %s%s\n", ranks,
                  workspace.symmetric() ? "symmetric memory" : "ncclAllGather step: ", workspace.reason().c_str());
    }
    out.property("the workspace");
    out.expect(workspace.symmetric() || ranks < 2 || !RK_NCCL_DEVICE_API,
               "the workspace has no symmetric memory: " + workspace.reason());
    env.workspace = &workspace;
    rk_test::nccl::run_all_properties(env, out, "workspace: ");
    cudaStreamSynchronize(stream);
  }
  catch (const std::exception& e)
  {
    out.expect(false, std::string("rk::nccl_workspace: ") + e.what());
  }
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  return out;
}

void check_report(const report& r)
{
  INFO(r.checks << " checks");
  CHECK(r.checks > 0);
  for (const std::string& failure : r.failures)
  {
    FAIL_CHECK(failure);
  }
  std::printf("[rk] nccl: %d checks, %zu failed\n", r.checks, r.failures.size());
}

/// Rank 1 of the two-process setup: `--rk-nccl-rank <rank> <ranks> <device> <id in hex>`.
int helper_main(int argc, char** argv)
{
  if (argc < 6 || std::strcmp(argv[1], helper_flag) != 0)
  {
    bool listing = false;
    for (int i = 1; i < argc; ++i)
    {
      listing = listing || std::strncmp(argv[i], "--list-test-cases", 17) == 0 || std::strncmp(argv[i], "-ltc", 4) == 0;
    }
    if (!listing && rk_test::gpu_available() && rk_test::gpu_count() < 2)
    {
      std::printf("[rk] nccl: one GPU visible: the cases that need two GPUs are skipped\n");
    }
    return -1;
  }
  const int rank = std::atoi(argv[2]), ranks = std::atoi(argv[3]), device = std::atoi(argv[4]);
  cudaSetDevice(device);
  ncclComm_t comm = nullptr;
  if (const ncclResult_t r = ncclCommInitRank(&comm, ranks, from_hex(argv[5]), rank); r != ncclSuccess)
  {
    std::fprintf(stderr, "[rk] nccl helper rank %d: ncclCommInitRank: %s\n", rank, ncclGetErrorString(r));
    return 2;
  }
  const report out = run_rank(comm, rank, ranks, device);
  ncclCommDestroy(comm);
  for (const std::string& failure : out.failures)
  {
    std::fprintf(stderr, "[rk] nccl helper FAILED: %s\n", failure.c_str());
  }
  std::printf("[rk] nccl helper rank %d: %d checks, %zu failed\n", rank, out.checks, out.failures.size());
  return out.failures.empty() && out.checks > 0 ? 0 : 1;
}

const bool registered = [] {
  // Before any NCCL call of this process or of the helper it starts (which inherits it).
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  rk_test::helper_main = &helper_main;
  return true;
}();

bool two_gpus()
{
  return rk_test::gpu_count() >= 2;
}
} // namespace

RK_GPU_TEST_CASE("rk::nccl, one rank: every property on a communicator of one GPU")
{
  int version = 0;
  ncclGetVersion(&version);
  std::printf("[rk] nccl: NCCL %d (library), built against %d.%d.%d\n", version, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
  ncclComm_t comm = nullptr;
  int device      = 0;
  check_nccl(ncclCommInitAll(&comm, 1, &device), "ncclCommInitAll");
  const report out = run_rank(comm, 0, 1, device);
  ncclCommDestroy(comm);
  check_report(out);
}

TEST_CASE("rk::nccl, one process driving every GPU (needs 2 GPUs): ncclCommInitAll, one thread per rank"
          * doctest::skip(!two_gpus()))
{
  const int gpus = rk_test::gpu_count();
  std::vector<ncclComm_t> comms(gpus);
  std::vector<int> devices(gpus);
  for (int d = 0; d < gpus; ++d)
  {
    devices[d] = d;
  }
  check_nccl(ncclCommInitAll(comms.data(), gpus, devices.data()), "ncclCommInitAll");
  std::vector<report> reports;
  for (int r = 0; r < gpus; ++r)
  {
    reports.emplace_back("rank " + std::to_string(r));
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < gpus; ++r)
  {
    threads.emplace_back([&, r] { reports[r] = run_rank(comms[r], r, gpus, devices[r]); });
  }
  for (auto& t : threads)
  {
    t.join();
  }
  for (ncclComm_t comm : comms)
  {
    ncclCommDestroy(comm);
  }
  for (const report& r : reports)
  {
    check_report(r);
  }
}

TEST_CASE("rk::nccl, two processes, one rank each (needs 2 GPUs): the unique id passed to the second process"
          * doctest::skip(!two_gpus()))
{
  ncclUniqueId id{};
  check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  const std::string hex = to_hex(id), seed = std::to_string(rk_test::run_seed());
  // Rank 1 draws the same random items: it gets this run's seed.
  setenv("RK_TEST_SEED", seed.c_str(), 1);
  std::string rank = "1", ranks = "2", device = "1";
  char* args[] = {const_cast<char*>("rk_test_nccl"),
                  const_cast<char*>(helper_flag),
                  rank.data(),
                  ranks.data(),
                  device.data(),
                  const_cast<char*>(hex.c_str()),
                  nullptr};
  pid_t helper = 0;
  REQUIRE(posix_spawn(&helper, "/proc/self/exe", nullptr, nullptr, args, environ) == 0);

  ncclComm_t comm = nullptr;
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  check_nccl(ncclCommInitRank(&comm, 2, id, 0), "ncclCommInitRank");
  const report out = run_rank(comm, 0, 2, 0);
  ncclCommDestroy(comm);
  cudaSetDevice(0);
  check_report(out);

  // The helper has done the same calls; give it a bounded time to finish.
  int status       = 0;
  const auto start = std::chrono::steady_clock::now();
  pid_t done       = 0;
  while ((done = waitpid(helper, &status, WNOHANG)) == 0
         && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
  {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (done == 0)
  {
    kill(helper, SIGKILL);
    waitpid(helper, &status, 0);
    FAIL("the rank-1 process did not finish within 120 s of rank 0");
  }
  CHECK_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0),
                "the rank-1 process failed (its messages are above), status " << status);
}

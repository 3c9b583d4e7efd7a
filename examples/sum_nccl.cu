// rk across GPUs with NCCL: every rank holds a shard of the data, and every rank gets the
// reduction of all shards in rank order, for any associative operator.
//
//   rk_example_nccl              one process drives every visible GPU: ncclCommInitAll, then one
//                                host thread per GPU (rank r = GPU r)
//   rk_example_nccl --processes  one process per GPU: this process makes the NCCL unique id and
//                                starts one copy of itself per rank, passing the id on the command
//                                line (with MPI or a job launcher, rank 0 broadcasts it instead)
//
// Each rank holds the integers [r * n, (r + 1) * n) and the affine maps x -> 3x + i for its i; the
// sum and the composition of the maps in rank order come out the same on every rank. Without a
// GPU it says so and exits.
#include <rk/nccl.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <nccl.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace
{
/// x -> a*x + b mod 2^32; composing maps is associative but not commutative.
struct affine
{
  std::uint32_t a, b;
};
struct compose
{
  __host__ __device__ affine operator()(affine f, affine g) const
  {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};
struct step_map
{
  __host__ __device__ affine operator()(std::int64_t i) const
  {
    return {3u, static_cast<std::uint32_t>(i)};
  }
};

constexpr std::int64_t items_per_rank = 1 << 20;

/// What one rank does: the same calls on every rank, in the same order.
int run_rank(ncclComm_t comm, int rank, int ranks)
{
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  try
  {
    const std::int64_t first = rank * items_per_rank;
    thrust::device_vector<std::int64_t> shard(thrust::counting_iterator<std::int64_t>(first),
                                              thrust::counting_iterator<std::int64_t>(first + items_per_rank));
    const auto policy      = rk::nccl(comm).on(stream);
    const std::int64_t sum = rk::reduce(policy, shard.begin(), shard.end(), std::int64_t{0}, rk::plus{});

    // A computed shard, and the stream-ordered form: the result lands in device memory.
    // Through a workspace (made once, on every rank), the gather is one kernel over NCCL
    // symmetric memory where the communicator has it (one host, GPUs with peer access).
    const auto maps = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(first), step_map{});
    thrust::device_vector<affine> out(1);
    {
      const rk::nccl_workspace workspace(comm);
      if (rank == 0)
      {
        std::printf("workspace: %s%s\n",
                    workspace.symmetric() ? "symmetric memory" : "ncclAllGather: ", workspace.reason().c_str());
      }
      rk::reduce_into(rk::nccl(workspace).on(stream), maps, maps + items_per_rank, out.data(), affine{1, 0}, compose{});
      cudaStreamSynchronize(stream); // reduce_into returned at once; the workspace outlives the call
    }
    const affine f = out[0];

    const std::int64_t total = ranks * items_per_rank;
    std::printf("rank %d of %d: sum of 0..%lld = %lld (expected %lld); composed maps: x -> %u x + %u\n", rank, ranks,
                static_cast<long long>(total - 1), static_cast<long long>(sum),
                static_cast<long long>(total * (total - 1) / 2), f.a, f.b);
    cudaStreamDestroy(stream);
    return sum == total * (total - 1) / 2 ? 0 : 1;
  }
  catch (const rk::error& e)
  {
    std::fprintf(stderr, "rank %d: rk error: %s\n", rank, e.what());
    return 1;
  }
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

/// One process, every GPU: one communicator per GPU, one host thread per communicator.
int one_process(int gpus)
{
  std::vector<ncclComm_t> comms(gpus);
  std::vector<int> devices(gpus);
  for (int d = 0; d < gpus; ++d)
  {
    devices[d] = d;
  }
  if (const ncclResult_t r = ncclCommInitAll(comms.data(), gpus, devices.data()); r != ncclSuccess)
  {
    std::fprintf(stderr, "ncclCommInitAll: %s\n", ncclGetErrorString(r));
    return 1;
  }
  std::vector<int> status(gpus, 1);
  std::vector<std::thread> threads;
  for (int r = 0; r < gpus; ++r)
  {
    threads.emplace_back([&, r] {
      cudaSetDevice(devices[r]); // rank r's GPU, current in rank r's thread
      status[r] = run_rank(comms[r], r, gpus);
    });
  }
  for (auto& t : threads)
  {
    t.join();
  }
  int failed = 0;
  for (int r = 0; r < gpus; ++r)
  {
    ncclCommDestroy(comms[r]);
    failed += status[r];
  }
  return failed == 0 ? 0 : 1;
}

/// One rank in this process: the id comes from whoever made it (here the parent process).
int one_rank(int rank, int ranks, const std::string& id_hex)
{
  cudaSetDevice(rank);
  ncclComm_t comm = nullptr;
  if (const ncclResult_t r = ncclCommInitRank(&comm, ranks, from_hex(id_hex), rank); r != ncclSuccess)
  {
    std::fprintf(stderr, "rank %d: ncclCommInitRank: %s\n", rank, ncclGetErrorString(r));
    return 1;
  }
  const int status = run_rank(comm, rank, ranks);
  ncclCommDestroy(comm);
  return status;
}

/// Starts one copy of this program per rank, each told its rank and the id, and waits for them.
int one_process_per_rank(int ranks)
{
  ncclUniqueId id{};
  if (ncclGetUniqueId(&id) != ncclSuccess)
  {
    std::fprintf(stderr, "ncclGetUniqueId failed\n");
    return 1;
  }
  const std::string hex = to_hex(id);
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r)
  {
    std::string rank = std::to_string(r), count = std::to_string(ranks);
    char* argv[] = {const_cast<char*>("rk_example_nccl"),
                    const_cast<char*>("--rank"),
                    rank.data(),
                    const_cast<char*>("--ranks"),
                    count.data(),
                    const_cast<char*>("--id"),
                    const_cast<char*>(hex.c_str()),
                    nullptr};
    pid_t pid    = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ) != 0)
    {
      std::perror("posix_spawn");
      return 1;
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children)
  {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed == 0 ? 0 : 1;
}
} // namespace

int main(int argc, char** argv)
{
  // NVLink multicast stays off: it can put a shared host's GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int rank = -1, ranks = 0;
  std::string id;
  bool processes = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg == "--processes")
    {
      processes = true;
    }
    else if (i + 1 < argc && arg == "--rank")
    {
      rank = std::atoi(argv[++i]);
    }
    else if (i + 1 < argc && arg == "--ranks")
    {
      ranks = std::atoi(argv[++i]);
    }
    else if (i + 1 < argc && arg == "--id")
    {
      id = argv[++i];
    }
  }
  if (rank >= 0)
  {
    return one_rank(rank, ranks, id);
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
  {
    std::printf("no CUDA GPU here: the NCCL example needs at least one\n");
    return 0;
  }
  return processes ? one_process_per_rank(gpus) : one_process(gpus);
}

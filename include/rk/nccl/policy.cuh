#pragma once
/// \file
/// rk::nccl(comm): the policy that reduces a range sharded over the ranks of an NCCL
/// communicator. It carries the communicator and the GPU policy each rank reduces its own shard
/// with (rk::device unless named); `.on(stream)` binds that policy to a stream.
///
/// `rk::nccl(workspace)` is the same policy over the workspace's communicator, whose gather runs
/// as one kernel over the workspace's symmetric memory (rk/nccl/workspace.cuh).
///
/// \code
/// rk::reduce(rk::nccl(comm).on(s), shard.begin(), shard.end(), 0.0f, rk::plus{});
/// rk::reduce_into(rk::nccl(comm, rk::two_pass).on(s), first, last, d_out, init, op);
/// rk::nccl_workspace ws(comm);
/// rk::reduce_into(rk::nccl(ws).on(s), first, last, d_out, init, op);
/// \endcode

#include <rk/cuda/policy.cuh>
#include <rk/error.hpp>
#include <rk/nccl/workspace.cuh>
#include <rk/policy.hpp>

#include <nccl.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace rk
{
/// One rank's view of a reduction over all the ranks of `comm`: `local` reduces this rank's
/// shard, an ncclAllGather shares the shard results, and each rank folds them in rank order. With
/// a local policy that keeps rk::reduce's tree (rk::device, rk::two_pass, rk::single_pass) the
/// shard results are rk::partial records, so the result has the bits of one-GPU rk::reduce over
/// the concatenation, whatever the number of ranks and the shard sizes.
template <gpu_backend LocalBackend, class LocalProvider = default_tuning>
struct nccl_policy : execution_policy<nccl_policy<LocalBackend, LocalProvider>>
{
  using local_policy_type = gpu_policy<LocalBackend, LocalProvider>;

  /// The communicator: one rank per GPU, created by the user (ncclCommInitAll, ncclCommInitRank).
  ncclComm_t comm = nullptr;
  /// The GPU policy that reduces this rank's shard; its stream is the stream of the whole call.
  local_policy_type local{};
  /// rk's symmetric memory on `comm`, if the policy was made from one (not owned).
  const nccl_workspace* workspace = nullptr;
  /// Where this rank's shard starts in the concatenation of the shards, if the caller knows it
  /// (-1: the ranks exchange their shard lengths on the GPU, and the GPU sums them).
  std::int64_t shard_offset = -1;

  /// A copy whose work (local reduction, gather, fold) runs on `s`.
  constexpr nccl_policy on(cudaStream_t s) const noexcept
  {
    nccl_policy copy = *this;
    copy.local       = local.on(s);
    return copy;
  }

  /// A copy that takes `offset` as this rank's shard offset (the shard lengths of the ranks before
  /// it, added up) instead of asking the other ranks: one step less (the exchange of the lengths,
  /// and the plan made on the GPU). Used by the reproducible local policies only. Every rank of a
  /// call passes its offset, or none does: the two make different exchanges. An offset that is not
  /// that sum stops the call's last kernel (a device-side trap, reported by the next CUDA call).
  constexpr nccl_policy with_offset(std::int64_t offset) const
  {
    if (offset < 0)
    {
      throw error("rk::nccl_policy::with_offset: the offset is negative (" + std::to_string(offset) + ")");
    }
    nccl_policy copy  = *this;
    copy.shard_offset = offset;
    return copy;
  }

  constexpr cudaStream_t stream() const noexcept
  {
    return local.stream;
  }
};

/// The NCCL policy over `comm`, each rank reducing its shard with rk::device.
inline nccl_policy<gpu_backend::automatic> nccl(ncclComm_t comm) noexcept
{
  nccl_policy<gpu_backend::automatic> p;
  p.comm = comm;
  return p;
}

/// The NCCL policy over `comm`, each rank reducing its shard with `local` (rk::two_pass,
/// rk::single_pass, a tuned policy...; its stream, if it has one, is kept).
template <gpu_backend Backend, class Provider>
nccl_policy<Backend, Provider> nccl(ncclComm_t comm, const gpu_policy<Backend, Provider>& local) noexcept
{
  nccl_policy<Backend, Provider> p;
  p.comm  = comm;
  p.local = local;
  return p;
}

/// The NCCL policy over `workspace.comm()`, each rank reducing its shard with rk::device and the
/// shard results gathered through the workspace's symmetric memory (where it has it). The
/// workspace must outlive the calls.
inline nccl_policy<gpu_backend::automatic> nccl(const nccl_workspace& workspace) noexcept
{
  nccl_policy<gpu_backend::automatic> p;
  p.comm      = workspace.comm();
  p.workspace = &workspace;
  return p;
}

/// The same, each rank reducing its shard with `local`.
template <gpu_backend Backend, class Provider>
nccl_policy<Backend, Provider> nccl(const nccl_workspace& workspace,
                                    const gpu_policy<Backend, Provider>& local) noexcept
{
  nccl_policy<Backend, Provider> p = nccl(workspace.comm(), local);
  p.workspace                      = &workspace;
  return p;
}

// A policy keeps a pointer to its workspace: a temporary one would be gone before the call.
void nccl(const nccl_workspace&&) = delete;
template <gpu_backend Backend, class Provider>
void nccl(const nccl_workspace&&, const gpu_policy<Backend, Provider>&) = delete;
} // namespace rk

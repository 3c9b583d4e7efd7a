#pragma once
/// \file
/// rk::nccl(comm): the policy that reduces a range sharded over the ranks of an NCCL
/// communicator. It carries the communicator and the GPU policy each rank reduces its own shard
/// with (rk::device unless named); `.on(stream)` binds that policy to a stream.
///
/// \code
/// rk::reduce(rk::nccl(comm).on(s), shard.begin(), shard.end(), 0.0f, rk::plus{});
/// rk::reduce_into(rk::nccl(comm, rk::two_pass).on(s), first, last, d_out, init, op);
/// \endcode

#include <rk/cuda/policy.cuh>
#include <rk/policy.hpp>

#include <nccl.h>

#include <cuda_runtime_api.h>

namespace rk
{
/// One rank's view of a reduction over all the ranks of `comm`: `local` reduces this rank's
/// shard, an ncclAllGather shares the shard results, and each rank folds them in rank order.
template <gpu_backend LocalBackend, class LocalProvider = default_tuning>
struct nccl_policy : execution_policy<nccl_policy<LocalBackend, LocalProvider>>
{
  using local_policy_type = gpu_policy<LocalBackend, LocalProvider>;

  /// The communicator: one rank per GPU, created by the user (ncclCommInitAll, ncclCommInitRank).
  ncclComm_t comm = nullptr;
  /// The GPU policy that reduces this rank's shard; its stream is the stream of the whole call.
  local_policy_type local{};

  /// A copy whose work (local reduction, gather, fold) runs on `s`.
  constexpr nccl_policy on(cudaStream_t s) const noexcept
  {
    nccl_policy copy = *this;
    copy.local       = local.on(s);
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
} // namespace rk

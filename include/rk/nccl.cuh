#pragma once
/// \file
/// rk across the GPUs of an NCCL communicator: rk::reduce and rk::reduce_into with rk::nccl(comm),
/// exact for every associative operator (rank order is kept; no identity is assumed), for any
/// trivially copyable T. Link rk::nccl (CMake), which brings rk::rk and NCCL.
///
/// \code
/// #include <rk/nccl.cuh>
/// // one rank per GPU, one host thread (or process) per rank, that rank's GPU current:
/// thrust::device_vector<float> shard = ...;          // this rank's part of the data
/// float s = rk::reduce(rk::nccl(comm).on(stream), shard.begin(), shard.end(), 0.0f, rk::plus{});
/// // every rank gets 0 + shard_0 + shard_1 + ... + shard_{R-1}, in rank order
/// \endcode
///
/// With an rk::nccl_workspace (made once per communicator, collectively), the gather-and-fold
/// step is one kernel over NCCL symmetric memory instead of an ncclAllGather between two kernels:
///
/// \code
/// rk::nccl_workspace ws(comm);
/// float s = rk::reduce(rk::nccl(ws).on(stream), shard.begin(), shard.end(), 0.0f, rk::plus{});
/// \endcode
///
/// Layers: rk/nccl/policy.cuh (the policy), rk/nccl/dispatch.cuh (the calls: local reduction
/// without init, then the gather-and-fold step), rk/nccl/kernels.cuh (the value records' kernels
/// and the symmetric step), rk/nccl/partial_kernels.cuh (the partials' kernels),
/// rk/nccl/workspace.cuh (rk::nccl_workspace), rk/nccl/error.cuh (rk::nccl_error). The local
/// reduction is rk's own (detail::reduce_range_into, rk/cuda/dispatch/flat_engine.cuh).

#include <rk/reduce.cuh>

#include <rk/nccl/dispatch.cuh>
#include <rk/nccl/error.cuh>
#include <rk/nccl/policy.cuh>
#include <rk/nccl/workspace.cuh>

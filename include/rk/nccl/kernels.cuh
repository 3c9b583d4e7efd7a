#pragma once
// The kernels of rk::nccl's gather-and-fold step. A rank's shard result travels as a record
// (value, valid); valid is false for an empty shard, so no identity is needed.
//  - The ncclAllGather step: a one-thread kernel stores the record, NCCL gathers the records, a
//    one-thread kernel folds them.
//  - The symmetric step (rk::nccl_workspace): one kernel stores the record into every peer's
//    memory and folds the records that arrive in its own. Its protocol (slots, call numbers, the
//    wait) is here; rk/nccl/partial_kernels.cuh sends rk::partial records through it too.

#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/store.hpp>
#include <rk/nccl/workspace.cuh>

#include <cuda/atomic>

namespace rk::detail
{
/// Writes this rank's record: the shard's result read from `value`, or an empty record if
/// `value` is null (an empty shard: the host knows, so nothing is read). Every byte of the record
/// is written, padding included, since NCCL sends them all.
template <class T>
__global__ void store_shard_record_kernel(const T* value, maybe<T>* record)
{
  maybe<T> r;
  __builtin_memset(static_cast<void*>(&r), 0, sizeof(r));
  if (value != nullptr)
  {
    r.slot.emplace(*value);
    r.valid = true;
  }
  __builtin_memcpy(static_cast<void*>(record), &r, sizeof(r));
}

/// out = init ⊕ (the valid records, in rank order). One thread: R records are a few hundred bytes
/// at most for any single host, and a few kB for thousands of ranks, a loop of R combines.
template <class T, class Op>
__global__ void fold_shard_records_kernel(const maybe<T>* records, int ranks, T init, T* out, Op op)
{
  T acc = init;
  for (int r = 0; r < ranks; ++r)
  {
    if (records[r].valid)
    {
      acc = op(acc, records[r].slot.value);
    }
  }
  ::new (static_cast<void*>(out)) T(acc);
}

#if RK_NCCL_DEVICE_API
using symmetric_call_word = cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>;

/// Every lane of the step's warp: waits until every rank's record of call `call` has arrived in
/// this rank's buffer `local` (its slot's call word, read with acquire: system scope, the stores
/// crossed NVLink).
__device__ inline void wait_for_records(unsigned char* local, unsigned long long call, int ranks)
{
  using layout = symmetric_records;
  for (int source = static_cast<int>(threadIdx.x); source < ranks; source += warp_threads)
  {
    auto* header = reinterpret_cast<layout::slot_header*>(local + layout::slot_offset(call, source, ranks));
    while (symmetric_call_word(header->call).load(cuda::memory_order_acquire) != call)
    {
    }
  }
  __syncwarp();
}

/// This rank's counter of symmetric steps, in its own buffer (only its own kernels touch it).
__device__ inline unsigned long long& symmetric_call_counter(unsigned char* local)
{
  return *reinterpret_cast<unsigned long long*>(local);
}

/// Lanes of warp 0 take the peers in turn: writes this rank's value record of call `call` (the
/// value at `value`, or an empty record if null) into its slot of every peer's buffer, each
/// published by a release store of the call number after its bytes (system scope: the stores
/// cross NVLink; read after an acquire load that sees the number, so no barrier is needed).
template <class T>
__device__ void publish_value_record(const ncclDevComm& comm, ncclDevResourceHandle_t buffer, unsigned long long call,
                                     const T* value)
{
  using layout = symmetric_records;
  uninitialized<T> mine;
  const bool valid = value != nullptr;
  if (valid)
  {
    mine.emplace(*value);
  }
  const std::size_t slot = layout::slot_offset(call, comm.rank, comm.nRanks);
  for (int peer = static_cast<int>(threadIdx.x); peer < comm.nRanks; peer += warp_threads)
  {
    auto* remote  = static_cast<unsigned char*>(ncclGetResourceBufferLsaPointer(comm, buffer, peer)) + slot;
    auto* header  = reinterpret_cast<layout::slot_header*>(remote);
    header->valid = valid ? 1u : 0u;
    if (valid)
    {
      __builtin_memcpy(remote + layout::value_offset, static_cast<const void*>(&mine.value), sizeof(T));
    }
    symmetric_call_word(header->call).store(call, cuda::memory_order_release);
  }
}

/// Rank `source`'s value record of call `call` in this rank's buffer (after wait_for_records):
/// whether it holds a value, put in `v`.
template <class T>
__device__ bool read_value_record(unsigned char* local, unsigned long long call, int source, int ranks,
                                  uninitialized<T>& v)
{
  using layout          = symmetric_records;
  unsigned char* record = local + layout::slot_offset(call, source, ranks);
  auto* header          = reinterpret_cast<layout::slot_header*>(record);
  // Its own acquire (the lane that waited for this slot may be another one).
  (void) symmetric_call_word(header->call).load(cuda::memory_order_acquire);
  if (header->valid == 0)
  {
    return false;
  }
  __builtin_memcpy(static_cast<void*>(&v.value), record + layout::value_offset, sizeof(T));
  return true;
}

/// The symmetric step, one warp: writes this rank's record (the shard's result at `value`, or
/// an empty one if null) into its slot of every peer's buffer, then waits until every peer's record of
/// this call has arrived in its own buffer, and folds them in rank order after `init` into `out`.
/// The call number is this rank's count of these kernels, kept in its own buffer, so the step stays
/// in step across CUDA graph replays as well.
template <class T, class Op>
__global__ void __launch_bounds__(warp_threads)
  symmetric_gather_fold_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, const T* value, T init, T* out, Op op)
{
  auto* local                   = static_cast<unsigned char*>(ncclGetResourceBufferLocalPointer(comm, buffer));
  const unsigned long long call = symmetric_call_counter(local) + 1;
  publish_value_record(comm, buffer, call, value);
  wait_for_records(local, call, comm.nRanks);
  if (threadIdx.x == 0)
  {
    T acc = init;
    for (int source = 0; source < comm.nRanks; ++source)
    {
      uninitialized<T> v;
      if (read_value_record(local, call, source, comm.nRanks, v))
      {
        acc = op(acc, v.value);
      }
    }
    ::new (static_cast<void*>(out)) T(acc);
    symmetric_call_counter(local) = call;
  }
}

#endif
} // namespace rk::detail

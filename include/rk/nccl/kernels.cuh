#pragma once
// The kernels of rk::nccl's gather-and-fold step. A rank's shard result travels as a record
// (value, valid); valid is false for an empty shard, so no identity is needed.
//  - The ncclAllGather step: a one-thread kernel stores the record, NCCL gathers the records, a
//    one-thread kernel folds them.
//  - The symmetric step (rk::nccl_workspace): one kernel stores the record into every peer's
//    memory and folds the records that arrive in its own.
// With the reproducible tree the records are the shards' rk::partial records instead, gathered
// either way and combined in rank order; where the caller did not give the shard's offset, the
// ranks first exchange their shard lengths the same way (values), and a block plans the shard's
// partial on the GPU from the offset they sum to.

#include <rk/cuda/agent/partial_plan.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/store.hpp>
#include <rk/nccl/workspace.cuh>
#include <rk/partial.hpp>

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

/// *out = rk::finish(rk::combine(the ranks' records in rank order), init): `whole` is rank 0's
/// record, extended in place, and record(r) gives rank r's where it lies. No record is copied: one
/// thread copying 800-byte records through local memory had made the symmetric step ~46 us, and
/// with whole-record copies in 8-byte words still 14 us (H100, two ranks). Records that do not join
/// (ranks that disagree on T, the operator or the item type) stop the kernel with a trap: a result
/// from them would be garbage, silently.
template <class T, class Record, class Op>
__device__ void finish_rank_partials(partial<T>& whole, int ranks, Record&& record, const T& init, T* out, Op& op)
{
  for (int r = 1; r < ranks; ++r)
  {
    const partial<T>& next = record(r);
    if (!joins(whole, next))
    {
      __trap();
    }
    append_piece(whole, next, op);
  }
  if (whole.status != partial<T>::valid || whole.offset != 0)
  {
    __trap();
  }
  store_every_byte<T>(out, whole.length == 0 ? init : finish_in_place(whole, init, op));
}

/// out = rk::finish(rk::combine(records in rank order), init): the ranks' partials, one per rank,
/// gathered into this call's scratch (rank 0's is extended in place).
template <class T, class Op>
__global__ void fold_shard_partials_kernel(partial<T>* records, int ranks, T init, T* out, Op op)
{
  finish_rank_partials(records[0], ranks, [&](int r) -> const partial<T>& { return records[r]; }, init, out, op);
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

/// The symmetric step for the shard lengths, then the plan: warp 0 exchanges this rank's length
/// (limits.length) with every rank as the value step does, the offset is the sum of the lengths of
/// the ranks before this one, and the block plans the shard's partial there
/// (plan_partial_in_block).
template <class Planner>
__global__ void __launch_bounds__(partial_plan_threads)
  symmetric_shard_plan_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, partial_plan_limits limits,
                              partial_device_plan* plan)
{
  allow_dependent_grid(); // the partial's kernel waits for this one's end before it reads the plan
  __shared__ offset_t offset;
  if (threadIdx.x < warp_threads)
  {
    auto* local                   = static_cast<unsigned char*>(ncclGetResourceBufferLocalPointer(comm, buffer));
    const unsigned long long call = symmetric_call_counter(local) + 1;
    publish_value_record(comm, buffer, call, &limits.length);
    wait_for_records(local, call, comm.nRanks);
    if (threadIdx.x == 0)
    {
      offset_t sum = 0;
      for (int source = 0; source < comm.rank; ++source)
      {
        uninitialized<offset_t> length;
        sum += read_value_record(local, call, source, comm.nRanks, length) ? length.value : 0;
      }
      offset                        = sum;
      symmetric_call_counter(local) = call;
    }
  }
  __syncthreads();
  plan_partial_in_block<Planner, partial_plan_threads>(offset, limits, plan);
}

/// The symmetric step for partials, one warp: copies this rank's record (`mine`, in device memory,
/// its used bytes: header, levels, head, tail and node_count nodes) into its slot of every peer's
/// buffer, lane p to peer p, and publishes it as the value step does; then waits for
/// every peer's record of this call and, in one thread, combines them in rank order and finishes
/// after `init` into `out`. The record is read after the partial's kernel, earlier on the stream.
template <class T, class Op>
__global__ void __launch_bounds__(warp_threads)
  symmetric_gather_partials_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, const partial<T>* mine, T init,
                                   T* out, Op op)
{
  wait_for_prior_grid(); // launched dependent on the partial's kernel, whose record it reads
  using layout = symmetric_records;
  static_assert(sizeof(partial<T>) <= layout::record_bytes && alignof(partial<T>) <= layout::record_align,
                "rk::nccl_workspace's slots hold an rk::partial<T> at its alignment (rk::nccl shares others with "
                "ncclAllGather)");
  const int ranks               = comm.nRanks;
  const int me                  = comm.rank;
  auto* local                   = static_cast<unsigned char*>(ncclGetResourceBufferLocalPointer(comm, buffer));
  const unsigned long long call = symmetric_call_counter(local) + 1;

  // Lane p copies the record's used bytes to peer p and publishes them with its own release store
  // (a system-wide fence after the warp's copies had cost microseconds).
  const auto* words     = reinterpret_cast<const uint4*>(mine); // scratch: 256-byte aligned and padded
  const std::size_t end = reinterpret_cast<const unsigned char*>(&mine->node_bytes[0])
                        - reinterpret_cast<const unsigned char*>(mine)
                        + static_cast<std::size_t>(mine->node_count) * sizeof(T);
  const std::size_t count = (end + 15) / 16;
  const std::size_t slot  = layout::slot_offset(call, me, ranks);
  for (int peer = static_cast<int>(threadIdx.x); peer < ranks; peer += warp_threads)
  {
    auto* remote = static_cast<unsigned char*>(ncclGetResourceBufferLsaPointer(comm, buffer, peer)) + slot;
    auto* record = reinterpret_cast<uint4*>(remote + layout::record_offset);
    for (std::size_t w = 0; w < count; ++w)
    {
      record[w] = words[w];
    }
    auto* header  = reinterpret_cast<layout::slot_header*>(remote);
    header->valid = 1u;
    symmetric_call_word(header->call).store(call, cuda::memory_order_release);
  }
  wait_for_records(local, call, ranks);
  if (threadIdx.x == 0)
  {
    // Rank 0's record is extended in place in this rank's buffer: its slot is not written again
    // before this rank's next call has told rank 0 that this one is done (the two banks).
    const auto record = [&](int source) -> partial<T>& {
      unsigned char* at = local + layout::slot_offset(call, source, ranks);
      (void) symmetric_call_word(reinterpret_cast<layout::slot_header*>(at)->call).load(cuda::memory_order_acquire);
      return *reinterpret_cast<partial<T>*>(at + layout::record_offset);
    };
    finish_rank_partials(record(0), ranks, record, init, out, op);
    symmetric_call_counter(local) = call;
  }
}
#endif
} // namespace rk::detail

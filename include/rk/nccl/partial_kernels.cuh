#pragma once
// The kernels of rk::nccl's exchange of partials (local policies with rk::reduce's tree): each
// rank's shard as an rk::partial record at its offset, gathered (ncclAllGather, or the symmetric
// step of rk/nccl/kernels.cuh) and combined in rank order. Where the caller did not give the
// shard's offset, the ranks exchange their shard lengths as values and a block plans the shard's
// partial on the GPU from the offset they sum to; through a workspace, a shard of up to
// nccl_guessed_offset_max_bytes is instead reduced in one kernel on a guessed offset, checked
// beside the reduction.

#include <rk/cuda/agent/partial_block.cuh>
#include <rk/cuda/agent/partial_plan.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/detail/store.hpp>
#include <rk/nccl/kernels.cuh>
#include <rk/partial.hpp>

#include <cuda/atomic>

namespace rk::detail
{
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

/// What rk::nccl's one-kernel call (symmetric_shard_partials_kernel) learns of its guess.
enum class offset_verdict : unsigned
{
  unknown = 0, ///< the lengths are still on their way
  right   = 1, ///< the guess is this rank's offset: the guess's record is the shard's
  wrong   = 2, ///< the plan at the offset found is in device memory: redo the shard there
};

/// The words of a lease's counters that symmetric_shard_partials_kernel synchronizes through,
/// after its two records' arrivals (zero before and after the kernel, as every protocol leaves
/// them).
struct shard_partials_counters
{
  unsigned tickets; ///< blocks take their roles in the order they start
  unsigned verdict; ///< an offset_verdict
};
inline constexpr std::size_t shard_partials_counter_words = sizeof(shard_partials_counters) / sizeof(unsigned);

/// Where symmetric_shard_partials_kernel writes: a record, its nodes' values and their arrivals
/// (partial<T>::max_nodes + 1 words, the last the grid's) for the guessed offset and for the offset
/// found, the plan at the offset found, and the counters.
template <class T>
struct shard_partials_scratch
{
  partial<T>* guessed;
  T* guessed_values;
  unsigned* guessed_arrivals;
  partial<T>* found;
  T* found_values;
  unsigned* found_arrivals;
  partial_device_plan* found_plan;
  shard_partials_counters* counters;
};

#if RK_NCCL_DEVICE_API
/// Warp 0's symmetric step for the shard lengths: exchanges this rank's `length` with every rank as
/// the value step does and returns, in lane 0, the sum of the lengths of the ranks before this one.
__device__ inline offset_t exchange_shard_offset(const ncclDevComm& comm, ncclDevResourceHandle_t buffer,
                                                 offset_t length)
{
  auto* local                   = static_cast<unsigned char*>(ncclGetResourceBufferLocalPointer(comm, buffer));
  const unsigned long long call = symmetric_call_counter(local) + 1;
  publish_value_record(comm, buffer, call, &length);
  wait_for_records(local, call, comm.nRanks);
  offset_t sum = 0;
  if (threadIdx.x == 0)
  {
    for (int source = 0; source < comm.rank; ++source)
    {
      uninitialized<offset_t> theirs;
      sum += read_value_record(local, call, source, comm.nRanks, theirs) ? theirs.value : 0;
    }
    symmetric_call_counter(local) = call;
  }
  return sum;
}

/// Every thread of a block: warp 0 exchanges this rank's `length` with every rank
/// (exchange_shard_offset), and every thread gets the offset the lengths before it sum to.
__device__ inline offset_t exchange_shard_offset_in_block(const ncclDevComm& comm, ncclDevResourceHandle_t buffer,
                                                          offset_t length)
{
  __shared__ offset_t offset;
  if (threadIdx.x < warp_threads)
  {
    const offset_t sum = exchange_shard_offset(comm, buffer, length);
    if (threadIdx.x == 0)
    {
      offset = sum;
    }
  }
  __syncthreads();
  return offset;
}

/// Every thread of a block of BlockThreads: the block exchanges this rank's length (limits.length)
/// with every rank, and plans the shard's partial at the offset they sum to (plan_partial_in_block).
template <class Planner, int BlockThreads>
__device__ void plan_at_exchanged_offset(const ncclDevComm& comm, ncclDevResourceHandle_t buffer,
                                         const partial_plan_limits& limits, partial_device_plan* plan)
{
  plan_partial_in_block<Planner, BlockThreads>(exchange_shard_offset_in_block(comm, buffer, limits.length), limits,
                                               plan);
}

/// The symmetric step for the shard lengths, then the plan (plan_at_exchanged_offset), where the
/// partial runs in a kernel of its own (records that the workspace's slots do not hold).
template <class Planner>
__global__ void __launch_bounds__(partial_plan_threads)
  symmetric_shard_plan_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, partial_plan_limits limits,
                              partial_device_plan* plan)
{
  allow_dependent_grid(); // the partial's kernel waits for this one's end before it reads the plan
  plan_at_exchanged_offset<Planner, partial_plan_threads>(comm, buffer, limits, plan);
}

/// Warp 0's symmetric step for partials: copies this rank's record (`mine`, in device memory, its
/// used bytes: header, levels, head, tail and node_count nodes) into its slot of every peer's
/// buffer, lane p to peer p, and publishes it as the value step does; then waits for every peer's
/// record of this call and, in one thread, combines them in rank order and finishes after `init`
/// into `out`. The record must be complete and visible to the warp.
template <class T, class Op>
__device__ void share_and_finish_partials(const ncclDevComm& comm, ncclDevResourceHandle_t buffer,
                                          const partial<T>* mine, const T& init, T* out, Op& op)
{
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

/// The symmetric step for partials, one warp, after the partial's kernel (launched dependent on it:
/// it waits for that kernel's end before it reads the record).
template <class T, class Op>
__global__ void __launch_bounds__(warp_threads)
  symmetric_gather_partials_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, const partial<T>* mine, T init,
                                   T* out, Op op)
{
  wait_for_prior_grid();
  share_and_finish_partials(comm, buffer, mine, init, out, op);
}

/// The first block of the one-kernel call: warp 0 exchanges the shard lengths, and where the
/// offset they sum to is not `guess`, the block plans the shard there (plan_partial_in_block) into
/// `plan`; then publishes the verdict.
template <class Planner, int BlockThreads>
__device__ void check_offset_guess(const ncclDevComm& comm, ncclDevResourceHandle_t buffer, offset_t guess,
                                   const partial_plan_limits& limits, partial_device_plan* plan, unsigned& verdict)
{
  const offset_t offset = exchange_shard_offset_in_block(comm, buffer, limits.length);
  const bool right      = offset == guess;
  if (!right)
  {
    plan_partial_in_block<Planner, BlockThreads>(offset, limits, plan);
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0)
  {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(verdict).store(
      static_cast<unsigned>(right ? offset_verdict::right : offset_verdict::wrong), cuda::memory_order_release);
  }
}

/// rk::nccl's whole call through symmetric memory where the caller did not give the offset, in one
/// kernel, on a guess: the host plans the shard at the offset it would have if every rank before
/// it had as many items as this one (the common case: even shards), and the blocks reduce it there
/// while the lengths are exchanged, instead of after (the exchange, a cross-GPU round trip, the
/// plan made after it and two kernel boundaries had cost ~4 us of a call of 18-19 us, 2x H200).
/// Blocks take their roles by a ticket, in the order they start. The first checks the guess
/// (check_offset_guess). Block t >= 1 takes block t - 1 of the guess's plan unless the guess is
/// already known wrong, then, where it is not known right yet, waits for the verdict (the first
/// block is running, so the wait ends), and where it is wrong takes block t - 1 of the plan at the
/// offset found, into a second record. The last block to finish shares the right record and
/// finishes the call (share_and_finish_partials); the guess's nodes that a wrong guess left
/// unfinished have their arrival words returned to zero there. No occupancy bound: at rk::reduce's
/// (64 registers) the two bodies and the steps around them spilled 304-352 bytes a thread, which
/// made a shard of 2^29 floats 16 % slower; at one block an SM (128 registers, no spills) the
/// kernel serves the shards up to nccl_guessed_offset_max_bytes, where the call's latency is most
/// of its time.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads)
  symmetric_shard_partials_kernel(ncclDevComm comm, ncclDevResourceHandle_t buffer, Input first,
                                  partial_ends guess_ends, partial_work guess_work, partial_plan_limits limits,
                                  shard_partials_scratch<T> scratch, T init, T* out, Op op)
{
  __shared__ unsigned ticket, verdict_seen;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> verdict(scratch.counters->verdict);
  constexpr auto unknown = static_cast<unsigned>(offset_verdict::unknown);
  constexpr auto wrong   = static_cast<unsigned>(offset_verdict::wrong);
  if (threadIdx.x == 0)
  {
    ticket = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(scratch.counters->tickets)
               .fetch_add(1u, cuda::memory_order_relaxed);
    verdict_seen = verdict.load(cuda::memory_order_acquire);
  }
  __syncthreads();
  if (ticket == 0)
  {
    check_offset_guess<VectorAgent, VectorAgent::block_threads>(comm, buffer, guess_ends.offset, limits,
                                                                scratch.found_plan, scratch.counters->verdict);
  }
  else
  {
    const offset_t b = ticket - 1;
    if (verdict_seen != wrong)
    {
      reduce_partial_block<VectorAgent, ElementAgent>(first, guess_ends, guess_work, b, scratch.guessed_values,
                                                      scratch.guessed_arrivals, scratch.guessed, op);
      __syncthreads(); // every thread has read verdict_seen
      if (threadIdx.x == 0)
      {
        unsigned v = verdict_seen;
        while (v == unknown)
        {
          v = verdict.load(cuda::memory_order_acquire);
        }
        verdict_seen = v;
      }
      __syncthreads();
    }
    if (verdict_seen == wrong)
    {
      reduce_planned_partial_block<VectorAgent, ElementAgent>(first, scratch.found_plan, b, scratch.found_values,
                                                              scratch.found_arrivals, scratch.found, op);
    }
  }
  // Thread 0 stored everything this block wrote into a record (a node's slot, or the ends), so
  // its arrival publishes it (part_arrives_last). The first block arrives after its verdict.
  __syncthreads();
  if (part_arrives_last(scratch.guessed_arrivals[partial<T>::max_nodes], gridDim.x))
  {
    if (threadIdx.x == 0)
    {
      verdict_seen = verdict.load(cuda::memory_order_acquire);
      if (verdict_seen == wrong)
      {
        for (int k = 0; k < guess_work.node_count; ++k)
        {
          scratch.guessed_arrivals[k] = 0;
        }
      }
      scratch.counters->tickets = 0;
      verdict.store(unknown, cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (threadIdx.x < warp_threads)
    {
      share_and_finish_partials(comm, buffer, verdict_seen == wrong ? scratch.found : scratch.guessed, init, out, op);
    }
  }
}
#endif
} // namespace rk::detail

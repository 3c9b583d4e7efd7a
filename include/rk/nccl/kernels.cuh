#pragma once
// The two one-thread kernels of rk::nccl's gather-and-fold step. A rank's shard result travels as
// a maybe<T> record (value, valid); valid is false for an empty shard, so no identity is needed.

#include <rk/cuda/warp_reduce.cuh>

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
} // namespace rk::detail

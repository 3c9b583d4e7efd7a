#pragma once
// The tree's pairwise combines over values pushed in order, as a binary counter held in
// registers: detail::pairwise_fold (rk/detail/tree.hpp) with every level's slot named at compile
// time. The column engine's threads and the fixed-size form's warps over long rows fold with it.

#include <rk/cuda/primitives/warp_reduce.cuh>

namespace rk::detail
{
/// The pairwise tree over up to 2^Levels - 1 values pushed in order: detail::pairwise_fold's
/// binary counter (rk/detail/tree.hpp), with every level's slot named at compile time so that all
/// of them stay in registers. pairwise_fold's 48 slots, indexed at run time, live in local memory,
/// and their traffic was most of the column engine's: with four outputs a thread the kernel moved
/// 4.5x the bytes of x (ncu on an H100, 8192 x 8192 column sums: 1.14 GB at 82 % of the DRAM's
/// bandwidth, 417 us).
template <class T, int Levels>
class register_fold
{
public:
  template <class Op>
  __device__ __forceinline__ void push(T v, Op& op)
  {
    push_node<0>(v, op);
  }

  /// Pushes the node over the next 2^Level values at once (the count so far a multiple of
  /// 2^Level): what pushing them one by one would leave, for a fraction of the counter's work.
  template <int Level, class Op>
  __device__ __forceinline__ void push_node(T v, Op& op)
  {
    static_assert(Level >= 0 && Level < Levels, "a level of the counter");
    bool carry = true;
#pragma unroll
    for (int level = Level; level < Levels; ++level)
    {
      if (carry)
      {
        if ((count_ >> level) & 1)
        {
          v = op(pending_[level].value, v);
        }
        else
        {
          pending_[level].emplace(v);
          carry = false;
        }
      }
    }
    count_ += 1u << Level;
  }

  /// count >= 1: the pending values combined from the right, as pairwise_fold::finish.
  template <class Op>
  __device__ __forceinline__ T finish(Op& op) const
  {
    uninitialized<T> acc;
    bool held = false;
#pragma unroll
    for (int level = 0; level < Levels; ++level)
    {
      if ((count_ >> level) & 1)
      {
        if (held)
        {
          acc.emplace(op(pending_[level].value, acc.value));
        }
        else
        {
          acc.emplace(pending_[level].value);
          held = true;
        }
      }
    }
    return acc.value;
  }

private:
  uninitialized<T> pending_[Levels];
  unsigned count_ = 0;
};
} // namespace rk::detail

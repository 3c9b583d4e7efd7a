#pragma once
// rk::reduce_partial's kernels: the record's cut lanes and shape, and its tree nodes, each the root
// of a standalone tree over the node's items (rk::reduce's block body on a part of it, as
// segmented reduce runs it on the parts of a long segment), a node that took several parts
// finished by the last of them, on a plan the host made (a kernel parameter) or one made on the
// GPU (in device memory); and rk::combine of two records in device memory.

#include <rk/cuda/agent/partial_block.cuh>
#include <rk/cuda/agent/partial_plan.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/partial.hpp>

namespace rk::detail
{
/// whole = rk::combine(whole, piece) in place, reading and writing only what changes: a combine
/// through whole copies (three records of 800 bytes for float, in one thread's local memory) had
/// cost ~8 us a chunk (H100, rk_perf_partial). Pieces that do not join give combine's record of
/// pieces that do not join, which rk::finish rejects.
template <class T, class Op>
__device__ void append_record(partial<T>& whole, const partial<T>& piece, Op& op)
{
  if (joins(whole, piece))
  {
    append_piece(whole, piece, op);
  }
  else
  {
    whole.status = partial<T>::not_adjacent;
  }
}

/// The whole record in one launch of work.blocks + 1 blocks. Block b < work.blocks takes part
/// b - first_block of the node whose blocks it falls in: a node held by one block is stored at
/// once; of several, the last part to arrive at the node's word of `arrivals` finishes it (as
/// single_pass_kernel finishes rk::reduce's split). The extra last block writes the ends. One
/// launch instead of three: a piece of up to 2^20 items had cost ~9 us more than reduce_into
/// in three (H100, rk_perf_partial). rk::reduce's occupancy bound: without it the kernel took 120
/// registers, two blocks an SM, and a piece of 2^28 floats 1.06-1.10x reduce_into (1.00-1.04x
/// with it, H100). Where `append_to` is not null (rk::accumulator's record so far), the last block
/// of the grid to finish, counted at the word after the nodes', appends the record to it: a
/// combine kernel of its own had cost 1.6 us a chunk more (16 chunks of 2^24 floats, H100). It
/// may be launched dependent on the kernel ahead of it, so it waits for that one's end first.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads, VectorAgent::min_blocks_per_sm)
  partial_kernel(Input first, partial_ends ends, partial_work work, T* values, unsigned* arrivals, partial<T>* out,
                 partial<T>* append_to, Op op)
{
  wait_for_prior_grid();
  allow_dependent_grid();
  reduce_partial_block<VectorAgent, ElementAgent>(first, ends, work, blockIdx.x, values, arrivals, out, op);
  if (append_to == nullptr)
  {
    return;
  }
  // Thread 0 stored everything this block wrote into the record (its node slot, or the ends), so
  // its release publishes it; the barrier keeps part_arrives_last's answer to the node's arrival
  // from being overwritten before every warp has read it.
  __syncthreads();
  if (part_arrives_last(arrivals[partial<T>::max_nodes], gridDim.x) && threadIdx.x == 0)
  {
    append_record(*append_to, *out, op);
  }
}

/// partial_kernel on a plan made on the GPU (plan_partial_in_block, in the kernel ahead of it on
/// the stream: launched dependent on it, this one starts while it runs and waits for its end before
/// reading the plan), on a grid of the plan's limits: blocks past the plan's leave at once.
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__global__ void __launch_bounds__(VectorAgent::block_threads, VectorAgent::min_blocks_per_sm)
  planned_partial_kernel(Input first, const partial_device_plan* plan, T* values, unsigned* arrivals, partial<T>* out,
                         Op op)
{
  wait_for_prior_grid();
  allow_dependent_grid();
  reduce_planned_partial_block<VectorAgent, ElementAgent>(first, plan, blockIdx.x, values, arrivals, out, op);
}

/// Plans a piece of limits.length items on the GPU (plan_partial_in_block) at the offset that is
/// the sum of the `count` lengths at `lengths` (rk::nccl: the shard lengths of the ranks before
/// this one, gathered).
template <class Planner>
__global__ void __launch_bounds__(partial_plan_threads)
  summed_offset_plan_kernel(const offset_t* lengths, int count, partial_plan_limits limits, partial_device_plan* plan)
{
  allow_dependent_grid(); // the partial's kernel waits for this one's end before it reads the plan
  __shared__ offset_t offset;
  if (threadIdx.x == 0)
  {
    offset_t sum = 0;
    for (int k = 0; k < count; ++k)
    {
      sum += lengths[k];
    }
    offset = sum;
  }
  __syncthreads();
  plan_partial_in_block<Planner, partial_plan_threads>(offset, limits, plan);
}

/// *r = rk::combine(*a, *b, op) on the device (r may be a or b; where r is a, in place).
template <class T, class Op>
__global__ void combine_partials_kernel(const partial<T>* a, const partial<T>* b, partial<T>* r, Op op)
{
  if (r == a)
  {
    append_record(*r, *b, op);
    return;
  }
  const partial<T> result = combine(*a, *b, op);
  *r                      = result;
}
} // namespace rk::detail

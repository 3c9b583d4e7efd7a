#pragma once
// A part of a long segment through rk::reduce's block bodies: the reproducible tree's
// (tree_reduce_part), or for rk::atomic the grid-ordered one, reading the segment as 16-byte
// vectors or element by element as its start allows; and how the backends put a segment's parts
// together. The long list's kernel and the fixed-size form's long rows run it.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/agent/tile_tree_finish.cuh>
#include <rk/cuda/primitives/arrival.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/detail/segments.hpp>

#include <type_traits>

namespace rk::detail
{
/// How the parts of a long segment are put together: the backends' epilogues.
enum class part_join
{
  last_block,    ///< single_pass: the last block to finish a part finishes the segment's tree
  finish_kernel, ///< two_pass: a second kernel does
  atomic         ///< atomic: every part combines its total into the seeded output
};

/// The block body for a vectorizable input's ranges that do not start on the 16-byte grid: the
/// same input read element by element (no such ranges for other inputs), or with `ShiftedWords`
/// as shifted vectors where the items allow (reduce_agent): for kernels that hold this body alone.
template <bool Vectorized, class Provider, class Input, class T, bool ShiftedWords = false>
struct element_agent_of
{
  using type = reduce_agent<Provider, Input, T>;
};
template <class Provider, class Input, class T, bool ShiftedWords>
struct element_agent_of<true, Provider, Input, T, ShiftedWords>
{
  using type = reduce_agent<Provider, element_input_t<Input>, T, ShiftedWords>;
};

/// In place of an ElementAgent: the launcher knows on the host how every segment the kernel reads
/// starts (a fixed-size call's rows), and gave the kernel the one agent that reads them all, so
/// the kernel holds one block body. Two bodies in one kernel share its register budget, and the
/// vector body's loads spilled: 64 rows of 2^20 doubles took 234 us, against 132 with one body
/// and rk::reduce's 130 over the same items (H200).
struct one_agent
{};

/// Calls body(agent, start) with the block body that reads the listed segment starting at
/// first + segment_first: VectorAgent's 16-byte vectors where the segment's first item lies on the
/// 16-byte grid, ElementAgent's element loads of the same input otherwise (with_aligned_reads);
/// VectorAgent's for every segment where ElementAgent is one_agent.
template <class VectorAgent, class ElementAgent, class Input, class Body>
__device__ __forceinline__ auto with_segment_agent(Input first, offset_t segment_first, Body&& body)
{
  if constexpr (std::is_same_v<ElementAgent, one_agent>)
  {
    return body(VectorAgent{}, first + segment_first);
  }
  else
  {
    return with_aligned_reads(first + segment_first, [&](auto start) {
      using agent = std::conditional_t<std::is_same_v<decltype(start), Input>, VectorAgent, ElementAgent>;
      return body(agent{}, start);
    });
  }
}

/// One part of a listed segment through rk::reduce's block body (the reproducible tree).
template <class VectorAgent, class ElementAgent, class Input, class T, class Op>
__device__ maybe<T> reduce_segment_part(Input first, offset_t segment_first, const tree_plan& plan, offset_t part,
                                        const tree_outputs<T>& out, Op& op)
{
  return with_segment_agent<VectorAgent, ElementAgent>(first, segment_first, [&](auto agent, auto start) {
    return decltype(agent)::reduce_part(start, plan, part, out, op);
  });
}

/// Part `part` of segment `s`'s tree (the items from `segment_first` as `plan` cuts them) and the
/// backend's epilogue: a segment of one node is stored by its one part; of more, under
/// part_join::last_block, by the last of its parts to arrive at `*arrivals` (which it returns
/// to zero), and under part_join::finish_kernel by a kernel after this one.
template <part_join Join, class VectorAgent, class ElementAgent, class Input, class T, class Out, class Init, class Op>
__device__ __forceinline__ void reduce_tree_part(Input first, offset_t segment_first, const tree_plan& plan,
                                                 offset_t part, const tree_outputs<T>& outputs, unsigned* arrivals,
                                                 Out& out, offset_t s, const Init& init, Op& op)
{
  static_assert(Join != part_join::atomic, "rk::atomic's parts run reduce_segment_range");
  const tile_split& split = plan.split;
  const maybe<T> root = reduce_segment_part<VectorAgent, ElementAgent>(first, segment_first, plan, part, outputs, op);
  if (split.nodes() == 1)
  {
    if (threadIdx.x == 0)
    {
      out[s] = apply_init(init, root.slot.value, op);
    }
  }
  else if constexpr (Join == part_join::last_block)
  {
    // As single_pass_kernel: the last part to arrive finishes the segment's tree.
    if (part_arrives_last(*arrivals, static_cast<unsigned>(split.parts)))
    {
      const T all = finish_split<VectorAgent::block_threads, T>(split, outputs, op);
      if (threadIdx.x == 0)
      {
        out[s] = apply_init(init, all, op);
      }
    }
  }
}

/// rk::atomic: part `part` of a listed segment's `parts` through the grid-ordered block body. The
/// plan counts parts in tiles and the body in chunks: a part past the body's blocks reads nothing
/// and yields nothing. Result valid in thread 0.
template <class VectorAgent, class ElementAgent, class T, class Input, class Op>
__device__ maybe<T> reduce_segment_range(Input first, offset_t segment_first, offset_t n, offset_t parts, offset_t part,
                                         Op& op)
{
  return with_segment_agent<VectorAgent, ElementAgent>(first, segment_first, [&](auto agent, auto start) {
    using agent_type          = decltype(agent);
    constexpr int chunk_items = agent_type::chunk_items;
    const offset_t chunks     = n / chunk_items;
    const offset_t blocks     = parts < chunks ? parts : chunks > 0 ? chunks : 1;
    maybe<T> total;
    if (part < blocks)
    {
      total.set(
        agent_type::reduce_block(start, range_plan{n, chunks, static_cast<int>(blocks)}, static_cast<int>(part), op));
    }
    return total;
  });
}
} // namespace rk::detail

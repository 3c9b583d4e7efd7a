#pragma once
// A part of a listed segment through rk::reduce's block bodies: the reproducible tree's
// (tree_reduce_part), or for rk::atomic the grid-ordered one, reading the segment as 16-byte
// vectors or element by element as its start allows.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/primitives/load.cuh>

#include <type_traits>

namespace rk::detail
{
/// The block body for a vectorizable input's ranges that do not start on the 16-byte grid: the
/// same input read element by element (no such ranges for other inputs).
template <bool Vectorized, class Provider, class Input, class T>
struct element_agent_of
{
  using type = reduce_agent<Provider, Input, T>;
};
template <class Provider, class Input, class T>
struct element_agent_of<true, Provider, Input, T>
{
  using type = reduce_agent<Provider, element_input_t<Input>, T>;
};

/// Calls body(agent, start) with the block body that reads the listed segment starting at
/// first + segment_first: VectorAgent's 16-byte vectors where the segment's first item lies on the
/// 16-byte grid, ElementAgent's element loads of the same input otherwise (with_aligned_reads).
template <class VectorAgent, class ElementAgent, class Input, class Body>
__device__ __forceinline__ auto with_segment_agent(Input first, offset_t segment_first, Body&& body)
{
  return with_aligned_reads(first + segment_first, [&](auto start) {
    using agent = std::conditional_t<std::is_same_v<decltype(start), Input>, VectorAgent, ElementAgent>;
    return body(agent{}, start);
  });
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

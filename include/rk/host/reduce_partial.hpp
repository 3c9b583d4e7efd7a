#pragma once
// rk::reduce_partial for the host policies: the piece's cut lanes on the calling thread, each of
// its tree nodes with the reproducible tree (rk::host's threads, or the calling thread for rk::seq).

#include <rk/detail/tree.hpp>
#include <rk/host/reduce_parallel.hpp>
#include <rk/partial.hpp>
#include <rk/policy.hpp>

#include <utility>

namespace rk
{
namespace detail
{
/// Fills p (from partial_shape) over the piece's items from `first`; node_root(begin, count)
/// gives the tree's root over `count` items from item `begin` of the piece.
template <class T, class RandomIt, class NodeRoot, class BinaryOp>
void fill_partial_on_host(partial<T>& p, RandomIt first, NodeRoot&& node_root, BinaryOp& op)
{
  const piece_lanes lanes{p.offset, p.length, p.lane_items};
  for (int k = 0; k < p.head_count; ++k)
  {
    p.set_head(k, static_cast<T>(first[k]));
  }
  const piece_nodes nodes(lanes.first_full_lane(), lanes.end_full_lane());
  for (int k = 0; k < nodes.count; ++k)
  {
    const piece_node node = nodes[k];
    p.set_node(k, node_root(node.first_lane * lanes.lane_items - p.offset,
                            (offset_t{1} << node.level) * lanes.lane_items));
  }
  if (p.has_tail)
  {
    const offset_t begin = lanes.tail_begin() - p.offset;
    T lane(static_cast<T>(first[begin]));
    for (offset_t i = begin + 1; i < p.length; ++i)
    {
      lane = op(std::move(lane), static_cast<T>(first[i]));
    }
    p.set_tail(lane);
  }
}
} // namespace detail

template <class T, class InputIt, class BinaryOp>
partial<T> reduce_partial_dispatch(const seq_policy&, InputIt first, InputIt last, detail::offset_t offset, BinaryOp op)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::reduce_partial computes rk::reduce's tree, which needs random-access iterators");
  partial<T> p = detail::partial_shape<T, InputIt>(offset, last - first);
  detail::fill_partial_on_host(
    p, first,
    [&](detail::offset_t begin, detail::offset_t count) { return detail::host_tree_root<T>(first + begin, count, op); },
    op);
  return p;
}

template <class T, class InputIt, class BinaryOp>
partial<T> reduce_partial_dispatch(const host_policy& policy, InputIt first, InputIt last, detail::offset_t offset,
                                   BinaryOp op)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::reduce_partial computes rk::reduce's tree, which needs random-access iterators");
  partial<T> p = detail::partial_shape<T, InputIt>(offset, last - first);
  detail::fill_partial_on_host(
    p, first,
    [&](detail::offset_t begin, detail::offset_t count) {
      return detail::reduce_parallel_root<T>(policy, first + begin, count, op);
    },
    op);
  return p;
}
} // namespace rk

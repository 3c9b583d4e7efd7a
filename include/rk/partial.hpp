#pragma once
/// \file
/// Partial results that combine exactly: rk::partial, rk::combine, rk::finish and
/// rk::reduce_partial. The reduction of a piece of a longer sequence, standing at a known
/// position, kept as the nodes of rk::reduce's tree that lie inside it, so that adjacent pieces
/// combine into exactly the nodes of the whole, and the whole finishes with rk::reduce's bits
/// however it was cut, on whichever policy each piece was reduced, in whatever grouping the pieces
/// were combined.
///
/// \code
/// // Two halves of v, reduced apart (another GPU, another day), give rk::reduce's bits together.
/// auto a = rk::reduce_partial(rk::device, v.begin(), v.begin() + m, 0, rk::plus{});
/// auto b = rk::reduce_partial(rk::host, h.begin() + m, h.end(), m, rk::plus{});
/// float s = rk::finish(rk::combine(a, b, rk::plus{}), 0.0f, rk::plus{});
/// // s == rk::reduce(rk::device, v.begin(), v.end(), 0.0f, rk::plus{}), bit for bit
/// \endcode
///
/// Why it works (docs/design.md, "Partials"): the tree of rk/detail/tree.hpp is a dyadic tree over
/// lanes of tile_lane_items items counted from the first item, whose last nodes lose their
/// missing right children. A node that lies wholly inside a piece has the same value whatever
/// else the sequence holds, and a piece is the short list of its largest such nodes, plus its cut
/// lanes: raw items where it starts inside a lane (the lane's fold begins in the piece before),
/// and the fold so far where it ends inside one. Two adjacent lists merge like a binary counter.

#include <rk/detail/config.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/pieces.hpp>
#include <rk/detail/range.hpp>
#include <rk/detail/tree.hpp>
#include <rk/error.hpp>
#include <rk/flat_reduce.hpp>
#include <rk/policy.hpp>

#include <cuda/std/type_traits>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace rk
{
/// The reduction of the items [offset, offset + length) of a longer sequence: rk::reduce's tree
/// nodes that lie inside the piece, and its cut lanes. Trivially copyable, with a size fixed at
/// compile time (`rk::partial<T>::max_values` = 158 values of T, 162 bytes of header and node levels, and
/// the padding alignof(T) asks for: 800 bytes for float, 1432 for double), so
/// it can be kept in device memory, sent with NCCL or MPI, written to a file and combined later
/// elsewhere. Build one with rk::reduce_partial; read it with rk::combine and rk::finish.
template <class T>
struct partial
{
  static_assert(std::is_trivially_copyable_v<T>,
                "rk::partial<T> is copied as bytes (to and from the GPU, over NCCL): T must be trivially copyable. "
                "Reduce a trivially copyable summary (a struct of the fields you need) instead");

  /// A lane holds at most 32 items (1-byte items), so a piece that starts inside one keeps at most 31.
  static constexpr int max_head = detail::tile_lane_bytes - 1;
  /// The largest nodes inside a run of at most 2^63 lanes: at most two per level.
  static constexpr int max_nodes  = 126;
  static constexpr int max_values = max_head + 1 + max_nodes;

  enum : std::int32_t
  {
    valid = 0,
    /// rk::combine on the device was given pieces that are not adjacent, or of different trees;
    /// rk::finish rejects the record.
    not_adjacent = 1
  };

  std::int64_t offset;                ///< where the piece starts in the whole sequence, in items
  std::int64_t length;                ///< its items
  std::int32_t lane_items;            ///< items per lane of the tree (32 bytes' worth of the input's items)
  std::int32_t status;                ///< valid, or not_adjacent
  std::int32_t head_count;            ///< raw items at the front: the piece starts inside a lane
  std::int32_t has_tail;              ///< the piece ends inside a lane that starts in it: `tail` is its fold so far
  std::int32_t node_count;            ///< complete tree nodes, left to right
  std::uint8_t node_level[max_nodes]; ///< node k covers 2^node_level[k] lanes
  alignas(T) unsigned char head_bytes[max_head * sizeof(T)];
  alignas(T) unsigned char tail_bytes[sizeof(T)];
  alignas(T) unsigned char node_bytes[max_nodes * sizeof(T)];

  RK_HOST_DEVICE T head(int k) const
  {
    return load(head_bytes + k * sizeof(T));
  }
  RK_HOST_DEVICE T tail() const
  {
    return load(tail_bytes);
  }
  RK_HOST_DEVICE T node(int k) const
  {
    return load(node_bytes + k * sizeof(T));
  }
  RK_HOST_DEVICE void set_head(int k, const T& v)
  {
    std::memcpy(head_bytes + k * sizeof(T), &v, sizeof(T));
  }
  RK_HOST_DEVICE void set_tail(const T& v)
  {
    std::memcpy(tail_bytes, &v, sizeof(T));
  }
  RK_HOST_DEVICE void set_node(int k, const T& v)
  {
    std::memcpy(node_bytes + k * sizeof(T), &v, sizeof(T));
  }
  /// Where node k's value lives (device code fills it in place).
  RK_HOST_DEVICE T* node_slot(int k)
  {
    return reinterpret_cast<T*>(node_bytes + k * sizeof(T));
  }

private:
  RK_HOST_DEVICE static T load(const unsigned char* bytes)
  {
    // T may have no default constructor: build it in raw storage.
    union holder
    {
      unsigned char raw[sizeof(T)];
      T value;
      RK_HOST_DEVICE holder() {}
    } h;
    std::memcpy(h.raw, bytes, sizeof(T));
    return h.value;
  }
};

namespace detail
{
/// Pushes node `v` of `level` after r's nodes (which end at lane `end`) and merges it with its
/// left sibling while it has one: the tree's node combine, op(left, right).
template <class T, class Op>
RK_HOST_DEVICE void push_node(partial<T>& r, std::uint64_t& end, T v, int level, Op& op)
{
  end += std::uint64_t{1} << level;
  int k = r.node_count;
  while (k > 0 && r.node_level[k - 1] == level)
  {
    const std::uint64_t left_first = end - (std::uint64_t{2} << level);
    if (level >= 62 || (left_first & ((std::uint64_t{2} << level) - 1)) != 0)
    {
      break; // the node before is not this one's left sibling
    }
    v = op(r.node(k - 1), static_cast<T&&>(v));
    --k;
    ++level;
  }
  r.node_level[k] = static_cast<std::uint8_t>(level);
  r.set_node(k, v);
  r.node_count = k + 1;
}

template <class T>
RK_HOST_DEVICE std::uint64_t nodes_end(const partial<T>& r)
{
  std::uint64_t end = static_cast<std::uint64_t>(piece_lanes{r.offset, r.length, r.lane_items}.first_full_lane());
  for (int k = 0; k < r.node_count; ++k)
  {
    end += std::uint64_t{1} << r.node_level[k];
  }
  return end;
}

/// Whether b can follow a: both valid records of one tree (the same lane width), b starting
/// where a ends.
template <class T>
RK_HOST_DEVICE bool joins(const partial<T>& a, const partial<T>& b)
{
  return a.status == partial<T>::valid && b.status == partial<T>::valid && a.lane_items == b.lane_items
      && a.lane_items > 0 && a.offset + a.length == b.offset;
}

/// r = r then b, in place, where joins(r, b): reads and writes only what changes (the cut lane at
/// the seam and the nodes it and b's nodes merge with), so a record in device memory is extended
/// without a copy of it.
template <class T, class Op>
RK_HOST_DEVICE void append_piece(partial<T>& r, const partial<T>& b, Op& op)
{
  if (b.length == 0)
  {
    return;
  }
  if (r.length == 0)
  {
    r = b;
    return;
  }
  const offset_t lanes = r.lane_items;
  const offset_t m     = b.offset;
  std::uint64_t end    = nodes_end(r);
  r.length += b.length;
  if (m % lanes != 0)
  {
    if (r.has_tail)
    {
      // The lane cut at m: its fold so far continues over b's raw items; complete, it is a node.
      T lane = r.tail();
      for (int k = 0; k < b.head_count; ++k)
      {
        lane = op(static_cast<T&&>(lane), b.head(k));
      }
      r.has_tail = 0;
      if ((m + b.head_count) % lanes == 0)
      {
        push_node(r, end, static_cast<T&&>(lane), 0, op);
      }
      else
      {
        r.has_tail = 1;
        r.set_tail(lane);
      }
    }
    else
    {
      // r lies inside the lane cut at m, after its start: still raw items.
      for (int k = 0; k < b.head_count; ++k)
      {
        r.set_head(r.head_count + k, b.head(k));
      }
      r.head_count += b.head_count;
    }
  }
  for (int b_node = 0; b_node < b.node_count; ++b_node)
  {
    push_node(r, end, b.node(b_node), b.node_level[b_node], op);
  }
  if (b.has_tail)
  {
    r.has_tail = 1;
    r.set_tail(b.tail());
  }
}

/// r = a then b; false (r untouched) if b does not start where a ends or the trees differ.
template <class T, class Op>
RK_HOST_DEVICE bool combine_pieces(partial<T>& r, const partial<T>& a, const partial<T>& b, Op& op)
{
  if (!joins(a, b))
  {
    return false;
  }
  r = a;
  append_piece(r, b, op);
  return true;
}

[[noreturn]] inline void throw_not_adjacent(std::int64_t a_offset, std::int64_t a_length, std::int64_t a_lanes,
                                            std::int64_t b_offset, std::int64_t b_lanes, bool invalid)
{
  if (invalid)
  {
    throw error("rk::combine: a piece is the record of a failed device combine (pieces that were not adjacent)");
  }
  if (a_lanes != b_lanes)
  {
    throw error("rk::combine: the pieces come from different trees (lanes of " + std::to_string(a_lanes) + " and "
                + std::to_string(b_lanes) + " items: their items differ in size)");
  }
  throw error("rk::combine: the pieces are not adjacent: the first covers [" + std::to_string(a_offset) + ", "
              + std::to_string(a_offset + a_length) + ") and the second starts at " + std::to_string(b_offset));
}
} // namespace detail

/// The pieces a and b together, where b starts where a ends: `combine` is associative, so pieces
/// may be combined in any grouping, and the result's nodes are exactly those of the pieces' union.
/// On the host, pieces that are not adjacent (or of different trees: items of other sizes) throw
/// rk::error; on the device they give a record that rk::finish rejects.
template <class T, class BinaryOp>
RK_HOST_DEVICE partial<T> combine(const partial<T>& a, const partial<T>& b, BinaryOp op)
{
  partial<T> r;
  if (!detail::combine_pieces(r, a, b, op))
  {
#if defined(__CUDA_ARCH__)
    r        = a;
    r.status = partial<T>::not_adjacent;
#else
    detail::throw_not_adjacent(a.offset, a.length, a.lane_items, b.offset, b.lane_items,
                               a.status != partial<T>::valid || b.status != partial<T>::valid);
#endif
  }
  return r;
}

namespace detail
{
/// op(init, root) of a valid record that starts at 0 and holds at least one item: its last lane
/// (short, where the sequence ends inside it) joins the nodes like any lane, and the pending nodes
/// combine from the right, the tree's rule at its right edge. The record's nodes are used up (a
/// device caller's record in local memory is not copied again).
template <class T, class BinaryOp>
RK_HOST_DEVICE T finish_in_place(partial<T>& nodes, T init, BinaryOp& op)
{
  std::uint64_t end = nodes_end(nodes);
  if (nodes.has_tail)
  {
    push_node(nodes, end, nodes.tail(), 0, op);
  }
  T acc = nodes.node(nodes.node_count - 1);
  for (int k = nodes.node_count - 2; k >= 0; --k)
  {
    acc = op(nodes.node(k), static_cast<T&&>(acc));
  }
  return op(static_cast<T&&>(init), static_cast<T&&>(acc));
}

/// finish_in_place of a copy.
template <class T, class BinaryOp>
RK_HOST_DEVICE T finish_whole(const partial<T>& whole, T init, BinaryOp& op)
{
  partial<T> nodes = whole;
  return finish_in_place(nodes, static_cast<T&&>(init), op);
}
} // namespace detail

/// The result of the whole sequence from its partial (which must start at 0): `op(init, root)`
/// with rk::reduce's bits over all the items, `init` when there are none (op not called); init is
/// converted to T, the partial's type (deduced from the partial alone: 0.0 serves a partial<float>).
/// A record that does not start at 0, or that a failed device combine produced, throws rk::error.
template <class T, class BinaryOp>
T finish(const partial<T>& whole, cuda::std::type_identity_t<T> init, BinaryOp op)
{
  if (whole.status != partial<T>::valid)
  {
    throw error("rk::finish: the record comes from a failed device combine (pieces that were not adjacent)");
  }
  if (whole.offset != 0)
  {
    throw error("rk::finish: the partial starts at item " + std::to_string(whole.offset)
                + ", not 0: combine it with the pieces before it first");
  }
  if (whole.length == 0)
  {
    return init;
  }
  return detail::finish_whole(whole, std::move(init), op);
}

namespace detail
{
/// What reduce_partial's T defaults to: the items' value type.
struct items_value_type
{};

template <class T, class InputIt>
using partial_value_t =
  std::conditional_t<std::is_same_v<T, items_value_type>, typename std::iterator_traits<InputIt>::value_type, T>;

/// The offset, checked: a non-negative integer such that offset + n fits in 64 bits.
template <class Offset>
offset_t checked_piece_offset(const Offset& offset, offset_t n)
{
  static_assert(std::is_integral_v<Offset>, "rk::reduce_partial: the offset is an integer count of items");
  // A wider integer (__int128 under GNU extensions) would be cut to 64 bits below without a word.
  static_assert(sizeof(Offset) <= sizeof(std::uint64_t),
                "rk::reduce_partial: the offset is at most 64 bits wide: pass it as std::int64_t or std::uint64_t");
  if constexpr (std::is_signed_v<Offset>)
  {
    if (offset < 0)
    {
      throw error("rk::reduce_partial: the offset is negative (" + std::to_string(offset) + ")");
    }
  }
  if (static_cast<std::uint64_t>(offset) > static_cast<std::uint64_t>(std::numeric_limits<offset_t>::max() - n))
  {
    throw error("rk::reduce_partial: offset + length is more than 2^63 - 1 items");
  }
  return static_cast<offset_t>(offset);
}

/// The record's shape before any value is computed: header, lane counts and node levels.
template <class T, class InputIt>
partial<T> partial_shape(offset_t offset, offset_t n)
{
  partial<T> p;
  std::memset(static_cast<void*>(&p), 0, sizeof(p));
  const piece_lanes lanes{offset, n, tile_lane_items<tree_item_t<InputIt>>};
  p.offset     = offset;
  p.length     = n;
  p.lane_items = static_cast<std::int32_t>(lanes.lane_items);
  p.status     = partial<T>::valid;
  p.head_count = static_cast<std::int32_t>(lanes.head_count());
  p.has_tail   = lanes.has_tail() ? 1 : 0;
  const piece_nodes nodes(lanes.first_full_lane(), lanes.end_full_lane());
  p.node_count = nodes.count;
  for (int k = 0; k < nodes.count; ++k)
  {
    p.node_level[k] = static_cast<std::uint8_t>(nodes[k].level);
  }
  return p;
}
} // namespace detail

template <class T, class Derived, class InputIt, class BinaryOp>
partial<T> reduce_partial_dispatch(const execution_policy<Derived>&, InputIt, InputIt, detail::offset_t, BinaryOp)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::reduce_partial is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
  return {};
}

/// The partial of the items [first, last), which stand at position `offset` of a longer sequence
/// (the whole sequence's first item is at 0): rk::reduce's tree nodes inside the piece and its cut
/// lanes, each item converted to T as rk::reduce converts it. Pieces of any length (empty ones,
/// and ones that cut a lane or a tile, included) combine with rk::combine, and rk::finish of the
/// whole has the bits of rk::reduce over all the items on rk::host, rk::two_pass, rk::single_pass
/// and rk::device, whichever of those policies reduced each piece. rk::seq computes the same tree
/// on the calling thread; rk::atomic has no tree and is refused at compile time.
template <class T = detail::items_value_type, class Policy, class InputIt, class Offset, class BinaryOp,
          class   = std::enable_if_t<is_execution_policy_v<Policy>>>
partial<detail::partial_value_t<T, InputIt>> reduce_partial(Policy&& policy, InputIt first, InputIt last, Offset offset,
                                                            BinaryOp op)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::reduce_partial needs random-access iterators (a piece's length places it in the tree): copy "
                "the items into a std::vector or thrust::device_vector first");
  const std::int64_t n = detail::checked_distance(first, last);
  return reduce_partial_dispatch<detail::partial_value_t<T, InputIt>>(
    policy.derived(), std::move(first), std::move(last), detail::checked_piece_offset(offset, n), std::move(op));
}

/// `rk::reduce_partial(policy, first, last, offset, rk::plus{})`.
template <class T = detail::items_value_type, class Policy, class InputIt, class Offset,
          class   = std::enable_if_t<is_execution_policy_v<Policy>>>
partial<detail::partial_value_t<T, InputIt>> reduce_partial(Policy&& policy, InputIt first, InputIt last, Offset offset)
{
  return reduce_partial<T>(std::forward<Policy>(policy), std::move(first), std::move(last), offset, plus{});
}
} // namespace rk

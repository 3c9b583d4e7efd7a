#pragma once
/// \file
/// rk::accumulator: the reduction of a sequence that arrives in chunks (data larger than memory, or
/// data that arrives over time), with the bits rk::reduce gives over the chunks' concatenation.
///
/// \code
/// rk::accumulator acc(rk::host, 0.0, rk::plus{});
/// for (auto& chunk : chunks)
///   acc.add(chunk.begin(), chunk.end());
/// double s = acc.result(); // == rk::reduce(rk::host, all.begin(), all.end(), 0.0, rk::plus{}), bit for bit
/// \endcode

#include <rk/detail/range.hpp>
#include <rk/error.hpp>
#include <rk/functional.hpp>
#include <rk/partial.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

namespace rk
{
namespace detail
{
/// What an accumulator keeps between chunks: the partial of everything added so far. The host
/// policies keep it on the host; the GPU policies specialize this in device memory
/// (rk/cuda/dispatch/accumulator.cuh), so that adding a chunk never waits for the GPU.
template <class Policy, class T, class BinaryOp>
class accumulated
{
public:
  accumulated(const Policy& policy, const BinaryOp& op)
      : policy_(policy)
      , op_(op)
  {}

  /// Appends [first, last) at `length`, the sequence's items so far, and advances it.
  template <class InputIt>
  void add(InputIt first, InputIt last, offset_t& length)
  {
    partial<T> piece = reduce_partial<T>(policy_, first, last, length, op_);
    whole_           = whole_ ? combine(*whole_, piece, op_) : piece;
    length += piece.length;
  }

  T finish_with(T init) const
  {
    return whole_ ? rk::finish(*whole_, std::move(init), op_) : init;
  }

private:
  Policy policy_;
  BinaryOp op_;
  std::optional<partial<T>> whole_;
};
} // namespace detail

/// Reduces chunks added in order, of any lengths (empty ones too), as one sequence: result() has
/// the bits of rk::reduce(policy, ...) over the concatenation of every chunk, with `init` once on
/// the left; under rk::seq, rk::host's bits (rk::reduce_partial's tree), not rk::seq's left fold. Every chunk's items
/// must have the same size (they are one sequence's items). With a GPU policy a chunk in device, pinned or managed
/// memory is read in place and add() returns without waiting for the GPU; a contiguous chunk in pageable host memory (a
/// std::vector's items, a raw pointer) is copied through rk's pinned staging buffers, a piece at a time while the GPU
/// reduces the one before, and add() returns once it is copied (the caller may then change it).
/// result() waits. Not thread-safe: one accumulator per sequence.
template <class Policy, class T, class BinaryOp = plus>
class accumulator
{
public:
  accumulator(Policy policy, T init, BinaryOp op = {})
      : init_(std::move(init))
      , state_(policy, op)
  {}

  /// Appends the items [first, last) to the sequence.
  template <class InputIt>
  accumulator& add(InputIt first, InputIt last)
  {
    static_assert(detail::is_random_access_v<InputIt>,
                  "rk::accumulator::add needs random-access iterators (a chunk's length places it in the tree): "
                  "copy the items into a std::vector or thrust::device_vector first");
    const std::int64_t n = detail::checked_distance(first, last);
    if (n > std::numeric_limits<std::int64_t>::max() - count_)
    {
      throw error("rk::accumulator::add: the sequence would pass 2^63 - 1 items");
    }
    // count_ advances as the items go in: a pageable chunk on a GPU policy goes in a staged
    // piece at a time, so when add throws, size() says where the sequence ends and the next
    // chunk still joins it.
    state_.add(std::move(first), std::move(last), count_);
    return *this;
  }

  /// rk::reduce over everything added so far (init when nothing was).
  T result() const
  {
    return state_.finish_with(init_);
  }

  /// Items added so far; after an add that threw, those of its chunk that went in (none but on a
  /// GPU policy, whose pageable chunks go in a staged piece at a time).
  std::int64_t size() const noexcept
  {
    return count_;
  }

private:
  T init_;
  detail::accumulated<Policy, T, BinaryOp> state_;
  std::int64_t count_ = 0;
};

template <class Policy, class T, class BinaryOp>
accumulator(Policy, T, BinaryOp) -> accumulator<Policy, T, BinaryOp>;
template <class Policy, class T>
accumulator(Policy, T) -> accumulator<Policy, T, plus>;
} // namespace rk

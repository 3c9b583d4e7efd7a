#pragma once
// rk::host backend: the reproducible tree of rk/detail/tree.hpp on std::threads. The threads
// split the tree's nodes between them; the result does not depend on how many there are.

#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/tree.hpp>
#include <rk/host/reduce_seq.hpp>
#include <rk/policy.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

namespace rk::detail
{
/// Below this many elements per extra thread, starting a thread costs more than it saves
/// (a std::thread start is ~20-50 us; a plain sum runs ~1 element/ns per core).
inline constexpr std::int64_t host_min_items_per_thread = std::int64_t{1} << 16;

inline unsigned host_thread_count(const host_policy& policy, std::int64_t n)
{
  unsigned hw        = policy.max_threads ? policy.max_threads : std::thread::hardware_concurrency();
  hw                 = std::max(hw, 1u);
  const auto by_size = std::max<std::int64_t>(1, n / host_min_items_per_thread);
  return static_cast<unsigned>(std::min<std::int64_t>(hw, by_size));
}

/// A lane's value: its items [b, e), e > b, folded from the left.
template <class T, class RandomIt, class BinaryOp>
T host_lane_value(RandomIt first, offset_t b, offset_t e, BinaryOp& op)
{
  T acc(static_cast<T>(first[b]));
  for (offset_t i = b + 1; i < e; ++i)
  {
    acc = op(std::move(acc), static_cast<T>(first[i]));
  }
  return acc;
}

/// The value of tile `tile` of [first, first + n): lanes fold their items, then the lanes combine
/// as a warp reduction does (tree.hpp).
template <class T, class RandomIt, class BinaryOp>
T host_tile_value(RandomIt first, offset_t n, offset_t tile, BinaryOp& op)
{
  using item               = tree_item_t<RandomIt>;
  constexpr int lane_items = tile_lane_items<item>;
  const offset_t begin     = tile * tile_items<item>;
  const offset_t count     = std::min<offset_t>(tile_items<item>, n - begin);
  const int lanes          = static_cast<int>(ceil_div(count, offset_t{lane_items}));
  std::optional<T> lane[tile_lanes];
  for (int l = 0; l < lanes; ++l)
  {
    const offset_t b = begin + offset_t{l} * lane_items, e = std::min(b + lane_items, begin + count);
    lane[l].emplace(host_lane_value<T>(first, b, e, op));
  }
  for (int width = 1; width < tile_lanes; width *= 2)
  {
    for (int l = 0; l + width < lanes; l += 2 * width)
    {
      lane[l].emplace(op(std::move(*lane[l]), std::move(*lane[l + width])));
    }
  }
  return std::move(*lane[0]);
}

/// The pairwise tree over tiles [tile_begin, tile_end) of [first, first + n): a node's value when
/// the run is one, the root when it is all of them.
template <class T, class RandomIt, class BinaryOp>
T host_tiles_value(RandomIt first, offset_t n, offset_t tile_begin, offset_t tile_end, BinaryOp& op)
{
  pairwise_fold<T, 64> fold;
  for (offset_t t = tile_begin; t < tile_end; ++t)
  {
    fold.push(host_tile_value<T>(first, n, t, op), op);
  }
  return fold.finish(op);
}

/// The root of the tree over [first, first + n), n >= 1, on the calling thread.
template <class T, class RandomIt, class BinaryOp>
T host_tree_root(RandomIt first, offset_t n, BinaryOp& op)
{
  using item = tree_item_t<RandomIt>;
  // Above one lane and one tile the tree's levels hold a single value each, so a short run (a
  // segment, a row, a run of keys) is its lane's fold or its tile's value: without setting up
  // the levels, a one-item segment takes a fifth of the time.
  if (n <= tile_lane_items<item>)
  {
    return host_lane_value<T>(first, 0, n, op);
  }
  if (n <= tile_items<item>)
  {
    return host_tile_value<T>(first, n, 0, op);
  }
  return host_tiles_value<T>(first, n, 0, ceil_div(n, offset_t{tile_items<item>}), op);
}

/// Runs work(t) for t in [0, threads): on threads - 1 new threads and the calling one (which also
/// takes the shares of threads that could not be started), then rethrows the first exception.
template <class Work>
void host_parallel_for(unsigned threads, Work&& work)
{
  std::vector<std::exception_ptr> errors(threads);
  auto run_thread = [&](unsigned t) {
    try
    {
      work(t);
    }
    catch (...)
    {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(threads > 0 ? threads - 1 : 0);
  unsigned spawned = 1;
  try
  {
    for (; spawned < threads; ++spawned)
    {
      workers.emplace_back(run_thread, spawned);
    }
  }
  catch (const std::system_error&)
  {
    // No more threads to be had (a process or thread limit): the calling thread does the rest.
  }
  run_thread(0);
  for (unsigned t = spawned; t < threads; ++t)
  {
    run_thread(t);
  }
  for (auto& w : workers)
  {
    w.join();
  }
  for (auto& e : errors)
  {
    if (e)
    {
      std::rethrow_exception(e);
    }
  }
}

/// The root of the tree over [first, first + n), n >= 1, on the policy's threads.
template <class T, class RandomIt, class BinaryOp>
T reduce_parallel_root(const host_policy& policy, RandomIt first, std::int64_t n, BinaryOp& op)
{
  using item             = tree_item_t<RandomIt>;
  const unsigned threads = host_thread_count(policy, n);
  const offset_t tiles   = ceil_div(n, offset_t{tile_items<item>});
  // Several nodes per thread, so that uneven node counts cost little.
  const tile_split split = make_tile_split(tiles, std::min<offset_t>(tiles, offset_t{threads} * 4));
  const offset_t nodes   = split.nodes();

  auto node_value = [&](offset_t node) {
    const offset_t begin = node * split.node_tiles(), end = std::min(begin + split.node_tiles(), tiles);
    return host_tiles_value<T>(first, n, begin, end, op);
  };

  std::vector<std::optional<T>> results(static_cast<std::size_t>(nodes));
  host_parallel_for(threads, [&](unsigned t) {
    const offset_t begin = nodes * t / threads, end = nodes * (t + 1) / threads;
    for (offset_t node = begin; node < end; ++node)
    {
      results[static_cast<std::size_t>(node)].emplace(node_value(node));
    }
  });
  pairwise_fold<T, 64> root;
  for (auto& r : results)
  {
    root.push(std::move(*r), op);
  }
  return root.finish(op);
}

template <class RandomIt, class T, class BinaryOp>
T reduce_parallel(const host_policy& policy, RandomIt first, std::int64_t n, T init, BinaryOp& op)
{
  if (n == 0)
  {
    return init;
  }
  return op(std::move(init), reduce_parallel_root<T>(policy, first, n, op));
}
} // namespace rk::detail

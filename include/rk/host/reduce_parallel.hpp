#pragma once
// rk::host backend: contiguous chunks on std::threads, chunk results combined left to right.

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
  unsigned hw = policy.max_threads ? policy.max_threads : std::thread::hardware_concurrency();
  hw          = std::max(hw, 1u);
  const auto by_size = std::max<std::int64_t>(1, n / host_min_items_per_thread);
  return static_cast<unsigned>(std::min<std::int64_t>(hw, by_size));
}

template <class RandomIt, class T, class BinaryOp>
T reduce_parallel(const host_policy& policy, RandomIt first, std::int64_t n, T init, BinaryOp& op)
{
  const unsigned threads = host_thread_count(policy, n);
  if (threads <= 1)
  {
    return reduce_sequential(first, first + n, std::move(init), op);
  }
  // Chunk c is contiguous and non-empty; the first n % threads chunks take one item more.
  const std::int64_t per_chunk = n / threads, extra = n % threads;
  auto chunk_begin             = [&](unsigned c) {
    return static_cast<std::int64_t>(c) * per_chunk + std::min<std::int64_t>(c, extra);
  };
  // A chunk reduces its own elements only; it never sees `init`, so `init` is applied once.
  auto reduce_chunk = [&](unsigned c) {
    const std::int64_t b = chunk_begin(c), e = chunk_begin(c + 1);
    RandomIt it          = first + b;
    T acc(*it);
    return reduce_sequential(it + 1, first + e, std::move(acc), op);
  };

  std::vector<std::optional<T>> results(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto run_chunk = [&](unsigned c) {
    try
    {
      results[c].emplace(reduce_chunk(c));
    }
    catch (...)
    {
      errors[c] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  unsigned spawned = 1;
  try
  {
    for (; spawned < threads; ++spawned)
    {
      workers.emplace_back(run_chunk, spawned);
    }
  }
  catch (const std::system_error&)
  {
    // No more threads to be had (a process or thread limit): the calling thread does the rest.
  }
  run_chunk(0);
  for (unsigned c = spawned; c < threads; ++c)
  {
    run_chunk(c);
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
  for (auto& r : results)
  {
    init = op(std::move(init), std::move(*r));
  }
  return init;
}
} // namespace rk::detail

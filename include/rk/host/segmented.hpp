#pragma once
// rk::segmented_reduce for the host policies: rk::seq folds each segment left to right; rk::host
// reduces each segment with rk's tree (the GPU's bits), segments shared over threads, and segments
// long enough to keep every thread busy on their own reduced by all of them.

#include <rk/detail/segments.hpp>
#include <rk/host/reduce_parallel.hpp>
#include <rk/host/reduce_seq.hpp>
#include <rk/policy.hpp>

#include <iterator>
#include <utility>
#include <vector>

namespace rk::detail
{
/// Throws for the first segment that ends before it begins or begins before the first item;
/// returns the items of all segments.
template <class Segments>
offset_t checked_total_items(const Segments& segments)
{
  offset_t total = 0;
  for (offset_t s = 0; s < segments.count; ++s)
  {
    const offset_t b = segments.begin(s), n = checked_segment_items(segments, s, b);
    if (n < 0)
    {
      throw error(bad_segment_message(s, b, segments.end(s)));
    }
    total += n;
  }
  return total;
}

/// `init` is a T, or no_segment_init (then no segment is empty); T is the accumulator type.
template <class T, class RandomIt, class Segments, class OutputIt, class Init, class BinaryOp>
void segmented_reduce_seq(RandomIt first, const Segments& segments, OutputIt out, const Init& init, BinaryOp& op)
{
  (void) checked_total_items(segments);
  for (offset_t s = 0; s < segments.count; ++s)
  {
    const offset_t b = segments.begin(s), e = segments.end(s);
    if constexpr (has_segment_init_v<Init>)
    {
      out[s] = reduce_sequential(first + b, first + e, T(init), op);
    }
    else
    {
      out[s] = reduce_sequential(first + (b + 1), first + e, static_cast<T>(first[b]), op);
    }
  }
}

/// Segments at least this long are reduced by every thread together (reduce_parallel), after the
/// others: a thread pool split by segment count would leave them to one thread.
inline constexpr offset_t host_shared_segment_items = offset_t{1} << 20;

template <class T, class RandomIt, class Segments, class OutputIt, class Init, class BinaryOp>
void segmented_reduce_host(const host_policy& policy, RandomIt first, const Segments& segments, OutputIt out,
                           const Init& init, BinaryOp& op)
{
  const offset_t total   = checked_total_items(segments);
  const unsigned threads = host_thread_count(policy, total);
  host_parallel_for(threads, [&](unsigned t) {
    const offset_t begin = segments.count * t / threads, end = segments.count * (t + 1) / threads;
    for (offset_t s = begin; s < end; ++s)
    {
      const offset_t b = segments.begin(s), n = segments.end(s) - b;
      if (n == 0)
      {
        if constexpr (has_segment_init_v<Init>)
        {
          out[s] = init;
        }
      }
      else if (n < host_shared_segment_items || threads == 1)
      {
        out[s] = apply_init(init, host_tree_root<T>(first + b, n, op), op);
      }
    }
  });
  if (threads > 1)
  {
    for (offset_t s = 0; s < segments.count; ++s)
    {
      const offset_t b = segments.begin(s), n = segments.end(s) - b;
      if (n >= host_shared_segment_items)
      {
        out[s] = apply_init(init, reduce_parallel_root<T>(policy, first + b, n, op), op);
      }
    }
  }
}
} // namespace rk::detail

#pragma once
// reduce_dispatch and explain_dispatch for the host policies.

#include <rk/flat_reduce.hpp>
#include <rk/host/reduce_parallel.hpp>
#include <rk/host/reduce_seq.hpp>
#include <rk/host/segmented.hpp>
#include <rk/segmented_reduce.hpp>

#include <string>

namespace rk
{
template <class InputIt, class T, class BinaryOp>
T reduce_dispatch(const seq_policy&, InputIt first, InputIt last, T init, BinaryOp op)
{
  if constexpr (detail::is_random_access_v<InputIt>)
  {
    (void) detail::checked_distance(first, last);
  }
  return detail::reduce_sequential(first, last, std::move(init), op);
}

template <class InputIt, class T, class BinaryOp>
T reduce_dispatch(const host_policy& policy, InputIt first, InputIt last, T init, BinaryOp op)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::host needs random-access iterators; use rk::seq for input or forward iterators");
  const std::int64_t n = detail::checked_distance(first, last);
  return detail::reduce_parallel(policy, first, n, std::move(init), op);
}

template <class T, class InputIt, class BinaryOp>
T reduce_nonempty_dispatch(const seq_policy&, InputIt first, InputIt last, BinaryOp op)
{
  if constexpr (detail::is_random_access_v<InputIt>)
  {
    (void) detail::checked_distance(first, last); // before *first: a reversed range is not empty
  }
  T acc(*first);
  ++first;
  return detail::reduce_sequential(first, last, std::move(acc), op);
}

template <class T, class InputIt, class BinaryOp>
T reduce_nonempty_dispatch(const host_policy& policy, InputIt first, InputIt last, BinaryOp op)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::host needs random-access iterators; use rk::seq for input or forward iterators");
  return detail::reduce_parallel_root<T>(policy, first, detail::checked_distance(first, last), op);
}

namespace detail
{
template <class InputIt>
constexpr void check_segmented_items()
{
  static_assert(is_random_access_v<InputIt>,
                "rk::segmented_reduce needs random-access items (segments are found by their offsets): copy the "
                "items into a std::vector first");
}
} // namespace detail

template <class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const seq_policy&, InputIt first, const Segments& segments, OutputIt out, T init, BinaryOp op)
{
  detail::check_segmented_items<InputIt>();
  detail::segmented_reduce_seq<T>(first, segments, out, init, op);
}

template <class InputIt, class Segments, class OutputIt, class T, class BinaryOp>
void segmented_dispatch(const host_policy& policy, InputIt first, const Segments& segments, OutputIt out, T init,
                        BinaryOp op)
{
  detail::check_segmented_items<InputIt>();
  detail::segmented_reduce_host<T>(policy, first, segments, out, init, op);
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
explanation explain_segmented_dispatch(const seq_policy&, InputIt, std::int64_t segments, OutputIt, const T&,
                                       const BinaryOp&)
{
  return {"seq",
          "seq",
          "seq",
          segments,
          "each segment folded left to right on the calling thread (its own grouping, not rk::reduce's tree)",
          false};
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
explanation explain_segmented_dispatch(const host_policy&, InputIt, std::int64_t segments, OutputIt, const T&,
                                       const BinaryOp&)
{
  return {"host",
          "host",
          "host",
          segments,
          "each segment reduced with rk::reduce's tree (the GPU backends' bits), segments shared over threads and "
          "segments of 2^20 items or more by every thread",
          true};
}

template <class InputIt, class T, class BinaryOp>
explanation explain_dispatch(const seq_policy&, InputIt first, InputIt last, const T&, const BinaryOp&)
{
  explanation e{"seq",
                "seq",
                "seq",
                0,
                "sequential left fold on the calling thread (its own grouping, not the tree the other policies share)",
                false};
  if constexpr (detail::is_random_access_v<InputIt>)
  {
    e.size = detail::checked_distance(first, last);
  }
  return e;
}

template <class InputIt, class T, class BinaryOp>
explanation explain_dispatch(const host_policy& policy, InputIt first, InputIt last, const T&, const BinaryOp&)
{
  static_assert(detail::is_random_access_v<InputIt>,
                "rk::host needs random-access iterators; use rk::seq for input or forward iterators");
  const std::int64_t n   = detail::checked_distance(first, last);
  const unsigned threads = detail::host_thread_count(policy, n);
  std::string why        = (threads <= 1 ? std::string("one thread") : std::to_string(threads) + " threads")
                  + " computing rk's pairwise tile tree (the GPU backends' tree, so the bits match theirs)";
  return {"host", "host", "host", n, why, true};
}
} // namespace rk

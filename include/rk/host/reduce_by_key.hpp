#pragma once
// rk::reduce_by_key for the host policies: rk::seq folds each run left to right in one pass;
// rk::host finds the runs, a batch at a time, and reduces each batch as rk::segmented_reduce does
// (each run with rk's tree: the GPU's bits).

#include <rk/detail/range.hpp>
#include <rk/detail/segments.hpp>
#include <rk/host/reduce_seq.hpp>
#include <rk/host/segmented.hpp>
#include <rk/policy.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace rk
{
template <class T, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Init, class BinaryOp, class KeyEqual>
std::pair<KeyOut, ValueOut> reduce_by_key_dispatch(const seq_policy&, KeyIt keys_first, KeyIt keys_last,
                                                   ValueIt values_first, KeyOut keys_out, ValueOut values_out,
                                                   const Init& init, BinaryOp op, KeyEqual key_equal)
{
  if constexpr (detail::is_random_access_v<KeyIt>)
  {
    (void) detail::checked_distance(keys_first, keys_last);
  }
  // The key held is a copy of the value, never the iterator's reference: a zip iterator's
  // reference is a tuple of references, and assigning the next key to it would write the input.
  using key_value = std::remove_cv_t<typename std::iterator_traits<KeyIt>::value_type>;
  while (keys_first != keys_last)
  {
    key_value key(*keys_first);
    T acc     = detail::apply_init(init, static_cast<T>(*values_first), op);
    *keys_out = key;
    ++keys_out;
    ++keys_first;
    ++values_first;
    for (; keys_first != keys_last; ++keys_first, ++values_first)
    {
      key_value next(*keys_first);
      if (!key_equal(key, next))
      {
        break;
      }
      acc = op(std::move(acc), static_cast<T>(*values_first));
      key = std::move(next);
    }
    *values_out = std::move(acc);
    ++values_out;
  }
  return {keys_out, values_out};
}

template <class T, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Init, class BinaryOp, class KeyEqual>
std::pair<KeyOut, ValueOut> reduce_by_key_dispatch(const host_policy& policy, KeyIt keys_first, KeyIt keys_last,
                                                   ValueIt values_first, KeyOut keys_out, ValueOut values_out,
                                                   const Init& init, BinaryOp op, KeyEqual key_equal)
{
  static_assert(detail::is_random_access_v<KeyIt> && detail::is_random_access_v<ValueIt>,
                "rk::host needs random-access keys and values; use rk::seq for input or forward iterators");
  const std::int64_t n = detail::checked_distance(keys_first, keys_last);
  // The runs go to segmented reduce a batch at a time, so the heads held are bounded whatever the
  // run count (2^31 one-item runs would otherwise hold 16 GiB of heads): 2^22 runs, 32 MiB, enough
  // items for every thread even at runs of one (segmented reduce starts a thread per 2^16 items).
  // A batch ends where its last run does; each key comparison is made once.
  constexpr std::int64_t runs_a_batch = std::int64_t{1} << 22;
  std::vector<std::int64_t> heads;
  heads.reserve(static_cast<std::size_t>(std::min(n, runs_a_batch)) + 1);
  std::int64_t runs = 0;
  for (std::int64_t head = 0; head < n;)
  {
    heads.clear();
    do // head starts a run: the first item, or the one the last batch stopped at
    {
      heads.push_back(head);
      *keys_out = keys_first[head];
      ++keys_out;
      ++head;
      while (head < n && key_equal(keys_first[head - 1], keys_first[head]))
      {
        ++head;
      }
    } while (head < n && static_cast<std::int64_t>(heads.size()) < runs_a_batch);
    const auto batch = static_cast<std::int64_t>(heads.size());
    heads.push_back(head);
    detail::segmented_reduce_host<T>(policy, values_first, detail::make_csr_segments(heads.cbegin(), heads.cend()),
                                     values_out + runs, init, op);
    runs += batch;
  }
  return {keys_out, values_out + runs};
}
} // namespace rk

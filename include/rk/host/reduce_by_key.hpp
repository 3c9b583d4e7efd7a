#pragma once
// rk::reduce_by_key for the host policies: rk::seq folds each run left to right in one pass;
// rk::host finds the runs, then reduces them as rk::segmented_reduce does (each run with rk's
// tree: the GPU's bits).

#include <rk/detail/range.hpp>
#include <rk/detail/segments.hpp>
#include <rk/host/reduce_seq.hpp>
#include <rk/host/segmented.hpp>
#include <rk/policy.hpp>

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
  std::vector<std::int64_t> heads;
  for (std::int64_t i = 0; i < n; ++i)
  {
    if (i == 0 || !key_equal(keys_first[i - 1], keys_first[i]))
    {
      heads.push_back(i);
      *keys_out = keys_first[i];
      ++keys_out;
    }
  }
  const auto runs = static_cast<std::int64_t>(heads.size());
  heads.push_back(n);
  detail::segmented_reduce_host<T>(policy, values_first, detail::make_csr_segments(heads.cbegin(), heads.cend()),
                                   values_out, init, op);
  return {keys_out, values_out + runs};
}
} // namespace rk

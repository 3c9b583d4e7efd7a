#pragma once
// The property-test harness for the host policies: inputs live in std::vector.

#include "../support/properties.hpp"

#include <rk/reduce.hpp>

#include <vector>

namespace rk_test
{
template <class Policy>
struct host_harness
{
  using policy_type                      = Policy;
  static constexpr bool commutative_only = false;
  /// Partials come from rk::reduce_partial on `policy`.
  static constexpr bool plans_partials_itself = false;
  Policy policy{};

  template <class E>
  std::vector<E> upload(const std::vector<E>& items) const
  {
    return items;
  }

  template <class E>
  E* raw(std::vector<E>& items) const
  {
    return items.data();
  }

  template <class E>
  std::vector<E> download(const std::vector<E>& items) const
  {
    return items;
  }

  template <class F>
  generating_iterator<F> generated(F f, std::int64_t first) const
  {
    return generating_iterator<F>(f, first);
  }

  /// 2^k +- 1 up to 2^24, and rk::host's chunk boundaries +- 1.
  std::vector<std::int64_t> sizes_full() const
  {
    auto sizes = power_sizes(2, quick_mode() ? 18 : 24);
    for (std::int64_t chunk : {3 * (std::int64_t{1} << 16), 5 * (std::int64_t{1} << 16)})
    {
      sizes.insert(sizes.end(), {chunk - 1, chunk, chunk + 1});
    }
    return sizes;
  }
  std::vector<std::int64_t> sizes_short() const
  {
    auto sizes = power_sizes(2, 17);
    sizes.push_back(3 * (std::int64_t{1} << 16) + 1);
    return sizes;
  }
  std::int64_t large_count() const
  {
    return (std::int64_t{1} << 31) + 77;
  }
};
} // namespace rk_test

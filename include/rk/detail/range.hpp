#pragma once
// Checks shared by every policy before any work starts.

#include <rk/error.hpp>

#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

namespace rk::detail
{
template <class It>
inline constexpr bool is_random_access_v =
  std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<It>::iterator_category>;

/// The element count of [first, last) as a 64-bit integer; throws rk::invalid_range if
/// `last` precedes `first`.
template <class It>
std::int64_t checked_distance(const It& first, const It& last)
{
  const auto n = static_cast<std::int64_t>(last - first);
  if (n < 0)
  {
    throw invalid_range("rk: reversed range, last precedes first by " + std::to_string(-n) + " elements");
  }
  return n;
}

template <class>
inline constexpr bool dependent_false_v = false;
} // namespace rk::detail

#pragma once
/// \file
/// rk::check_operator: tests an operator, on sample values, for the two properties rk relies on.
/// Every rk policy needs the operator to be associative; rk::atomic (and rk::device's choice of
/// it) also needs it commutative. Put the check in your own tests, and specialize
/// rk::is_commutative for an operator only if it says so. It runs on the host (any callable that
/// can run there; RK_HOST_DEVICE operators qualify).
///
/// \code
/// std::vector<interval> samples = {...};
/// const auto check = rk::check_operator<interval>(merge{}, samples);
/// CHECK(check.associative);
/// std::cout << check << '\n'; // what was checked, and the first counterexample found
/// \endcode

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rk
{
/// How much of the sample space rk::check_operator covers.
struct operator_check_limits
{
  /// Every triple (a, b, c) of samples while there are at most this many, else this many triples
  /// drawn at random (with `seed`, so a check repeats exactly).
  std::size_t max_triples = 1'000'000;
  /// The same for the pairs (a, b) of the commutativity check.
  std::size_t max_pairs = 1'000'000;
  std::uint64_t seed    = 0x9e3779b97f4a7c15ull;
};

/// What rk::check_operator found. Printable; `associative` and `commutative` are what to CHECK.
struct operator_check
{
  bool associative            = true; ///< op(op(a, b), c) equals op(a, op(b, c)) on every triple checked
  bool commutative            = true; ///< op(a, b) equals op(b, a) on every pair checked
  std::size_t samples         = 0;
  std::size_t triples_checked = 0;
  std::size_t pairs_checked   = 0;
  bool every_triple           = true;       ///< false: random triples were checked, not all of them
  bool every_pair             = true;       ///< the same for pairs (either search stops at its first counterexample)
  std::string associativity_counterexample; ///< empty while `associative`
  std::string commutativity_counterexample; ///< empty while `commutative`

  std::string to_string() const
  {
    std::ostringstream out;
    out << *this;
    return out.str();
  }

  friend std::ostream& operator<<(std::ostream& os, const operator_check& c)
  {
    const std::size_t n = c.samples;
    os << "rk::check_operator over " << n << " samples: associative: " << (c.associative ? "yes" : "NO") << " ("
       << c.triples_checked;
    if (c.every_triple)
    {
      os << " of all " << n * n * n << " triples)";
    }
    else
    {
      os << " random triples)";
    }
    if (!c.associative)
    {
      os << ", first counterexample: " << c.associativity_counterexample;
    }
    os << "; commutative: " << (c.commutative ? "yes" : "no") << " (" << c.pairs_checked;
    if (c.every_pair)
    {
      os << " of all " << n * n << " pairs)";
    }
    else
    {
      os << " random pairs)";
    }
    if (!c.commutative)
    {
      os << ", first counterexample: " << c.commutativity_counterexample;
    }
    return os;
  }
};

namespace detail
{
template <class T, class = void>
inline constexpr bool has_equality_v = false;
template <class T>
inline constexpr bool has_equality_v<T, std::void_t<decltype(std::declval<const T&>() == std::declval<const T&>())>> =
  true;

template <class T, class = void>
inline constexpr bool is_printable_v = false;
template <class T>
inline constexpr bool
  is_printable_v<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>> = true;

/// The default notion of "the same result": ==, with every NaN equal to every NaN (an operator
/// that propagates NaN gives NaN on both sides); for a trivially copyable T without ==, the bytes.
struct same_value
{
  template <class T>
  bool operator()(const T& a, const T& b) const
  {
    if constexpr (std::is_floating_point_v<T>)
    {
      return a == b || (a != a && b != b);
    }
    else if constexpr (has_equality_v<T>)
    {
      return static_cast<bool>(a == b);
    }
    else
    {
      static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>,
                    "rk::check_operator needs to compare results: give T an operator==, or pass an equality "
                    "predicate as the third argument");
      return std::memcmp(&a, &b, sizeof(T)) == 0;
    }
  }
};

/// A result in a counterexample: printed if T can be.
template <class T>
std::string describe(const T& value)
{
  if constexpr (is_printable_v<T>)
  {
    std::ostringstream out;
    out << value;
    return out.str();
  }
  else
  {
    return "(not printable)";
  }
}

/// An operand in a counterexample: its sample index, and its value if T can be printed.
template <class T>
std::string describe_sample(const std::vector<T>& values, std::size_t i)
{
  std::string name = "samples[" + std::to_string(i) + "]";
  if constexpr (is_printable_v<T>)
  {
    name += " = " + describe(values[i]);
  }
  return name;
}

/// n^k, or max + 1 if that exceeds max (so "every tuple" is decided without overflow).
inline std::size_t tuples_up_to(std::size_t n, int k, std::size_t max)
{
  std::size_t count = 1;
  for (int i = 0; i < k; ++i)
  {
    if (n != 0 && count > max / n)
    {
      return max + 1;
    }
    count *= n;
  }
  return count;
}
} // namespace detail

/// Checks `op` for associativity on triples of `samples` and for commutativity on pairs, each up
/// to the limits (all of them, or a fixed-seed random subset), and reports the first
/// counterexample of each. `samples` is any range of values convertible to T; results of `op` are
/// converted to T, as rk's accumulators are, and compared with `equal` (by default ==, all NaNs
/// equal). Floating-point addition is not associative, so expect a counterexample for it unless
/// `equal` allows rounding. An empty sample set checks nothing and reports both properties.
template <class T, class Op, class Samples, class Equal = detail::same_value>
operator_check check_operator(const Op& op, const Samples& samples, Equal equal = {},
                              const operator_check_limits& limits = {})
{
  std::vector<T> values;
  for (const auto& sample : samples)
  {
    values.push_back(static_cast<T>(sample));
  }
  const std::size_t n = values.size();
  auto combine        = [&](const T& a, const T& b) { return static_cast<T>(op(a, b)); };

  operator_check result;
  result.samples = n;
  std::mt19937_64 random(limits.seed);
  auto pick = [&] { return static_cast<std::size_t>(random() % n); };

  const std::size_t all_triples = detail::tuples_up_to(n, 3, limits.max_triples);
  result.every_triple           = all_triples <= limits.max_triples;
  const std::size_t triples     = n == 0 ? 0 : result.every_triple ? all_triples : limits.max_triples;
  for (std::size_t t = 0; t < triples && result.associative; ++t)
  {
    const std::size_t i = result.every_triple ? t / (n * n) : pick();
    const std::size_t j = result.every_triple ? t / n % n : pick();
    const std::size_t k = result.every_triple ? t % n : pick();
    const T left        = combine(combine(values[i], values[j]), values[k]);
    const T right       = combine(values[i], combine(values[j], values[k]));
    ++result.triples_checked;
    if (!equal(left, right))
    {
      result.associative                  = false;
      result.associativity_counterexample = "op(op(a, b), c) = " + detail::describe(left) + " but op(a, op(b, c)) = "
                                          + detail::describe(right) + " for a = " + detail::describe_sample(values, i)
                                          + ", b = " + detail::describe_sample(values, j)
                                          + ", c = " + detail::describe_sample(values, k);
    }
  }

  const std::size_t all_pairs = detail::tuples_up_to(n, 2, limits.max_pairs);
  result.every_pair           = all_pairs <= limits.max_pairs;
  const std::size_t pairs     = n == 0 ? 0 : result.every_pair ? all_pairs : limits.max_pairs;
  for (std::size_t p = 0; p < pairs && result.commutative; ++p)
  {
    const std::size_t i = result.every_pair ? p / n : pick();
    const std::size_t j = result.every_pair ? p % n : pick();
    const T ab          = combine(values[i], values[j]);
    const T ba          = combine(values[j], values[i]);
    ++result.pairs_checked;
    if (!equal(ab, ba))
    {
      result.commutative                  = false;
      result.commutativity_counterexample = "op(a, b) = " + detail::describe(ab) + " but op(b, a) = "
                                          + detail::describe(ba) + " for a = " + detail::describe_sample(values, i)
                                          + ", b = " + detail::describe_sample(values, j);
    }
  }
  return result;
}
} // namespace rk

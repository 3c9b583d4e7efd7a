#pragma once
// rk::arg_min, rk::arg_max and rk::arg_min_max on every policy: an order-preserving reduction with
// no init over indexed_input (rk/detail/input_adaptors.hpp), whose items are {value, index}.
// Because the backends keep order, "first" needs no index comparison: on a tie the left operand
// (the earlier item) stays.

#include <rk/detail/config.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/reduce_api.hpp>

#include <iterator>
#include <type_traits>

namespace rk
{
namespace detail
{
template <class T>
RK_HOST_DEVICE bool is_unordered(const T& x)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    return x != x;
  }
  else
  {
    (void) x;
    return false;
  }
}

/// rk::arg_min's operator: the earlier of two minima. A NaN is neither a minimum nor a maximum:
/// any number beats it, so a NaN is the answer only when every item is NaN (then the first).
/// Associative: it is the minimum under a total preorder (NaN above every number) that keeps the
/// left operand on ties.
struct first_minimum
{
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    const bool take_b = is_unordered(a.value) ? !is_unordered(b.value) : b.value < a.value;
    return take_b ? b : a;
  }
};

/// rk::arg_max's operator: the earlier of two maxima; NaN as for first_minimum.
struct first_maximum
{
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    const bool take_b = is_unordered(a.value) ? !is_unordered(b.value) : a.value < b.value;
    return take_b ? b : a;
  }
};

/// rk::arg_min_max's operator: both in one pass (the item is taken as its own min and max).
struct first_minimum_maximum
{
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return {first_minimum{}(a.min, b.min), first_maximum{}(a.max, b.max)};
  }
};

/// Item i as the min and the max of a one-item range.
struct as_min_max
{
  template <class A>
  RK_HOST_DEVICE arg_min_max_result<decltype(A::value), decltype(A::index)> operator()(const A& a) const
  {
    return {a, a};
  }
};

template <class It>
using arg_index_t = typename std::iterator_traits<It>::difference_type;
template <class It>
using arg_item_t = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
template <class It>
using arg_result_t = arg_result<arg_item_t<It>, arg_index_t<It>>;

/// What an empty range returns: a value-initialized item and index -1.
template <class It>
arg_result_t<It> empty_arg_result()
{
  static_assert(std::is_default_constructible_v<arg_item_t<It>>,
                "rk::arg_min/arg_max/arg_min_max return a value-initialized item for an empty range, so the "
                "iterator's value_type needs a default constructor");
  return {arg_item_t<It>(), arg_index_t<It>(-1)};
}

template <class It>
auto indexed(It it)
{
  return indexed_input<It, arg_index_t<It>>(it, 0);
}

template <class It>
auto indexed_min_max(It it)
{
  using result = arg_min_max_result<arg_item_t<It>, arg_index_t<It>>;
  return transformed_input<indexed_input<It, arg_index_t<It>>, as_min_max, result>(indexed(it), as_min_max{});
}
} // namespace detail

/// The policy an arg reduction runs on: the caller's; GPU policies pick their load shapes
/// (rk::arg_tuning, found by argument-dependent lookup).
template <class Derived>
const Derived& arg_policy(const execution_policy<Derived>& policy)
{
  return policy.derived();
}

namespace detail
{
/// The arg reductions' shared body: `empty` for an empty range, else the reduction with no init
/// of the adapted items (as arg_into does for the stream-ordered forms).
template <class Result, class Derived, class Input, class Op>
Result arg_reduce(const execution_policy<Derived>& policy, Input first, Input last, const Result& empty, Op op)
{
  if (first == last)
  {
    return empty;
  }
  return reduce_nonempty_dispatch<Result>(arg_policy(policy.derived()), first, last, op);
}
} // namespace detail

/// The first minimum of [first, last) and its position: `{value, index}`, `index` of the iterator's
/// difference type (CUB's DeviceReduce::ArgMin semantics). Ties go to the earliest item. NaN is
/// neither a minimum nor a maximum: any number wins over it, and only an all-NaN range returns a
/// NaN (its first). An empty range returns `{value_type(), -1}` and compares nothing.
///
/// \code
/// rk::arg_result<float, std::ptrdiff_t> m = rk::arg_min(rk::device, v.begin(), v.end());
/// \endcode
template <class Policy, class InputIt, class = std::enable_if_t<is_execution_policy_v<Policy>>>
detail::arg_result_t<InputIt> arg_min(Policy&& policy, InputIt first, InputIt last)
{
  return detail::arg_reduce(policy.derived(), detail::indexed(first), detail::indexed(last),
                            detail::empty_arg_result<InputIt>(), detail::first_minimum{});
}

/// The first maximum of [first, last) and its position; otherwise as rk::arg_min.
template <class Policy, class InputIt, class = std::enable_if_t<is_execution_policy_v<Policy>>>
detail::arg_result_t<InputIt> arg_max(Policy&& policy, InputIt first, InputIt last)
{
  return detail::arg_reduce(policy.derived(), detail::indexed(first), detail::indexed(last),
                            detail::empty_arg_result<InputIt>(), detail::first_maximum{});
}

/// rk::arg_min and rk::arg_max in one pass over the items: `{min, max}`.
template <class Policy, class InputIt, class = std::enable_if_t<is_execution_policy_v<Policy>>>
arg_min_max_result<detail::arg_item_t<InputIt>, detail::arg_index_t<InputIt>> arg_min_max(Policy&& policy,
                                                                                          InputIt first, InputIt last)
{
  using result = arg_min_max_result<detail::arg_item_t<InputIt>, detail::arg_index_t<InputIt>>;
  return detail::arg_reduce(policy.derived(), detail::indexed_min_max(first), detail::indexed_min_max(last),
                            result{detail::empty_arg_result<InputIt>(), detail::empty_arg_result<InputIt>()},
                            detail::first_minimum_maximum{});
}
} // namespace rk

#pragma once
// rk::arg_min, rk::arg_max and rk::arg_min_max on every policy: an order-preserving reduction with
// no init over indexed_input (rk/detail/input_adaptors.hpp), whose items are {value, index}.
// Because the backends keep order, "first" needs no index comparison: on a tie the left operand
// (the earlier item) stays. Only where results whose items interleave meet (the GPU's merged
// lanes) do the indices decide.

#include <rk/detail/config.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/flat_reduce.hpp>
#include <rk/functional.hpp>

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

/// Whether `Comp` is the arg reductions' default ordering, rk::less: only it adds rk's NaN rule.
template <class Comp>
inline constexpr bool is_default_order_v = std::is_same_v<Comp, less>;

/// Whether item b takes the place of the running extreme a, where b is strictly better when
/// comp(x, y): (x, y) is (b, a) for a minimum, (a, b) for a maximum. Under the default ordering a
/// NaN is neither a minimum nor a maximum: any number replaces it and it replaces nothing, so it
/// is the answer only when every item is NaN. For floating values that rule is one unordered
/// comparison and a NaN test with no branch, `!(x >= y)` (x < y, or either is NaN) and b a number:
/// written as a choice between the NaN cases it ran float arg_min 13% slower than int32 and CUB
/// (H100, 2^24 to 2^28; level with both this way). A caller's comparator is its own rule, NaN
/// included.
template <class Comp, class V>
RK_HOST_DEVICE bool replaces(const Comp& comp, const V& x, const V& y, const V& b)
{
  if constexpr (is_default_order_v<Comp> && std::is_floating_point_v<V>)
  {
    return !(x >= y) && b == b;
  }
  else
  {
    (void) b;
    return comp(x, y);
  }
}

/// Each operator below is called with its operands in order (a before b) and keeps the earlier
/// or the later on a tie without looking at the indices. Its `merge(a, b)` gives the same answer
/// for operands in either order, ties broken by index: the GPU's merged lanes
/// (tree_shape::merged_lanes) fold each lane's items in order with the operator and merge the
/// lanes' results, whose items interleave, with it.

/// rk::arg_min's operator: the earlier of two minima under `comp`. Associative: it is the
/// minimum under a strict weak ordering (with NaN last, for the default) that keeps the left
/// operand on ties.
template <class Comp = less>
struct first_minimum
{
  Comp comp{};
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return replaces(comp, b.value, a.value, b.value) ? b : a;
  }
  template <class R>
  RK_HOST_DEVICE R merge(const R& a, const R& b) const
  {
    const bool b_ranks_first = replaces(comp, b.value, a.value, b.value);
    const bool a_ranks_first = replaces(comp, a.value, b.value, a.value);
    return b_ranks_first || (!a_ranks_first && b.index < a.index) ? b : a;
  }
};

/// rk::arg_max's operator: the earlier of two maxima under `comp`; NaN as for first_minimum.
template <class Comp = less>
struct first_maximum
{
  Comp comp{};
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return replaces(comp, a.value, b.value, b.value) ? b : a;
  }
  template <class R>
  RK_HOST_DEVICE R merge(const R& a, const R& b) const
  {
    const bool b_ranks_first = replaces(comp, a.value, b.value, b.value);
    const bool a_ranks_first = replaces(comp, b.value, a.value, a.value);
    return b_ranks_first || (!a_ranks_first && b.index < a.index) ? b : a;
  }
};

/// rk::arg_max_last's operator: the later of two maxima (CUB's ArgMinLastMax): b wins unless it
/// ranks strictly before a. Under the default ordering a NaN still loses to every number, and
/// among all-NaN items the last wins. Associative: the maximum under the same ordering that keeps
/// the right operand on ties.
template <class Comp = less>
struct last_maximum
{
  Comp comp{};
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return !ranks_below(b.value, a.value) ? b : a;
  }
  template <class R>
  RK_HOST_DEVICE R merge(const R& a, const R& b) const
  {
    const bool b_ranks_first = ranks_below(a.value, b.value);
    const bool a_ranks_first = ranks_below(b.value, a.value);
    return b_ranks_first || (!a_ranks_first && b.index > a.index) ? b : a;
  }

private:
  /// Whether x ranks strictly below y as a maximum: comp(x, y), or, under the default ordering,
  /// x a NaN and y a number.
  template <class V>
  RK_HOST_DEVICE bool ranks_below(const V& x, const V& y) const
  {
    if constexpr (is_default_order_v<Comp>)
    {
      return is_unordered(x) ? !is_unordered(y) : !is_unordered(y) && comp(x, y);
    }
    else
    {
      return comp(x, y);
    }
  }
};

/// rk::arg_min_max's operator: both in one pass (the item is taken as its own min and max).
template <class Comp = less>
struct first_minimum_maximum
{
  Comp comp{};
  template <class R>
  RK_HOST_DEVICE R operator()(const R& a, const R& b) const
  {
    return {first_minimum<Comp>{comp}(a.min, b.min), first_maximum<Comp>{comp}(a.max, b.max)};
  }
  template <class R>
  RK_HOST_DEVICE R merge(const R& a, const R& b) const
  {
    return {first_minimum<Comp>{comp}.merge(a.min, b.min), first_maximum<Comp>{comp}.merge(a.max, b.max)};
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
/// difference type (CUB's DeviceReduce::ArgMin semantics). Ties go to the earliest item. `comp` is
/// a strict weak ordering of the items (`comp(a, b)`: a ranks before b), rk::less by default, and
/// must be callable on the device for GPU policies. Under the default, NaN is neither a minimum nor
/// a maximum: any number wins over it, and only an all-NaN range returns a NaN (its first); a
/// caller's comparator is its own rule. An empty range returns `{value_type(), -1}` and compares
/// nothing.
///
/// \code
/// rk::arg_result<float, std::ptrdiff_t> m = rk::arg_min(rk::device, v.begin(), v.end());
/// auto nearest = rk::arg_min(rk::device, v.begin(), v.end(), by_magnitude{}); // |a| < |b|
/// \endcode
template <class Policy, class InputIt, class Compare = less, class = std::enable_if_t<is_execution_policy_v<Policy>>>
detail::arg_result_t<InputIt> arg_min(Policy&& policy, InputIt first, InputIt last, Compare comp = {})
{
  return detail::arg_reduce(policy.derived(), detail::indexed(first), detail::indexed(last),
                            detail::empty_arg_result<InputIt>(), detail::first_minimum<Compare>{comp});
}

/// The first maximum of [first, last) and its position; otherwise as rk::arg_min.
template <class Policy, class InputIt, class Compare = less, class = std::enable_if_t<is_execution_policy_v<Policy>>>
detail::arg_result_t<InputIt> arg_max(Policy&& policy, InputIt first, InputIt last, Compare comp = {})
{
  return detail::arg_reduce(policy.derived(), detail::indexed(first), detail::indexed(last),
                            detail::empty_arg_result<InputIt>(), detail::first_maximum<Compare>{comp});
}

/// The last maximum of [first, last) and its position: among equal maxima the latest item (CUB's
/// ArgMinLastMax); under the default ordering an all-NaN range returns its last item. Otherwise as
/// rk::arg_max.
template <class Policy, class InputIt, class Compare = less, class = std::enable_if_t<is_execution_policy_v<Policy>>>
detail::arg_result_t<InputIt> arg_max_last(Policy&& policy, InputIt first, InputIt last, Compare comp = {})
{
  return detail::arg_reduce(policy.derived(), detail::indexed(first), detail::indexed(last),
                            detail::empty_arg_result<InputIt>(), detail::last_maximum<Compare>{comp});
}

/// rk::arg_min and rk::arg_max in one pass over the items: `{min, max}`.
template <class Policy, class InputIt, class Compare = less, class = std::enable_if_t<is_execution_policy_v<Policy>>>
arg_min_max_result<detail::arg_item_t<InputIt>, detail::arg_index_t<InputIt>> arg_min_max(Policy&& policy,
                                                                                          InputIt first, InputIt last,
                                                                                          Compare comp = {})
{
  using result = arg_min_max_result<detail::arg_item_t<InputIt>, detail::arg_index_t<InputIt>>;
  return detail::arg_reduce(policy.derived(), detail::indexed_min_max(first), detail::indexed_min_max(last),
                            result{detail::empty_arg_result<InputIt>(), detail::empty_arg_result<InputIt>()},
                            detail::first_minimum_maximum<Compare>{comp});
}
} // namespace rk

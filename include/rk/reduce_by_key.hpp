#pragma once
// rk::reduce_by_key on every policy, in rk's form (with init) and Thrust's (without). Each form
// calls `reduce_by_key_dispatch<T>`, which each policy header overloads; the GPU builds it on
// rk::segmented_reduce (rk/cuda/dispatch/reduce_by_key.cuh).

#include <rk/detail/segments.hpp>
#include <rk/flat_reduce.hpp>
#include <rk/functional.hpp>

#include <iterator>
#include <type_traits>
#include <utility>

namespace rk
{
template <class T, class Derived, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class Init, class BinaryOp,
          class KeyEqual>
std::pair<KeyOut, ValueOut> reduce_by_key_dispatch(const execution_policy<Derived>&, KeyIt, KeyIt, ValueIt,
                                                   KeyOut keys_out, ValueOut values_out, const Init&, BinaryOp,
                                                   KeyEqual)
{
  static_assert(detail::dependent_false_v<Derived>,
                "rk::reduce_by_key is not implemented for this execution policy; for GPU policies include "
                "<rk/reduce.cuh> (compiled by nvcc) rather than <rk/reduce.hpp>");
  return {keys_out, values_out};
}

namespace detail
{
template <class F, class = void>
struct has_call_operator : std::false_type
{};
template <class F>
struct has_call_operator<F, std::void_t<decltype(&F::operator())>> : std::true_type
{};

/// Whether the argument after values_out is Thrust's key comparison (no init) rather than rk's
/// init: a comparison answers bool for two keys. An init whose type is also callable (a matrix
/// with an element accessor m(i, j), an affine map applied as f(x)) is told apart by `op`: where
/// op can fold a value into it, it is init. op is asked only then, so an unconstrained generic op
/// is never instantiated with a comparison.
template <class F, class Key, class Op, class Value>
constexpr bool is_key_comparison()
{
  if constexpr (std::is_invocable_v<const F&, const Key&, const Key&>)
  {
    if constexpr (std::is_same_v<
                    std::remove_cv_t<std::remove_reference_t<std::invoke_result_t<const F&, const Key&, const Key&>>>,
                    bool>)
    {
      return true;
    }
    else
    {
      return !std::is_invocable_v<Op&, const F&, const Value&>;
    }
  }
  else if constexpr (has_call_operator<F>::value || std::is_pointer_v<F>)
  {
    // Callable, but not on two keys: a comparison of the wrong key type (Thrust's form reports
    // it), unless op folds values into it.
    return !std::is_invocable_v<Op&, const F&, const Value&>;
  }
  else
  {
    return false;
  }
}

template <class It>
using iterator_value_t = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;

template <class KeyOut, class ValueOut, class Key, class T>
constexpr void check_by_key_outputs()
{
  static_assert(output_takes<KeyOut, Key>(), "rk::reduce_by_key: keys_out cannot take the keys' value type");
  static_assert(output_takes<ValueOut, T>(),
                "rk::reduce_by_key: values_out cannot take a T, the accumulator type (init's type in rk's form, "
                "the values' value type in Thrust's). Pass init of values_out's element type, e.g. 0.0f for a "
                "float output");
}
} // namespace detail

/// Reduces each run of consecutive equal keys: for the r-th run [b, e) of [keys_first, keys_last)
/// (key i joins the run of key i-1 when key_equal(key[i-1], key[i])), writes keys_out[r] = key[b]
/// and values_out[r] = init ⊕ values[b] ⊕ … ⊕ values[e-1], in order, init once per run on the
/// left; T, the type of init, is the accumulator. Returns the ends of the two outputs, as
/// thrust::reduce_by_key does (a std::pair, which converts to thrust::pair). Each run's value has
/// rk::segmented_reduce's (and so rk::reduce's) bits over the run's values. GPU policies wait for
/// the result (the number of runs is needed on the host).
///
/// \code
/// auto [keys_end, sums_end] = rk::reduce_by_key(rk::device, keys.begin(), keys.end(), values.begin(),
///                                               out_keys.begin(), out_sums.begin(), 0.0f, rk::plus{});
/// \endcode
template <class Policy, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class T, class BinaryOp,
          class KeyEqual = equal_to,
          class          = std::enable_if_t<is_execution_policy_v<Policy>
                                            && !detail::is_key_comparison<T, detail::iterator_value_t<KeyIt>, BinaryOp,
                                                                          detail::iterator_value_t<ValueIt>>()>>
std::pair<KeyOut, ValueOut> reduce_by_key(Policy&& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                                          KeyOut keys_out, ValueOut values_out, T init, BinaryOp op,
                                          KeyEqual key_equal = {})
{
  detail::check_by_key_outputs<KeyOut, ValueOut, detail::iterator_value_t<KeyIt>, T>();
  return reduce_by_key_dispatch<T>(policy.derived(), keys_first, keys_last, values_first, keys_out, values_out, init,
                                   std::move(op), std::move(key_equal));
}

/// Thrust's form: no init, each run starts from its first value; the accumulator is the values'
/// value_type. `key_equal` defaults to rk::equal_to, `op` to rk::plus.
template <class Policy, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class KeyEqual, class BinaryOp,
          class = std::enable_if_t<is_execution_policy_v<Policy>
                                   && detail::is_key_comparison<KeyEqual, detail::iterator_value_t<KeyIt>, BinaryOp,
                                                                detail::iterator_value_t<ValueIt>>()>>
std::pair<KeyOut, ValueOut> reduce_by_key(Policy&& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                                          KeyOut keys_out, ValueOut values_out, KeyEqual key_equal, BinaryOp op)
{
  detail::check_by_key_outputs<KeyOut, ValueOut, detail::iterator_value_t<KeyIt>, detail::iterator_value_t<ValueIt>>();
  return reduce_by_key_dispatch<detail::iterator_value_t<ValueIt>>(policy.derived(), keys_first, keys_last,
                                                                   values_first, keys_out, values_out,
                                                                   detail::no_segment_init{}, std::move(op),
                                                                   std::move(key_equal));
}

/// With one argument after values_out: Thrust's key comparison (op rk::plus), or rk's init (op
/// rk::plus, keys compared with rk::equal_to), told apart as above.
template <class Policy, class KeyIt, class ValueIt, class KeyOut, class ValueOut, class KeyEqualOrInit,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
std::pair<KeyOut, ValueOut> reduce_by_key(Policy&& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                                          KeyOut keys_out, ValueOut values_out, KeyEqualOrInit key_equal_or_init)
{
  return reduce_by_key(std::forward<Policy>(policy), keys_first, keys_last, values_first, keys_out, values_out,
                       std::move(key_equal_or_init), plus{});
}

template <class Policy, class KeyIt, class ValueIt, class KeyOut, class ValueOut,
          class = std::enable_if_t<is_execution_policy_v<Policy>>>
std::pair<KeyOut, ValueOut> reduce_by_key(Policy&& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                                          KeyOut keys_out, ValueOut values_out)
{
  return reduce_by_key(std::forward<Policy>(policy), keys_first, keys_last, values_first, keys_out, values_out,
                       equal_to{}, plus{});
}
} // namespace rk

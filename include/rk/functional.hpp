#pragma once
/// \file
/// Binary operators for rk::reduce and the rk::is_commutative trait.
///
/// Every rk backend needs the operator to be associative. Only rk::atomic also needs it to be
/// commutative, because hardware atomics combine block partials in whatever order blocks finish;
/// rk::device consults rk::is_commutative before it considers that backend.
///
/// \code
/// struct my_first { template <class T> RK_HOST_DEVICE T operator()(T a, T) const { return a; } };
/// // my_first is associative but not commutative: rk::is_commutative<my_first> stays false.
/// struct my_sum { ... };
/// template <> struct rk::is_commutative<my_sum> : std::true_type {};
/// \endcode

#include <rk/detail/config.hpp>

#include <functional>
#include <type_traits>
#include <utility>

namespace rk
{
/// `a + b`. Transparent (templated call operator), usable on host and device.
struct plus
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a + b)
  {
    return a + b;
  }
};

/// `a == b`: rk::reduce_by_key's default key comparison. Transparent, usable on host and device.
struct equal_to
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr bool operator()(const A& a, const B& b) const
  {
    return a == b;
  }
};

/// `a < b`: the default ordering of rk::arg_min, rk::arg_max and their family. Transparent,
/// usable on host and device.
struct less
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr bool operator()(const A& a, const B& b) const
  {
    return a < b;
  }
};

/// `a * b`. Unsigned integers wrap modulo 2^bits, which keeps products associative.
struct multiplies
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a * b)
  {
    return a * b;
  }
};

/// The smaller operand; on a tie, the left one. For floating point, NaN propagates:
/// if either operand is NaN the result is NaN, whatever the order, so every backend and every
/// tree shape returns NaN for an input holding one.
struct minimum
{
  using is_transparent = void;
  template <class T>
  RK_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const
  {
    if constexpr (std::is_floating_point_v<T>)
    {
      return (b < a || b != b) ? b : a; // b != b: b is NaN; a NaN `a` falls through to `a`
    }
    else
    {
      return (b < a) ? b : a;
    }
  }
};

/// The larger operand; on a tie, the left one. NaN propagates as for rk::minimum.
struct maximum
{
  using is_transparent = void;
  template <class T>
  RK_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const
  {
    if constexpr (std::is_floating_point_v<T>)
    {
      return (a < b || b != b) ? b : a;
    }
    else
    {
      return (a < b) ? b : a;
    }
  }
};

/// `a & b`.
struct bit_and
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a & b)
  {
    return a & b;
  }
};

/// `a | b`.
struct bit_or
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a | b)
  {
    return a | b;
  }
};

/// `a ^ b`.
struct bit_xor
{
  using is_transparent = void;
  template <class A, class B>
  RK_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a ^ b)
  {
    return a ^ b;
  }
};

/// True when `op(a, b) == op(b, a)` for all operands. False unless specialized: a wrong `true`
/// lets rk::atomic (and rk::device's choice of it) return a wrong answer for that operator.
/// Specialize it for your own commutative operators to make rk::atomic available to them.
template <class Op>
struct is_commutative : std::false_type
{};

template <class Op>
inline constexpr bool is_commutative_v = is_commutative<std::remove_cv_t<std::remove_reference_t<Op>>>::value;

// clang-format off
template <> struct is_commutative<plus>       : std::true_type {};
template <> struct is_commutative<multiplies> : std::true_type {};
template <> struct is_commutative<minimum>    : std::true_type {};
template <> struct is_commutative<maximum>    : std::true_type {};
template <> struct is_commutative<bit_and>    : std::true_type {};
template <> struct is_commutative<bit_or>     : std::true_type {};
template <> struct is_commutative<bit_xor>    : std::true_type {};

template <class T> struct is_commutative<std::plus<T>>       : std::true_type {};
template <class T> struct is_commutative<std::multiplies<T>> : std::true_type {};
template <class T> struct is_commutative<std::bit_and<T>>    : std::true_type {};
template <class T> struct is_commutative<std::bit_or<T>>     : std::true_type {};
template <class T> struct is_commutative<std::bit_xor<T>>    : std::true_type {};
// clang-format on
// The cuda::std:: and cuda:: (and so thrust::, which aliases them) specializations live in
// rk/cuda/functional.cuh, since naming those types needs the CUDA toolkit's headers.
} // namespace rk

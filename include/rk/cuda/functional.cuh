#pragma once
// rk::is_commutative for the operators of libcu++ and Thrust (thrust::plus and friends are
// aliases of these in CCCL 3).

#include <rk/functional.hpp>

#include <cuda/functional>
#include <cuda/std/functional>

namespace rk
{
// clang-format off
template <class T> struct is_commutative<::cuda::std::plus<T>>       : std::true_type {};
template <class T> struct is_commutative<::cuda::std::multiplies<T>> : std::true_type {};
template <class T> struct is_commutative<::cuda::std::bit_and<T>>    : std::true_type {};
template <class T> struct is_commutative<::cuda::std::bit_or<T>>     : std::true_type {};
template <class T> struct is_commutative<::cuda::std::bit_xor<T>>    : std::true_type {};
template <class T> struct is_commutative<::cuda::minimum<T>>         : std::true_type {};
template <class T> struct is_commutative<::cuda::maximum<T>>         : std::true_type {};
// clang-format on
} // namespace rk

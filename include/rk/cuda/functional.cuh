#pragma once
// rk::is_commutative for the operators of libcu++ and Thrust (thrust::plus and friends are
// aliases of these in CCCL 3), and the device twins of the standard library's function objects.

#include <rk/functional.hpp>

#include <cuda/functional>
#include <cuda/std/functional>

#include <functional>

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

namespace detail
{
/// The operator a kernel calls for `Op`. std::plus and its kin have host-only call operators, so
/// a GPU policy swaps each for its cuda::std:: twin (same semantics, callable on the device);
/// every other operator is used as given.
template <class Op>
struct device_operator
{
  using type = Op;
  static const Op& get(const Op& op)
  {
    return op;
  }
};

// clang-format off
#define RK_DEVICE_TWIN(name)                                                                  \
  template <class T> struct device_operator<std::name<T>>                                     \
  {                                                                                           \
    using type = ::cuda::std::name<T>;                                                        \
    static type get(const std::name<T>&) { return {}; }                                       \
  };
RK_DEVICE_TWIN(plus)
RK_DEVICE_TWIN(multiplies)
RK_DEVICE_TWIN(bit_and)
RK_DEVICE_TWIN(bit_or)
RK_DEVICE_TWIN(bit_xor)
RK_DEVICE_TWIN(logical_and)
RK_DEVICE_TWIN(logical_or)
#undef RK_DEVICE_TWIN
// clang-format on

template <class Op>
using device_operator_t = typename device_operator<Op>::type;

template <class Op>
decltype(auto) to_device_operator(const Op& op)
{
  return device_operator<Op>::get(op);
}
} // namespace detail
} // namespace rk

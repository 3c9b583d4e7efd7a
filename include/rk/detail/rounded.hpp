#pragma once
// Products that are never fused into a following addition, and quotients that stay IEEE ones. nvcc contracts `a * b +
// c` into one FMA by default and a host compiler may or may not (g++ does when the target has FMA): the same source
// would then compute different functions on the two sides, and rk's same-bits promise holds only for operators that
// compute the same function everywhere. An explicitly rounded product keeps every step of an expression one IEEE
// operation on both.

#include <rk/detail/config.hpp>

#include <type_traits>

namespace rk::detail
{
template <class T>
RK_HOST_DEVICE inline T rounded_product(T a, T b)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
  {
    return __fmul_rn(a, b);
  }
  else if constexpr (std::is_same_v<T, double>)
  {
    return __dmul_rn(a, b);
  }
  else
  {
    return a * b;
  }
#else
  // A volatile result is one the compiler must produce as a value: it cannot fuse it into a sum.
  volatile T product = a * b;
  return product;
#endif
}

/// a / b rounded to nearest on host and device alike; on the device also where nvcc's
/// -prec-div=false (--use_fast_math) would make `/` an approximation.
template <class T>
RK_HOST_DEVICE inline T rounded_quotient(T a, T b)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
  {
    return __fdiv_rn(a, b);
  }
  else if constexpr (std::is_same_v<T, double>)
  {
    return __ddiv_rn(a, b);
  }
  else
  {
    return a / b;
  }
#else
  return a / b;
#endif
}
} // namespace rk::detail

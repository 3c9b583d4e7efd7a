#pragma once
// Integer helpers every layer uses: the one ceiling division, division with its remainder,
// floor(log2), and rounding up to a multiple.

#include <rk/detail/config.hpp>

#include <cstdint>
#include <type_traits>

namespace rk::detail
{
/// ceil(a / b) for a >= 0 and b > 0. Divides in 32 bits where both operands fit: a 64-bit
/// division is a long instruction sequence on the GPU, and the segment planner divides once per
/// listed segment.
template <class I>
RK_HOST_DEVICE constexpr I ceil_div(I a, I b)
{
  static_assert(std::is_integral_v<I>, "ceil_div divides integers");
  if constexpr (sizeof(I) > 4)
  {
    if (((static_cast<std::uint64_t>(a) | static_cast<std::uint64_t>(b)) >> 32) == 0)
    {
      const auto a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
      return static_cast<I>(a32 / b32 + (a32 % b32 != 0));
    }
  }
  return a / b + (a % b != 0);
}

/// a / b and a % b for a >= 0 and b > 0, in 32 bits where both operands fit (as ceil_div): every
/// block of a partial, and of a reduction whose count only the GPU knows (rk::device_count), makes
/// its tree split before its first load, so the split's divisions are on the critical path.
template <class I>
struct quotient
{
  I quot;
  I rem;
};

template <class I>
RK_HOST_DEVICE constexpr quotient<I> divide(I a, I b)
{
  static_assert(std::is_integral_v<I>, "divide divides integers");
  if constexpr (sizeof(I) > 4)
  {
    if (((static_cast<std::uint64_t>(a) | static_cast<std::uint64_t>(b)) >> 32) == 0)
    {
      const auto a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
      const std::uint32_t q = a32 / b32;
      return {static_cast<I>(q), static_cast<I>(a32 - q * b32)};
    }
  }
  const I q = a / b;
  return {q, a - q * b};
}

/// floor(log2(x)) for x >= 1, and 0 for x < 1: six steps, no loop (the plan takes it twice).
RK_HOST_DEVICE constexpr int floor_log2(std::int64_t x)
{
  auto u = static_cast<std::uint64_t>(x < 1 ? 1 : x);
  int l  = 0;
  for (int step = 32; step > 0; step /= 2)
  {
    if ((u >> step) != 0)
    {
      u >>= step;
      l += step;
    }
  }
  return l;
}

/// ceil(a / Divisor) for a divisor known at compile time: a shift or a multiply and no branch, for
/// the kernels' per-tile and per-segment arithmetic (the 32-bit test above cost the segment
/// kernels' short paths up to 17 %, H100).
template <auto Divisor, class I>
RK_HOST_DEVICE constexpr I ceil_div(I a)
{
  static_assert(std::is_integral_v<I> && Divisor > 0, "ceil_div divides integers by a positive divisor");
  return static_cast<I>(a / static_cast<I>(Divisor) + (a % static_cast<I>(Divisor) != 0));
}

/// `bytes` rounded up to a multiple of `to`.
RK_HOST_DEVICE constexpr std::size_t align_up(std::size_t bytes, std::size_t to)
{
  return ceil_div(bytes, to) * to;
}
} // namespace rk::detail

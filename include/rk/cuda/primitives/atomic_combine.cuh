#pragma once
// The atomic routes rk::atomic uses to combine a block's result into the output: a hardware
// read-modify-write where (T, op) has one, a compare-and-swap loop for any other commutative op
// on a 4- or 8-byte trivially copyable T.

#include <rk/cuda/functional.cuh>
#include <rk/cuda/primitives/warp_reduce.cuh>

#include <cuda/atomic>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/type_traits>

#include <type_traits>

namespace rk::detail
{
enum class atomic_kind
{
  compare_and_swap,
  add,
  min,
  max,
  bit_and,
  bit_or,
  bit_xor
};

template <class Op, class T>
constexpr atomic_kind atomic_kind_of()
{
  using std::is_same_v;
  // clang-format off
  // The std:: function objects never get here: dispatch maps them to their cuda::std:: twins.
  if constexpr (is_same_v<Op, rk::plus> || is_same_v<Op, ::cuda::std::plus<T>> || is_same_v<Op, ::cuda::std::plus<>>)
    return atomic_kind::add;
  else if constexpr (!std::is_integral_v<T>)
    return atomic_kind::compare_and_swap; // float min/max keep rk::minimum's NaN rule through CAS
  else if constexpr (is_same_v<Op, rk::minimum> || is_same_v<Op, ::cuda::minimum<T>> || is_same_v<Op, ::cuda::minimum<>>)
    return atomic_kind::min;
  else if constexpr (is_same_v<Op, rk::maximum> || is_same_v<Op, ::cuda::maximum<T>> || is_same_v<Op, ::cuda::maximum<>>)
    return atomic_kind::max;
  else if constexpr (is_same_v<Op, rk::bit_and> || is_same_v<Op, ::cuda::std::bit_and<T>> || is_same_v<Op, ::cuda::std::bit_and<>>)
    return atomic_kind::bit_and;
  else if constexpr (is_same_v<Op, rk::bit_or> || is_same_v<Op, ::cuda::std::bit_or<T>> || is_same_v<Op, ::cuda::std::bit_or<>>)
    return atomic_kind::bit_or;
  else if constexpr (is_same_v<Op, rk::bit_xor> || is_same_v<Op, ::cuda::std::bit_xor<T>> || is_same_v<Op, ::cuda::std::bit_xor<>>)
    return atomic_kind::bit_xor;
  else
    return atomic_kind::compare_and_swap;
  // clang-format on
}

template <class Op, class T>
inline constexpr atomic_kind atomic_kind_v = atomic_kind_of<Op, T>();

/// Whether rk::atomic can combine T with Op at all.
template <class T, class Op>
inline constexpr bool has_atomic_route_v = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)
                                        && (atomic_kind_v<Op, T> != atomic_kind::add || std::is_arithmetic_v<T>);

template <class T, class Op>
__device__ void atomic_combine(T* target, const T& value, Op& op)
{
  ::cuda::atomic_ref<T, ::cuda::thread_scope_device> ref(*target);
  constexpr auto relaxed     = ::cuda::std::memory_order_relaxed;
  constexpr atomic_kind kind = atomic_kind_v<Op, T>;
  if constexpr (kind == atomic_kind::add)
  {
    ref.fetch_add(value, relaxed);
  }
  else if constexpr (kind == atomic_kind::min)
  {
    ref.fetch_min(value, relaxed);
  }
  else if constexpr (kind == atomic_kind::max)
  {
    ref.fetch_max(value, relaxed);
  }
  else if constexpr (kind == atomic_kind::bit_and)
  {
    ref.fetch_and(value, relaxed);
  }
  else if constexpr (kind == atomic_kind::bit_or)
  {
    ref.fetch_or(value, relaxed);
  }
  else if constexpr (kind == atomic_kind::bit_xor)
  {
    ref.fetch_xor(value, relaxed);
  }
  else
  {
    // On the bits, through an unsigned word: atomic_ref<T>'s load and compare-exchange would
    // default-construct T, which rk never requires.
    using word = ::cuda::std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
    ::cuda::atomic_ref<word, ::cuda::thread_scope_device> bits(*reinterpret_cast<word*>(target));
    word expected = bits.load(relaxed);
    word desired;
    do
    {
      uninitialized<T> current;
      __builtin_memcpy(&current, &expected, sizeof(T));
      const T next = op(current.value, value);
      __builtin_memcpy(&desired, &next, sizeof(T));
    } while (!bits.compare_exchange_weak(expected, desired, relaxed, relaxed));
  }
}
} // namespace rk::detail

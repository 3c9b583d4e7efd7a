#pragma once
// Warp-level building blocks: storage for a T that may have no default constructor, a shuffle
// for any trivially copyable T, and an order-preserving warp reduction.
//
// Order: every combine below is op(left, right) of two adjacent, left-to-right segments, so the
// results are exact for associative operators that do not commute. No lane ever combines with a
// value that is not its right-hand neighbour, so `op` never sees an invalid operand.

#include <cuda/std/type_traits>

#include <cstdint>
#include <new>

namespace rk::detail
{
inline constexpr int warp_threads = 32;

/// Storage for one T, left unconstructed until `emplace`; T needs no default constructor.
/// GPU policies require trivially copyable T, so no destructor is ever owed.
template <class T>
union uninitialized
{
  unsigned char none;
  T value;

  __host__ __device__ constexpr uninitialized() noexcept
      : none()
  {}
  __device__ void emplace(const T& v)
  {
    ::new (static_cast<void*>(&value)) T(v);
  }
};

/// An accumulator that starts empty: the first fold stores its operand, later ones combine
/// on the right. This is how rk avoids assuming an identity element.
template <class T>
struct maybe
{
  uninitialized<T> slot;
  bool valid = false;

  __device__ void set(const T& v)
  {
    slot.emplace(v);
    valid = true;
  }

  template <class Op>
  __device__ void fold(const T& right, Op& op)
  {
    if (valid)
    {
      slot.value = op(slot.value, right);
    }
    else
    {
      slot.emplace(right);
      valid = true;
    }
  }
};

/// A warp shuffle of any trivially copyable T, one 32-bit word at a time: `shuffle(word)` is the
/// __shfl_*_sync of one word.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& x, Shuffle&& shuffle)
{
  constexpr int words         = (sizeof(T) + 3) / 4;
  std::uint32_t buffer[words] = {};
  __builtin_memcpy(buffer, &x, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i)
  {
    buffer[i] = shuffle(buffer[i]);
  }
  uninitialized<T> out;
  __builtin_memcpy(&out, buffer, sizeof(T));
  return out.value;
}

/// __shfl_down_sync for any trivially copyable T.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& x, unsigned delta)
{
  return shuffle_words(x, [delta](std::uint32_t w) { return __shfl_down_sync(0xffffffffu, w, delta); });
}

/// Lane 0's value, in every lane.
template <class T>
__device__ __forceinline__ T broadcast_lane0(const T& x)
{
  return shuffle_words(x, [](std::uint32_t w) { return __shfl_sync(0xffffffffu, w, 0); });
}

/// Reduces the values of lanes [0, valid_lanes) in lane order; the result is valid in lane 0.
/// All 32 lanes must call it. Lanes at or past `valid_lanes` may hold anything: they are never
/// combined. After step d, lane l holds lanes [l, min(l + 2d, valid_lanes)) reduced.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op& op, int lane, int valid_lanes = warp_threads)
{
#pragma unroll
  for (int delta = 1; delta < warp_threads; delta *= 2)
  {
    const T right = shuffle_down(x, delta);
    if (lane + delta < valid_lanes)
    {
      x = op(x, right);
    }
  }
  return x;
}
} // namespace rk::detail

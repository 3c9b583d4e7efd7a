#pragma once
// Warp-level building blocks: storage for a T that may have no default constructor, a shuffle
// for any trivially copyable T, and an order-preserving warp reduction.
//
// Order: every combine below is op(left, right) of two adjacent, left-to-right segments, so the
// results are exact for associative operators that do not commute. No lane ever combines with a
// value that is not its right-hand neighbour, so `op` never sees an invalid operand.

#include <cuda/std/bit>
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

/// __shfl_xor_sync for any trivially copyable T.
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& x, int mask)
{
  return shuffle_words(x, [mask](std::uint32_t w) { return __shfl_xor_sync(0xffffffffu, w, mask); });
}

/// Lane `source`'s value (each lane may name another).
template <class T>
__device__ __forceinline__ T shuffle_from(const T& x, int source)
{
  return shuffle_words(x, [source](std::uint32_t w) { return __shfl_sync(0xffffffffu, w, source); });
}

/// c ? x : y, a word at a time: a choice of values in registers. `c ? x : y` of two lvalues
/// chooses between their addresses, which put a batch of states in local memory (20 LDL in
/// rk::mean_var's rows kernel, and 4-12 % slower rows and segments).
template <class T>
__device__ __forceinline__ T select_words(bool c, const T& x, const T& y)
{
  constexpr int words         = (sizeof(T) + 3) / 4;
  std::uint32_t chosen[words] = {};
  std::uint32_t other[words]  = {};
  __builtin_memcpy(chosen, &x, sizeof(T));
  __builtin_memcpy(other, &y, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i)
  {
    chosen[i] = c ? chosen[i] : other[i];
  }
  uninitialized<T> out;
  __builtin_memcpy(&out, chosen, sizeof(T));
  return out.value;
}

/// The bitwise or of every lane's `bits`, in every lane. All 32 lanes must call it.
__device__ __forceinline__ unsigned warp_or(unsigned bits)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xffffffffu, bits);
#else
#  pragma unroll
  for (int delta = warp_threads / 2; delta > 0; delta /= 2)
  {
    bits |= __shfl_xor_sync(0xffffffffu, bits, delta);
  }
  return bits;
#endif
}

/// Lane 0's value, in every lane.
template <class T>
__device__ __forceinline__ T broadcast_lane0(const T& x)
{
  return shuffle_from(x, 0);
}

/// Reduces the values of lanes [0, valid_lanes) in lane order; the result is valid in lane 0.
/// All 32 lanes must call it. Lanes at or past `valid_lanes` may hold anything: they are never
/// combined. After step d, lane l holds lanes [l, min(l + 2d, valid_lanes)) reduced. From
/// FirstDelta > 1 (a power of two), the steps before it are taken as done: lane l already holds
/// lanes [l, l + FirstDelta) reduced (warp_reduce_tiles).
/// With Width < 32 (a power of two), the warp is groups of Width lanes, `lane` is a thread's place
/// in its group and valid_lanes <= Width: the same steps, each group's own, without the ones no
/// group can take, and each group's result is valid in its first lane (32-item int32 segments on
/// groups of four lanes: 1.7 % less time, H100).
template <int FirstDelta = 1, int Width = warp_threads, class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op& op, int lane, int valid_lanes = Width)
{
  static_assert(Width >= 1 && Width <= warp_threads && (Width & (Width - 1)) == 0, "a power of two up to 32 lanes");
#pragma unroll
  for (int delta = FirstDelta; delta < Width; delta *= 2)
  {
    const T right = shuffle_down(x, delta);
    if (lane + delta < valid_lanes)
    {
      x = op(x, right);
    }
  }
  return x;
}

/// warp_reduce over each of `Tiles` full tiles at once (a power of two up to 32; every lane holds
/// a value of every tile: `v[u]` is this lane's value of tile u), node for node the same trees.
/// Where warp_reduce, called once a tile, has all 32 lanes combine at each of its five levels,
/// here the first log2(Tiles) levels split the tiles between the two lanes of each pair (the
/// lower lane keeps the first half, the upper the second, and each sends the other its half), so
/// a lane combines Tiles - 1 + 5 - log2(Tiles) times for all the tiles instead of 5 Tiles times,
/// and shuffles as many values. Tile u's value ends in lane first_lane + u, for u < Tiles; every
/// lane must call it. `v` is spent.
template <int Tiles, class T, class Op>
__device__ __forceinline__ T warp_reduce_tiles(uninitialized<T> (&v)[Tiles], Op& op, int lane, int first_lane)
{
  static_assert(Tiles >= 1 && Tiles <= warp_threads && (Tiles & (Tiles - 1)) == 0, "a power of two up to 32 tiles");
  constexpr int split_levels = cuda::std::bit_width(static_cast<unsigned>(Tiles)) - 1;
#pragma unroll
  for (int delta = 1; delta < Tiles; delta *= 2)
  {
    const bool upper = (lane & delta) != 0;
    const int kept   = Tiles / (2 * delta);
#pragma unroll
    for (int i = 0; i < kept; ++i)
    {
      // Lane l + delta's node of a tile is always the right operand of lane l's.
      const T got = shuffle_xor(select_words(upper, v[i].value, v[i + kept].value), delta);
      v[i].emplace(op(select_words(upper, got, v[i].value), select_words(upper, v[i + kept].value, got)));
    }
  }
  // Lane l now holds the tile whose number is l's low split_levels bits reversed; lane l + Tiles
  // holds the same tile's next node.
  const T x        = warp_reduce<Tiles>(v[0].value, op, lane);
  const unsigned u = static_cast<unsigned>(lane - first_lane) & (Tiles - 1);
  return shuffle_from(x, split_levels == 0 ? 0 : static_cast<int>(__brev(u) >> (32 - split_levels)));
}
} // namespace rk::detail

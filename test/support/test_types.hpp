#pragma once
// Operators and element types the property tests use, on host and device.
// The non-commutative ones are associative with exact (integer, mod 2^32) arithmetic, so any
// reordering or misplaced `init` shows up as a wrong answer, not as rounding.

#include "spread.hpp"

#include <rk/detail/config.hpp>

#include <cstdint>
#include <type_traits>

namespace rk_test
{
/// A half-open interval [begin, end). begin < 0 marks a segment poisoned by a bad merge.
struct segment
{
  std::int64_t begin;
  std::int64_t end;
  friend RK_HOST_DEVICE bool operator==(const segment& a, const segment& b)
  {
    return a.begin == b.begin && a.end == b.end;
  }
};

/// Merges two intervals only if the left one ends where the right one begins; anything else
/// (out of order, overlapping, gap, already poisoned) poisons the result. Reducing the segments
/// [i, i+1) for i in [0, n) with init [-k, 0) gives exactly [-k, n) only if every combine was
/// adjacent and left to right and init was applied once, on the left.
struct segment_merge
{
  static constexpr std::int64_t poison = -(std::int64_t{1} << 62);

  RK_HOST_DEVICE segment operator()(const segment& a, const segment& b) const
  {
    if (a.begin == poison || b.begin == poison || a.end != b.begin)
    {
      return segment{poison, poison};
    }
    return segment{a.begin, b.end};
  }
};

/// segment_merge with a start marker for rk::segmented_reduce, whose one `init` serves segments
/// that start anywhere: marker ⊕ [b, e) = [b - start_shift, e); a marker anywhere but leftmost, or
/// twice, poisons. Reducing segment [b, e) of the items [i, i+1) from the marker gives exactly
/// [b - start_shift, e) only if init was applied once, on the left, and every combine was adjacent
/// and in order. Associative on every sequence the marker starts.
struct marker_merge
{
  static constexpr std::int64_t marker_begin = -(std::int64_t{1} << 61);
  static constexpr std::int64_t start_shift  = std::int64_t{1} << 40;

  static RK_HOST_DEVICE segment marker()
  {
    return segment{marker_begin, marker_begin};
  }
  RK_HOST_DEVICE segment operator()(const segment& a, const segment& b) const
  {
    if (b.begin == marker_begin || b.begin == segment_merge::poison || a.begin == segment_merge::poison)
    {
      return segment{segment_merge::poison, segment_merge::poison};
    }
    if (a.begin == marker_begin)
    {
      return segment{b.begin - start_shift, b.end};
    }
    return segment_merge{}(a, b);
  }
};

/// Item i -> [i, i+1).
struct to_segment
{
  RK_HOST_DEVICE segment operator()(std::int64_t i) const
  {
    return segment{i, i + 1};
  }
};

/// Item i -> i.
struct index_identity
{
  RK_HOST_DEVICE std::int64_t operator()(std::int64_t i) const
  {
    return i;
  }
};

/// An operator that must never run: the empty-range tests pass it.
struct must_not_be_called
{
  template <class T>
  RK_HOST_DEVICE T operator()(const T& a, const T&) const
  {
#if defined(__CUDA_ARCH__)
    __trap();
#else
    throw "rk_test::must_not_be_called was called";
#endif
    return a;
  }
};

/// 2x2 matrix of uint32 (16 bytes), multiplied mod 2^32: associative, not commutative.
struct mat2
{
  std::uint32_t a, b, c, d;
  friend RK_HOST_DEVICE bool operator==(const mat2& x, const mat2& y)
  {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
  }
};

struct mat2_multiply
{
  RK_HOST_DEVICE mat2 operator()(const mat2& x, const mat2& y) const
  {
    return mat2{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};

/// x -> a*x + b (mod 2^32), 8 bytes.
struct affine
{
  std::uint32_t a, b;
  friend RK_HOST_DEVICE bool operator==(const affine& x, const affine& y)
  {
    return x.a == y.a && x.b == y.b;
  }
};

/// compose(f, g) = g after f: x -> g(f(x)). Associative, not commutative.
struct affine_compose
{
  RK_HOST_DEVICE affine operator()(const affine& f, const affine& g) const
  {
    return affine{g.a * f.a, g.a * f.b + g.b};
  }
};

/// "The first element": associative, not commutative; the answer is init.
struct take_first
{
  template <class T>
  RK_HOST_DEVICE T operator()(const T& a, const T&) const
  {
    return a;
  }
};

/// A user type with no default constructor (and an explicit one), trivially copyable.
struct no_default
{
  explicit RK_HOST_DEVICE no_default(std::int32_t v)
      : value(v)
  {}
  std::int32_t value;
  friend RK_HOST_DEVICE bool operator==(const no_default& x, const no_default& y)
  {
    return x.value == y.value;
  }
};

struct no_default_plus
{
  RK_HOST_DEVICE no_default operator()(const no_default& x, const no_default& y) const
  {
    return no_default(x.value + y.value);
  }
};

/// Element i -> no_default(i % 7 - 3).
struct to_no_default
{
  RK_HOST_DEVICE no_default operator()(std::int64_t i) const
  {
    return no_default(static_cast<std::int32_t>(i % 7) - 3);
  }
};

static_assert(std::is_trivially_copyable_v<segment> && std::is_trivially_copyable_v<mat2>
              && std::is_trivially_copyable_v<affine> && std::is_trivially_copyable_v<no_default>);
static_assert(!std::is_default_constructible_v<no_default>);
static_assert(sizeof(mat2) == 16 && sizeof(affine) == 8);

/// Item i as a random affine map or 2x2 matrix, both invertible mod 2^32.
struct random_affine
{
  affine operator()(std::int64_t i) const
  {
    const std::uint64_t h = splitmix64(static_cast<std::uint64_t>(i));
    return affine{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  }
};
struct random_mat2
{
  mat2 operator()(std::int64_t i) const
  {
    // An odd determinant (odd diagonal, even corners): the products stay invertible mod 2^32,
    // so no run of them collapses to zero and hides the order of what came before.
    const std::uint64_t h = splitmix64(static_cast<std::uint64_t>(i)), g = splitmix64(h);
    return mat2{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32) & ~1u,
                static_cast<std::uint32_t>(g) & ~1u, static_cast<std::uint32_t>(g >> 32) | 1u};
  }
};
} // namespace rk_test

#pragma once
// What the soak draws: the kinds of reduction (item type, accumulator, operator, how items are
// made), the algorithms and policies, and a call's shape, all from a seed. Everything a call
// needs follows from (seed, thread, index), so one call can be replayed alone.

#include "../support/segments.hpp"
#include "../support/test_types.hpp"

#include <rk/detail/config.hpp>
#include <rk/functional.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace soak
{
using rk_test::affine;
using rk_test::mat2;
using rk_test::segment;

/// splitmix64's finalizer: item i of a call is made from mix(seed ^ i * odd).
RK_HOST_DEVICE inline std::uint64_t mix(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 16 bytes, trivially copyable, no default constructor.
struct wide16
{
  RK_HOST_DEVICE wide16(std::int64_t x, std::int64_t y)
      : a(x)
      , b(y)
  {}
  std::int64_t a, b;
  friend RK_HOST_DEVICE bool operator==(const wide16& x, const wide16& y)
  {
    return x.a == y.a && x.b == y.b;
  }
};

/// Lane-wise wrapping sum: associative and commutative, with no atomic route (16 bytes).
struct wide_add
{
  RK_HOST_DEVICE wide16 operator()(const wide16& x, const wide16& y) const
  {
    return wide16(static_cast<std::int64_t>(static_cast<std::uint64_t>(x.a) + static_cast<std::uint64_t>(y.a)),
                  static_cast<std::int64_t>(static_cast<std::uint64_t>(x.b) ^ static_cast<std::uint64_t>(y.b)));
  }
};

/// How a result is judged against the host's: `exact` (integers, non-commutative operators,
/// min/max: every policy must give the reference's value), or `float_sum` (the reproducible
/// policies give rk::host's bits; rk::atomic is within the rounding bound of the sum).
enum class rule
{
  exact,
  float_sum
};

// The kinds. Each says its item and accumulator types, its operator, its init, how item i is made,
// a transform for transform_reduce, and what the algorithms may do with it.

struct u32_plus
{
  using item                        = std::uint32_t;
  using T                           = std::uint32_t;
  using op                          = rk::plus;
  static constexpr const char* name = "uint32 plus";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<item>(h);
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return x ^ 0x5a5a5a5au;
  }
  static T init()
  {
    return 7u;
  }
};

struct i64_min
{
  using item                        = std::int64_t;
  using T                           = std::int64_t;
  using op                          = rk::minimum;
  static constexpr const char* name = "int64 min";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<item>(h % 2000003) - 1000000; // ties are common: the first must win
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return -x;
  }
  static T init()
  {
    return std::numeric_limits<T>::max() / 2;
  }
};

/// int8 items summed into a 64-bit unsigned accumulator (items and accumulator differ).
struct i8_sum
{
  using item                        = std::int8_t;
  using T                           = std::uint64_t;
  using op                          = rk::plus;
  static constexpr const char* name = "int8 summed as uint64";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<item>(static_cast<std::uint8_t>(h));
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return static_cast<T>(x) * 3u;
  }
  static T init()
  {
    return 1u;
  }
};

struct u16_xor
{
  using item                        = std::uint16_t;
  using T                           = std::uint16_t;
  using op                          = rk::bit_xor;
  static constexpr const char* name = "uint16 xor";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<item>(h >> 7);
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return static_cast<T>(x * 5u);
  }
  static T init()
  {
    return 0x5555u;
  }
};

struct f32_plus
{
  using item                        = float;
  using T                           = float;
  using op                          = rk::plus;
  static constexpr const char* name = "float plus";
  static constexpr rule judge       = rule::float_sum;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<float>(static_cast<std::int64_t>(h % 2000001) - 1000000) * 1e-3f;
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return x * x;
  }
  static T init()
  {
    return 0.5f;
  }
};

struct f64_plus
{
  using item                        = double;
  using T                           = double;
  using op                          = rk::plus;
  static constexpr const char* name = "double plus";
  static constexpr rule judge       = rule::float_sum;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<double>(h >> 11) * 0x1.0p-53 - 0.25;
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return 2.0 * x;
  }
  static T init()
  {
    return -1.0;
  }
};

struct f32_max
{
  using item                        = float;
  using T                           = float;
  using op                          = rk::maximum;
  static constexpr const char* name = "float max";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return static_cast<float>(h % 1001) - 500.0f;
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return -x;
  }
  static T init()
  {
    return -1e30f;
  }
};

/// 2x2 matrices mod 2^32: associative, not commutative.
struct mat2_mul
{
  using item                        = mat2;
  using T                           = mat2;
  using op                          = rk_test::mat2_multiply;
  static constexpr const char* name = "mat2 multiply";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    const auto w = static_cast<std::uint32_t>(h), v = static_cast<std::uint32_t>(h >> 32);
    // Odd diagonal, even corners: an odd determinant, invertible mod 2^32, so no product is zero.
    return mat2{1u + (w & 6u), (w >> 8) & ~1u, v & ~1u, 1u + (v & 12u)};
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return mat2{x.d, x.c, x.b, x.a};
  }
  static T init()
  {
    return mat2{3u, 1u, 4u, 1u};
  }
};

struct affine_compose
{
  using item                        = affine;
  using T                           = affine;
  using op                          = rk_test::affine_compose;
  static constexpr const char* name = "affine compose";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t)
  {
    return affine{static_cast<std::uint32_t>(h) | 1u, static_cast<std::uint32_t>(h >> 32)};
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return affine{x.a, x.b + 1u};
  }
  static T init()
  {
    return affine{5u, 9u};
  }
};

/// Item i is the interval [i, i+1); marker_merge joins adjacent intervals and poisons anything
/// else, and its init (the marker) must be applied once, on the left: any reordering, skipped or
/// repeated item, or misplaced init shows in the result.
struct interval_merge
{
  using item                        = segment;
  using T                           = segment;
  using op                          = rk_test::marker_merge;
  static constexpr const char* name = "interval merge";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t, std::int64_t i)
  {
    return segment{i, i + 1};
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return x;
  }
  static T init()
  {
    return rk_test::marker_merge::marker();
  }
};

struct wide_sum
{
  using item                        = wide16;
  using T                           = wide16;
  using op                          = wide_add;
  static constexpr const char* name = "16-byte struct without default constructor";
  static constexpr rule judge       = rule::exact;
  static RK_HOST_DEVICE item make(std::uint64_t h, std::int64_t i)
  {
    return wide16(static_cast<std::int64_t>(h), i);
  }
  static RK_HOST_DEVICE T transform(item x)
  {
    return wide16(x.b, x.a);
  }
  static T init()
  {
    return wide16(11, 12);
  }
};

/// Item i of a call: C::make over mix(seed ^ i * odd). Used on the device (a transform iterator,
/// or to fill the input) and on the host (the reference's copy).
template <class C>
struct make_item
{
  std::uint64_t seed;
  RK_HOST_DEVICE typename C::item operator()(std::int64_t i) const
  {
    return C::make(mix(seed ^ (static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull)), i);
  }
};

template <class C>
struct transform_of
{
  RK_HOST_DEVICE typename C::T operator()(const typename C::item& x) const
  {
    return C::transform(x);
  }
};

enum class kind
{
  u32_plus,
  i64_min,
  i8_sum,
  u16_xor,
  f32_plus,
  f64_plus,
  f32_max,
  mat2_mul,
  affine_compose,
  interval_merge,
  wide_sum,
  count
};

enum class algorithm
{
  reduce,
  reduce_into,
  transform_reduce,
  arg_min,
  arg_max,
  arg_max_last,
  arg_min_max,
  segmented_csr,
  segmented_bounded,
  segmented_fixed,
  segmented_arg_min,
  segmented_arg_max,
  reduce_by_key,
  reduce_axes,
  transform_reduce_axes,
  reduce_partial,
  accumulator,
  count
};

enum class policy
{
  seq,
  host,
  device,
  single_pass,
  two_pass,
  atomic,
  count
};

/// How a segmented call's segments are laid out (lengths drawn from `typical`).
enum class layout
{
  uniform,      ///< lengths uniform in [0, 2 * typical]
  mostly_empty, ///< 70 % empty, the rest uniform in [1, 2 * typical]
  power_law,    ///< Pareto lengths
  huge_plus_tiny,
  equal, ///< every segment `typical` long
  count
};

/// The kind's struct.
template <kind K>
struct kind_of;
// clang-format off
template <> struct kind_of<kind::u32_plus>       { using type = u32_plus; };
template <> struct kind_of<kind::i64_min>        { using type = i64_min; };
template <> struct kind_of<kind::i8_sum>         { using type = i8_sum; };
template <> struct kind_of<kind::u16_xor>        { using type = u16_xor; };
template <> struct kind_of<kind::f32_plus>       { using type = f32_plus; };
template <> struct kind_of<kind::f64_plus>       { using type = f64_plus; };
template <> struct kind_of<kind::f32_max>        { using type = f32_max; };
template <> struct kind_of<kind::mat2_mul>       { using type = mat2_mul; };
template <> struct kind_of<kind::affine_compose> { using type = affine_compose; };
template <> struct kind_of<kind::interval_merge> { using type = interval_merge; };
template <> struct kind_of<kind::wide_sum>       { using type = wide_sum; };
// clang-format on

/// The combinations the soak draws (and so compiles): every kind with the flat reduce on every
/// policy; the heavier algorithms with the kinds and GPU backends that cover their paths (each
/// instantiation of a segmented or by-key call compiles several kernels, and the soak is built
/// in CI).
constexpr bool ordered(kind k)
{
  return k == kind::u32_plus || k == kind::i64_min || k == kind::i8_sum || k == kind::u16_xor || k == kind::f32_plus
      || k == kind::f64_plus || k == kind::f32_max;
}
constexpr bool has_atomic(kind k)
{
  return k == kind::u32_plus || k == kind::i64_min || k == kind::i8_sum || k == kind::f32_plus || k == kind::f64_plus
      || k == kind::f32_max;
}
constexpr bool kind_allowed(kind k, algorithm a)
{
  switch (a)
  {
    case algorithm::reduce:
    case algorithm::reduce_into:
    case algorithm::segmented_csr:
      return true;
    case algorithm::transform_reduce:
      return k == kind::u32_plus || k == kind::f32_plus || k == kind::mat2_mul || k == kind::wide_sum;
    case algorithm::arg_min:
    case algorithm::arg_max:
    case algorithm::arg_max_last:
    case algorithm::arg_min_max:
      return k == kind::u32_plus || k == kind::i64_min || k == kind::f32_plus || k == kind::f32_max;
    case algorithm::segmented_bounded:
      return k == kind::u32_plus || k == kind::f32_plus || k == kind::wide_sum || k == kind::interval_merge;
    case algorithm::segmented_fixed:
      return k == kind::u32_plus || k == kind::f64_plus || k == kind::affine_compose;
    case algorithm::segmented_arg_min:
    case algorithm::segmented_arg_max:
      return k == kind::i64_min || k == kind::f32_plus;
    case algorithm::reduce_by_key:
      return k != kind::wide_sum; // a key type is the soak's; any value works, one 16-byte struct is enough
    case algorithm::reduce_axes:
      return k == kind::u32_plus || k == kind::f32_plus || k == kind::affine_compose;
    case algorithm::transform_reduce_axes:
      return k == kind::f32_plus;
    case algorithm::reduce_partial:
      return k == kind::u32_plus || k == kind::f32_plus || k == kind::f64_plus || k == kind::affine_compose
          || k == kind::i8_sum;
    case algorithm::accumulator:
      return k == kind::f32_plus || k == kind::mat2_mul;
    default:
      return false;
  }
}
constexpr bool allowed(kind k, algorithm a, policy p)
{
  if (!kind_allowed(k, a))
  {
    return false;
  }
  const bool flat  = a == algorithm::reduce || a == algorithm::reduce_into;
  const bool axes  = a == algorithm::reduce_axes || a == algorithm::transform_reduce_axes;
  const bool split = a == algorithm::reduce_partial || a == algorithm::accumulator; // the tree's policies only
  switch (p)
  {
    case policy::seq:
    case policy::host:
      // Not their float sums of reduce_axes and reduce_by_key: the soak compares those outputs
      // exactly, and the host reference that is not the policy under test groups differently
      // (the host suites check every output's bits against rk::reduce's instead). Float sums of
      // the flat and segmented calls are judged within their rounding bound.
      return a != algorithm::reduce_into
          && !((axes || a == algorithm::reduce_by_key) && (k == kind::f32_plus || k == kind::f64_plus));
    case policy::device:
      return true;
    case policy::single_pass:
      return flat || split; // reduce_axes runs the same engine as on rk::device
    case policy::two_pass:
      return flat || axes || split
          || ((a == algorithm::segmented_csr || a == algorithm::reduce_by_key)
              && (k == kind::u32_plus || k == kind::f32_plus || k == kind::mat2_mul));
    case policy::atomic:
      return has_atomic(k)
          && (flat || a == algorithm::segmented_fixed || (axes && k == kind::u32_plus)
              || (a == algorithm::segmented_csr && (k == kind::u32_plus || k == kind::f32_plus)));
    default:
      return false;
  }
}
/// Inputs computed by a transform iterator over a counting iterator, rather than read from memory.
constexpr bool fancy_allowed(kind k, algorithm a, policy p)
{
  return (p == policy::device || p == policy::host)
      && (a == algorithm::reduce || (a == algorithm::segmented_csr && (k == kind::u32_plus || k == kind::f64_plus)));
}
/// reduce_by_key in Thrust's form (no init; the accumulator is the value type).
constexpr bool without_init_allowed(kind k)
{
  return k == kind::u32_plus || k == kind::f32_plus || k == kind::mat2_mul;
}

const char* name(kind k);
const char* name(algorithm a);
const char* name(policy p);
const char* name(layout l);

/// One drawn call. `n` items from `offset` items past the start of an allocation (misaligned
/// starts), read from memory or computed by a transform iterator (`fancy`).
struct call
{
  std::uint64_t seed;
  int thread;
  std::int64_t index;
  kind k;
  algorithm a;
  policy p;
  std::int64_t n;
  int offset;
  bool fancy;
  bool with_init; ///< reduce_by_key: rk's form (init) or Thrust's (none)
  layout segments;
  std::int64_t typical;    ///< a typical segment or run length
  bool int32_offsets;      ///< CSR offsets as int32 rather than int64
  std::uint64_t data_seed; ///< items, segment lengths, an axis reduction's shape

  bool segmented() const
  {
    return a >= algorithm::segmented_csr && a <= algorithm::segmented_arg_max;
  }
  bool over_axes() const
  {
    return a == algorithm::reduce_axes || a == algorithm::transform_reduce_axes;
  }
  bool in_pieces() const
  {
    return a == algorithm::reduce_partial || a == algorithm::accumulator;
  }
  /// reduce_into with its count in device memory (rk::device_count): one tree-policy call in two.
  bool count_on_device() const
  {
    return a == algorithm::reduce_into && p != policy::atomic && (data_seed & 1) != 0;
  }

  std::string describe() const;
};

/// The call (thread, index) of the soak with `seed`; `gpu` says whether GPU policies may be drawn,
/// `max_log2` caps the size.
call draw_call(std::uint64_t seed, int thread, std::int64_t index, bool gpu, int max_log2);

/// CSR offsets of a call's segments over its n items (the last one is n).
std::vector<std::int64_t> make_offsets(const call& c);

/// An axis reduction's array: rank 1 to 3, extents whose product is at most the call's n, how x is
/// laid out over its items, and the reduced axes in the order the call names them.
struct axes_shape
{
  enum class view
  {
    right,     ///< layout_right
    left,      ///< layout_left
    transposed ///< layout_stride: a layout_right array read with its axes reversed
  };
  int rank;
  std::int64_t extent[3];
  view x_view;
  int axes[3];
  int axis_count;

  std::int64_t items() const;
  std::string describe() const;
};
axes_shape make_axes_shape(const call& c);
} // namespace soak

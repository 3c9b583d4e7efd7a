#pragma once
// How the kernels read an input range: 16-byte vectors when it is a contiguous array of
// arithmetic items, one element at a time through the iterator otherwise. Both present the same
// "chunk" interface to the block body (rk/cuda/agent/grid_ordered.cuh, rk/cuda/agent/tile_tree.cuh).

#include <rk/cuda/primitives/warp_reduce.cuh>
#include <rk/detail/config.hpp>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/tree.hpp>

#include <cuda/std/bit>
#include <thrust/iterator/iterator_traits.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

namespace rk::detail
{
inline constexpr int vector_bytes = 16;

template <class It>
using iterator_item_t = typename thrust::iterator_traits<It>::value_type;

/// Items that 16-byte vector loads can carry: plain bytes (arithmetic types, and trivial structs
/// such as a pair of ints) whose size divides 16.
template <class Item>
inline constexpr bool is_vector_item_v = std::is_trivially_copyable_v<Item>
                                      && std::is_trivially_default_constructible_v<Item>
                                      && vector_bytes % sizeof(Item) == 0;

/// A device pointer read one element at a time. Vectorizable items whose alignment is below their
/// size (a pair of ints) can sit at an address that no 16-byte vector load reaches in step; such a
/// range is read through this wrapper by the whole grid, instead of by one warp.
template <class Item>
struct element_pointer
{
  using value_type        = Item;
  using difference_type   = std::ptrdiff_t;
  using pointer           = const Item*;
  using reference         = const Item&;
  using iterator_category = std::random_access_iterator_tag;

  const Item* items;

  __host__ __device__ element_pointer operator+(offset_t n) const
  {
    return {items + n};
  }
  __host__ __device__ const Item& operator[](offset_t i) const
  {
    return items[i];
  }
};

/// A value the device computed (a transform's result), rounded where it stands: an add of -0 with
/// an explicit rounding mode, which returns the value unchanged and which the compiler may neither
/// drop nor fuse. Without it nvcc contracts a transform's last multiply with the reduction's add
/// into one FMA (one rounding instead of two), and a transformed float sum would not have the bits
/// of the same sum over the transformed array (rk::reduce's, and rk::host's). Costs one FADD per
/// computed floating-point item; items read from memory do not take it.
template <class X>
__device__ __forceinline__ X settled(const X& x)
{
  if constexpr (std::is_same_v<X, float>)
  {
    return __fadd_rn(x, -0.0f);
  }
  else if constexpr (std::is_same_v<X, double>)
  {
    return __dadd_rn(x, -0.0);
  }
  else
  {
    return x;
  }
}

template <class It>
struct is_element_pointer : std::false_type
{};
template <class Item>
struct is_element_pointer<element_pointer<Item>> : std::true_type
{};

/// Iterators that read their items from memory (a raw pointer, one read element by element, rk's
/// readers of a view: is_over_checked_pointer); any other computes them (a transform, an input
/// adaptor).
template <class It>
inline constexpr bool reads_memory_v = std::is_pointer_v<It> || is_element_pointer<It>::value
                                    || is_over_checked_pointer<It>::value;

/// `x`, an item `It` gave, as the tree combines it: settled where the iterator computed it.
template <class It, class X>
__device__ __forceinline__ X settled_from(const X& x)
{
  if constexpr (reads_memory_v<It>)
  {
    return x;
  }
  else
  {
    return settled(x);
  }
}

/// *p, with L2 asked to fetch the whole 128-byte line on a miss (ld.global.L2::128B) rather than
/// the 32-byte sector: for items read a fixed step apart whose neighbours other threads read next
/// (a column's rows). 4- and 8-byte items; others are read plainly. Float column sums took
/// 0.3-0.7 % less time with it (8192 x 8192, 2^23 x 8, 2^20 x 64, a middle axis); asking for 256
/// bytes made them up to 0.8 % slower (rk_bench_axes, H200). The generic address goes to ld.global
/// as it is, as CUTLASS's loads do (a global pointer's generic address is its global one):
/// converting it first (__cvta_generic_to_global) took the column kernel from 64 to 75 registers.
template <class U>
__device__ __forceinline__ U load_fetching_line(const U* p)
{
  if constexpr (std::is_trivially_copyable_v<U> && sizeof(U) == 4 && alignof(U) == 4)
  {
    std::uint32_t word;
    asm("ld.global.L2::128B.b32 %0, [%1];" : "=r"(word) : "l"(p));
    return cuda::std::bit_cast<U>(word);
  }
  else if constexpr (std::is_trivially_copyable_v<U> && sizeof(U) == 8 && alignof(U) == 8)
  {
    std::uint64_t word;
    asm("ld.global.L2::128B.b64 %0, [%1];" : "=l"(word) : "l"(p));
    return cuda::std::bit_cast<U>(word);
  }
  else
  {
    return *p;
  }
}

/// Item i of `first` as the tree combines it: read from memory, or computed by the iterator (a
/// transform, an input adaptor) and then settled.
template <class It>
__device__ __forceinline__ decltype(auto) read_item(const It& first, offset_t i)
{
  if constexpr (reads_memory_v<It>)
  {
    return first[i];
  }
  else
  {
    return settled_from<It>(static_cast<std::remove_cv_t<iterator_item_t<It>>>(first[i]));
  }
}

/// What a vectorized read applies to the item at `position` (counted from the kernel input's first
/// item) before it meets `op`: nothing (rk::reduce), or what the input adaptors ask for.
struct no_transform
{
  template <class X>
  __device__ __forceinline__ const X& operator()(const X& x, offset_t) const
  {
    return x;
  }
};

/// settled, where a vectorized read's transform computes the value (no_transform reads memory).
template <class Transform, class X>
__device__ __forceinline__ X settled_by(const X& x)
{
  if constexpr (std::is_same_v<Transform, no_transform>)
  {
    return x;
  }
  else
  {
    return settled(x);
  }
}

/// indexed_input's: the item and its index.
template <class Item, class Index>
struct with_position
{
  Index first_index;
  __device__ __forceinline__ arg_result<Item, Index> operator()(const Item& x, offset_t position) const
  {
    return {x, static_cast<Index>(first_index + position)};
  }
};

/// transformed_input's: its transform over what the inner adaptor gives, converted to T.
template <class F, class Inner, class T>
struct then_transform
{
  F transform;
  Inner inner;
  template <class X>
  __device__ __forceinline__ T operator()(const X& x, offset_t position) const
  {
    return static_cast<T>(transform(inner(x, position)));
  }
};

/// An input the kernels read with 16-byte vector loads: an array of vectorizable items behind a
/// raw pointer (16-byte aligned: with_aligned_reads reads any other through element_pointer),
/// possibly under input adaptors, whose work becomes the `transform` applied to each item loaded.
template <class Input>
struct vector_source
{
  static constexpr bool vectorizable = false;
  static constexpr bool positional   = false; ///< its transform reads each item's position (an index)
  using transform                    = no_transform;
};
template <class Item>
struct vector_source<const Item*>
{
  static constexpr bool vectorizable = is_vector_item_v<Item>;
  static constexpr bool positional   = false;
  using transform                    = no_transform;
  __host__ __device__ static const Item* items(const Item* p)
  {
    return p;
  }
  __host__ __device__ static transform transform_of(const Item*)
  {
    return {};
  }
};
template <class Item>
struct vector_source<Item*> : vector_source<const Item*>
{};
template <class Item, class Index>
struct vector_source<indexed_input<const Item*, Index>>
{
  static constexpr bool vectorizable = is_vector_item_v<Item>;
  static constexpr bool positional   = true;
  using transform                    = with_position<std::remove_cv_t<Item>, Index>;
  __host__ __device__ static const Item* items(const indexed_input<const Item*, Index>& in)
  {
    return in.base;
  }
  __host__ __device__ static transform transform_of(const indexed_input<const Item*, Index>& in)
  {
    return {in.first_index};
  }
};
template <class Base, class F, class T>
struct vector_source<transformed_input<Base, F, T>>
{
  using inner                        = vector_source<Base>;
  static constexpr bool vectorizable = inner::vectorizable;
  static constexpr bool positional   = inner::positional;
  using transform                    = then_transform<F, typename inner::transform, T>;
  __host__ __device__ static auto items(const transformed_input<Base, F, T>& in)
  {
    return inner::items(in.base);
  }
  __host__ __device__ static transform transform_of(const transformed_input<Base, F, T>& in)
  {
    return {in.transform, inner::transform_of(in.base)};
  }
};

/// The same input read element by element (its array is not 16-byte aligned): an element_pointer
/// for a raw pointer, each input adaptor over what its base becomes (adaptors nest: arg_min_max
/// reads a transformed_input over an indexed_input).
template <class Input>
__host__ __device__ auto element_input(const Input& first)
{
  if constexpr (std::is_pointer_v<Input>)
  {
    return element_pointer<std::remove_cv_t<std::remove_pointer_t<Input>>>{first};
  }
  else
  {
    return first.rebase(element_input(first.base));
  }
}

template <class Input>
using element_input_t = decltype(element_input(std::declval<const Input&>()));

/// Calls `f` with what the kernels read for `input`: the input itself, or, where it is read as
/// 16-byte vectors but its first item is not on the 16-byte grid, the same input read element by
/// element. The tree's tiles count from the first item, so its vector loads need that boundary.
/// The one rule for a whole range (on the host, before the launch) and for each segment (on the
/// device: every segment starts where it starts).
RK_EXEC_CHECK_DISABLE
template <class Input, class F>
__host__ __device__ __forceinline__ decltype(auto) with_aligned_reads(const Input& input, F&& f)
{
  if constexpr (vector_source<Input>::vectorizable)
  {
    if (reinterpret_cast<std::uintptr_t>(vector_source<Input>::items(input)) % vector_bytes != 0)
    {
      return f(element_input(input));
    }
  }
  return f(input);
}

/// Vectorized chunks: each lane reads `LaneVectors` adjacent 16-byte vectors of the chunk, and
/// passes every item through `Transform` on its way to T.
template <class Item, class T, int LaneVectors, class Transform = no_transform>
struct vector_chunks
{
  static constexpr int vector_items = vector_bytes / static_cast<int>(sizeof(Item));
  static constexpr int lane_items   = LaneVectors * vector_items;
  static constexpr int chunk_items  = warp_threads * lane_items;

  struct alignas(vector_bytes) vector
  {
    Item item[vector_items];
  };
  struct fragment
  {
    vector v[LaneVectors];
    offset_t first; ///< the lane's first item, from body (dead, and so dropped, unless the transform reads it)
  };

  const Item* body; // 16-byte aligned start of the body
  Transform transform;

  template <class Op>
  __device__ __forceinline__ void load(offset_t chunk, int lane, fragment& f, Op&) const
  {
    f.first         = chunk * chunk_items + offset_t{lane} * lane_items;
    const vector* p = reinterpret_cast<const vector*>(body + chunk * chunk_items) + lane * LaneVectors;
#pragma unroll
    for (int k = 0; k < LaneVectors; ++k)
    {
      f.v[k] = p[k];
    }
  }

  template <class Op>
  __device__ __forceinline__ T reduce(const fragment& f, Op& op) const
  {
    T acc = settled_by<Transform>(static_cast<T>(transform(f.v[0].item[0], f.first)));
#pragma unroll
    for (int i = 1; i < lane_items; ++i)
    {
      acc = op(acc, settled_by<Transform>(
                      static_cast<T>(transform(f.v[i / vector_items].item[i % vector_items], f.first + i))));
    }
    return acc;
  }
};

/// Generic chunks: each lane reads `LaneItems` adjacent elements through the iterator and reduces
/// them as it loads (T may have no default constructor, so nothing is staged).
template <class It, class T, int LaneItems>
struct iterator_chunks
{
  static constexpr int lane_items  = LaneItems;
  static constexpr int chunk_items = warp_threads * lane_items;

  struct fragment
  {
    uninitialized<T> lane_total;
  };

  It body;

  template <class Op>
  __device__ __forceinline__ void load(offset_t chunk, int lane, fragment& f, Op& op) const
  {
    const It p = body + (chunk * chunk_items + lane * LaneItems);
    T acc(read_item(p, 0));
#pragma unroll
    for (int i = 1; i < LaneItems; ++i)
    {
      acc = op(acc, static_cast<T>(read_item(p, i)));
    }
    f.lane_total.emplace(acc);
  }

  template <class Op>
  __device__ __forceinline__ T reduce(const fragment& f, Op&) const
  {
    return f.lane_total.value;
  }
};
} // namespace rk::detail

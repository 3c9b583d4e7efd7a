#pragma once
// The inputs of rk's derived algorithms, as adaptors over the user's iterator:
//   transformed_input  item i is T(transform(base[i]))     (rk::transform_reduce)
//   indexed_input      item i is {base[i], first_index + i} (rk::arg_min, rk::arg_max, rk::arg_min_max)
// They are ordinary iterators, so every host backend reads them as it reads any other. The GPU
// layer unwraps them (`base`), reads the base the way it reads any input (16-byte vectors for an
// aligned array of arithmetic items) and re-wraps what it reads (`rebase`), so nothing is staged
// in memory and the loads stay the base's. Both count the tree's tiles in base items.

#include <rk/detail/config.hpp>
#include <rk/detail/tree.hpp>

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace rk
{
/// The result of rk::arg_min and rk::arg_max: an item and its position in the range.
template <class T, class Index>
struct arg_result
{
  T value;
  Index index;

  friend bool operator==(const arg_result& a, const arg_result& b)
  {
    return a.value == b.value && a.index == b.index;
  }
  friend bool operator!=(const arg_result& a, const arg_result& b)
  {
    return !(a == b);
  }
};

/// The result of rk::arg_min_max: the first minimum and the first maximum.
template <class T, class Index>
struct arg_min_max_result
{
  arg_result<T, Index> min;
  arg_result<T, Index> max;
};
} // namespace rk

namespace rk::detail
{
/// What the adaptors share: the base iterator, the iterator operations in terms of it, and the
/// category of the base (an adaptor over a forward iterator is a forward iterator).
template <class Derived, class It>
struct input_adaptor
{
  using base_iterator     = It;
  using difference_type   = std::ptrdiff_t;
  using pointer           = void;
  using iterator_category = typename std::iterator_traits<It>::iterator_category;

  It base;

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE Derived operator+(offset_t n) const
  {
    return self().rebase(base + n, n);
  }
  Derived& operator++()
  {
    ++base;
    static_cast<Derived&>(*this).skip(1);
    return static_cast<Derived&>(*this);
  }
  friend difference_type operator-(const Derived& a, const Derived& b)
  {
    return static_cast<difference_type>(a.base - b.base);
  }
  friend bool operator==(const Derived& a, const Derived& b)
  {
    return a.base == b.base;
  }
  friend bool operator!=(const Derived& a, const Derived& b)
  {
    return !(a.base == b.base);
  }

private:
  RK_HOST_DEVICE const Derived& self() const
  {
    return static_cast<const Derived&>(*this);
  }
};

/// `T` is the accumulator type: the transform's result is converted to it at once, so its return
/// type is never asked for (host code cannot ask an extended __device__ lambda for it).
template <class It, class F, class T>
struct transformed_input : input_adaptor<transformed_input<It, F, T>, It>
{
  using value_type = T;
  using reference  = T;

  F transform;

  transformed_input() = default;
  RK_HOST_DEVICE transformed_input(It b, F f)
      : input_adaptor<transformed_input, It>{b}
      , transform(f)
  {}

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE T operator[](offset_t i) const
  {
    return static_cast<T>(transform(this->base[i]));
  }
  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE T operator*() const
  {
    return static_cast<T>(transform(*this->base));
  }
  /// The same transform over another iterator to the same items, `skipped` items on.
  template <class B>
  RK_HOST_DEVICE transformed_input<B, F, T> rebase(B b, offset_t = 0) const
  {
    return {b, transform};
  }
  void skip(offset_t) {}
};

template <class It, class Index>
struct indexed_input : input_adaptor<indexed_input<It, Index>, It>
{
  using item       = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
  using value_type = arg_result<item, Index>;
  using reference  = value_type;

  Index first_index;

  indexed_input() = default;
  RK_HOST_DEVICE indexed_input(It b, Index first)
      : input_adaptor<indexed_input, It>{b}
      , first_index(first)
  {}

  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE value_type operator[](offset_t i) const
  {
    return {static_cast<item>(this->base[i]), static_cast<Index>(first_index + i)};
  }
  RK_EXEC_CHECK_DISABLE
  RK_HOST_DEVICE value_type operator*() const
  {
    return {static_cast<item>(*this->base), first_index};
  }
  template <class B>
  RK_HOST_DEVICE indexed_input<B, Index> rebase(B b, offset_t skipped = 0) const
  {
    return {b, static_cast<Index>(first_index + skipped)};
  }
  void skip(offset_t items)
  {
    first_index = static_cast<Index>(first_index + items);
  }
};

/// Marks the iterators rk builds over a raw pointer it has checked itself (rk::reduce_axes's
/// readers and writer of a view): they read memory, as a pointer does, and the GPU dispatch's
/// iterator-system rule for foreign iterators (rk/cuda/dispatch/common.cuh) leaves them alone.
struct over_checked_pointer
{};

template <class It, class = void>
struct is_over_checked_pointer : std::false_type
{};
template <class It>
struct is_over_checked_pointer<It, std::void_t<typename It::rk_iterator_memory>>
    : std::is_same<typename It::rk_iterator_memory, over_checked_pointer>
{};

template <class It>
struct is_input_adaptor : std::false_type
{};
template <class It, class F, class T>
struct is_input_adaptor<transformed_input<It, F, T>> : std::true_type
{};
template <class It, class Index>
struct is_input_adaptor<indexed_input<It, Index>> : std::true_type
{};

/// The iterator that reads memory: an adaptor's base, the iterator itself otherwise.
template <class It, bool = is_input_adaptor<It>::value>
struct source_iterator
{
  using type = It;
};
template <class It>
struct source_iterator<It, true> : source_iterator<typename It::base_iterator>
{};
template <class It>
using source_iterator_t = typename source_iterator<It>::type;

/// The item whose size fixes the tree's tiles (rk/detail/tree.hpp): the one read from memory, so
/// an adaptor has the tiles of its base, on the GPU and the host alike.
template <class It>
using tree_item_t = std::remove_cv_t<typename std::iterator_traits<source_iterator_t<It>>::value_type>;
} // namespace rk::detail

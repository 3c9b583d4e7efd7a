#pragma once
// Host-side helpers of the property tests: random inputs, reference folds, size lists,
// iterators that compute their items.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace rk_test
{
/// The seed of this run: RK_TEST_SEED if set, else fresh randomness (printed by the test main).
inline std::uint64_t run_seed()
{
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("RK_TEST_SEED"))
    {
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 0));
    }
    return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }();
  return seed;
}

/// True when RK_TEST_QUICK is set: the sanitizer runs use smaller size lists.
inline bool quick_mode()
{
  return std::getenv("RK_TEST_QUICK") != nullptr;
}

/// n random items from `draw(rng)`, seeded from the run seed and `salt`.
template <class E, class Draw>
std::vector<E> random_items(std::int64_t n, std::uint64_t salt, Draw draw)
{
  std::mt19937_64 rng(run_seed() ^ (salt * 0x9E3779B97F4A7C15ull));
  std::vector<E> items;
  items.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
  {
    items.push_back(draw(rng));
  }
  return items;
}

/// Small integers: sums of up to 2^27 of them stay far from overflow in 32 bits... of int64;
/// 32-bit element types use [-100, 100], which stays in range up to 2^24 items.
template <class E>
E small_integer(std::mt19937_64& rng)
{
  if constexpr (std::is_signed_v<E>)
  {
    return static_cast<E>(static_cast<std::int64_t>(rng() % 201) - 100);
  }
  else
  {
    return static_cast<E>(rng());
  }
}

/// Left fold, the definition every backend must match.
template <class It, class T, class Op>
T fold(It first, It last, T init, Op op)
{
  for (; first != last; ++first)
  {
    init = op(init, T(*first));
  }
  return init;
}

/// |result - exact| <= (n + 1) * eps * (|init| + sum |x|): the bound any summation order meets.
template <class T, class E>
bool sum_within_bound(T result, const std::vector<E>& items, T init)
{
  long double exact = init, magnitude = std::fabs(static_cast<long double>(init));
  for (const E& x : items)
  {
    exact += x;
    magnitude += std::fabs(static_cast<long double>(x));
  }
  const long double eps   = std::numeric_limits<T>::epsilon();
  const long double bound = (static_cast<long double>(items.size()) + 1) * eps * magnitude;
  return std::fabs(static_cast<long double>(result) - exact) <= bound;
}

/// Sizes 2^k - 1, 2^k, 2^k + 1 for k in [from, to], plus 0, 1, 2, 3.
inline std::vector<std::int64_t> power_sizes(int from, int to)
{
  std::vector<std::int64_t> sizes = {0, 1, 2, 3};
  for (int k = from; k <= to; ++k)
  {
    const std::int64_t p = std::int64_t{1} << k;
    for (std::int64_t s : {p - 1, p, p + 1})
    {
      if (s > 3)
      {
        sizes.push_back(s);
      }
    }
  }
  return sizes;
}

/// n items of `draw`: item i is draw(i + salt), as an E.
template <class E, class Draw>
std::vector<E> drawn_items(std::int64_t n, Draw draw, std::int64_t salt)
{
  std::vector<E> items;
  items.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
  {
    items.push_back(draw(i + salt));
  }
  return items;
}

/// A random-access iterator whose item at position i is f(i), computed on access. The host
/// counterpart of thrust::transform_iterator over a counting_iterator.
template <class F>
class generating_iterator
{
public:
  using difference_type   = std::int64_t;
  using value_type        = std::decay_t<decltype(std::declval<F>()(std::int64_t{}))>;
  using reference         = value_type;
  using pointer           = void;
  using iterator_category = std::random_access_iterator_tag;

  generating_iterator() = default;
  generating_iterator(F f, std::int64_t i)
      : f_(f)
      , i_(i)
  {}

  reference operator*() const
  {
    return f_(i_);
  }
  reference operator[](difference_type k) const
  {
    return f_(i_ + k);
  }
  generating_iterator& operator++()
  {
    ++i_;
    return *this;
  }
  generating_iterator operator++(int)
  {
    auto copy = *this;
    ++i_;
    return copy;
  }
  generating_iterator& operator--()
  {
    --i_;
    return *this;
  }
  generating_iterator& operator+=(difference_type k)
  {
    i_ += k;
    return *this;
  }
  generating_iterator& operator-=(difference_type k)
  {
    i_ -= k;
    return *this;
  }
  friend generating_iterator operator+(generating_iterator it, difference_type k)
  {
    return it += k;
  }
  friend generating_iterator operator+(difference_type k, generating_iterator it)
  {
    return it += k;
  }
  friend generating_iterator operator-(generating_iterator it, difference_type k)
  {
    return it -= k;
  }
  friend difference_type operator-(const generating_iterator& a, const generating_iterator& b)
  {
    return a.i_ - b.i_;
  }
  friend bool operator==(const generating_iterator& a, const generating_iterator& b)
  {
    return a.i_ == b.i_;
  }
  friend bool operator!=(const generating_iterator& a, const generating_iterator& b)
  {
    return a.i_ != b.i_;
  }
  friend bool operator<(const generating_iterator& a, const generating_iterator& b)
  {
    return a.i_ < b.i_;
  }

private:
  F f_{};
  std::int64_t i_ = 0;
};

/// What a checking_output saw: how many values were written, how many differ from the ones it
/// wants, and the first position that differs.
struct output_mismatches
{
  std::atomic<std::int64_t> writes{0};
  std::atomic<std::int64_t> count{0};
  std::atomic<std::int64_t> first{std::numeric_limits<std::int64_t>::max()};
};

/// An output iterator with random access (`out[i] = v`, `out + k`) that compares what is written at position i with
/// want(i) as it arrives, so a test can write more than 2^31 results without holding them (host policies, any thread).
template <class Want>
class checking_output
{
  struct slot
  {
    const Want* want;
    output_mismatches* wrong;
    std::int64_t i;
    template <class V>
    const slot& operator=(const V& v) const
    {
      wrong->writes.fetch_add(1, std::memory_order_relaxed);
      if (!(v == (*want)(i)))
      {
        wrong->count.fetch_add(1, std::memory_order_relaxed);
        std::int64_t seen = wrong->first.load(std::memory_order_relaxed);
        while (i < seen && !wrong->first.compare_exchange_weak(seen, i, std::memory_order_relaxed))
        {
        }
      }
      return *this;
    }
  };

public:
  using difference_type   = std::int64_t;
  using value_type        = void;
  using reference         = slot;
  using pointer           = void;
  using iterator_category = std::random_access_iterator_tag;

  checking_output(const Want& want, output_mismatches& wrong, std::int64_t i = 0)
      : want_(&want)
      , wrong_(&wrong)
      , i_(i)
  {}

  slot operator*() const
  {
    return slot{want_, wrong_, i_};
  }
  slot operator[](difference_type k) const
  {
    return slot{want_, wrong_, i_ + k};
  }
  checking_output& operator++()
  {
    ++i_;
    return *this;
  }
  checking_output operator++(int)
  {
    auto copy = *this;
    ++i_;
    return copy;
  }
  checking_output& operator+=(difference_type k)
  {
    i_ += k;
    return *this;
  }
  friend checking_output operator+(checking_output it, difference_type k)
  {
    return it += k;
  }
  friend difference_type operator-(const checking_output& a, const checking_output& b)
  {
    return a.i_ - b.i_;
  }
  friend bool operator==(const checking_output& a, const checking_output& b)
  {
    return a.i_ == b.i_;
  }
  friend bool operator!=(const checking_output& a, const checking_output& b)
  {
    return a.i_ != b.i_;
  }

private:
  const Want* want_;
  output_mismatches* wrong_;
  std::int64_t i_ = 0;
};
} // namespace rk_test

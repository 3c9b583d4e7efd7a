#pragma once
/// \file
/// Mean and variance in one pass, on every policy and for every algorithm: rk::mean_var<T> is the
/// running state (count, mean, sum of squared deviations), rk::to_mean_var<T> makes one from an
/// item, and rk::mean_var_op<T> merges two with the pairwise formula of Chan, Golub and LeVeque.
/// Reduced along rk's tree, the merges pair states of similar counts, which keeps the variance
/// accurate where a sum of squares loses it all (float data of mean 1000 and deviation 1, say:
/// docs/design.md, "Statistics", gives the bound the tests check).
///
/// \code
/// auto s = rk::transform_reduce(rk::device, v.begin(), v.end(), rk::mean_var<float>{},
///                               rk::mean_var_op<float>{}, rk::to_mean_var<float>{});
/// float mean = s.mean, var = s.variance();
/// \endcode
///
/// The merge rounds every product on its own (rk/detail/rounded.hpp), so host and device compute
/// the same function and a result has the same bits on every GPU and under rk::host.

#include <rk/detail/config.hpp>
#include <rk/detail/rounded.hpp>

#include <cuda/std/limits>

#include <cstdint>

namespace rk
{
/// The state of a mean and variance over `count` items. An aggregate: `rk::mean_var<float>{}` is the
/// empty state, which rk::mean_var_op merges exactly (merged with any state it gives that state).
template <class T>
struct mean_var
{
  std::int64_t count;
  T mean;
  T m2; ///< the sum of squared deviations from the mean

  /// The population variance, m2 / count; NaN for the empty state.
  RK_HOST_DEVICE T variance() const
  {
    return count == 0 ? cuda::std::numeric_limits<T>::quiet_NaN() : m2 / static_cast<T>(count);
  }
  /// The sample variance, m2 / (count - 1); NaN for fewer than two items.
  RK_HOST_DEVICE T sample_variance() const
  {
    return count < 2 ? cuda::std::numeric_limits<T>::quiet_NaN() : m2 / static_cast<T>(count - 1);
  }
};

/// Merges two states of adjacent runs of items into the state of both (associative; commutative
/// in exact arithmetic only, so rk::is_commutative stays false and the order of the items is kept).
template <class T>
struct mean_var_op
{
  RK_HOST_DEVICE mean_var<T> operator()(const mean_var<T>& a, const mean_var<T>& b) const
  {
    const std::int64_t count = a.count + b.count;
    const T delta            = b.mean - a.mean;
    const T weight_b         = detail::rounded_quotient(static_cast<T>(b.count), static_cast<T>(count)); // nb / n
    const T mean             = a.mean + detail::rounded_product(delta, weight_b);
    // delta^2 * na * nb / n, each product rounded on its own.
    const T spread = detail::rounded_product(detail::rounded_product(delta, delta),
                                             detail::rounded_product(static_cast<T>(a.count), weight_b));
    const T m2     = (a.m2 + b.m2) + spread;
    // An empty side gives the other side's bits. Chosen, not branched to: with branches the
    // compiler stopped folding a lane's unrolled fold after three items (its counts 4 to 7 went
    // through run-time conversions and a reciprocal's slow-path check); with selects every count
    // of the fold is a constant. The merge computed for an empty side (0 / 0 where both are) is
    // discarded.
    const bool take_a = b.count == 0;
    const bool take_b = !take_a && a.count == 0;
    return {take_a   ? a.count
            : take_b ? b.count
                     : count,
            take_a   ? a.mean
            : take_b ? b.mean
                     : mean,
            take_a   ? a.m2
            : take_b ? b.m2
                     : m2};
  }
};

/// An item as the state of one item: {1, x, 0}.
template <class T>
struct to_mean_var
{
  template <class U>
  RK_HOST_DEVICE mean_var<T> operator()(const U& x) const
  {
    return {1, static_cast<T>(x), T(0)};
  }
};
} // namespace rk

#pragma once
/// \file
/// rk::fuse: several reductions in one pass. `rk::fuse(op0, op1, ...)` is an operator over
/// `cuda::std::tuple`s that applies `op_i` to the i-th elements, so one call over a zip iterator
/// (or a transform that returns a tuple) gives several results. Each has the bits of a reduction
/// with its operator alone over the same iterator: the tree's tiles are counted in the items read,
/// and every element of the tuple is combined along that one tree.
///
/// \code
/// using sum_min_max = cuda::std::tuple<float, float, float>;
/// auto triple = [] __device__(float x) { return sum_min_max{x, x, x}; };
/// sum_min_max r = rk::transform_reduce(rk::device, v.begin(), v.end(), sum_min_max{0.0f, inf, -inf},
///                                      rk::fuse(rk::plus{}, rk::minimum{}, rk::maximum{}), triple);
/// \endcode

#include <rk/detail/config.hpp>
#include <rk/functional.hpp>

#include <cuda/std/tuple>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace rk
{
/// The operator rk::fuse returns. Commutative (rk::is_commutative) when every one of its operators is.
template <class... Ops>
struct fused
{
  static_assert(sizeof...(Ops) >= 1, "rk::fuse needs at least one operator");

  cuda::std::tuple<Ops...> ops;

  RK_EXEC_CHECK_DISABLE
  template <class A, class B>
  RK_HOST_DEVICE auto operator()(const A& a, const B& b) const
  {
    static_assert(cuda::std::tuple_size<A>::value == sizeof...(Ops)
                    && cuda::std::tuple_size<B>::value == sizeof...(Ops),
                  "rk::fuse(op0, ..., opN): the operands must be tuples with one element per operator");
    return apply(a, b, std::index_sequence_for<Ops...>{});
  }

private:
  RK_EXEC_CHECK_DISABLE
  template <class A, class B, std::size_t... I>
  RK_HOST_DEVICE auto apply(const A& a, const B& b, std::index_sequence<I...>) const
  {
    return cuda::std::tuple<
      std::decay_t<decltype(cuda::std::get<I>(ops)(cuda::std::get<I>(a), cuda::std::get<I>(b)))>...>(
      cuda::std::get<I>(ops)(cuda::std::get<I>(a), cuda::std::get<I>(b))...);
  }
};

/// An operator over tuples that applies `ops[i]` to the i-th elements of its operands.
template <class... Ops>
RK_HOST_DEVICE constexpr fused<std::decay_t<Ops>...> fuse(Ops&&... ops)
{
  return {cuda::std::tuple<std::decay_t<Ops>...>(std::forward<Ops>(ops)...)};
}

template <class... Ops>
struct is_commutative<fused<Ops...>> : std::bool_constant<(is_commutative_v<Ops> && ...)>
{};
} // namespace rk

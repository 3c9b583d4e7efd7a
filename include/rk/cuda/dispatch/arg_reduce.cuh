#pragma once
// The stream-ordered forms of rk::arg_min, rk::arg_max and rk::arg_min_max for the GPU policies:
// the reduction with no init of the flat engine (detail::reduce_range_into, rk/cuda/dispatch/flat_engine.cuh) over
// indexed_input, or the empty result stored by a one-thread kernel.

#include <rk/arg_reduce.hpp>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/cuda/dispatch/flat_engine.cuh>
#include <rk/cuda/launch.cuh>
#include <rk/cuda/tuning.cuh>

#include <thrust/device_ptr.h>

#include <type_traits>

namespace rk
{
/// GPU policies run the arg reductions with arg_tuning's shapes over the policy's own provider.
template <gpu_backend Backend, class Provider>
constexpr gpu_policy<Backend, arg_tuning<Provider>> arg_policy(const gpu_policy<Backend, Provider>& policy)
{
  return policy.template tuned<arg_tuning<Provider>>();
}

namespace detail
{
template <class Result, gpu_backend Backend, class Provider, class Input, class OutputPtr, class Op>
void arg_into(const gpu_policy<Backend, Provider>& policy, Input first, Input last, OutputPtr out, const Result& empty,
              const Op& op, const char* name)
{
  using pointer = decltype(thrust::raw_pointer_cast(out));
  static_assert(
    std::is_pointer_v<pointer> && std::is_same_v<std::remove_pointer_t<pointer>, Result>,
    "rk::arg_min_into/arg_max_into/arg_max_last_into/arg_min_max_into write their result through a pointer (or "
    "thrust::device_ptr) to device memory of the result type: rk::arg_result<value_type, difference_type> "
    "(rk::arg_min_max_result<...> for arg_min_max_into)");
  Result* result = thrust::raw_pointer_cast(out);
  if (checked_distance(first, last) == 0)
  {
    check_device_accessible(result, "the output pointer", current_device_facts());
    launch_kernel(store_init_kernel<Result>, 1, 1, policy.stream, name, empty, result);
    return;
  }
  reduce_range_into(arg_policy(policy), first, last, result, op);
}
} // namespace detail

/// Stream-ordered rk::arg_min: writes the `rk::arg_result` to device memory `out` and returns
/// without waiting (an empty range stores `{value_type(), -1}`). `comp` as for rk::arg_min.
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class Compare = less>
void arg_min_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out,
                  Compare comp = {})
{
  detail::arg_into(policy, detail::indexed(first), detail::indexed(last), out, detail::empty_arg_result<InputIt>(),
                   detail::first_minimum<Compare>{comp}, "rk::arg_min_into: storing the empty result");
}

/// Stream-ordered rk::arg_max.
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class Compare = less>
void arg_max_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out,
                  Compare comp = {})
{
  detail::arg_into(policy, detail::indexed(first), detail::indexed(last), out, detail::empty_arg_result<InputIt>(),
                   detail::first_maximum<Compare>{comp}, "rk::arg_max_into: storing the empty result");
}

/// Stream-ordered rk::arg_max_last.
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class Compare = less>
void arg_max_last_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out,
                       Compare comp = {})
{
  detail::arg_into(policy, detail::indexed(first), detail::indexed(last), out, detail::empty_arg_result<InputIt>(),
                   detail::last_maximum<Compare>{comp}, "rk::arg_max_last_into: storing the empty result");
}

/// Stream-ordered rk::arg_min_max: writes an `rk::arg_min_max_result`.
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class Compare = less>
void arg_min_max_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out,
                      Compare comp = {})
{
  using result = arg_min_max_result<detail::arg_item_t<InputIt>, detail::arg_index_t<InputIt>>;
  detail::arg_into(policy, detail::indexed_min_max(first), detail::indexed_min_max(last), out,
                   result{detail::empty_arg_result<InputIt>(), detail::empty_arg_result<InputIt>()},
                   detail::first_minimum_maximum<Compare>{comp}, "rk::arg_min_max_into: storing the empty result");
}
} // namespace rk

#pragma once
// rk::explain and rk::explain_segmented for the GPU policies: what a call would run and why, from
// the same rules (rk/cuda/dispatch/backend_choice.cuh) and the same choice of kernel input as the
// call itself makes.

#include <rk/cuda/agent/reduce_agent.cuh>
#include <rk/cuda/dispatch/backend_choice.cuh>
#include <rk/cuda/dispatch/common.cuh>
#include <rk/explain.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace rk
{
namespace detail
{
template <class T>
std::string type_description()
{
  std::string name = std::is_floating_point_v<T> ? "float" : std::is_integral_v<T> ? "integer" : "user type";
  return name + " of " + std::to_string(sizeof(T)) + " bytes";
}
} // namespace detail

template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
explanation explain_dispatch(const gpu_policy<Backend, Provider>&, InputIt first, InputIt last, const T&,
                             const BinaryOp&)
{
  using Op = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  const std::int64_t n = detail::checked_distance(first, last);

  explanation e;
  e.policy = to_string(Backend);
  e.size   = n;
  std::string reason;
  if constexpr (Backend == gpu_backend::automatic)
  {
    // rk::explain describes rk::reduce, whose result goes to host memory; say so where
    // rk::reduce_into (result in device memory) would choose differently.
    const auto choice        = detail::choose_backend<T, Op>(n, false);
    const auto into          = detail::choose_backend<T, Op>(n, true);
    e.backend                = n == 0 ? "none" : to_string(choice.backend);
    e.stream_ordered_backend = n == 0 ? "none" : to_string(into.backend);
    reason                   = choice.reason;
    if (n > 0 && into.backend != choice.backend)
    {
      reason += std::string("; rk::reduce_into (result in device memory) runs ") + to_string(into.backend) + ": "
              + into.reason;
    }
    if constexpr (detail::prefers_atomic_v<T, Op>)
    {
      reason += " (atomic for " + std::to_string(detail::automatic_atomic_min_items) + " <= n < "
              + std::to_string(detail::automatic_atomic_max_items) + ")";
    }
  }
  else
  {
    e.backend                = n == 0 ? "none" : to_string(Backend);
    e.stream_ordered_backend = e.backend;
    reason = n == 0 ? "empty range: returns init, launches nothing, never calls op" : "requested explicitly";
  }
  reason += "; T: " + detail::type_description<T>();
  reason += std::string("; op commutative: ") + (is_commutative_v<Op> ? "yes" : "no");
  reason += std::string("; atomic route: ") + (detail::has_atomic_route_v<T, Op> ? "yes" : "no");

  // The same choice of kernel input as the call makes, without its device-access check.
  detail::with_kernel_input(first, nullptr, [&](auto input) {
    using input_type = decltype(input);
    using agent      = detail::flat_reduce_agent<Provider, input_type, T>;
    // A pointer read through element_pointer: it does not start on a 16-byte boundary.
    using read_input         = decltype(detail::to_device_input(first, nullptr));
    constexpr bool realigned = detail::vector_source<read_input>::vectorizable && !agent::vectorized;
    reason += std::string("; loads: ")
            + (agent::vectorized      ? "16-byte vectors"
               : agent::shifted_words ? "16-byte vectors shifted into place by shuffles"
                                      : "one element at a time");
    if constexpr (realigned)
    {
      reason += " (the first item is not on a 16-byte boundary, and the tree's tiles start at the first item)";
    }
    reason += "; block " + std::to_string(agent::block_threads) + " threads";
    const bool atomic_runs = e.backend == "atomic";
    if (atomic_runs)
    {
      e.reproducible = std::is_integral_v<T> && detail::atomic_kind_v<Op, T> != detail::atomic_kind::compare_and_swap;
      reason += e.reproducible ? "; rk::atomic on integers: exact, so the bits do not depend on the order"
                               : "; rk::atomic combines block results in arrival order: the bits may vary";
    }
    else if constexpr (agent::pairwise)
    {
      e.reproducible = true;
      reason += "; tree: pairwise over tiles of " + std::to_string(detail::tile_items<typename agent::item>)
              + " items counted from the first, fixed by the length";
      if (e.backend == "single_pass")
      {
        reason += "; finish: by the last block to arrive, or, for a grid of 2 to "
                + std::to_string(detail::single_pass_cluster_max_blocks)
                + " blocks on sm_90 and later, by block 0 of one thread block cluster from its shared memory";
      }
    }
    else if constexpr (agent::tuning.tree == tree_shape::merged_lanes)
    {
      e.reproducible = true;
      reason += "; merged lanes: the operator picks one item, ties broken by index, so the grouping never shows";
    }
    else
    {
      reason += "; tree: grid-ordered (this tuning's tree_shape), so float bits follow the grid";
    }
  });
  e.reason = reason;
  return e;
}

/// What rk::segmented_reduce runs for these types on this policy: the backend segmented_dispatch
/// instantiates (segmented_backend_v), so the answer is the one that runs.
template <gpu_backend Backend, class Provider, class InputIt, class OutputIt, class T, class BinaryOp>
explanation explain_segmented_dispatch(const gpu_policy<Backend, Provider>&, InputIt, std::int64_t segments, OutputIt,
                                       const T&, const BinaryOp&)
{
  using Op                  = detail::device_operator_t<BinaryOp>;
  constexpr gpu_backend run = detail::segmented_backend_v<Backend, T, Op, OutputIt>;
  constexpr bool atomic     = run == gpu_backend::atomic;
  const char* backend       = run == gpu_backend::two_pass ? "two_pass" : atomic ? "atomic" : "single_pass";
  std::string why =
    std::string(Backend != gpu_backend::automatic ? ""
                : atomic ? "rk::device runs rk::atomic here: an integer T whose op has a hardware atomic (add, min, "
                           "max, and, or, xor), into contiguous memory of T; exact, so the same bits as single_pass, "
                           "and faster on long segments. "
                         : "rk::device runs single_pass here (one pass, the same bits on every GPU); it would run "
                           "rk::atomic only for an integer T whose op has a hardware atomic, into contiguous memory "
                           "of T. ")
    + "Segments of up to one lane's items are folded by a thread, up to 16 lanes' by groups of 4, 8 or 16 lanes, up "
      "to 32 tiles by a warp; longer ones are cut, where the first kernel finds them, into parts of whole tree "
      "nodes (128 tiles, larger for the longest), listed with one atomic; a second kernel's blocks take the parts "
      "in list order, reduce each with rk::reduce's block body and put them together "
    + (run == gpu_backend::two_pass ? std::string("by a second kernel; each segment gets rk::reduce's tree")
       : atomic
         ? std::string("with atomics into the output, which the first kernel seeds with init (grid-ordered tree in "
                       "each part: floating-point results of long segments may differ from run to run, integer "
                       "results are exact)")
         : std::string("by the last block of each segment to finish; each segment gets rk::reduce's tree"))
    + (run != gpu_backend::atomic && segments <= detail::few_segments_max
         ? ". This call's " + std::to_string(segments) + " segment" + (segments == 1 ? "" : "s")
             + " take no list in the CSR and CUB forms: every block reads the bounds and cuts each segment into "
               "parts in proportion to its length, about one part a block, joined as above"
         : std::string())
    + ". The fixed-size form has no list: by the row length a thread, a group of lanes or a warp takes each row, "
      "or longer rows are cut alike into parts of rk::reduce's block body, joined by their last block (by a second "
      "kernel on two_pass); every backend gives it rk::reduce's tree";
  // As rk::explain: integer atomics are exact, so their bits do not depend on the order.
  const bool exact = !atomic
                  || (std::is_integral_v<T> && detail::atomic_kind_v<Op, T> != detail::atomic_kind::compare_and_swap);
  return {to_string(Backend), backend, backend, segments, why, exact};
}
} // namespace rk

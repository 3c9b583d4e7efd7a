#pragma once
// reduce_dispatch, reduce_into and explain_dispatch for the GPU policies: the compile-time
// eligibility checks, the automatic choice of backend (one place, choose_backend), the scratch
// lease and the copy back.

#include <rk/cuda/atomic.cuh>
#include <rk/cuda/atomic_combine.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/input.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/single_pass.cuh>
#include <rk/cuda/two_pass.cuh>
#include <rk/detail/reduce_api.hpp>

#include <thrust/iterator/iterator_traits.h>
#include <thrust/device_ptr.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace rk
{
namespace detail
{
/// rk::device runs rk::atomic for integer T with a hardware atomic (add, min, max, and, or, xor:
/// exact and deterministic, like single_pass) on ranges in [automatic_atomic_min_items,
/// automatic_atomic_max_items), where it measured up to 5 % faster than single_pass (H200, 2^16 to
/// 2^20; within ~1 % above that: perf/RESULTS.md).
/// Floating-point T always gets single_pass: atomic float sums vary from run to run.
inline constexpr std::int64_t automatic_atomic_min_items = std::int64_t{1} << 16;
inline constexpr std::int64_t automatic_atomic_max_items = std::int64_t{1} << 27;

template <class T, class Op>
inline constexpr bool prefers_atomic_v = std::is_integral_v<T> && atomic_kind_v<Op, T> != atomic_kind::compare_and_swap;

template <class T, class Op>
inline constexpr bool atomic_eligible_v = is_commutative_v<Op> && has_atomic_route_v<T, Op>;

/// The rules rk::device follows, stated once; `reason` is a static string, so the choice costs
/// nothing on the hot path and rk::explain prints the same words.
struct backend_choice
{
  gpu_backend backend;
  const char* reason;
};

/// `atomic_usable`: the result goes to device memory aligned for atomics. Not so for the
/// value-returning rk::reduce, whose single-pass final block stores straight into pinned host
/// memory (rk::atomic would need a copy back, ~8 µs of round trip measured on the H200), nor for an
/// rk::reduce_into output misaligned for sizeof(T).
template <class T, class Op>
constexpr backend_choice choose_backend(std::int64_t n, bool atomic_usable = true)
{
  if (n == 0)
  {
    return {gpu_backend::automatic, "empty range: returns init, launches nothing, never calls op"};
  }
  if constexpr (!is_commutative_v<Op>)
  {
    return {gpu_backend::single_pass, "op is not known to be commutative (rk::is_commutative is false), so "
                                      "rk::atomic is out; single_pass keeps input order in one launch"};
  }
  else if constexpr (!has_atomic_route_v<T, Op>)
  {
    return {gpu_backend::single_pass, "T has no atomic route (needs a 4- or 8-byte trivially copyable T), so "
                                      "rk::atomic is out; single_pass needs one launch"};
  }
  else
  {
    if (prefers_atomic_v<T, Op> && atomic_usable && n >= automatic_atomic_min_items
        && n < automatic_atomic_max_items)
    {
      return {gpu_backend::atomic, "integer T with a hardware atomic, at a size where atomic measured fastest "
                                   "(exact and deterministic for integers)"};
    }
    return {gpu_backend::single_pass, prefers_atomic_v<T, Op>
                                        ? "single_pass measured at least as fast as atomic at this size"
                                        : "single_pass is deterministic (atomic is not, for floating point or "
                                          "compare-and-swap ops) and at least as fast"};
  }
}

template <gpu_backend Backend, class InputIt, class T, class Op>
constexpr void check_gpu_call()
{
  static_assert(std::is_trivially_copyable_v<T>,
                "rk GPU policies need a trivially copyable T (the type of init): it is copied between host and "
                "device and through warp shuffles");
  static_assert(is_random_access_v<InputIt>, "rk GPU policies need random-access iterators");
  using system = typename thrust::iterator_system<InputIt>::type;
  static_assert(std::is_pointer_v<InputIt> || !std::is_same_v<system, thrust::host_system_tag>,
                "rk GPU policies cannot read this iterator: Thrust says it refers to host memory. Copy the data to a "
                "thrust::device_vector, wrap raw device pointers in thrust::device_ptr (thrust::device_pointer_cast) "
                "before adapting them, or use rk::host");
  if constexpr (Backend == gpu_backend::atomic)
  {
    static_assert(is_commutative_v<Op>,
                  "rk::atomic needs a commutative operator: blocks combine their results in whatever order they "
                  "finish. Use rk::single_pass or rk::two_pass (exact for non-commutative operators), or specialize "
                  "rk::is_commutative<Op> if your operator does commute");
    static_assert(has_atomic_route_v<T, Op>,
                  "rk::atomic has no atomic route for this T: it needs a 4- or 8-byte trivially copyable T "
                  "(and an arithmetic T for plus). Use rk::single_pass or rk::two_pass");
  }
}

template <class InputIt>
auto prepare_input(InputIt first)
{
  if constexpr (std::is_pointer_v<InputIt>)
  {
    check_device_accessible(first, "the input range");
  }
  return to_kernel_input(first);
}

/// Calls `f` with the launcher the policy runs: fixed at compile time for explicit policies
/// (only that backend is instantiated), chosen by choose_backend for rk::device.
template <gpu_backend Backend, class Provider, class Input, class T, class Op, class F>
decltype(auto) with_launcher(std::int64_t n, bool atomic_usable, F&& f)
{
  if constexpr (Backend == gpu_backend::two_pass)
  {
    return f(two_pass_launcher<Provider, Input, T, Op>{});
  }
  else if constexpr (Backend == gpu_backend::atomic)
  {
    return f(atomic_launcher<Provider, Input, T, Op>{});
  }
  else if constexpr (Backend == gpu_backend::single_pass || !atomic_eligible_v<T, Op>)
  {
    (void) n;
    (void) atomic_usable;
    return f(single_pass_launcher<Provider, Input, T, Op>{});
  }
  else
  {
    if (choose_backend<T, Op>(n, atomic_usable).backend == gpu_backend::atomic)
    {
      return f(atomic_launcher<Provider, Input, T, Op>{});
    }
    return f(single_pass_launcher<Provider, Input, T, Op>{});
  }
}

/// Where a value-returning call finds its result once the stream is done.
struct pending_result
{
  scratch_lease scratch;    ///< held until the result has been read
  const void* copy_from;    ///< device memory to copy to scratch.pinned_result, or null if the
                            ///< kernel wrote the result straight into it
};

/// Enqueues the reduction of n >= 1 items on `stream`, its result going to `out`; with a null
/// `out`, to the stream's pinned host slot: written there directly by the final block (saves a
/// copy and its ~µs of latency on the value-returning path), except by rk::atomic, whose
/// combining atomics need device memory.
template <gpu_backend Backend, class Provider, class Input, class T, class Op>
pending_result enqueue_reduction(Input input, std::int64_t n, const T& init, T* out, const Op& op, cudaStream_t stream)
{
  const device_facts& device = current_device_facts();
  const bool atomic_usable = out != nullptr && reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0;
  return with_launcher<Backend, Provider, Input, T, Op>(n, atomic_usable, [&](auto launcher) {
    using launcher_type       = decltype(launcher);
    const std::int64_t blocks = launcher_type::max_blocks(device);
    scratch_lease scratch =
      lease_scratch(device.ordinal, stream, sizeof(T), static_cast<std::size_t>(blocks) * sizeof(T));
    constexpr bool via_device = std::is_same_v<launcher_type, atomic_launcher<Provider, Input, T, Op>>;
    T* result = out ? out : static_cast<T*>(via_device ? scratch.result : scratch.pinned_result);
    launcher_type::launch(input, n, init, result, op, stream, scratch, blocks);
    const void* copy_from = (out == nullptr && via_device) ? scratch.result : nullptr;
    return pending_result{std::move(scratch), copy_from};
  });
}

template <class T>
T* unwrap_output(T* out)
{
  return out;
}
template <class T>
T* unwrap_output(thrust::device_ptr<T> out)
{
  return thrust::raw_pointer_cast(out);
}
} // namespace detail

template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
T reduce_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T init, BinaryOp op)
{
  detail::check_gpu_call<Backend, InputIt, T, BinaryOp>();
  const std::int64_t n = detail::checked_distance(first, last);
  if (n == 0)
  {
    return init;
  }
  auto input = detail::prepare_input(first);
  const detail::pending_result pending =
    detail::enqueue_reduction<Backend, Provider>(input, n, init, static_cast<T*>(nullptr), op, policy.stream);
  if (pending.copy_from)
  {
    detail::throw_on_error(cudaMemcpyAsync(pending.scratch.pinned_result, pending.copy_from, sizeof(T),
                                           cudaMemcpyDeviceToHost, policy.stream),
                           "rk::reduce: copying the result back");
  }
  detail::throw_on_error(cudaStreamSynchronize(policy.stream), "rk::reduce: waiting for the reduction");
  detail::uninitialized<T> value;
  std::memcpy(static_cast<void*>(&value), pending.scratch.pinned_result, sizeof(T));
  return value.value;
}

/// Stream-ordered form: writes the result to device memory `out` (a `T*` or thrust::device_ptr<T>)
/// and returns without waiting. Same semantics as rk::reduce otherwise. Capturable in a CUDA
/// graph once a call with the same T has run on the stream (the first call allocates scratch).
///
/// \code
/// rk::reduce_into(rk::device.on(s), v.begin(), v.end(), d_out, 0.0f, rk::plus{});
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T, class BinaryOp>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init,
                 BinaryOp op)
{
  detail::check_gpu_call<Backend, InputIt, T, BinaryOp>();
  T* result            = detail::unwrap_output(out);
  const std::int64_t n = detail::checked_distance(first, last);
  if constexpr (std::is_pointer_v<OutputPtr>)
  {
    detail::check_device_accessible(result, "the output pointer");
  }
  if (n == 0)
  {
    detail::store_init_kernel<<<1, 1, 0, policy.stream>>>(init, result);
    detail::check_launch("rk::reduce_into: storing init for an empty range");
    return;
  }
  auto input = detail::prepare_input(first);
  (void) detail::enqueue_reduction<Backend, Provider>(input, n, init, result, op, policy.stream);
}

template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init)
{
  reduce_into(policy, first, last, out, init, plus{});
}

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
  detail::check_gpu_call<Backend, InputIt, T, BinaryOp>();
  const std::int64_t n = detail::checked_distance(first, last);
  using input_type     = detail::kernel_input_t<InputIt>;
  using agent          = detail::reduce_agent<Provider, input_type, T>;

  explanation e;
  e.policy = to_string(Backend);
  e.size   = n;
  std::string reason;
  if constexpr (Backend == gpu_backend::automatic)
  {
    // rk::explain describes rk::reduce, whose result goes to host memory; say so where
    // rk::reduce_into (result in device memory) would choose differently.
    const auto choice = detail::choose_backend<T, BinaryOp>(n, false);
    const auto into   = detail::choose_backend<T, BinaryOp>(n, true);
    e.backend                = n == 0 ? "none" : to_string(choice.backend);
    e.stream_ordered_backend = n == 0 ? "none" : to_string(into.backend);
    reason                   = choice.reason;
    if (n > 0 && into.backend != choice.backend)
    {
      reason += std::string("; rk::reduce_into (result in device memory) runs ") + to_string(into.backend) + ": "
              + into.reason;
    }
    if constexpr (detail::prefers_atomic_v<T, BinaryOp>)
    {
      reason += " (atomic for " + std::to_string(detail::automatic_atomic_min_items) + " <= n < "
              + std::to_string(detail::automatic_atomic_max_items) + ")";
    }
  }
  else
  {
    e.backend                = n == 0 ? "none" : to_string(Backend);
    e.stream_ordered_backend = e.backend;
    reason                   = n == 0 ? "empty range: returns init, launches nothing, never calls op" : "requested explicitly";
  }
  reason += "; T: " + detail::type_description<T>();
  reason += std::string("; op commutative: ") + (is_commutative_v<BinaryOp> ? "yes" : "no");
  reason += std::string("; atomic route: ") + (detail::has_atomic_route_v<T, BinaryOp> ? "yes" : "no");
  reason += std::string("; loads: ") + (agent::vectorized ? "16-byte vectors" : "one element at a time");
  reason += "; block " + std::to_string(agent::block_threads) + " threads, chunk " + std::to_string(agent::chunk_items)
          + " items per warp";
  e.reason = reason;
  return e;
}
} // namespace rk

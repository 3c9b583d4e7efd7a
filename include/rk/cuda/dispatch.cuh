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

#include <thrust/device_ptr.h>
#include <thrust/iterator/detail/normal_iterator.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/type_traits/is_contiguous_iterator.h>

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
    if (prefers_atomic_v<T, Op> && atomic_usable && n >= automatic_atomic_min_items && n < automatic_atomic_max_items)
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

/// The iterators of the host containers: std::vector's (libstdc++) and thrust::host_vector's.
template <class It>
struct is_host_container_iterator : std::false_type
{};
#if defined(__GLIBCXX__)
template <class Pointer, class Container>
struct is_host_container_iterator<__gnu_cxx::__normal_iterator<Pointer, Container>> : std::true_type
{};
#endif
template <class Pointer>
struct is_host_container_iterator<thrust::detail::normal_iterator<Pointer>> : std::is_pointer<Pointer>
{};

/// Iterators known to refer to host memory: those of the host containers, and the non-contiguous
/// iterators Thrust places in host memory (adaptors over raw pointers among them). Any other
/// contiguous iterator (cuda::std::span's, say) says nothing of its memory: it is read through its
/// raw pointer, which is checked at run time like any raw pointer.
template <class InputIt>
inline constexpr bool is_host_iterator_v =
  !std::is_pointer_v<InputIt>
  && std::is_same_v<typename thrust::iterator_system<InputIt>::type, thrust::host_system_tag>
  && (!thrust::is_contiguous_iterator_v<InputIt> || is_host_container_iterator<InputIt>::value);

template <gpu_backend Backend, class Input, class T, class Op>
constexpr void check_gpu_call()
{
  using InputIt = source_iterator_t<Input>; // what reads memory (rk::transform_reduce's base)
  static_assert(std::is_trivially_copyable_v<T>,
                "rk GPU policies need a trivially copyable T (the type of init): it is copied between host and "
                "device and through warp shuffles");
  static_assert(sizeof(T) <= max_value_bytes,
                "rk GPU policies take a T (the type of init) of at most 256 bytes (rk::detail::max_value_bytes): the "
                "block body keeps 64 values of T in shared memory. Reduce a smaller summary of your items (e.g. "
                "through a transform iterator), or use rk::host");
  static_assert(is_random_access_v<InputIt>, "rk GPU policies need random-access iterators");
  static_assert(!is_host_iterator_v<InputIt>,
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

/// Calls `f` with what the kernels read for `first`: the raw pointer behind a contiguous iterator
/// (checked to be readable by the current device where Thrust does not already know it to be
/// device memory, unless `device` is null: rk::explain runs nothing), an element_pointer where
/// the items do not start on a 16-byte boundary (the tree's tiles are counted from the first item,
/// so its vector loads need that boundary), or the iterator itself. An input adaptor
/// (rk/detail/input_adaptors.hpp) has its base read that way, and wraps what is read.
template <class InputIt, class F>
decltype(auto) with_kernel_input(InputIt first, const device_facts* device, F&& f)
{
  if constexpr (is_input_adaptor<InputIt>::value)
  {
    return with_kernel_input(first.base, device, [&](auto input) { return f(first.rebase(input)); });
  }
  else
  {
    auto input       = to_kernel_input(first);
    using input_type = decltype(input);
    if constexpr (std::is_pointer_v<input_type>)
    {
      using system = typename thrust::iterator_system<InputIt>::type;
      if constexpr (!std::is_same_v<system, thrust::device_system_tag>)
      {
        if (device != nullptr)
        {
          check_device_accessible(input, "the input range", *device);
        }
      }
      using item = std::remove_cv_t<std::remove_pointer_t<input_type>>;
      if constexpr (is_vector_item_v<item>)
      {
        if (reinterpret_cast<std::uintptr_t>(input) % vector_bytes != 0)
        {
          return f(element_pointer<item>{input});
        }
      }
    }
    return f(input);
  }
}

/// Calls `f` with the launcher the policy runs: fixed at compile time for explicit policies
/// (only that backend is instantiated), chosen by choose_backend for rk::device. rk::device
/// instantiates rk::atomic only where it can choose it: for results in device memory.
template <gpu_backend Backend, bool ResultInDevice, class Provider, class Input, class T, class Op, class F>
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
  else if constexpr (Backend == gpu_backend::single_pass || !ResultInDevice
                     || !atomic_eligible_v<T, Op> || !prefers_atomic_v<T, Op>)
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

/// Enqueues the reduction of n >= 1 items on `stream`, its result going to `out`: device memory
/// (ResultInDevice), or a pinned host slot, which the final block writes directly (saves a copy
/// and its ~µs of latency on the value-returning path), except under rk::atomic, whose combining
/// atomics need device memory: its result is copied to the slot behind the kernel.
template <gpu_backend Backend, bool ResultInDevice, class Provider, class Input, class T, class Op>
void enqueue_reduction(Input input, std::int64_t n, const initial_value<T>& init, T* out, const Op& op,
                       cudaStream_t stream, const device_facts& device)
{
  const bool atomic_usable = ResultInDevice && reinterpret_cast<std::uintptr_t>(out) % sizeof(T) == 0;
  with_launcher<Backend, ResultInDevice, Provider, Input, T, Op>(n, atomic_usable, [&](auto launcher) {
    using launcher_type       = decltype(launcher);
    using agent               = typename launcher_type::agent;
    const auto plan           = agent::plan(n, launcher_type::max_blocks(device));
    scratch_lease scratch     = lease_scratch(device.ordinal, stream, sizeof(T),
                                              static_cast<std::size_t>(agent::partial_values(plan)) * sizeof(T));
    constexpr bool via_device = !ResultInDevice
                             && std::is_same_v<launcher_type, atomic_launcher<Provider, Input, T, Op>>;
    launcher_type::launch(input, plan, init, via_device ? static_cast<T*>(scratch.result) : out, op, stream, scratch);
    if constexpr (via_device)
    {
      // Enqueued before the lease ends, so no later call on the stream can overwrite the result first.
      throw_on_error(cudaMemcpyAsync(out, scratch.result, sizeof(T), cudaMemcpyDeviceToHost, stream),
                     "rk::reduce: copying the result back");
    }
    scratch.close();
  });
}

/// The T* behind a reduce_into output (a T* or a thrust::device_ptr<T>).
template <class T, class OutputPtr>
T* unwrap_output(OutputPtr out)
{
  using pointer = decltype(thrust::raw_pointer_cast(out));
  static_assert(std::is_pointer_v<pointer>,
                "rk::reduce_into writes its result through a T* or a thrust::device_ptr<T> to device memory");
  static_assert(std::is_same_v<std::remove_cv_t<std::remove_pointer_t<pointer>>, T>,
                "rk::reduce_into: the output must point to T, the type of init, which is the accumulator type (as "
                "in std::reduce). Pass init as the output's type, e.g. std::int64_t{0} for a std::int64_t* output");
  static_assert(!std::is_const_v<std::remove_pointer_t<pointer>>, "rk::reduce_into: the output points to const");
  return thrust::raw_pointer_cast(out);
}
} // namespace detail

namespace detail
{
/// The value-returning reduction of n >= 1 items: enqueues it with the final block writing a
/// pinned host slot, waits, and returns the value.
template <gpu_backend Backend, class Provider, class InputIt, class T, class Op>
T reduce_to_host(const gpu_policy<Backend, Provider>& policy, InputIt first, std::int64_t n,
                 const initial_value<T>& init, const Op& op)
{
  check_not_capturing(policy.stream, "rk::reduce");
  const device_facts& device = current_device_facts();
  const pinned_slot result   = acquire_pinned_slot();
  with_kernel_input(first, &device, [&](auto input) {
    enqueue_reduction<Backend, false, Provider>(input, n, init, static_cast<T*>(result.get()), op, policy.stream,
                                                device);
  });
  throw_on_error(cudaStreamSynchronize(policy.stream), "rk::reduce: waiting for the reduction");
  uninitialized<T> value;
  std::memcpy(static_cast<void*>(&value), result.get(), sizeof(T));
  return value.value;
}
} // namespace detail

template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
T reduce_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T init, BinaryOp user_op)
{
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  const std::int64_t n = detail::checked_distance(first, last);
  if (n == 0)
  {
    return init;
  }
  return detail::reduce_to_host(policy, first, n, detail::with_init(init), op);
}

template <class T, gpu_backend Backend, class Provider, class InputIt, class BinaryOp>
T reduce_nonempty_dispatch(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, BinaryOp user_op)
{
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  const std::int64_t n = detail::checked_distance(first, last);
  if (n == 0)
  {
    throw error("rk: reduce_nonempty_dispatch needs a non-empty range (an empty one has no value without init)");
  }
  return detail::reduce_to_host(policy, first, n, detail::without_init<T>(), op);
}

/// Stream-ordered form: writes the result to device memory `out` (a `T*` or thrust::device_ptr<T>)
/// and returns without waiting. Same semantics as rk::reduce otherwise. Capturable in a CUDA
/// graph: a captured call allocates its scratch inside the graph.
///
/// \code
/// rk::reduce_into(rk::device.on(s), v.begin(), v.end(), d_out, 0.0f, rk::plus{});
/// \endcode
template <gpu_backend Backend, class Provider, class InputIt, class OutputPtr, class T, class BinaryOp>
void reduce_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, OutputPtr out, T init,
                 BinaryOp user_op)
{
  const auto& op = detail::to_device_operator(user_op);
  using Op       = detail::device_operator_t<BinaryOp>;
  detail::check_gpu_call<Backend, InputIt, T, Op>();
  T* result                          = detail::unwrap_output<T>(out);
  const std::int64_t n               = detail::checked_distance(first, last);
  const detail::device_facts& device = detail::current_device_facts();
  if constexpr (!std::is_same_v<typename thrust::iterator_system<OutputPtr>::type, thrust::device_system_tag>)
  {
    detail::check_device_accessible(result, "the output pointer", device);
  }
  if (n == 0)
  {
    detail::launch_kernel(detail::store_init_kernel<T>, 1, 1, policy.stream,
                          "rk::reduce_into: storing init for an empty range", init, result);
    return;
  }
  detail::with_kernel_input(first, &device, [&](auto input) {
    detail::enqueue_reduction<Backend, true, Provider>(input, n, detail::with_init(init), result, op, policy.stream,
                                                       device);
  });
}

namespace detail
{
/// Enqueues the in-order op-fold of [first, last), n = last - first >= 1, without an init, into
/// device memory `*value`, on policy.stream: the local step of a reduction whose parts are
/// combined elsewhere (rk::nccl). Same checks and guarantees as rk::reduce_into otherwise; the
/// result is the root of the same tree, so op(init, *value) has rk::reduce_into's bits.
template <gpu_backend Backend, class Provider, class InputIt, class T, class BinaryOp>
void reduce_range_into(const gpu_policy<Backend, Provider>& policy, InputIt first, InputIt last, T* value,
                       const BinaryOp& user_op)
{
  const auto& op = to_device_operator(user_op);
  using Op       = device_operator_t<BinaryOp>;
  check_gpu_call<Backend, InputIt, T, Op>();
  const std::int64_t n = checked_distance(first, last);
  if (n == 0)
  {
    throw error("rk: reduce_range_into needs a non-empty range (an empty one has no value without init)");
  }
  const device_facts& device = current_device_facts();
  check_device_accessible(value, "the output pointer", device);
  with_kernel_input(first, &device, [&](auto input) {
    enqueue_reduction<Backend, true, Provider>(input, n, without_init<T>(), value, op, policy.stream, device);
  });
}
} // namespace detail

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
    using agent      = detail::reduce_agent<Provider, input_type, T>;
    // A pointer read through element_pointer: it does not start on a 16-byte boundary.
    constexpr bool realigned = std::is_pointer_v<detail::kernel_input_t<detail::source_iterator_t<InputIt>>>
                            && detail::is_vector_item_v<typename agent::item> && !agent::vectorized;
    reason += std::string("; loads: ") + (agent::vectorized ? "16-byte vectors" : "one element at a time");
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
    }
    else
    {
      reason += "; tree: grid-ordered (this tuning's tree_shape), so float bits follow the grid";
    }
  });
  e.reason = reason;
  return e;
}
} // namespace rk

#pragma once
// What every GPU algorithm's dispatch does first: the compile-time checks of a call, the operator
// the kernels run, and what the kernels read and write for the caller's iterators (raw pointers
// checked to be reachable from the device, adaptors over them, or the iterators themselves).

#include <rk/cuda/error.cuh>
#include <rk/cuda/functional.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/primitives/atomic_combine.cuh>
#include <rk/cuda/primitives/load.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/input_adaptors.hpp>
#include <rk/detail/range.hpp>
#include <rk/detail/segments.hpp>

#include <thrust/device_ptr.h>
#include <thrust/iterator/detail/normal_iterator.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/type_traits/is_contiguous_iterator.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace rk::detail
{
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
/// raw pointer, which is checked at run time like any raw pointer. Iterators rk builds over a raw
/// pointer it checks itself (rk::reduce_axes's: rk_iterator_memory is over_checked_pointer) say
/// nothing either.
template <class InputIt>
inline constexpr bool is_host_iterator_v =
  !std::is_pointer_v<InputIt> && !is_over_checked_pointer<InputIt>::value
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
  static_assert(is_random_access_v<InputIt>,
                "rk GPU policies need random-access iterators (a pointer, a thrust::device_vector's, or Thrust's "
                "fancy iterators over those); copy other ranges into a thrust::device_vector, or use rk::seq");
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

/// The prologue of every GPU dispatch: the compile-time checks of the call (check_gpu_call, over
/// the operator the kernels run), and that operator: the device twin of a standard function
/// object, or the caller's own.
template <gpu_backend Backend, class Input, class T, class BinaryOp>
device_operator_t<BinaryOp> gpu_operator(const BinaryOp& op)
{
  check_gpu_call<Backend, Input, T, device_operator_t<BinaryOp>>();
  return device_operator<BinaryOp>::get(op);
}

/// What a kernel reads or writes for an iterator: the raw pointer behind a contiguous one, checked
/// to be reachable from the current device (`device`; null skips the check: rk::explain runs
/// nothing) unless Thrust knows it is device memory; an input adaptor (rk/detail/input_adaptors.hpp)
/// over what its base becomes, as a pointer to const (what the 16-byte path reads); the iterator
/// otherwise.
template <class It>
auto to_device_access(It it, const char* what, const device_facts* device)
{
  if constexpr (is_input_adaptor<It>::value)
  {
    auto base = to_device_access(it.base, what, device);
    if constexpr (std::is_pointer_v<decltype(base)>)
    {
      return it.rebase(static_cast<const std::remove_pointer_t<decltype(base)>*>(base));
    }
    else
    {
      return it.rebase(base);
    }
  }
  else
  {
    static_assert(!is_host_iterator_v<It>,
                  "rk GPU policies cannot use this iterator: Thrust says it refers to host memory. Copy the data (or "
                  "the offsets, the keys, or the output) to a thrust::device_vector, wrap raw device pointers in "
                  "thrust::device_ptr (thrust::device_pointer_cast) before adapting or zipping them, or use rk::host");
    if constexpr (thrust::is_contiguous_iterator_v<It>)
    {
      auto* p = thrust::unwrap_contiguous_iterator(it);
      if constexpr (!std::is_same_v<typename thrust::iterator_system<It>::type, thrust::device_system_tag>)
      {
        if (device != nullptr)
        {
          check_device_accessible(p, what, *device);
        }
      }
      return p;
    }
    else
    {
      return it;
    }
  }
}

/// What a kernel reads for an input range: to_device_access's, a raw pointer as a pointer to const.
template <class InputIt>
auto to_device_input(InputIt first, const device_facts* device)
{
  auto input = to_device_access(first, "the input range", device);
  if constexpr (std::is_pointer_v<decltype(input)>)
  {
    return static_cast<const std::remove_pointer_t<decltype(input)>*>(input);
  }
  else
  {
    return input;
  }
}

/// Calls `f` with what rk::reduce's kernels read for `first`: to_device_input's, read as 16-byte
/// vectors or element by element as its start allows (with_aligned_reads).
template <class InputIt, class F>
decltype(auto) with_kernel_input(InputIt first, const device_facts* device, F&& f)
{
  return with_aligned_reads(to_device_input(first, device), std::forward<F>(f));
}

template <class OffsetIt>
auto to_device_segments(const csr_segments<OffsetIt>& s, const device_facts& device)
{
  auto offsets = to_device_access(s.offsets, "the segment offsets", &device);
  return csr_segments<decltype(offsets)>{offsets, s.count};
}

template <class BeginIt, class EndIt>
auto to_device_segments(const bounded_segments<BeginIt, EndIt>& s, const device_facts& device)
{
  auto begins = to_device_access(s.begins, "the segment begin offsets", &device);
  auto ends   = to_device_access(s.ends, "the segment end offsets", &device);
  return bounded_segments<decltype(begins), decltype(ends)>{begins, ends, s.count};
}

inline fixed_segments to_device_segments(const fixed_segments& s, const device_facts&)
{
  return s;
}

/// What the kernels write for an output: to_device_access's, or for the segmented arg forms'
/// writer, the same writer over what its output and segments become.
template <class OutputIt>
auto to_device_output(OutputIt out, const device_facts& device)
{
  if constexpr (is_segment_relative_output<OutputIt>::value)
  {
    auto at       = to_device_access(out.out, "the output", &device);
    auto segments = to_device_segments(out.segments, device);
    return segment_relative_output<decltype(at), decltype(segments)>{at, segments};
  }
  else
  {
    return to_device_access(out, "the output", &device);
  }
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

/// unwrap_output's T*, checked to be reachable from the current device `device` unless Thrust
/// knows it is device memory.
template <class T, class OutputPtr>
T* to_device_result(OutputPtr out, const device_facts& device)
{
  T* result = unwrap_output<T>(out);
  if constexpr (!std::is_same_v<typename thrust::iterator_system<OutputPtr>::type, thrust::device_system_tag>)
  {
    check_device_accessible(result, "the output pointer", device);
  }
  return result;
}

/// Throws rk::error unless `out` is aligned to sizeof(T), as the atomic routes need. `who` names
/// the call in the message.
template <class T>
void check_atomic_output(const T* out, const char* who)
{
  if (reinterpret_cast<std::uintptr_t>(out) % sizeof(T) != 0)
  {
    throw error(std::string(who) + ": the output must be aligned to sizeof(T) for atomic updates");
  }
}
} // namespace rk::detail

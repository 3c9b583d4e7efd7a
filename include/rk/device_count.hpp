#pragma once
/// \file
/// rk::device_count: the length of a range given as an integer in device memory, for
/// rk::reduce_into and rk::transform_reduce_into on GPU policies.
///
/// \code
/// filter<<<grid, block, 0, s>>>(in, kept, d_n);   // writes how many items it kept to *d_n
/// rk::reduce_into(rk::device.on(s), kept, rk::device_count(d_n), d_out, 0.0f, rk::plus{});
/// \endcode

#include <type_traits>
#include <utility>

namespace rk
{
/// A count of items that lives in device memory (see rk::device_count).
template <class Integer>
struct device_count_t
{
  const Integer* count;
};

/// The range [first, first + *count) of rk::reduce_into(policy, first, rk::device_count(count),
/// out, init, op), where `count` points to an integer in device memory that the GPU reads when the
/// reduction runs: a kernel earlier on the stream may write it, nothing waits on the host, and a
/// captured call replayed reads the count it holds then. Same bits as the call with the count on
/// the host. Any integer type of up to 64 bits. A negative count, or one above 2^46 items (what the
/// call's scratch is sized for), is found on the device: the output gets init, and
/// rk::check_device_errors() (which the next such call makes first) throws rk::error naming the
/// count. GPU policies with rk::reduce's tree: rk::device, rk::single_pass, rk::two_pass.
template <class Integer>
constexpr device_count_t<Integer> device_count(const Integer* count) noexcept
{
  static_assert(std::is_integral_v<Integer> && !std::is_same_v<std::remove_cv_t<Integer>, bool> && sizeof(Integer) <= 8,
                "rk::device_count takes a pointer to an integer of at most 64 bits in device memory");
  return {count};
}

/// The same from a pointer-like object (thrust::device_ptr<Integer>): its get().
template <class Pointer, class = decltype(std::declval<const Pointer&>().get())>
constexpr auto device_count(const Pointer& count) noexcept
{
  return device_count(count.get());
}
} // namespace rk

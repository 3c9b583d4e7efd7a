#pragma once
// How kernels report bad input that only the GPU sees, in the device's error word
// (rk/cuda/runtime.cuh's device_error_word; the first report stands until rk::check_device_errors
// reads and clears it): a bad segment's index + 1, below 2^62 (rk::segmented_reduce), or a count
// in device memory outside what rk::device_count takes, tagged count_report.

#include <rk/detail/config.hpp>

#include <type_traits>

namespace rk::detail
{
inline constexpr unsigned long long count_report           = 1ull << 63;
inline constexpr unsigned long long count_report_negative  = 1ull << 62;
inline constexpr unsigned long long count_report_magnitude = count_report_negative - 1;

/// The report of a bad count: the tag, the sign, and the magnitude (capped at 2^62 - 1).
template <class Count>
RK_HOST_DEVICE constexpr unsigned long long encode_count_report(Count count)
{
  bool negative = false;
  if constexpr (std::is_signed_v<Count>)
  {
    negative = count < Count{0};
  }
  const unsigned long long value = negative ? 0ull - static_cast<unsigned long long>(count)
                                            : static_cast<unsigned long long>(count);
  return count_report | (negative ? count_report_negative : 0ull)
       | (value < count_report_magnitude ? value : count_report_magnitude);
}
} // namespace rk::detail

#pragma once
// The one way rk writes a result value to memory another party reads whole: every byte, the
// padding as zeros (the GPU kernels' per-block and per-call results, the segmented arg forms'
// output).

#include <rk/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace rk::detail
{
/// Writes `value` (trivially copyable) to `at` in whole words, its padding as zeros. A {float, int64} result stored
/// field by field leaves 4 bytes of every 16 unwritten: each 32-byte sector becomes a partial
/// write, which the GPU's L2 completes with a read of DRAM, and a copy back reads bytes no one
/// wrote (compute-sanitizer's initcheck says so). A memset of `at` before the fields measured far
/// slower (byte stores).
RK_EXEC_CHECK_DISABLE
template <class R>
RK_HOST_DEVICE void store_every_byte(R* at, const R& value)
{
  using word =
    std::conditional_t<alignof(R) % 8 == 0 && sizeof(R) % 8 == 0, std::uint64_t,
                       std::conditional_t<alignof(R) % 4 == 0 && sizeof(R) % 4 == 0, std::uint32_t, unsigned char>>;
  constexpr std::size_t words                = sizeof(R) / sizeof(word);
  alignas(R) unsigned char staged[sizeof(R)] = {};
  ::new (static_cast<void*>(staged)) R(value);
  word w[words];
  std::memcpy(w, staged, sizeof(R));
  word* out = reinterpret_cast<word*>(at);
  for (std::size_t i = 0; i < words; ++i)
  {
    out[i] = w[i];
  }
}
} // namespace rk::detail

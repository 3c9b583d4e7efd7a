// What the CUB peer's binaries share: the proof that they compile against the newest CCCL, not the
// toolkit's, and the name their rows carry.

#pragma once

#include <cub/version.cuh>

#include <string>

static_assert(CUB_VERSION >= 300600,
              "the CUB peer must compile against CCCL >= 3.6 (RK_PERF_PEER_CCCL_INCLUDE_DIR), not the toolkit's");

namespace rk_bench
{
/// "cub3.6": how the peer's rows are named.
inline std::string cub_name()
{
  return "cub" + std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000);
}
} // namespace rk_bench

#pragma once
// The one error check every layer of rk_perf and its CUB peer uses (defined in harness.cu).

#include <cuda_runtime_api.h>

namespace rk_perf
{
/// Throws std::runtime_error naming `what` and carrying CUDA's error string unless `code` is
/// cudaSuccess.
void check(cudaError_t code, const char* what);
} // namespace rk_perf

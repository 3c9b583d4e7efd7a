#pragma once
// The one error check every perf executable uses (defined in trials.cu, which they all link).

#include <cuda_runtime_api.h>

namespace rk_perf
{
/// Throws std::runtime_error naming `what` and carrying CUDA's error string unless `code` is
/// cudaSuccess.
void check(cudaError_t code, const char* what);
} // namespace rk_perf

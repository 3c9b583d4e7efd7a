#pragma once
/// \file
/// rk::cuda_error and the check every CUDA runtime call in rk goes through.

#include <rk/error.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace rk
{
/// A CUDA runtime call failed. `code()` is the cudaError_t; `what()` names the call and carries
/// cudaGetErrorString's text. Sticky errors (a kernel fault) leave the device unusable for the
/// rest of the process, as with any CUDA program.
class cuda_error : public error
{
public:
  cuda_error(cudaError_t code, const std::string& context)
      : error(context + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code))
      , code_(code)
  {}

  cudaError_t code() const noexcept
  {
    return code_;
  }

private:
  cudaError_t code_;
};

namespace detail
{
inline void throw_on_error(cudaError_t code, const char* context)
{
  if (code != cudaSuccess)
  {
    throw cuda_error(code, context);
  }
}
} // namespace detail
} // namespace rk

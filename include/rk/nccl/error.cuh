#pragma once
/// \file
/// rk::nccl_error and the check every NCCL call in rk::nccl goes through.

#include <rk/error.hpp>

#include <nccl.h>

#include <string>
#include <thread>

namespace rk
{
/// An NCCL call failed. `code()` is the ncclResult_t; `what()` names the call and carries
/// ncclGetErrorString's text and, where NCCL has one, its last message (ncclGetLastError), which
/// says which argument or peer was at fault.
class nccl_error : public error
{
public:
  nccl_error(ncclResult_t code, const std::string& context, const std::string& detail = {})
      : error(context + ": " + ncclGetErrorString(code) + (detail.empty() ? "" : " (NCCL: " + detail + ")"))
      , code_(code)
  {}

  ncclResult_t code() const noexcept
  {
    return code_;
  }

private:
  ncclResult_t code_;
};

namespace detail
{
/// Throws rk::nccl_error unless `code` (returned by an NCCL call on `comm`) says success. A
/// non-blocking communicator may answer ncclInProgress while it still enqueues: this waits until
/// it has finished (ncclCommGetAsyncError), so that what rk enqueues next follows it on the stream.
inline void check_nccl(ncclResult_t code, ncclComm_t comm, const char* context)
{
  while (code == ncclInProgress && comm != nullptr)
  {
    std::this_thread::yield();
    if (const ncclResult_t polled = ncclCommGetAsyncError(comm, &code); polled != ncclSuccess)
    {
      code = polled;
    }
  }
  if (code != ncclSuccess)
  {
    // NCCL keeps its last message until the next failure: it belongs to this one.
    const char* last = ncclGetLastError(comm);
    throw nccl_error(code, context, last != nullptr ? last : "");
  }
}
} // namespace detail
} // namespace rk

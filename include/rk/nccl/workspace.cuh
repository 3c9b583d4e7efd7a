#pragma once
/// \file
/// rk::nccl_workspace: NCCL symmetric memory on every rank of a communicator (two slots of about
/// 40 kB per rank: room for the rk::partial of the largest T), which lets rk::nccl's exchange run
/// as one kernel (each rank stores its record, a value or a partial, straight into every peer's
/// memory over NVLink, then combines the records that arrived in its own) instead of an
/// ncclAllGather between kernels. Where the communicator cannot have it (ranks
/// on several hosts, GPUs without direct peer access, NCCL older than 2.28 or a runtime whose device
/// API differs from the headers rk was built with), the workspace says why, and the calls that use
/// it run the ncclAllGather step: same results, same rules.
///
/// \code
/// rk::nccl_workspace ws(comm);                       // collective: every rank, once
/// rk::reduce_into(rk::nccl(ws).on(stream), first, last, d_out, init, op);
/// \endcode

#include <rk/cuda/error.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/config.hpp>
#include <rk/nccl/error.cuh>
#include <rk/partial.hpp>

#include <nccl.h>

#include <cstddef>
#include <string>

#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0) && __has_include(<nccl_device.h>)
#  include <nccl_device.h>
#  define RK_NCCL_DEVICE_API 1
#else
#  define RK_NCCL_DEVICE_API 0
#endif

namespace rk
{
namespace detail
{
/// Where a rank's record lands in a peer's symmetric buffer. The buffer holds a call counter (this
/// rank's calls so far; only this rank's kernel touches it) and two banks of one slot per source
/// rank. A call uses the bank of its count's parity: a rank starts writing bank b again only after
/// every peer has finished the call that read bank b (it needed their records of the call in
/// between, which each peer's stream writes after that read), so two banks never let a fast rank
/// overwrite a record a slow one has not folded yet.
struct symmetric_records
{
  /// The slot's header: the call number of the record in it (0: none yet), then whether the
  /// shard was empty. The value follows at value_offset.
  struct slot_header
  {
    unsigned long long call;
    unsigned int valid;
    unsigned int padding;
  };
  static constexpr std::size_t header_bytes = 128; // the counter, alone in NCCL's 128-byte unit
  static constexpr std::size_t value_offset = sizeof(slot_header);
  /// A slot holds a value of T at value_offset, or an rk::partial<T> record at record_offset, for
  /// any T rk takes (at most max_value_bytes): the record's values, and four values' room for its
  /// 162 bytes of header and levels and the padding of its three arrays (each less than alignof(T)
  /// <= sizeof(T)). The buffer, its header and its slots are 128-byte aligned, so a record is read
  /// in place wherever alignof(rk::partial<T>) is at most 128.
  static constexpr std::size_t record_offset = 128;
  static constexpr std::size_t record_align  = 128;
  static constexpr std::size_t record_bytes  = (partial<char>::max_values + 4) * max_value_bytes;
  static constexpr std::size_t slot_bytes    = (record_offset + record_bytes + 127) / 128 * 128;

  RK_HOST_DEVICE static constexpr std::size_t bytes(int ranks) noexcept
  {
    return header_bytes + 2 * static_cast<std::size_t>(ranks) * slot_bytes;
  }
  RK_HOST_DEVICE static constexpr std::size_t slot_offset(unsigned long long call, int source, int ranks) noexcept
  {
    return header_bytes + (static_cast<std::size_t>(call & 1) * ranks + source) * slot_bytes;
  }
};
} // namespace detail

/// rk's symmetric memory on every rank of an NCCL communicator, for rk::nccl(workspace) calls.
///
/// Rules (NCCL's, for its device API):
/// - Constructing it is collective: every rank of `comm` constructs one, in the same order relative
///   to its other collective calls on `comm`, from its own thread with its GPU current, outside
///   ncclGroupStart/ncclGroupEnd (inside a group NCCL would defer the setup past the constructor).
/// - The calls that use one workspace run one after the other on each rank (one stream, or
///   streams ordered by events): each call's kernel waits for the same call's records of every
///   peer.
/// - Destroy it before the communicator, once the calls that used it have finished
///   (cudaStreamSynchronize). It is neither copyable nor movable (policies point at it).
class nccl_workspace
{
public:
  /// Sets up the symmetric memory with ncclDevCommCreate (collective). If the communicator cannot
  /// have it, the workspace still works, on the ncclAllGather step: `symmetric()` is false and
  /// `reason()` says why. NCCL failures other than "not supported here" throw rk::nccl_error.
  explicit nccl_workspace(ncclComm_t comm)
      : comm_(comm)
  {
    int ranks = 0;
    detail::check_nccl(ncclCommCount(comm, &ranks), comm, "rk::nccl_workspace: ncclCommCount");
#if RK_NCCL_DEVICE_API
    if (ranks == 1)
    {
      // NCCL gives a communicator with no peers no symmetric memory (and would say so in a
      // warning); one rank's fold needs no gather anyway.
      reason_ = "a communicator of one rank has no peers to share symmetric memory with";
      return;
    }
    int runtime = 0;
    detail::check_nccl(ncclGetVersion(&runtime), comm, "rk::nccl_workspace: ncclGetVersion");
    // rk fills and reads the device API's structures with the headers' layout. Across minor
    // versions they differ (2.30 put a versioned header on the requirements); within 2.28 the
    // fields rk uses sit at the same offsets from 2.28.3 to 2.28.9, but a newer runtime may write
    // a longer ncclDevComm than rk's member holds. So: the headers' minor version, no newer.
    if (runtime / 100 != NCCL_VERSION_CODE / 100 || runtime > NCCL_VERSION_CODE)
    {
      reason_ = "the NCCL runtime (" + std::to_string(runtime) + ") is not an equal or older release of the minor "
              + "version of the headers rk was built with (" + std::to_string(NCCL_VERSION_CODE)
              + "), whose device API rk uses";
      return;
    }
#  ifdef NCCL_DEV_RESOURCE_REQUIREMENTS_INITIALIZER
    ncclDevResourceRequirements_t buffer = NCCL_DEV_RESOURCE_REQUIREMENTS_INITIALIZER;
#  else
    ncclDevResourceRequirements_t buffer{};
#  endif
    buffer.bufferSize      = detail::symmetric_records::bytes(ranks);
    buffer.bufferAlign     = 128;
    buffer.outBufferHandle = &buffer_;
#  ifdef NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER
    ncclDevCommRequirements_t requirements = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#  else
    ncclDevCommRequirements_t requirements{};
#  endif
    requirements.resourceRequirementsList = &buffer;
    // No NCCL barriers: the records carry their call number, which is the synchronization.
    const ncclResult_t created = ncclDevCommCreate(comm, &requirements, &device_comm_);
    if (created == ncclInvalidUsage)
    {
      // NCCL's answer where the communicator has no symmetric memory (ranks on several hosts, no
      // direct peer access between some GPUs, NCCL_WIN_ENABLE=0, no cuMem).
      const char* last = ncclGetLastError(comm);
      reason_          = "NCCL has no symmetric memory for this communicator (ncclDevCommCreate: "
              + std::string(ncclGetErrorString(created))
              + (last != nullptr && *last != 0 ? std::string(": ") + last : "") + ")";
      return;
    }
    detail::check_nccl(created, comm, "rk::nccl_workspace: ncclDevCommCreate");
    created_ = true;
    if (device_comm_.lsaSize != ranks)
    {
      reason_ = "only " + std::to_string(device_comm_.lsaSize) + " of the " + std::to_string(ranks)
              + " ranks can store into each other's memory (NCCL's LSA team)";
      return;
    }
    symmetric_ = true;
#else
    (void) ranks;
    reason_ = "rk was built with NCCL " + std::to_string(NCCL_VERSION_CODE) + ", older than 2.28's device API";
#endif
  }

  nccl_workspace(const nccl_workspace&)            = delete;
  nccl_workspace& operator=(const nccl_workspace&) = delete;
  // Policies point at it: a move would leave them on the moved-from object. Hold it in a
  // std::optional or std::unique_ptr to make it later or hand it on.
  nccl_workspace(nccl_workspace&&)            = delete;
  nccl_workspace& operator=(nccl_workspace&&) = delete;

  ~nccl_workspace()
  {
#if RK_NCCL_DEVICE_API
    if (created_)
    {
      // Not collective (NCCL drops this rank's window); an error here has no one to report to.
      (void) ncclDevCommDestroy(comm_, &device_comm_);
    }
#endif
  }

  /// The communicator it was made for.
  ncclComm_t comm() const noexcept
  {
    return comm_;
  }

  /// Whether calls with it run the one-kernel step over symmetric memory.
  bool symmetric() const noexcept
  {
    return symmetric_;
  }

  /// Why not, when symmetric() is false; empty otherwise.
  const std::string& reason() const noexcept
  {
    return reason_;
  }

#if RK_NCCL_DEVICE_API
  /// NCCL's device communicator and the handle of rk's buffer in it (for the step's kernel).
  const ncclDevComm& device_comm() const noexcept
  {
    return device_comm_;
  }
  ncclDevResourceHandle_t buffer() const noexcept
  {
    return buffer_;
  }
#endif

private:
  ncclComm_t comm_ = nullptr;
  std::string reason_;
#if RK_NCCL_DEVICE_API
  ncclDevComm device_comm_{};
  ncclDevResourceHandle_t buffer_ = 0;
#endif
  bool created_   = false;
  bool symmetric_ = false;
};
} // namespace rk

// rk's compiled part: cached device facts, scratch, pinned result slots and the device-access
// check. See rk/cuda/runtime.cuh for the contract.

#include <rk/cuda/error.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/detail/device_errors.hpp>
#include <rk/detail/integer.hpp>

#include <cuda.h> // driver types only: the one driver call is resolved through the runtime

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace rk::detail
{
namespace
{
constexpr int max_devices = 64;

// Layout of a scratch buffer: [counters | result | partials], each part 256-byte aligned.
constexpr std::size_t min_counter_bytes = 256;
constexpr std::size_t min_result_bytes  = 256;
// Room for ~2000 partials of 8 bytes: a full grid on current GPUs, so most streams allocate once.
constexpr std::size_t min_partial_bytes = 16 << 10;

/// Frees quietly: after a kernel fault the context is gone with its memory, and at exit the
/// runtime may be unloading; either way there is nothing left to free and nobody to tell.
void ignore_error(cudaError_t code) noexcept
{
  if (code != cudaSuccess)
  {
    cudaGetLastError();
  }
}

void throw_allocation_error(cudaError_t code, std::size_t bytes, const char* what)
{
  cudaGetLastError();
  throw cuda_error(code, "rk: allocating " + std::to_string(bytes) + " bytes of " + what);
}

/// A buffer that work already enqueued on some stream may still use, kept until an event recorded
/// behind that work has completed; then a new scratch takes it over instead of allocating. This
/// is how scratch outlives a thread or a stream's growth without waiting for anything.
struct parked_buffer
{
  int device;
  void* ptr;
  std::size_t bytes;
  cudaEvent_t done; // null if no event could be recorded: reused only by release_cached_memory
};

/// One stream's (or one thread's per-thread stream's) cached scratch. Plain cudaMalloc, not the
/// stream-ordered allocator: a thread that exits while a stream-ordered allocation or free is
/// pending on its per-thread stream hangs in CUDA's own thread teardown (seen on an H100 with
/// CUDA 13.0, no rk code involved).
struct stream_scratch
{
  std::mutex mutex;
  int device                   = 0;
  cudaStream_t stream          = nullptr;
  void* buffer                 = nullptr;
  std::size_t counter_capacity = 0; ///< bytes
  std::size_t result_capacity  = 0;
  std::size_t partial_capacity = 0;

  std::size_t bytes() const
  {
    return counter_capacity + result_capacity + partial_capacity;
  }
};

/// The thread-local object whose lifetime is the thread's: its address tells the threads apart
/// (unlike std::thread::id, which the next thread may get as soon as one is joined), and its
/// destructor gives the thread's scratch back when the thread exits.
struct thread_scratch_owner
{
  ~thread_scratch_owner();
};
thread_local thread_scratch_owner this_thread_owner;

struct scratch_cache
{
  std::mutex mutex;
  // Keyed by (device, stream handle, owner). The owner is set only for the handles that name a
  // different stream in every thread: cudaStreamPerThread, and 0, which code compiled with
  // --default-stream per-thread also means so (for the legacy default stream it only costs one
  // scratch per thread).
  std::map<std::tuple<int, cudaStream_t, const thread_scratch_owner*>, std::unique_ptr<stream_scratch>> entries;
  std::vector<parked_buffer> parked;

  ~scratch_cache()
  {
    free_everything();
  }

  /// Synchronous (cudaFree waits for the device): for release_cached_memory, which runs while no
  /// rk call is in flight, and for the end of the process.
  void free_everything() noexcept
  {
    relaxed_capture_mode relaxed;
    for (auto& [key, entry] : entries)
    {
      ignore_error(cudaFree(entry->buffer));
      entry->buffer           = nullptr;
      entry->counter_capacity = entry->result_capacity = entry->partial_capacity = 0;
    }
    for (const parked_buffer& p : parked)
    {
      // A buffer the driver no longer knows went with its context (the program reset the device,
      // as NVBench's main does before it returns), and the event with it: destroying that event
      // made the driver dereference a freed handle, a segfault in the process's exit (H200,
      // rk_bench_segmented). So the event is destroyed only after its buffer was freed.
      const cudaError_t freed = cudaFree(p.ptr);
      ignore_error(freed);
      if (p.done != nullptr && freed == cudaSuccess)
      {
        ignore_error(cudaEventDestroy(p.done));
      }
    }
    parked.clear();
  }
};
scratch_cache& the_cache()
{
  static scratch_cache cache;
  return cache;
}

/// The entry the calling thread used last, so that repeated calls on one stream skip the
/// process-wide lock and lookup. Entries are erased only by their owner thread's exit.
struct last_entry
{
  int device            = -1;
  cudaStream_t stream   = nullptr;
  stream_scratch* entry = nullptr;
};
thread_local last_entry last_used;

/// Set when this thread's owner is gone: an rk call made later in the thread's exit (from another
/// thread_local's destructor) takes one-off scratch instead of re-creating an entry nobody erases.
thread_local bool owner_gone = false;

/// Parks `ptr` (on `device`) behind the work enqueued so far on `stream`. Call with the cache's
/// lock held.
void park(scratch_cache& cache, int device, void* ptr, std::size_t bytes, cudaStream_t stream) noexcept
{
  if (ptr == nullptr)
  {
    return;
  }
  relaxed_capture_mode relaxed;
  int current = 0;
  ignore_error(cudaGetDevice(&current));
  ignore_error(cudaSetDevice(device)); // a per-thread handle names this device's stream only while it is current
  cudaEvent_t done = nullptr;
  if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess
      || cudaEventRecord(done, stream) != cudaSuccess)
  {
    cudaGetLastError();
    if (done != nullptr)
    {
      ignore_error(cudaEventDestroy(done));
      done = nullptr;
    }
  }
  ignore_error(cudaSetDevice(current));
  try
  {
    cache.parked.push_back({device, ptr, bytes, done});
  }
  catch (...)
  {
    // Out of host memory: the buffer is lost to the process, never handed to anyone.
  }
}

/// The smallest parked buffer on `device` whose work is done and whose size fits `bytes` without
/// wasting a large one on a small request (at most four times it plus 1 MiB: a thread's parked
/// gigabyte of scratch must not go to a record of a few hundred bytes, whose next large call would
/// then allocate another), or null.
parked_buffer take_parked(scratch_cache& cache, int device, std::size_t bytes) noexcept
{
  const std::size_t largest = bytes <= (SIZE_MAX - (std::size_t{1} << 20)) / 4 ? 4 * bytes + (std::size_t{1} << 20)
                                                                               : SIZE_MAX;
  auto best                 = cache.parked.end();
  for (auto it = cache.parked.begin(); it != cache.parked.end(); ++it)
  {
    if (it->device == device && it->bytes >= bytes && it->bytes <= largest
        && (best == cache.parked.end() || it->bytes < best->bytes) && it->done != nullptr
        && cudaEventQuery(it->done) == cudaSuccess)
    {
      best = it;
    }
  }
  if (best == cache.parked.end())
  {
    return {device, nullptr, 0, nullptr};
  }
  const parked_buffer found = *best;
  cache.parked.erase(best);
  ignore_error(cudaEventDestroy(found.done));
  return found;
}

thread_scratch_owner::~thread_scratch_owner()
{
  // Parked, not freed: the exit waits for nothing, and the next scratch takes the buffers over
  // once the work this thread left behind is done.
  auto& cache = the_cache();
  std::lock_guard<std::mutex> guard(cache.mutex);
  for (auto it = cache.entries.begin(); it != cache.entries.end();)
  {
    if (std::get<2>(it->first) == this)
    {
      stream_scratch& entry = *it->second;
      park(cache, entry.device, entry.buffer, entry.bytes(), entry.stream);
      it = cache.entries.erase(it);
    }
    else
    {
      ++it;
    }
  }
  last_used  = last_entry{};
  owner_gone = true;
}

stream_scratch& cached_scratch(int device, cudaStream_t stream)
{
  if (last_used.entry != nullptr && last_used.device == device && last_used.stream == stream)
  {
    return *last_used.entry;
  }
  auto& cache = the_cache();
  std::lock_guard<std::mutex> guard(cache.mutex);
  const bool per_thread_handle = stream == nullptr || stream == cudaStreamPerThread;
  auto& slot                   = cache.entries[{device, stream, per_thread_handle ? &this_thread_owner : nullptr}];
  if (!slot)
  {
    slot         = std::make_unique<stream_scratch>();
    slot->device = device;
    slot->stream = stream;
  }
  last_used = {device, stream, slot.get()};
  return *slot;
}

/// Zeroes `buffer`'s first `counter_bytes` (its counters) in stream order; if that cannot be
/// enqueued, frees the buffer (in stream order where it was allocated so) and throws.
void* zero_counters(void* buffer, std::size_t counter_bytes, cudaStream_t stream, bool stream_ordered)
{
  if (const cudaError_t zeroed = cudaMemsetAsync(buffer, 0, counter_bytes, stream); zeroed != cudaSuccess)
  {
    ignore_error(stream_ordered ? cudaFreeAsync(buffer, stream) : cudaFree(buffer));
    throw cuda_error(zeroed, "rk: zeroing scratch counters");
  }
  return buffer;
}

/// Scratch of `bytes` for a call being captured: the graph's own allocation node.
void* allocate_in_capture(std::size_t bytes, std::size_t counter_bytes, cudaStream_t stream)
{
  void* buffer = nullptr;
  if (const cudaError_t code = cudaMallocAsync(&buffer, bytes, stream); code != cudaSuccess)
  {
    throw_allocation_error(code, bytes, "device scratch");
  }
  return zero_counters(buffer, counter_bytes, stream, true);
}

/// At least `bytes` of device memory on `device`: a parked buffer whose work is done (with its own
/// size, which may be larger), or new plain device memory (`what` names it in the error).
device_buffer parked_or_new(int device, std::size_t bytes, const char* what)
{
  parked_buffer reused{};
  {
    auto& cache = the_cache();
    std::lock_guard<std::mutex> guard(cache.mutex);
    reused = take_parked(cache, device, bytes);
  }
  if (reused.ptr != nullptr)
  {
    return {reused.ptr, reused.bytes};
  }
  relaxed_capture_mode relaxed;
  void* buffer = nullptr;
  if (const cudaError_t code = cudaMalloc(&buffer, bytes); code != cudaSuccess)
  {
    throw_allocation_error(code, bytes, what);
  }
  return {buffer, bytes};
}

/// Scratch of at least `bytes` for eager calls on `stream`, its counters zeroed.
device_buffer reuse_or_allocate(int device, std::size_t bytes, std::size_t counter_bytes, cudaStream_t stream)
{
  const device_buffer buffer = parked_or_new(device, bytes, "device scratch");
  return {zero_counters(buffer.ptr, counter_bytes, stream, false), buffer.bytes};
}

cudaStreamCaptureStatus capture_status(cudaStream_t stream)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t code         = cudaStreamIsCapturing(stream, &status);
  if (code == cudaErrorStreamCaptureImplicit)
  {
    cudaGetLastError();
    throw error("rk: the legacy default stream cannot be used while another stream is being captured; pass a "
                "stream of your own with policy.on(stream)");
  }
  throw_on_error(code, "rk: cudaStreamIsCapturing");
  if (status == cudaStreamCaptureStatusInvalidated)
  {
    throw error("rk: the stream's capture has already been invalidated (by an earlier illegal call); end it and "
                "capture again");
  }
  return status;
}
} // namespace

const device_facts& current_device_facts()
{
  static std::array<std::once_flag, max_devices> once;
  static std::array<device_facts, max_devices> facts;
  int device = 0;
  throw_on_error(cudaGetDevice(&device), "rk: cudaGetDevice");
  if (device < 0 || device >= max_devices)
  {
    throw error("rk: device ordinal " + std::to_string(device) + " is out of the supported range");
  }
  std::call_once(once[device], [device] {
    cudaDeviceProp prop{};
    throw_on_error(cudaGetDeviceProperties(&prop, device), "rk: cudaGetDeviceProperties");
    facts[device] = device_facts{device,
                                 prop.multiProcessorCount,
                                 prop.maxThreadsPerMultiProcessor,
                                 prop.major * 10 + prop.minor,
                                 prop.pageableMemoryAccess != 0,
                                 prop.name};
  });
  return facts[device];
}

scratch_lease::scratch_lease(owner whose, std::unique_lock<std::mutex> lock, cudaStream_t stream, int device,
                             void* base, std::size_t bytes, std::size_t counter_capacity, std::size_t result_capacity)
    : counters(static_cast<unsigned*>(base))
    , result(static_cast<unsigned char*>(base) + counter_capacity)
    , partials(static_cast<unsigned char*>(base) + counter_capacity + result_capacity)
    , owner_(whose)
    , lock_(std::move(lock))
    , stream_(stream)
    , device_(device)
    , base_(base)
    , bytes_(bytes)
{}

scratch_lease::~scratch_lease()
{
  try
  {
    close();
  }
  catch (...)
  {
    cudaGetLastError();
  }
}

void scratch_lease::close()
{
  if (lock_.owns_lock())
  {
    lock_.unlock();
  }
  const owner whose = std::exchange(owner_, owner::stream_cache);
  void* base        = std::exchange(base_, nullptr);
  if (whose == owner::graph)
  {
    throw_on_error(cudaFreeAsync(base, stream_), "rk: capturing the free of graph-owned scratch");
  }
  else if (whose == owner::one_off)
  {
    park_device_buffer(device_, base, bytes_, stream_);
  }
}

scratch_lease lease_scratch(int device, cudaStream_t stream, std::size_t counter_words, std::size_t result_bytes,
                            std::size_t partial_bytes)
{
  const std::size_t counter_need = align_up(std::max(counter_words * sizeof(unsigned), min_counter_bytes), 256);
  const std::size_t result_need  = align_up(std::max(result_bytes, min_result_bytes), 256);
  const std::size_t partial_need = align_up(std::max<std::size_t>(partial_bytes, 1), 256);
  const std::size_t need         = counter_need + result_need + partial_need;
  if (capture_status(stream) == cudaStreamCaptureStatusActive)
  {
    // Captured: allocation, counter reset and free become nodes of the graph, which then owns its
    // scratch; the stream's cached scratch is never embedded in a graph.
    void* owned = allocate_in_capture(need, counter_need, stream);
    return scratch_lease(scratch_lease::owner::graph, {}, stream, device, owned, need, counter_need, result_need);
  }
  const bool per_thread_handle = stream == nullptr || stream == cudaStreamPerThread;
  if (per_thread_handle && owner_gone)
  {
    relaxed_capture_mode relaxed;
    const device_buffer once = reuse_or_allocate(device, need, counter_need, stream);
    return scratch_lease(scratch_lease::owner::one_off, {}, stream, device, once.ptr, once.bytes, counter_need,
                         result_need);
  }

  stream_scratch& entry = cached_scratch(device, stream);
  std::unique_lock<std::mutex> lock(entry.mutex);
  if (counter_need > entry.counter_capacity || result_need > entry.result_capacity
      || partial_need > entry.partial_capacity)
  {
    const std::size_t counter_capacity = std::max(counter_need, entry.counter_capacity);
    const std::size_t result_capacity  = std::max(result_need, entry.result_capacity);
    const std::size_t partial_capacity = std::max({partial_need, min_partial_bytes, 2 * entry.partial_capacity});
    relaxed_capture_mode relaxed;
    const std::size_t bytes   = counter_capacity + result_capacity + partial_capacity;
    const device_buffer fresh = reuse_or_allocate(device, bytes, counter_capacity, stream);
    // Kernels on the stream may still use the old buffer: park it behind them.
    park_device_buffer(device, entry.buffer, entry.bytes(), stream);
    entry.buffer           = fresh.ptr;
    entry.counter_capacity = counter_capacity;
    entry.result_capacity  = result_capacity;
    entry.partial_capacity = partial_capacity + (fresh.bytes - bytes); // a parked buffer's surplus
  }
  return scratch_lease(scratch_lease::owner::stream_cache, std::move(lock), stream, device, entry.buffer, entry.bytes(),
                       entry.counter_capacity, entry.result_capacity);
}

device_buffer take_device_buffer(int device, std::size_t bytes)
{
  return parked_or_new(device, bytes, "device memory for a record");
}

void park_device_buffer(int device, void* buffer, std::size_t bytes, cudaStream_t stream) noexcept
{
  auto& cache = the_cache();
  std::lock_guard<std::mutex> guard(cache.mutex);
  park(cache, device, buffer, bytes, stream);
}

void check_not_capturing(cudaStream_t stream, const char* what, const char* why)
{
  if (capture_status(stream) == cudaStreamCaptureStatusActive)
  {
    throw error(std::string(what) + " cannot be captured in a CUDA graph: " + why);
  }
}

void check_not_capturing(cudaStream_t stream, const char* what)
{
  check_not_capturing(stream, what,
                      "it waits for its result. Capture rk::reduce_into, which writes the result to device memory");
}

// --- pinned result slots -----------------------------------------------------------------------
namespace
{
struct pinned_pool
{
  static constexpr std::size_t slots_per_block = 64;

  std::mutex mutex;
  std::vector<void*> blocks;
  std::vector<void*> free_slots;

  ~pinned_pool()
  {
    release();
  }

  void release() noexcept
  {
    for (void* block : blocks)
    {
      ignore_error(cudaFreeHost(block));
    }
    blocks.clear();
    free_slots.clear();
  }
};

pinned_pool& the_pinned_pool()
{
  static pinned_pool pool;
  return pool;
}
} // namespace

pinned_slot::~pinned_slot()
{
  if (slot_ != nullptr)
  {
    auto& pool = the_pinned_pool();
    std::lock_guard<std::mutex> guard(pool.mutex);
    pool.free_slots.push_back(slot_);
  }
}

pinned_slot acquire_pinned_slot()
{
  auto& pool = the_pinned_pool();
  std::lock_guard<std::mutex> guard(pool.mutex);
  if (pool.free_slots.empty())
  {
    constexpr std::size_t bytes = pinned_pool::slots_per_block * max_value_bytes;
    void* block                 = nullptr;
    relaxed_capture_mode relaxed;
    // Portable: a slot may serve a call on any device.
    if (const cudaError_t code = cudaHostAlloc(&block, bytes, cudaHostAllocPortable); code != cudaSuccess)
    {
      throw_allocation_error(code, bytes, "pinned host memory");
    }
    pool.blocks.push_back(block);
    for (std::size_t i = 0; i < pinned_pool::slots_per_block; ++i)
    {
      pool.free_slots.push_back(static_cast<unsigned char*>(block) + i * max_value_bytes);
    }
  }
  void* slot = pool.free_slots.back();
  pool.free_slots.pop_back();
  return pinned_slot(slot);
}

// --- the device-access check ---------------------------------------------------------------------
namespace
{
using pointer_attributes_fn = CUresult(CUDAAPI*)(unsigned int, CUpointer_attribute*, void**, CUdeviceptr);

/// cuPointerGetAttributes, reached through the runtime so that rk needs no libcuda link; null if
/// the driver does not offer it.
pointer_attributes_fn driver_pointer_attributes()
{
  static const pointer_attributes_fn fn = [] {
    void* symbol                           = nullptr;
    cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &symbol, 12000, cudaEnableDefault, &result)
          != cudaSuccess
        || result != cudaDriverEntryPointSuccess)
    {
      cudaGetLastError();
      return pointer_attributes_fn{nullptr};
    }
    return reinterpret_cast<pointer_attributes_fn>(symbol);
  }();
  return fn;
}

/// Device (or managed) allocation ranges this thread has already seen readable from a device. A
/// pointer inside one skips the pointer query, one driver call per pointer per rk call, which
/// matters where a call is launch-bound. A range freed since stays listed; its addresses remain in
/// the driver's reserved device VA space, so no pageable host allocation can appear there, and a
/// stale use faults as rk::cuda_error. Pinned or registered host ranges are never cached: once
/// unregistered, the same addresses are plain pageable memory again.
struct accessible_range
{
  std::uintptr_t begin = 0;
  std::uintptr_t end   = 0;
  int device           = -1;
};
thread_local std::array<accessible_range, 8> accessible_ranges;
thread_local unsigned next_range = 0;

enum class access
{
  yes,
  no_peer_access,
  unknown
};

struct owner_device
{
  access verdict;
  int owner;
};

/// Whether `device` (the current one) has peer access to `owner`'s memory turned on. The driver's
/// access flags read "read-write" for every cudaMalloc range whether it is on or not (seen on two
/// H200s), so the sure test is to ask for it: cudaErrorPeerAccessAlreadyEnabled means it is on;
/// success means it was off, and it is turned off again, leaving the program's state as it was
/// (a thread of the caller's that turns it on at that very moment could see it turned off again:
/// enable peer access before calling rk on another GPU's memory).
bool peer_access_enabled(int device, int owner)
{
  int can_access = 0;
  if (cudaDeviceCanAccessPeer(&can_access, device, owner) != cudaSuccess || can_access == 0)
  {
    cudaGetLastError();
    return false;
  }
  relaxed_capture_mode relaxed;
  const cudaError_t probe = cudaDeviceEnablePeerAccess(owner, 0);
  if (probe == cudaSuccess)
  {
    ignore_error(cudaDeviceDisablePeerAccess(owner));
    return false;
  }
  cudaGetLastError();
  return probe == cudaErrorPeerAccessAlreadyEnabled;
}

/// What the driver says of `address` seen from `device`: readable device or managed memory
/// (cached), another GPU's memory without access, or unknown (host memory of any kind: the
/// runtime query below classifies it).
owner_device driver_access(std::uintptr_t address, int device)
{
  for (const auto& r : accessible_ranges)
  {
    if (address >= r.begin && address < r.end && r.device == device)
    {
      return {access::yes, device};
    }
  }
  const pointer_attributes_fn query = driver_pointer_attributes();
  if (query == nullptr)
  {
    return {access::unknown, -1};
  }
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                      CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned int type                = 0;
  CUdeviceptr start                = 0;
  std::size_t size                 = 0;
  int owner                        = -1;
  void* values[]                   = {&type, &start, &size, &owner};
  const CUresult status            = query(4, attributes, values, static_cast<CUdeviceptr>(address));
  if (status != CUDA_SUCCESS || size == 0 || (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED))
  {
    return {access::unknown, -1};
  }
  if (type == CU_MEMORYTYPE_DEVICE && owner != device)
  {
    // Not cached: peer access can be turned off again, and the next call must see that.
    return {peer_access_enabled(device, owner) ? access::yes : access::no_peer_access, owner};
  }
  accessible_ranges[next_range++ % accessible_ranges.size()] = {static_cast<std::uintptr_t>(start),
                                                                static_cast<std::uintptr_t>(start) + size, device};
  return {access::yes, owner};
}

/// The runtime's view of a pointer that is not device memory.
cudaPointerAttributes host_pointer_attributes(const void* p)
{
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, p);
  if (status == cudaErrorInvalidValue)
  {
    cudaGetLastError(); // older drivers report plain host memory this way
    attributes.type = cudaMemoryTypeUnregistered;
  }
  else
  {
    throw_on_error(status, "rk: cudaPointerGetAttributes");
  }
  return attributes;
}

bool pageable(const cudaPointerAttributes& attributes)
{
  return attributes.type == cudaMemoryTypeUnregistered
      || (attributes.type == cudaMemoryTypeHost && attributes.devicePointer == nullptr);
}
} // namespace

void* allocate_pinned(std::size_t bytes, const char* what)
{
  relaxed_capture_mode relaxed;
  void* p = nullptr;
  if (const cudaError_t code = cudaHostAlloc(&p, bytes, cudaHostAllocPortable); code != cudaSuccess)
  {
    throw_allocation_error(code, bytes, what);
  }
  return p;
}

void free_pinned(void* p) noexcept
{
  relaxed_capture_mode relaxed;
  ignore_error(cudaFreeHost(p));
}

bool is_pageable_host_memory(const void* p)
{
  return pageable(host_pointer_attributes(p));
}

void check_device_accessible(const void* p, const char* what, const device_facts& device)
{
  const owner_device verdict = driver_access(reinterpret_cast<std::uintptr_t>(p), device.ordinal);
  if (verdict.verdict == access::yes)
  {
    return;
  }
  if (verdict.verdict == access::no_peer_access)
  {
    throw host_memory_error(std::string("rk: ") + what + " is memory of GPU " + std::to_string(verdict.owner)
                            + ", which GPU " + std::to_string(device.ordinal)
                            + " (the current device) cannot read: enable peer access "
                              "(cudaDeviceEnablePeerAccess) or make GPU "
                            + std::to_string(verdict.owner) + " current");
  }
  // Not device memory: ask the runtime, which also classifies pinned and registered host memory.
  const cudaPointerAttributes attributes = host_pointer_attributes(p);
  if (pageable(attributes) && !device.pageable_memory_access)
  {
    throw host_memory_error(std::string("rk: ") + what
                            + " is a pageable host pointer, which this GPU cannot read (its system has no HMM or "
                              "ATS); pass device memory (thrust::device_vector, cudaMalloc), managed or pinned "
                              "memory, or use rk::host");
  }
  if (attributes.type == cudaMemoryTypeHost && attributes.devicePointer != nullptr && attributes.devicePointer != p)
  {
    // Pinned or registered memory mapped at another address for the GPU (systems without
    // cudaDevAttrCanUseHostPointerForRegisteredMem): the kernels would read the host address.
    throw host_memory_error(std::string("rk: ") + what
                            + " is pinned host memory that the GPU sees at another address; pass the device "
                              "pointer cudaHostGetDevicePointer gives for it");
  }
}
} // namespace rk::detail

namespace rk::detail
{
namespace
{
struct error_words
{
  std::mutex mutex;
  std::array<unsigned long long*, max_devices> words{};

  ~error_words()
  {
    for (auto* word : words)
    {
      if (word != nullptr)
      {
        ignore_error(cudaFreeHost(word));
      }
    }
  }
};

error_words& the_error_words()
{
  static error_words words; // freed by rk::release_cached_memory only: kernels may write it until then
  return words;
}
} // namespace

unsigned long long* device_error_word(int device)
{
  if (device < 0 || device >= max_devices)
  {
    throw error("rk: device ordinal " + std::to_string(device) + " is out of the supported range");
  }
  auto& words = the_error_words();
  std::lock_guard<std::mutex> guard(words.mutex);
  if (words.words[device] == nullptr)
  {
    relaxed_capture_mode relaxed;
    void* word = nullptr;
    if (const cudaError_t code = cudaHostAlloc(&word, sizeof(unsigned long long),
                                               cudaHostAllocMapped | cudaHostAllocPortable);
        code != cudaSuccess)
    {
      throw_allocation_error(code, sizeof(unsigned long long), "pinned host memory (the device error word)");
    }
    *static_cast<volatile unsigned long long*>(word) = 0;
    words.words[device]                              = static_cast<unsigned long long*>(word);
  }
  return words.words[device];
}
} // namespace rk::detail

void rk::check_device_errors()
{
  int device = 0;
  detail::throw_on_error(cudaGetDevice(&device), "rk::check_device_errors: cudaGetDevice");
  auto* word                      = reinterpret_cast<volatile unsigned long long*>(detail::device_error_word(device));
  const unsigned long long report = *word;
  if (report == 0)
  {
    return;
  }
  *word = 0;
  if ((report & detail::count_report) != 0)
  {
    const unsigned long long magnitude = report & detail::count_report_magnitude;
    throw error("rk::reduce_into with rk::device_count: an earlier call on device " + std::to_string(device)
                + " read a count of " + ((report & detail::count_report_negative) != 0 ? "-" : "")
                + std::to_string(magnitude) + (magnitude == detail::count_report_magnitude ? " or more" : "")
                + " from device memory, outside [0, 2^46]; its output holds init");
  }
  throw error("rk::segmented_reduce: an earlier call on device " + std::to_string(device) + " was given segment "
              + std::to_string(report - 1)
              + ", which ends before it begins or begins before the first item (decreasing or negative CSR "
                "offsets, or a CUB-form segment with a negative begin or an end below its begin); its output holds "
                "init");
}

void rk::release_cached_memory()
{
  {
    auto& cache = detail::the_cache();
    std::lock_guard<std::mutex> guard(cache.mutex);
    cache.free_everything(); // no rk call is in flight (the contract), so no entry is leased
  }
  {
    auto& words = detail::the_error_words();
    std::lock_guard<std::mutex> guard(words.mutex);
    for (auto& word : words.words)
    {
      if (word != nullptr)
      {
        detail::ignore_error(cudaFreeHost(word)); // a pending report goes with it
        word = nullptr;
      }
    }
  }
  auto& pool = detail::the_pinned_pool();
  std::lock_guard<std::mutex> guard(pool.mutex);
  pool.release();
}

// rk's compiled part: cached device facts and the per-device, per-stream scratch cache.
// See rk/cuda/runtime.cuh for the contract.

#include <rk/cuda/error.cuh>
#include <rk/cuda/runtime.cuh>

#include <thrust/system/cuda/memory_resource.h>

#include <cuda.h> // driver types only: the one driver call is resolved through the runtime

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace rk::detail
{
namespace
{
constexpr int max_devices = 64;

// Offsets inside a stream's device buffer: [counters | result | partials], each 256-byte aligned.
constexpr std::size_t counters_bytes   = 256;
constexpr std::size_t min_result_bytes = 256;
// Room for ~2000 partials of 8 bytes: enough for a full grid on current GPUs, so most programs
// allocate once per stream.
constexpr std::size_t min_partial_bytes = 16 << 10;

std::size_t round_up(std::size_t bytes, std::size_t to)
{
  return (bytes + to - 1) / to * to;
}

struct allocation
{
  void* ptr          = nullptr;
  std::size_t bytes  = 0;
  bool pinned        = false;
};

struct stream_scratch
{
  std::mutex mutex;
  allocation device;
  std::size_t result_capacity  = 0;
  std::size_t partial_capacity = 0;
  allocation pinned;
  std::vector<allocation> retired; // kept alive for graphs that captured their addresses
};

void free_quietly(const allocation& a)
{
  if (a.ptr == nullptr)
  {
    return;
  }
  // After a kernel fault the context is gone (and at exit the runtime may be unloading): its
  // memory went with it, and Thrust's deallocate would throw through a noexcept frame.
  if (cudaFree(nullptr) != cudaSuccess)
  {
    cudaGetLastError();
    return;
  }
  try
  {
    if (a.pinned)
    {
      thrust::cuda::universal_host_pinned_memory_resource{}.deallocate(thrust::cuda::universal_pointer<void>(a.ptr),
                                                                        a.bytes);
    }
    else
    {
      thrust::cuda::memory_resource{}.deallocate(thrust::cuda::pointer<void>(a.ptr), a.bytes);
    }
  }
  catch (...)
  {
    cudaGetLastError();
  }
}

void free_all(stream_scratch& s)
{
  free_quietly(s.device);
  free_quietly(s.pinned);
  for (const auto& a : s.retired)
  {
    free_quietly(a);
  }
  s.device = s.pinned = allocation{};
  s.retired.clear();
  s.result_capacity = s.partial_capacity = 0;
}

struct scratch_cache
{
  std::mutex mutex;
  // Keyed by (device, stream handle, thread). The thread part is set only for the handles that
  // name a different stream in every thread: cudaStreamPerThread, and 0, which code compiled with
  // --default-stream per-thread also means so (for the legacy default stream it only costs one
  // scratch per thread). cudaStreamGetId would tell streams apart more directly, but it may not
  // be called while a stream is being captured.
  std::map<std::tuple<int, cudaStream_t, std::thread::id>, std::unique_ptr<stream_scratch>> entries;

  ~scratch_cache()
  {
    for (auto& [key, entry] : entries)
    {
      free_all(*entry);
    }
  }
};

scratch_cache& the_cache()
{
  static scratch_cache cache;
  return cache;
}

/// Allocates through one of Thrust's CUDA memory resources, turning its bad_alloc into rk's error.
template <class Resource>
allocation allocate(std::size_t bytes, bool pinned)
{
  try
  {
    return {Resource{}.allocate(bytes).get(), bytes, pinned};
  }
  catch (const std::bad_alloc&)
  {
    cudaGetLastError();
    throw cuda_error(cudaErrorMemoryAllocation, "rk: allocating " + std::to_string(bytes) + " bytes of "
                                                  + (pinned ? "pinned host memory" : "device scratch"));
  }
}

allocation allocate_device(std::size_t bytes)
{
  return allocate<thrust::cuda::memory_resource>(bytes, false);
}

allocation allocate_pinned(std::size_t bytes)
{
  return allocate<thrust::cuda::universal_host_pinned_memory_resource>(bytes, true);
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
    facts[device] = device_facts{device, prop.multiProcessorCount, prop.maxThreadsPerMultiProcessor,
                                 prop.major * 10 + prop.minor, prop.name};
  });
  return facts[device];
}

scratch_lease lease_scratch(int device, cudaStream_t stream, std::size_t result_bytes, std::size_t partial_bytes)
{
  // Entries are never erased, so a thread can remember the last one it used and skip the
  // process-wide lock and lookup when it calls again on the same stream.
  thread_local struct
  {
    int device            = -1;
    cudaStream_t stream   = nullptr;
    stream_scratch* entry = nullptr;
  } last;

  stream_scratch* entry = nullptr;
  if (last.entry != nullptr && last.device == device && last.stream == stream)
  {
    entry = last.entry;
  }
  else
  {
    auto& cache = the_cache();
    std::lock_guard<std::mutex> guard(cache.mutex);
    const bool per_thread_handle = stream == nullptr || stream == cudaStreamPerThread;
    auto& slot = cache.entries[{device, stream, per_thread_handle ? std::this_thread::get_id() : std::thread::id{}}];
    if (!slot)
    {
      slot = std::make_unique<stream_scratch>();
    }
    entry = slot.get();
    last  = {device, stream, entry};
  }

  std::unique_lock<std::mutex> lock(entry->mutex);
  if (result_bytes > entry->result_capacity || partial_bytes > entry->partial_capacity)
  {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    throw_on_error(cudaStreamIsCapturing(stream, &capture), "rk: cudaStreamIsCapturing");
    if (capture != cudaStreamCaptureStatusNone)
    {
      throw error("rk: the stream is being captured and its scratch would have to grow (allocation cannot be "
                  "captured); run the same rk call once on this stream before capturing it");
    }
    const std::size_t result_capacity =
      round_up(std::max({result_bytes, min_result_bytes, entry->result_capacity}), 256);
    const std::size_t partial_capacity =
      round_up(std::max({partial_bytes, min_partial_bytes, 2 * entry->partial_capacity}), 256);
    allocation fresh = allocate_device(counters_bytes + result_capacity + partial_capacity);
    const cudaError_t zeroed = cudaMemsetAsync(fresh.ptr, 0, counters_bytes, stream);
    if (zeroed != cudaSuccess)
    {
      free_quietly(fresh);
      throw cuda_error(zeroed, "rk: zeroing scratch counters");
    }
    allocation fresh_pinned;
    try
    {
      fresh_pinned = allocate_pinned(result_capacity);
    }
    catch (...)
    {
      free_quietly(fresh);
      throw;
    }
    if (entry->device.ptr)
    {
      entry->retired.push_back(entry->device);
    }
    if (entry->pinned.ptr)
    {
      entry->retired.push_back(entry->pinned);
    }
    entry->device           = fresh;
    entry->pinned           = fresh_pinned;
    entry->result_capacity  = result_capacity;
    entry->partial_capacity = partial_capacity;
  }

  auto* base = static_cast<unsigned char*>(entry->device.ptr);
  return scratch_lease{std::move(lock), reinterpret_cast<sync_counters*>(base), base + counters_bytes,
                       base + counters_bytes + entry->result_capacity, entry->pinned.ptr};
}

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

/// Device (or managed) allocation ranges this thread has already seen. A pointer inside one skips
/// the pointer query, one driver call per pointer per rk call, which matters where a call is
/// launch-bound (rk trailed CUB by a few tenths of a µs there). A range freed since stays listed;
/// its addresses remain in the driver's reserved device VA space, so no pageable host allocation
/// can appear there, and a stale use faults as rk::cuda_error. Pinned or registered host ranges
/// are never cached: once unregistered, the same addresses are plain pageable memory again.
struct accessible_range
{
  std::uintptr_t begin = 0;
  std::uintptr_t end   = 0;
};
thread_local std::array<accessible_range, 8> accessible_ranges;
thread_local unsigned next_range = 0;

bool known_accessible(const void* p)
{
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& r : accessible_ranges)
  {
    if (address >= r.begin && address < r.end)
    {
      return true;
    }
  }
  const pointer_attributes_fn query = driver_pointer_attributes();
  if (query == nullptr)
  {
    return false;
  }
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                      CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned int type      = 0;
  CUdeviceptr start      = 0;
  std::size_t size       = 0;
  void* values[]         = {&type, &start, &size};
  const CUresult status  = query(3, attributes, values, static_cast<CUdeviceptr>(address));
  const bool accessible  = status == CUDA_SUCCESS && size > 0
                       && (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED);
  if (accessible)
  {
    accessible_ranges[next_range++ % accessible_ranges.size()] = {static_cast<std::uintptr_t>(start),
                                                                  static_cast<std::uintptr_t>(start) + size};
  }
  return accessible;
}
} // namespace

void check_device_accessible(const void* p, const char* what)
{
  if (known_accessible(p))
  {
    return;
  }
  // Not a known range: ask the runtime, which also classifies what the driver query does not.
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
  if (attributes.type == cudaMemoryTypeUnregistered
      || (attributes.type == cudaMemoryTypeHost && attributes.devicePointer == nullptr))
  {
    throw host_memory_error(std::string("rk: ") + what
                            + " is a pageable host pointer, which the GPU cannot read; pass device memory "
                              "(thrust::device_vector, cudaMalloc), managed or pinned memory, or use rk::host");
  }
}
} // namespace rk::detail

void rk::release_cached_memory()
{
  auto& cache = detail::the_cache();
  std::lock_guard<std::mutex> guard(cache.mutex);
  for (auto& [key, entry] : cache.entries)
  {
    std::lock_guard<std::mutex> entry_guard(entry->mutex);
    detail::free_all(*entry);
  }
}

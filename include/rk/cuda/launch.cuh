#pragma once
// What every backend launcher shares: grid sizing from the device and the kernel's occupancy,
// and checked launches.

#include <rk/cuda/error.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tuning.cuh>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

namespace rk::detail
{
inline constexpr int max_cached_devices = 64;

/// Blocks of `Kernel` that fit on one multiprocessor of `device`, asked once per
/// (kernel, device) and cached. Keyed by the kernel itself (a template argument), not by its
/// signature: tunings of one kernel share a signature but not an occupancy.
template <auto Kernel>
int resident_blocks_per_sm(int block_threads, int device)
{
  static std::array<std::atomic<int>, max_cached_devices> cached{};
  if (device < 0 || device >= max_cached_devices)
  {
    throw error("rk: device ordinal " + std::to_string(device) + " is out of the supported range");
  }
  int blocks = cached[device].load(std::memory_order_relaxed);
  if (blocks == 0)
  {
    throw_on_error(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, block_threads, 0),
                   "rk: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    blocks = blocks < 1 ? 1 : blocks;
    cached[device].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

/// The grid cap: `tuning.waves` waves of resident blocks. One wave already has every SM busy;
/// further waves cost partials but let blocks on fast SMs pick up work that a statically split
/// single wave would leave to the slowest SM.
template <auto Kernel>
std::int64_t max_grid(const reduce_tuning& tuning, int block_threads, const device_facts& device)
{
  const int per_sm = resident_blocks_per_sm<Kernel>(block_threads, device.ordinal);
  return static_cast<std::int64_t>(per_sm) * device.multiprocessors * tuning.waves;
}

/// Launches `kernel<<<grid, block, 0, stream>>>(args...)` and throws rk::cuda_error if this launch
/// fails. The launch's own status is checked (cudaLaunchKernel returns it), not the thread's
/// last error, which may hold a failure of the caller's own earlier launch that is not rk's.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream, const char* what,
                   const Args&... args)
{
  static_assert(sizeof...(Params) == sizeof...(Args), "launch_kernel: one argument per kernel parameter");
  std::tuple<Params...> values(args...);
  const cudaError_t status = std::apply(
    [&](auto&... value) {
      void* pointers[] = {static_cast<void*>(&value)...};
      return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(block), pointers, 0, stream);
    },
    values);
  if (status != cudaSuccess)
  {
    cudaGetLastError(); // the failure is this launch's: report it once, as the exception
    throw cuda_error(status, what);
  }
}
/// Whether `Kernel`, as device `device` runs it, was compiled for sm_90 or later: a kernel built
/// from older PTX (and run through the JIT) has neither griddepcontrol nor clusters. Asked once per
/// (kernel, device) and cached.
template <auto Kernel>
bool compiled_for_sm90(int device)
{
  static std::array<std::atomic<int>, max_cached_devices> cached{}; // 0 unknown, 1 no, 2 yes
  if (device < 0 || device >= max_cached_devices)
  {
    throw error("rk: device ordinal " + std::to_string(device) + " is out of the supported range");
  }
  int known = cached[device].load(std::memory_order_relaxed);
  if (known == 0)
  {
    cudaFuncAttributes attributes{};
    throw_on_error(cudaFuncGetAttributes(&attributes, Kernel), "rk: cudaFuncGetAttributes");
    known = attributes.ptxVersion >= 90 ? 2 : 1;
    cached[device].store(known, std::memory_order_relaxed);
  }
  return known == 2;
}

/// Whether `Kernel` waits in wait_for_prior_grid(), so may start before the kernel ahead of it
/// has ended (launch_dependent_kernel).
template <auto Kernel>
bool waits_for_prior_grid(int device)
{
  return compiled_for_sm90<Kernel>(device);
}

/// The launch attribute that makes a grid's blocks one cluster of `blocks` blocks along x.
inline cudaLaunchAttribute one_cluster_attribute(unsigned blocks)
{
  cudaLaunchAttribute attribute{};
  attribute.id               = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = blocks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return attribute;
}

/// Whether `Kernel` can run as one thread block cluster of up to `max_blocks` blocks of
/// `block_threads` threads with `dynamic_bytes` of dynamic shared memory a block, on `device`
/// (the current one): compiled for sm_90 or later, and the device has room for such a cluster
/// (cudaOccupancyMaxActiveClusters; a partition of the GPU, MPS or a GPU without clusters may have
/// none). Allows the non-portable sizes (above 8) on the way. Asked once per (kernel, device).
template <auto Kernel>
bool runs_as_one_cluster(int max_blocks, int block_threads, std::size_t dynamic_bytes, const device_facts& device)
{
  static std::array<std::atomic<int>, max_cached_devices> cached{}; // 0 unknown, 1 no, 2 yes
  const int ordinal = device.ordinal;
  if (ordinal < 0 || ordinal >= max_cached_devices)
  {
    throw error("rk: device ordinal " + std::to_string(ordinal) + " is out of the supported range");
  }
  int known = cached[ordinal].load(std::memory_order_relaxed);
  if (known == 0)
  {
    known = 1;
    if (device.compute_capability >= 90 && compiled_for_sm90<Kernel>(ordinal))
    {
      relaxed_capture_mode relaxed; // the first call may come while another thread captures
      const void* kernel = reinterpret_cast<const void*>(Kernel);
      throw_on_error(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                     "rk: allowing a cluster of more than 8 blocks");
      cudaLaunchAttribute attribute = one_cluster_attribute(static_cast<unsigned>(max_blocks));
      cudaLaunchConfig_t config{};
      config.gridDim          = dim3(static_cast<unsigned>(max_blocks));
      config.blockDim         = dim3(static_cast<unsigned>(block_threads));
      config.dynamicSmemBytes = dynamic_bytes;
      config.attrs            = &attribute;
      config.numAttrs         = 1;
      int clusters            = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess)
      {
        cudaGetLastError(); // no clusters here: the plain kernel runs
        clusters = 0;
      }
      known = clusters >= 1 ? 2 : 1;
    }
    cached[ordinal].store(known, std::memory_order_relaxed);
  }
  return known == 2;
}

/// cudaLaunchKernelExC of `kernel<<<grid, block, dynamic_bytes, stream>>>(args...)` with one launch
/// attribute; throws rk::cuda_error if this launch fails.
template <class... Params, class... Args>
void launch_with_attribute(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t dynamic_bytes,
                           cudaStream_t stream, const cudaLaunchAttribute& attribute, const char* what,
                           const Args&... args)
{
  static_assert(sizeof...(Params) == sizeof...(Args), "launch_with_attribute: one argument per kernel parameter");
  std::tuple<Params...> values(args...);
  cudaLaunchAttribute attributes[] = {attribute};
  cudaLaunchConfig_t config{};
  config.gridDim           = dim3(grid);
  config.blockDim          = dim3(block);
  config.dynamicSmemBytes  = dynamic_bytes;
  config.stream            = stream;
  config.attrs             = attributes;
  config.numAttrs          = 1;
  const cudaError_t status = std::apply(
    [&](auto&... value) {
      void* pointers[] = {static_cast<void*>(&value)...};
      return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), pointers);
    },
    values);
  if (status != cudaSuccess)
  {
    cudaGetLastError();
    throw cuda_error(status, what);
  }
}

/// launch_kernel for a grid that is one thread block cluster of `grid` blocks (runs_as_one_cluster
/// said it fits), each with `dynamic_bytes` of dynamic shared memory.
template <class... Params, class... Args>
void launch_one_cluster(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t dynamic_bytes,
                        cudaStream_t stream, const char* what, const Args&... args)
{
  launch_with_attribute(kernel, grid, block, dynamic_bytes, stream, one_cluster_attribute(grid), what, args...);
}

/// launch_kernel for a kernel that may start before the kernel ahead of it in `stream` has ended
/// (programmatic dependent launch, where `dependent`: waits_for_prior_grid): its blocks take free
/// room on the GPU while that kernel's last blocks run, and must call wait_for_prior_grid() before
/// they read anything it writes. The kernel ahead lets it start with allow_dependent_grid().
template <class... Params, class... Args>
void launch_dependent_kernel(void (*kernel)(Params...), bool dependent, unsigned grid, unsigned block,
                             cudaStream_t stream, const char* what, const Args&... args)
{
  if (!dependent)
  {
    launch_kernel(kernel, grid, block, stream, what, args...);
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  launch_with_attribute(kernel, grid, block, 0, stream, attribute, what, args...);
}

/// In a kernel launched with launch_dependent_kernel: waits until the grid ahead of it has ended
/// and its writes are visible (compiled for sm_90 or later; waits_for_prior_grid tells the host).
__device__ __forceinline__ void wait_for_prior_grid()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// In the kernel ahead of one launched with launch_dependent_kernel: lets that kernel's blocks
/// start (they still wait for this grid's end before they read its writes).
__device__ __forceinline__ void allow_dependent_grid()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}
} // namespace rk::detail

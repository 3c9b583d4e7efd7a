// Standalone experiment (not part of rk): what a reduction's grid-wide step costs at mid sizes
// (issue 30's <= 1.25x the read probe at 2^14-2^22). Float sums with the least possible body (a
// block sums its contiguous share with four 16-byte loads in flight a thread; no tree), finished
// four ways: the last block to arrive by an acq_rel counter (rk::single_pass's epilogue), a second
// one-block kernel (rk::two_pass's, CUB's), one thread block cluster whose blocks hand their sums
// to block 0 through distributed shared memory (no global atomic, no fence), and a grid of
// clusters whose leaders then take the counter. Beside them: the read probe, rk::reduce_into and
// CUB. Every call is timed alone with L2 flushed before it (NVBench's cold measurement): median
// of 101 CUDA-event timings. At the end, rk::device, rk::two_pass and rk::host must give the same
// bits on uneven data at lengths around rk's one-cluster grids.
// Usage: mid [trials [log2 size]] (one size only: for ncu and the sanitizers).
#include <algorithm>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <functional>
#include <rk/reduce.cuh>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                \
  do                                                                         \
  {                                                                          \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess)                                                   \
    {                                                                        \
      std::printf("CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

constexpr int threads = 256;

__device__ __forceinline__ float block_sum(float v)
{
  __shared__ float warp_sums[threads / 32];
  __syncthreads();
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_down_sync(~0u, v, d);
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0;
  if (threadIdx.x < 32)
  {
    s = threadIdx.x < threads / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int d = 4; d > 0; d >>= 1)
      s += __shfl_down_sync(~0u, s, d);
  }
  return s; // thread 0's is the block's
}

__device__ __forceinline__ float part_sum(const float4* in, std::int64_t vectors, std::int64_t part, std::int64_t parts)
{
  const std::int64_t per   = (vectors + parts - 1) / parts;
  const std::int64_t begin = part * per;
  const std::int64_t end   = begin + per < vectors ? begin + per : vectors;
  float acc                = 0;
  std::int64_t i           = begin + threadIdx.x;
  for (; i + 3 * threads < end; i += 4 * threads)
  {
    const float4 a = in[i], b = in[i + threads], c = in[i + 2 * threads], d = in[i + 3 * threads];
    acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w))
         + ((d.x + d.y) + (d.z + d.w));
  }
  for (; i < end; i += threads)
  {
    const float4 a = in[i];
    acc += (a.x + a.y) + (a.z + a.w);
  }
  return block_sum(acc);
}

__global__ void read_probe(const uint4* in, std::int64_t vectors, unsigned* sink)
{
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t i            = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  unsigned acc              = 0;
  for (; i + 3 * stride < vectors; i += 4 * stride)
  {
    const uint4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < vectors; i += stride)
  {
    const uint4 a = in[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u)
    *sink = acc;
}

// Thread 0 holds this block's `value`, the `slot`-th of `slots` to arrive at `*count`: it publishes
// the value, and the last block to arrive sums all of them into *out.
__device__ void finish_by_last_block(float value, unsigned slot, unsigned slots, float* partials, unsigned* count,
                                     float* out)
{
  __shared__ bool last;
  if (threadIdx.x == 0)
  {
    partials[slot] = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*count);
    last = c.fetch_add(1u, cuda::std::memory_order_acq_rel) == slots - 1;
    if (last)
      c.store(0u, cuda::std::memory_order_relaxed);
  }
  __syncthreads();
  if (!last)
    return;
  float v = 0;
  for (unsigned k = threadIdx.x; k < slots; k += threads)
    v += partials[k];
  v = block_sum(v);
  if (threadIdx.x == 0)
    *out = v;
}

// The last block to arrive finishes (rk::single_pass's shape).
__global__ void __launch_bounds__(threads)
  last_block_kernel(const float4* in, std::int64_t vectors, float* partials, unsigned* count, float* out)
{
  const float s = part_sum(in, vectors, blockIdx.x, gridDim.x);
  if (gridDim.x == 1)
  {
    if (threadIdx.x == 0)
      *out = s;
    return;
  }
  finish_by_last_block(s, blockIdx.x, gridDim.x, partials, count, out);
}

// rk::two_pass's and CUB's shape: the partials, then a one-block kernel.
__global__ void __launch_bounds__(threads) partials_kernel(const float4* in, std::int64_t vectors, float* partials)
{
  const float s = part_sum(in, vectors, blockIdx.x, gridDim.x);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = s;
}
__global__ void __launch_bounds__(threads) final_kernel(const float* partials, int count, float* out)
{
  float v = 0;
  for (int k = threadIdx.x; k < count; k += threads)
    v += partials[k];
  v = block_sum(v);
  if (threadIdx.x == 0)
    *out = v;
}

// One cluster is the whole grid: the blocks hand their sums to block 0's shared memory.
__global__ void __launch_bounds__(threads) one_cluster_kernel(const float4* in, std::int64_t vectors, float* out)
{
  __shared__ float values[16];
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync(); // block 0 has started before anyone writes its shared memory
  const float s       = part_sum(in, vectors, blockIdx.x, gridDim.x);
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0)
    cluster.map_shared_rank(values, 0)[rank] = s;
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0)
  {
    float v = 0;
    for (unsigned k = 0; k < cluster.num_blocks(); ++k)
      v += values[k];
    *out = v;
  }
}

// A grid of clusters: each cluster's leader takes the counter for the cluster.
__global__ void __launch_bounds__(threads)
  clusters_kernel(const float4* in, std::int64_t vectors, float* partials, unsigned* count, float* out)
{
  __shared__ float values[16];
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync(); // the leader has started before anyone writes its shared memory
  const float s       = part_sum(in, vectors, blockIdx.x, gridDim.x);
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0)
    cluster.map_shared_rank(values, 0)[rank] = s;
  cluster.sync();
  if (rank != 0)
    return;
  const unsigned size     = cluster.num_blocks();
  const unsigned clusters = gridDim.x / size;
  float v                 = 0;
  for (unsigned k = 0; k < size; ++k)
    v += values[k];
  finish_by_last_block(v, blockIdx.x / size, clusters, partials, count, out);
}

template <class Kernel, class... Args>
void launch_clustered(Kernel kernel, int blocks, int cluster, std::size_t smem, Args... args)
{
  cudaLaunchConfig_t config{};
  config.gridDim          = dim3(blocks);
  config.blockDim         = dim3(threads);
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute attribute[1];
  attribute[0].id               = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = cluster;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs                  = attribute;
  config.numAttrs               = 1;
  CK(cudaLaunchKernelEx(&config, kernel, args...));
}

struct row
{
  std::string name;
  std::function<void()> call;
};

int main(int argc, char** argv)
{
  const int trials = argc > 1 ? std::atoi(argv[1]) : 101;
  const int only   = argc > 2 ? std::atoi(argv[2]) : 0; // one size, 2^only (for ncu)
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const int sms = prop.multiProcessorCount;
  for (auto k : {(const void*) one_cluster_kernel, (const void*) clusters_kernel})
  {
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 << 10));
  }
  const std::size_t flush_bytes = std::size_t{256} << 20;
  const std::int64_t max_n      = std::int64_t{1} << 24;
  float *x, *partials, *out;
  unsigned *count, *sink;
  void* flush;
  CK(cudaMalloc(&x, max_n * sizeof(float)));
  CK(cudaMalloc(&partials, 1 << 20));
  CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&count, 64));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemset(count, 0, 64));
  {
    std::vector<float> h(max_n);
    for (std::int64_t i = 0; i < max_n; ++i)
      h[i] = float(i % 7);
    CK(cudaMemcpy(x, h.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
  }
  int probe_per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&probe_per_sm, read_probe, threads, 0));
  void* cub_temp        = nullptr;
  std::size_t cub_bytes = 0;
  CK(cub::DeviceReduce::Sum(cub_temp, cub_bytes, x, out, max_n));
  CK(cudaMalloc(&cub_temp, cub_bytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const std::size_t spread = 150 << 10; // one block an SM: more shared memory than two blocks fit

  for (int l : {12, 14, 16, 18, 20, 22, 24})
  {
    if (only != 0 && l != only)
      continue;
    const std::int64_t n       = std::int64_t{1} << l;
    const std::int64_t vectors = n / 4;
    const auto* in             = reinterpret_cast<const float4*>(x);
    std::vector<row> rows;
    rows.push_back({"probe", [=] {
                      read_probe<<<sms * probe_per_sm, threads>>>(reinterpret_cast<const uint4*>(x), vectors, sink);
                    }});
    rows.push_back({"rk::device", [=] { rk::reduce_into(rk::device, x, x + n, out, 0.0f, rk::plus{}); }});
    rows.push_back({"rk::two_pass", [=] { rk::reduce_into(rk::two_pass, x, x + n, out, 0.0f, rk::plus{}); }});
    rows.push_back({"cub", [=] {
                      std::size_t bytes = cub_bytes;
                      CK(cub::DeviceReduce::Sum(cub_temp, bytes, x, out, n));
                    }});
    for (int g : {1, 2, 4, 8, 16, 32, 64, 132, 264, 528})
    {
      if (g * 1024 > n && g > 1)
        continue;
      rows.push_back({"last block, " + std::to_string(g),
                      [=] { last_block_kernel<<<g, threads>>>(in, vectors, partials, count, out); }});
      if (g > 1)
        rows.push_back({"two kernels, " + std::to_string(g), [=] {
                          partials_kernel<<<g, threads>>>(in, vectors, partials);
                          final_kernel<<<1, threads>>>(partials, g, out);
                        }});
    }
    for (int g : {2, 4, 8, 16})
    {
      if (g * 1024 > n)
        continue;
      rows.push_back({"one cluster, " + std::to_string(g),
                      [=] { launch_clustered(one_cluster_kernel, g, g, 0, in, vectors, out); }});
      rows.push_back({"one cluster spread, " + std::to_string(g),
                      [=] { launch_clustered(one_cluster_kernel, g, g, spread, in, vectors, out); }});
    }
    for (int c : {8, 16})
      for (int g : {32, 64, 128, 256, 512})
      {
        if (g * 1024 > n)
          continue;
        rows.push_back({"clusters of " + std::to_string(c) + ", " + std::to_string(g),
                        [=] { launch_clustered(clusters_kernel, g, c, 0, in, vectors, partials, count, out); }});
      }
    std::vector<std::vector<float>> times(rows.size());
    for (int t = 0; t < trials; ++t)
      for (std::size_t r = 0; r < rows.size(); ++r)
      {
        CK(cudaMemsetAsync(flush, t & 0xff, flush_bytes));
        CK(cudaEventRecord(a));
        rows[r].call();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        times[r].push_back(ms * 1000);
      }
    // Check the sums once (every item is i % 7, exact in float up to 2^24).
    double expect = 0;
    for (std::int64_t i = 0; i < n; ++i)
      expect += double(i % 7);
    std::printf("\n2^%d floats (%.0f KiB); expected sum %.0f\n| variant | us (median) | q1-q3 | / probe | sum ok "
                "|\n|---|---:|---|---:|---|\n",
                l, n * 4 / 1024.0, expect);
    double probe = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
    {
      auto v = times[r];
      std::sort(v.begin(), v.end());
      const double med = v[v.size() / 2];
      if (r == 0)
        probe = med;
      CK(cudaMemset(out, 0, 4));
      rows[r].call();
      float got = 0;
      CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
      std::printf("| %s | %.2f | %.2f-%.2f | %.3f | %s |\n", rows[r].name.c_str(), med, v[v.size() / 4],
                  v[3 * v.size() / 4], med / probe, r == 0 ? "-" : (double(got) == expect ? "yes" : "NO"));
    }
  }
  // rk::reduce_into (rk::device and rk::single_pass) over other types at the small and mid sizes,
  // timed as above, beside the read probe.
  if (only == 0)
  {
    const auto time_cold = [&](auto call) {
      std::vector<float> v;
      for (int t = 0; t < trials; ++t)
      {
        CK(cudaMemsetAsync(flush, t & 0xff, flush_bytes));
        CK(cudaEventRecord(a));
        call();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(ms * 1000);
      }
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const auto table = [&](auto zero, const char* name) {
      using T   = decltype(zero);
      T* items  = reinterpret_cast<T*>(x);
      T* result = reinterpret_cast<T*>(out);
      std::printf("\n%s: rk::reduce_into, us (median of %d cold calls)\n| n | probe | rk::device | rk::single_pass | "
                  "device / probe |\n|---|---:|---:|---:|---:|\n",
                  name, trials);
      for (int l : {10, 11, 12, 13, 14, 15, 16, 17, 18, 20})
      {
        const std::int64_t n = std::int64_t{1} << l;
        const double probe   = time_cold([&] {
          read_probe<<<sms * probe_per_sm, threads>>>(reinterpret_cast<const uint4*>(x),
                                                        n * std::int64_t(sizeof(T)) / 16, sink);
        });
        const double dev = time_cold([&] { rk::reduce_into(rk::device, items, items + n, result, T(0), rk::plus{}); });
        const double single =
          time_cold([&] { rk::reduce_into(rk::single_pass, items, items + n, result, T(0), rk::plus{}); });
        std::printf("| 2^%d | %.2f | %.2f | %.2f | %.3f |\n", l, probe, dev, single, dev / probe);
      }
    };
    table(float{}, "float");
    table(double{}, "double");
    table(std::int32_t{}, "int32");
    table(std::int64_t{}, "int64");
  }

  // The same bits from every rk backend, on uneven data and lengths around the one-cluster grids.
  {
    std::vector<float> h(std::size_t{1} << 20);
    unsigned state = 12345u;
    for (auto& v : h)
    {
      state = state * 1664525u + 1013904223u;
      v     = float(state >> 8) / float(1u << 24) * 2.0f - 0.7f;
    }
    CK(cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    int mismatches = 0, checked = 0;
    for (std::int64_t n : {1000, 4096, 8191, 8193, 16384, 20000, 65536, 65537, 100000, 262144, 1000003})
    {
      for (std::int64_t offset : {0, 1, 4})
      {
        float dev = 0, two = 0;
        rk::reduce_into(rk::device, x + offset, x + offset + n, out, 0.5f, rk::plus{});
        CK(cudaMemcpy(&dev, out, 4, cudaMemcpyDeviceToHost));
        rk::reduce_into(rk::two_pass, x + offset, x + offset + n, out, 0.5f, rk::plus{});
        CK(cudaMemcpy(&two, out, 4, cudaMemcpyDeviceToHost));
        const float host = rk::reduce(rk::host, h.begin() + offset, h.begin() + offset + n, 0.5f, rk::plus{});
        ++checked;
        if (std::memcmp(&dev, &two, 4) != 0 || std::memcmp(&dev, &host, 4) != 0)
        {
          ++mismatches;
          std::printf("bits differ: n %lld offset %lld device %a two_pass %a host %a\n", (long long) n,
                      (long long) offset, dev, two, host);
        }
      }
    }
    std::printf("\nbits: %d of %d calls with rk::device == rk::two_pass == rk::host\n", checked - mismatches, checked);
  }
  return 0;
}

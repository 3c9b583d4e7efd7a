// perf/RESULTS.md's off-grid loads experiment (2026-11-29, fifth session): the tree's tile of
// floats (32 lanes, each folding its 8 contiguous items in order, then the warp's pairwise
// tree) read from a pointer off the 16-byte grid, three ways:
//  - elements: eight 4-byte loads a lane (rk's element body today);
//  - shifted vectors: the two aligned 16-byte vectors under each lane's 32 bytes, the first
//    `shift` words of the next lane's moved over by shuffles (lane 31's from the next tile, by
//    element loads), so every lane folds the same items in the same order;
//  - vectors: the same tile from a pointer on the grid (the speed to reach).
// Every tile's value is written; the shifted tiles must equal the element tiles bit for bit.
//   nvcc -std=c++20 -O3 -arch=sm_90 offgrid.cu -o offgrid
#include "../event_timer.cuh"

#include <cstdio>
#include <cstring>
#include <vector>

constexpr int lane_items = 8;
constexpr int tile_items = 32 * lane_items;

__device__ __forceinline__ float tile_tree(float lane, int l)
{
  for (int d = 1; d < 32; d *= 2)
  {
    const float other = __shfl_down_sync(0xffffffffu, lane, d);
    if (l % (2 * d) == 0)
    {
      lane = lane + other;
    }
  }
  return lane;
}

__device__ __forceinline__ float fold(const float (&v)[lane_items])
{
  float acc = v[0];
#pragma unroll
  for (int i = 1; i < lane_items; ++i)
  {
    acc = acc + v[i];
  }
  return acc;
}

/// Tiles from `first` (any alignment), eight element loads a lane.
__global__ void __launch_bounds__(256) element_tiles(const float* first, long tiles, float* out)
{
  const int l = threadIdx.x % 32;
  for (long t = (blockIdx.x * 256L + threadIdx.x) / 32; t < tiles; t += gridDim.x * 8L)
  {
    const float* p = first + t * tile_items + l * lane_items;
    float v[lane_items];
#pragma unroll
    for (int i = 0; i < lane_items; ++i)
    {
      v[i] = p[i];
    }
    const float r = tile_tree(fold(v), l);
    if (l == 0)
    {
      out[t] = r;
    }
  }
}

/// Tiles from `first`, which lies `shift` (1-3) words past the 16-byte grid: aligned vectors and
/// shuffles. Word w of lane l's items is word w + shift of the aligned chunk under it: its own
/// for w + shift < 8, else word w + shift - 8 of lane l + 1's chunk.
template <int Shift>
__global__ void __launch_bounds__(256) shifted_tiles(const float* first, long tiles, float* out)
{
  const int l        = threadIdx.x % 32;
  const float* based = first - Shift; // on the grid
  for (long t = (blockIdx.x * 256L + threadIdx.x) / 32; t < tiles; t += gridDim.x * 8L)
  {
    const float4* q = reinterpret_cast<const float4*>(based + t * tile_items + l * lane_items);
    const float4 a = q[0], b = q[1];
    const float w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    float next[Shift];
#pragma unroll
    for (int k = 0; k < Shift; ++k)
    {
      next[k] = __shfl_down_sync(0xffffffffu, w[k], 1);
    }
    if (l == 31)
    {
#pragma unroll
      for (int k = 0; k < Shift; ++k)
      {
        next[k] = first[t * tile_items + 31 * lane_items + (lane_items - Shift) + k];
      }
    }
    float v[lane_items];
#pragma unroll
    for (int i = 0; i < lane_items; ++i)
    {
      v[i] = i + Shift < lane_items ? w[i + Shift] : next[i + Shift - lane_items];
    }
    const float r = tile_tree(fold(v), l);
    if (l == 0)
    {
      out[t] = r;
    }
  }
}

/// Tiles from `first` on the grid: two 16-byte vectors a lane.
__global__ void __launch_bounds__(256) vector_tiles(const float* first, long tiles, float* out)
{
  const int l = threadIdx.x % 32;
  for (long t = (blockIdx.x * 256L + threadIdx.x) / 32; t < tiles; t += gridDim.x * 8L)
  {
    const float4* q = reinterpret_cast<const float4*>(first + t * tile_items + l * lane_items);
    const float4 a = q[0], b = q[1];
    const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    const float r    = tile_tree(fold(v), l);
    if (l == 0)
    {
      out[t] = r;
    }
  }
}

int main()
{
  const long n     = 1L << 26;
  const long tiles = n / tile_items - 1; // room for the shift
  float* x         = nullptr;
  float *o1 = nullptr, *o2 = nullptr;
  cudaMalloc(&x, (n + 16) * sizeof(float));
  cudaMalloc(&o1, tiles * sizeof(float));
  cudaMalloc(&o2, tiles * sizeof(float));
  std::vector<float> h(n + 16);
  for (long i = 0; i < n + 16; ++i)
  {
    h[i] = static_cast<float>((i * 2654435761u) % 1000003) * 1e-3f - 17.25f;
  }
  cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  const int grid = 132 * 8;
  std::vector<float> a(tiles), b(tiles);
  printf("vectors, on the grid: %.1f us\n", time_calls([&] { vector_tiles<<<grid, 256>>>(x, tiles, o1); }));
  for (int shift = 1; shift <= 3; ++shift)
  {
    const float* first = x + shift;
    const float te     = time_calls([&] { element_tiles<<<grid, 256>>>(first, tiles, o1); });
    const float ts     = time_calls([&] {
      if (shift == 1)
        shifted_tiles<1><<<grid, 256>>>(first, tiles, o2);
      else if (shift == 2)
        shifted_tiles<2><<<grid, 256>>>(first, tiles, o2);
      else
        shifted_tiles<3><<<grid, 256>>>(first, tiles, o2);
    });
    cudaMemcpy(a.data(), o1, tiles * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), o2, tiles * sizeof(float), cudaMemcpyDeviceToHost);
    printf("shift %d: elements %.1f us, shifted vectors %.1f us, tiles with other bits: %s\n", shift, te, ts,
           std::memcmp(a.data(), b.data(), tiles * sizeof(float)) == 0 ? "none" : "SOME");
  }
  return 0;
}

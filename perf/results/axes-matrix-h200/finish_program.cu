// Where a tall matrix's column sums spend the time beyond the probe: the nodes kernel alone, the
// finish alone, an empty kernel after the nodes kernel, and a finish over output-major nodes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda/std/mdspan>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
#include <vector>

__global__ void probe(const float4* x, float4* out, long n4, long out4)
{
  long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
  float4 acc{0, 0, 0, 0};
  for (long k = i; k < n4; k += (long) gridDim.x * blockDim.x)
  {
    float4 v = x[k];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  for (long k = i; k < out4; k += (long) gridDim.x * blockDim.x)
    out[k] = acc;
}
__global__ void empty_kernel(float* p)
{
  if (p && threadIdx.x == 9999)
    p[0] = 1;
}

// Output-major chunk nodes: block b = output b, 256 threads, 8 nodes each (chunks == 2048).
__global__ void __launch_bounds__(256) finish_t(const float* nodes, long chunks, float* out)
{
  __shared__ float s[256];
  const int t     = threadIdx.x;
  const float4* p = reinterpret_cast<const float4*>(nodes + blockIdx.x * chunks + t * 8);
  float4 a = p[0], b = p[1];
  float v = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
  for (int d = 1; d < 32; d *= 2)
  {
    float r = __shfl_down_sync(~0u, v, d);
    if ((t & (2 * d - 1)) == 0)
      v = v + r;
  }
  s[t] = v;
  for (int d = 32; d < 256; d *= 2)
  {
    __syncthreads();
    if ((t & (2 * d - 1)) == 0)
      s[t] = s[t] + s[t + d];
  }
  if (t == 0)
    out[blockIdx.x] = 0.0f + s[0];
}

using ext2 = cuda::std::dextents<long, 2>;
using ext1 = cuda::std::dextents<long, 1>;

int main(int argc, char** argv)
{
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  const long n   = 1L << 26;
  thrust::device_vector<float> x(n, 1.0f), out(n / 4), nodes(1 << 22);
  const float* xp = thrust::raw_pointer_cast(x.data());
  float* op       = thrust::raw_pointer_cast(out.data());
  float* np       = thrust::raw_pointer_cast(nodes.data());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto time = [&](auto&& f) {
    std::vector<float> v;
    for (int r = 0; r < reps; ++r)
    {
      f(); // warm, and the previous call's tail out of the way
      cudaEventRecord(a);
      f();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      v.push_back(ms * 1e3f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  long shapes[][2] = {{1L << 23, 8},   {1L << 22, 16},  {1L << 21, 32}, {1L << 20, 64},
                      {1L << 19, 128}, {1L << 18, 256}, {8192, 8192},   {1L << 16, 1024}};
  for (auto& s : shapes)
  {
    const long r = s[0], c = s[1];
    cuda::std::mdspan<const float, ext2> xv(xp, r, c);
    cuda::std::mdspan<float, ext1> ov(op, c);
    const auto plan = rk::detail::plan_axes("x", xv, rk::axes{0}, ov);
    rk::detail::column_layout layout{};
    rk::detail::column_grid grid{};
    const auto& dev = rk::detail::current_device_facts();
    rk::detail::plan_columns<float>(plan, xp, dev, layout, grid);
    const long outputs    = layout.groups * layout.columns;
    const unsigned blocks = grid.column_tiles * layout.groups * grid.chunks;
    const auto fin        = rk::detail::finish_threads<float>(grid.chunks);
    const auto node_at    = rk::detail::chunk_nodes_for<float>(outputs, grid.chunks);
    auto nodes_only       = [&] {
      rk::detail::column_nodes_kernel<1, float, const float, rk::detail::untransformed, float*, rk::plus>
        <<<blocks, 256>>>(xp, {}, layout, grid, np, node_at, op, 0.0f, rk::plus{});
    };
    const rk::detail::chunk_node_layout cm{outputs, 1};
    const rk::detail::chunk_node_layout om{1, (grid.chunks + 7) / 8 * 8};
    auto nodes_with = [&](rk::detail::chunk_node_layout l) {
      rk::detail::column_nodes_kernel<1, float, const float, rk::detail::untransformed, float*, rk::plus>
        <<<blocks, 256>>>(xp, {}, layout, grid, np, l, op, 0.0f, rk::plus{});
    };
    auto finish_with = [&](rk::detail::chunk_node_layout l) {
      rk::detail::enqueue_column_finish(cudaStream_t{}, (const float*) np, l, outputs, grid.chunks, op, 0.0f,
                                        rk::plus{});
    };
    auto finish_only = [&] { finish_with(node_at); };
    const float cm_t = time([&] {
      nodes_with(cm);
      finish_with(cm);
    });
    const float om_t = time([&] {
      nodes_with(om);
      finish_with(om);
    });
    const float cm_n = time([&] { nodes_with(cm); });
    const float om_n = time([&] { nodes_with(om); });
    const float full = time([&] { rk::reduce_axes(rk::device, xv, rk::axes{0}, ov, 0.0f, rk::plus{}); });
    const float nk   = time(nodes_only);
    const float fk   = time(finish_only);
    const float ne   = time([&] {
      nodes_only();
      empty_kernel<<<1, 32>>>(nullptr);
    });
    const float nf   = time([&] {
      nodes_only();
      finish_only();
    });
    if (grid.chunks == 1)
      continue;
    const float ek = time([&] { empty_kernel<<<1, 32>>>(nullptr); });
    const float pr = time([&] {
      probe<<<132 * 8, 256>>>(reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(op), n / 4, c / 4);
    });
    float ft = -1, nft = -1;
    if (grid.chunks == 2048)
    {
      ft  = time([&] { finish_t<<<outputs, 256>>>(np, 2048, op); });
      nft = time([&] {
        nodes_only();
        finish_t<<<outputs, 256>>>(np, 2048, op);
      });
    }
    std::printf("%ld x %ld: chunks %ld blocks %u runs %d run_level %d | finish width %d runs %d level %d\n", r, c,
                (long) grid.chunks, blocks, grid.threads.runs, grid.threads.run_level, fin.width, fin.runs,
                fin.run_level);
    std::printf(
      "  chunk-major: nodes %.1f nodes+finish %.1f | output-major: nodes %.1f nodes+finish %.1f | chosen %s\n", cm_n,
      cm_t, om_n, om_t, node_at.chunk_step == 1 ? "output-major" : "chunk-major");
    std::printf("  full %.1f  nodes %.1f  finish %.1f  nodes+empty %.1f  nodes+finish %.1f  empty %.1f  probe %.1f  "
                "finish_t %.1f  nodes+finish_t %.1f  (full/probe %.3f)\n",
                full, nk, fk, ne, nf, ek, pr, ft, nft, full / pr);
  }
  cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}

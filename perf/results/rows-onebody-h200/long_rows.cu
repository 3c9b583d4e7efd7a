// The long-row experiments of perf/RESULTS.md's section on one block body per long-row kernel:
// rk::reduce_axes over rows (the fixed-size form's row engine), rk::mean_var over rows,
// rk::segmented_reduce's CSR form over equal segments, and rk::reduce_into over the same items.
// Built once per variant of the library's headers:
//   nvcc -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include long_rows.cu build/librk.a -lcuda
// (the calls of that section ran earlier versions of it with fewer shapes, and the CSR cases as
// a program of their own).
#include "../event_timer.cuh"

#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

#include <cuda/std/mdspan>

#include <cstdio>
#include <vector>

template <class T>
float rows(const T* x, T* o, long r, long n)
{
  cuda::std::mdspan<const T, cuda::std::dextents<long, 2>> v(x, r, n);
  cuda::std::mdspan<T, cuda::std::dextents<long, 1>> out(o, r);
  return time_calls([&] { rk::reduce_axes(rk::device, v, rk::axes{1}, out, T(0)); });
}

template <class T>
float mean_var_rows(const T* x, rk::mean_var<T>* o, long r, long n)
{
  cuda::std::mdspan<const T, cuda::std::dextents<long, 2>> v(x, r, n);
  cuda::std::mdspan<rk::mean_var<T>, cuda::std::dextents<long, 1>> out(o, r);
  return time_calls([&] {
    rk::transform_reduce_axes(rk::device, v, rk::axes{1}, out, rk::mean_var<T>{}, rk::mean_var_op<T>{},
                              rk::to_mean_var<T>{});
  });
}

template <class T>
float csr(const T* x, T* o, long segments, long length)
{
  std::vector<long> h(static_cast<std::size_t>(segments + 1));
  for (long s = 0; s <= segments; ++s)
  {
    h[static_cast<std::size_t>(s)] = s * length;
  }
  thrust::device_vector<long> offsets(h.begin(), h.end());
  return time_calls([&] { rk::segmented_reduce(rk::device, x, offsets.begin(), offsets.end(), o, T(0), rk::plus{}); });
}

template <class T>
float flat(const T* x, T* o, long n)
{
  return time_calls([&] { rk::reduce_into(rk::device, x, x + n, o, T(0)); });
}

int main()
{
  const long n = 1L << 28;
  void* x      = nullptr;
  void* o      = nullptr;
  cudaMalloc(&x, n * 8);
  cudaMalloc(&o, 1 << 24);
  cudaMemset(x, 0, n * 8);
  const auto* xd = static_cast<const double*>(x);
  const auto* xf = static_cast<const float*>(x);
  auto* od       = static_cast<double*>(o);
  auto* of       = static_cast<float*>(o);
  printf("double flat 2^26: %.1f us\n", flat(xd, od, 1L << 26));
  printf("double flat 2^28: %.1f us\n", flat(xd, od, 1L << 28));
  printf("float flat 2^26: %.1f us\n", flat(xf, of, 1L << 26));
  printf("float flat 2^28: %.1f us\n", flat(xf, of, 1L << 28));
  const long shapes[][2] = {{8, 1L << 23},    {256, 1L << 18},  {2048, 1L << 15},    {8192, 1L << 13},
                            {2048, 1L << 17}, {8192, 1L << 15}, {64, (1L << 20) - 1}};
  for (const auto& s : shapes)
  {
    printf("double rows %ld x %ld: %.1f us\n", s[0], s[1], rows(xd, od, s[0], s[1]));
  }
  for (const auto& s : shapes)
  {
    printf("float rows %ld x %ld: %.1f us\n", s[0], s[1], rows(xf, of, s[0], s[1]));
  }
  for (const auto& s : shapes)
  {
    printf("float mean_var rows %ld x %ld: %.1f us\n", s[0], s[1],
           mean_var_rows(xf, static_cast<rk::mean_var<float>*>(o), s[0], s[1]));
  }
  for (const auto& s : shapes)
  {
    if (s[0] * s[1] <= (1L << 26))
    {
      printf("double mean_var rows %ld x %ld: %.1f us\n", s[0], s[1],
             mean_var_rows(xd, static_cast<rk::mean_var<double>*>(o), s[0], s[1]));
    }
  }
  const long segments[][2] = {{8, 1L << 23}, {64, 1L << 20},       {1024, 65536}, {16384, 4096},
                              {8192, 8192},  {64, (1L << 20) - 1}, {16384, 4095}};
  for (const auto& s : segments)
  {
    printf("double csr %ld x %ld: %.1f us\n", s[0], s[1], csr(xd, od, s[0], s[1]));
  }
  for (const auto& s : segments)
  {
    printf("float csr %ld x %ld: %.1f us\n", s[0], s[1], csr(xf, of, s[0], s[1]));
  }
  return 0;
}

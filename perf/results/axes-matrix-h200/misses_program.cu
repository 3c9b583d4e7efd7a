// The misses of the full rk_bench_axes matrix: what runs (rk::explain_axes) and, under ncu, each
// kernel's speed of light, for double rows and one-lane columns, batch norm at 2^28, layer norm.
#include <cstdio>
#include <cstdlib>
#include <cuda/std/mdspan>
#include <iostream>
#include <rk/reduce.cuh>
#include <rk/statistics.hpp>
#include <thrust/device_vector.h>

template <class T, std::size_t R, std::size_t K>
void sums(const char* name, const T* x, T* o, cuda::std::array<long, R> e, rk::axes a, cuda::std::array<long, K> k,
          bool explain)
{
  cuda::std::mdspan<const T, cuda::std::dextents<long, R>> xv(x, e);
  cuda::std::mdspan<T, cuda::std::dextents<long, K>> ov(o, k);
  if (explain)
    std::cout << name << ": " << rk::explain_axes(rk::device, xv, a, ov, T(0)).reason << "\n\n";
  rk::reduce_axes(rk::device, xv, a, ov, T(0));
}
template <class T, std::size_t R, std::size_t K>
void stats(const char* name, const T* x, rk::mean_var<T>* o, cuda::std::array<long, R> e, rk::axes a,
           cuda::std::array<long, K> k, bool explain)
{
  cuda::std::mdspan<const T, cuda::std::dextents<long, R>> xv(x, e);
  cuda::std::mdspan<rk::mean_var<T>, cuda::std::dextents<long, K>> ov(o, k);
  if (explain)
    std::cout << name << ": " << rk::explain_axes(rk::device, xv, a, ov, rk::mean_var<T>{}, rk::mean_var_op<T>{}).reason
              << "\n\n";
  rk::transform_reduce_axes(rk::device, xv, a, ov, rk::mean_var<T>{}, rk::mean_var_op<T>{}, rk::to_mean_var<T>{});
}

int main(int argc, char** argv)
{
  const int only     = argc > 1 ? std::atoi(argv[1]) : -1;
  const bool explain = argc > 2;
  const long n       = 1L << 28;
  thrust::device_vector<double> xd(n / 2 * 2 / 2 * 2, 1.0);
  thrust::device_vector<char> od(1L << 30);
  const double* d = thrust::raw_pointer_cast(xd.data());
  const float* f  = reinterpret_cast<const float*>(d);
  void* o         = thrust::raw_pointer_cast(od.data());
  const long M    = 1L << 20;
  if (only < 0 || only == 0)
    sums<double, 2, 1>("rows 8192^2 double", d, (double*) o, {8192, 8192}, rk::axes{1}, {8192}, explain);
  if (only < 0 || only == 1)
    sums<float, 2, 1>("rows 8192^2 float", f, (float*) o, {8192, 8192}, rk::axes{1}, {8192}, explain);
  if (only < 0 || only == 2)
    sums<double, 2, 1>("first axis 8 x 2^23 double", d, (double*) o, {8, 8 * M}, rk::axes{0}, {8 * M}, explain);
  if (only < 0 || only == 3)
    stats<float, 3, 1>("batch norm 2^28 float", f, (rk::mean_var<float>*) o, {32, 256, 32768}, rk::axes{0, 2}, {256},
                       explain);
  if (only < 0 || only == 4)
    stats<double, 2, 1>("layer norm double", d, (rk::mean_var<double>*) o, {65536, 1024}, rk::axes{1}, {65536},
                        explain);
  if (only < 0 || only == 5)
    sums<double, 2, 1>("all axes 8192^2 double... first axis 2^23 x 8 double", d, (double*) o, {8 * M, 8}, rk::axes{0},
                       {8}, explain);
  if (only < 0 || only == 6)
    stats<float, 3, 1>("batch norm 2^26 float", f, (rk::mean_var<float>*) o, {32, 256, 8192}, rk::axes{0, 2}, {256},
                       explain);
  cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}

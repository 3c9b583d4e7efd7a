// rk::reduce_into over 2^26 items from a 16-byte aligned pointer and from 1, 2, 3 items after it
// (the element body), and the fixed-size form's rows off the grid.
#include "../event_timer.cuh"

#include <cstdio>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
template <class T>
void run(const char* name, const T* x, T* o, long n)
{
  for (int shift = 0; shift < 4; ++shift)
  {
    printf("%s flat 2^26 from +%d: %.1f us\n", name, shift,
           time_calls([&] { rk::reduce_into(rk::device, x + shift, x + shift + n, o, T(0)); }));
  }
  for (int shift = 0; shift < 2; ++shift)
  {
    printf("%s rows 64 x 2^20 from +%d: %.1f us\n", name, shift,
           time_calls([&] { rk::segmented_reduce(rk::device, x + shift, 64, n / 64, o, T(0), rk::plus{}); }));
  }
}
int main()
{
  const long n = 1L << 26;
  void* x      = nullptr;
  void* o      = nullptr;
  cudaMalloc(&x, (n + 8) * 8);
  cudaMalloc(&o, 1 << 20);
  cudaMemset(x, 0, (n + 8) * 8);
  run("float", static_cast<const float*>(x), static_cast<float*>(o), n);
  run("double", static_cast<const double*>(x), static_cast<double*>(o), n);
  return 0;
}

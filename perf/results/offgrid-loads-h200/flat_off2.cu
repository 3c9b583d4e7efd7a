// rk::reduce_into on each flat backend from 0, 1 and 3 items past the 16-byte grid, 2^26 and 2^24
// floats (flat_off2.txt has the output).
#include "../event_timer.cuh"

#include <cstdio>
#include <rk/reduce.cuh>
#include <thrust/device_vector.h>
int main()
{
  const long most = 1L << 26;
  thrust::device_vector<float> items(most + 8), result(1);
  const float* x = thrust::raw_pointer_cast(items.data());
  float* o       = thrust::raw_pointer_cast(result.data());
  for (int log2 : {26, 24})
  {
    const long n = 1L << log2;
    for (int shift : {0, 1, 3})
    {
      printf("n 2^%d +%d: single_pass %.1f  two_pass %.1f  device %.1f us\n", log2, shift,
             time_calls([&] { rk::reduce_into(rk::single_pass, x + shift, x + shift + n, o, 0.0f); }),
             time_calls([&] { rk::reduce_into(rk::two_pass, x + shift, x + shift + n, o, 0.0f); }),
             time_calls([&] { rk::reduce_into(rk::device, x + shift, x + shift + n, o, 0.0f); }));
    }
  }
  return 0;
}

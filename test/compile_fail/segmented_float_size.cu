// Must not compile: rk::segmented_reduce's fixed-size form with a floating-point segment size; the
// message names the fix.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

int main()
{
  thrust::device_vector<float> items(10, 1.0f), out(2);
  rk::segmented_reduce(rk::device, items.begin(), 2, 5.0, out.begin(), 0.0f, rk::plus{});
}

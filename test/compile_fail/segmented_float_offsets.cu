// Must not compile: rk::segmented_reduce with floating-point offsets (CUB refuses them too; a cast
// would drop fractions silently); the message names the fix.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

int main()
{
  thrust::device_vector<float> offsets(3), items(10, 1.0f), out(2);
  rk::segmented_reduce(rk::device, items.begin(), offsets.begin(), offsets.end(), out.begin(), 0.0f, rk::plus{});
}

// Must not compile: zip keys over raw pointers on a GPU policy (Thrust takes a zip of raw pointers
// for host memory); the message names thrust::device_ptr, the fix for device memory.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/zip_iterator.h>

int main()
{
  thrust::device_vector<int> a(10), b(10), a_out(10), b_out(10), values(10, 1), values_out(10);
  int* ra   = thrust::raw_pointer_cast(a.data());
  int* rb   = thrust::raw_pointer_cast(b.data());
  auto keys = thrust::make_zip_iterator(ra, rb);
  rk::reduce_by_key(rk::device, keys, keys + 10, values.begin(),
                    thrust::make_zip_iterator(a_out.begin(), b_out.begin()), values_out.begin(), 0, rk::plus{});
}

// Must not compile: rk::device_count of a pointer to a float (a count is an integer).
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

int main()
{
  thrust::device_vector<float> v(10, 1.0f);
  thrust::device_vector<float> n(1, 10.0f);
  thrust::device_vector<float> out(1);
  rk::reduce_into(rk::device, v.begin(), rk::device_count(n.data()), out.data(), 0.0f, rk::plus{});
}

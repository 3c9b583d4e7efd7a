// Must not compile: rk::reduce_into with rk::device_count on rk::atomic (the GPU makes the plan
// from the count, which it can for rk::reduce's tree only); the message names the policies to use.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

#include <cstdint>

int main()
{
  thrust::device_vector<std::int32_t> v(10, 1);
  thrust::device_vector<std::int64_t> n(1, 10);
  thrust::device_vector<std::int32_t> out(1);
  rk::reduce_into(rk::atomic, v.begin(), rk::device_count(n.data()), out.data(), 0, rk::plus{});
}

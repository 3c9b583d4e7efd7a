// Must not compile: rk::reduce_partial with rk::atomic (a partial is made of rk::reduce's tree
// nodes, which rk::atomic does not compute); the message names the policies to use instead.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

int main()
{
  thrust::device_vector<float> v(10, 1.0f);
  (void) rk::reduce_partial(rk::atomic, v.begin(), v.end(), 0, rk::plus{});
}

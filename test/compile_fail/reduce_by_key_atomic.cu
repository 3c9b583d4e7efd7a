// Must not compile: rk::reduce_by_key with rk::atomic (it has no atomic path); the message names the
// policies to use instead.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

int main()
{
  thrust::device_vector<int> keys(10), keys_out(10), values(10, 1), values_out(10);
  rk::reduce_by_key(rk::atomic, keys.begin(), keys.end(), values.begin(), keys_out.begin(), values_out.begin(), 0,
                    rk::plus{});
}

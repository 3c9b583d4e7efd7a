// Must not compile: rk::reduce_by_key on a GPU policy with keys that are not trivially default
// constructible (the run pass holds keys in registers and shared memory).
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

struct labelled_key
{
  int label = -1; // a default member initializer: not trivially default constructible
  __host__ __device__ bool operator==(const labelled_key& other) const
  {
    return label == other.label;
  }
};

int main()
{
  thrust::device_vector<labelled_key> keys(10), keys_out(10);
  thrust::device_vector<int> values(10, 1), values_out(10);
  rk::reduce_by_key(rk::device, keys.begin(), keys.end(), values.begin(), keys_out.begin(), values_out.begin(), 0,
                    rk::plus{});
}

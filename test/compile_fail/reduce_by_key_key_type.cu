// Must not compile: rk::reduce_by_key on a GPU policy with keys that are not trivially copyable
// (the run pass copies keys through registers and shared memory as bytes).
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

struct counted_key
{
  int label = -1;
  __host__ __device__ counted_key() {}
  __host__ __device__ counted_key(const counted_key& other)
      : label(other.label)
  {} // user-provided copy
  __host__ __device__ counted_key& operator=(const counted_key&) = default;
  __host__ __device__ bool operator==(const counted_key& other) const
  {
    return label == other.label;
  }
};

int main()
{
  thrust::device_vector<counted_key> keys(10), keys_out(10);
  thrust::device_vector<int> values(10, 1), values_out(10);
  rk::reduce_by_key(rk::device, keys.begin(), keys.end(), values.begin(), keys_out.begin(), values_out.begin(), 0,
                    rk::plus{});
}

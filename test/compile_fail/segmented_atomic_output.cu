// Must not compile: rk::atomic segmented reduce into a fancy output iterator (atomics need T in memory).
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

struct twice
{
  __host__ __device__ int operator()(int v) const
  {
    return 2 * v;
  }
};

int main()
{
  thrust::counting_iterator<int> first(0);
  thrust::device_vector<int> out(10);
  rk::segmented_reduce(rk::atomic, first, 10, 4, thrust::make_transform_output_iterator(out.begin(), twice{}), 0);
}

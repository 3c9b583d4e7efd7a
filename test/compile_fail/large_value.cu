// Must not compile: a 512-byte accumulator, past what the block body keeps in shared memory.
#include <rk/reduce.cuh>

#include <thrust/iterator/constant_iterator.h>

struct big
{
  int words[128];
};

struct keep_left
{
  __host__ __device__ big operator()(const big& a, const big&) const
  {
    return a;
  }
};

int main()
{
  thrust::constant_iterator<big> first(big{});
  return rk::reduce(rk::device, first, first + 10, big{}, keep_left{}).words[0];
}

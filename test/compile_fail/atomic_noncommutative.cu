// Must not compile: rk::atomic with an operator not known to commute.
#include <rk/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

struct first_of_two
{
  __host__ __device__ int operator()(int a, int) const
  {
    return a;
  }
};

int main()
{
  thrust::counting_iterator<int> first(0);
  return rk::reduce(rk::atomic, first, first + 10, 0, first_of_two{});
}

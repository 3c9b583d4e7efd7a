// Must not compile: an injected tuning with zero load units per lane (it would divide by zero).
#include <rk/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

int main()
{
  thrust::counting_iterator<int> first(0);
  return rk::reduce(rk::single_pass.tuned<rk::fixed_tuning<256, 0, 2, 1>>(), first, first + 10, 0);
}

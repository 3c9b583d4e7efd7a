// Must not compile: a tuning that asks for merged lanes over an operator without an order-free
// merge (plus has none: only the arg reductions' operators do).
#include <rk/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

int main()
{
  thrust::counting_iterator<int> first(0);
  using merged = rk::fixed_tuning<256, 4, 2, 1, 1, 0, rk::tree_shape::merged_lanes>;
  return rk::reduce(rk::single_pass.tuned<merged>(), first, first + 10, 0);
}

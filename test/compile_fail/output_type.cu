// Must not compile: rk::reduce_into with an int init (so an int accumulator) into an int64 output.
#include <rk/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

int main()
{
  thrust::counting_iterator<int> first(0);
  std::int64_t* out = nullptr;
  rk::reduce_into(rk::device, first, first + 10, out, 0);
}

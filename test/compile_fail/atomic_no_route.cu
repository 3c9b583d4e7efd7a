// Must not compile: rk::atomic for a 1-byte T, which has no atomic route.
#include <rk/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

int main()
{
  thrust::counting_iterator<std::int8_t> first(0);
  return rk::reduce(rk::atomic, first, first + 10, std::int8_t{0}, rk::plus{});
}

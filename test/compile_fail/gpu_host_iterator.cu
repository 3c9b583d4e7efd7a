// Must not compile: a GPU policy given an iterator into host memory.
#include <rk/reduce.cuh>

#include <vector>

int main()
{
  std::vector<int> host(10, 1);
  return rk::reduce(rk::device, host.begin(), host.end(), 0);
}

#include <rk/reduce.hpp>

#include <cstdio>
#include <vector>

int main()
{
  std::vector<int> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::printf("rk via add_subdirectory: %d\n", rk::reduce(rk::host, v.begin(), v.end(), 0));
}

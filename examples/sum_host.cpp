// rk on the host only: no CUDA compiler needed for this file.
#include <rk/reduce.hpp>

#include <cstdint>
#include <iostream>
#include <numeric>
#include <vector>

int main()
{
  std::vector<std::int64_t> v(1000000);
  std::iota(v.begin(), v.end(), 1);
  std::cout << "sum of 1..1000000 = " << rk::reduce(rk::host, v.begin(), v.end(), std::int64_t{0}) << '\n';
  std::cout << "max = " << rk::reduce(rk::seq, v.begin(), v.end(), std::int64_t{0}, rk::maximum{}) << '\n';
  std::cout << rk::explain(rk::host, v.begin(), v.end(), std::int64_t{0}) << '\n';
}

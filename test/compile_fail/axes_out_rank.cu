// Must not compile: an out of higher rank than x for rk::reduce_axes (it would have overrun the
// shape's eight slots); the message says what out's rank must be.
#include <rk/reduce.hpp>

#include <vector>

int main()
{
  std::vector<float> data(8, 1.0f), out(1);
  cuda::std::mdspan<const float, cuda::std::dextents<int, 1>> x(data.data(), 8);
  cuda::std::mdspan<float, cuda::std::dextents<int, 2>> o(out.data(), 1, 1);
  rk::reduce_axes(rk::host, x, rk::axes{}, o, 0.0f);
}

// Must not compile: a floating-point offset for rk::reduce_partial; the message says it is a count
// of items.
#include <rk/reduce.hpp>

#include <vector>

int main()
{
  std::vector<float> v(10, 1.0f);
  (void) rk::reduce_partial(rk::host, v.begin(), v.end(), 2.0, rk::plus{});
}

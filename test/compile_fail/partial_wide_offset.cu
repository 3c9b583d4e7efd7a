// Must not compile: a 128-bit offset for rk::reduce_partial; the message says it is at most 64 bits.
#include <rk/reduce.hpp>

#include <vector>

int main()
{
  std::vector<float> v(10, 1.0f);
  (void) rk::reduce_partial(rk::host, v.begin(), v.end(), static_cast<unsigned __int128>(1) << 64, rk::plus{});
}

// Must not compile: rk::segmented_reduce over a std::list, even on rk::seq (segments are found by
// their offsets).
#include <rk/reduce.hpp>

#include <list>
#include <vector>

int main()
{
  std::list<int> items(10, 1);
  std::vector<int> offsets{0, 5, 10}, out(2);
  rk::segmented_reduce(rk::seq, items.begin(), offsets.begin(), offsets.end(), out.begin(), 0);
}

// Must not compile: rk::segmented_reduce into an output that cannot take T (init's type).
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>

struct label
{
  char text[8];
};

int main()
{
  thrust::device_vector<int> items(10, 1), offsets{0, 5, 10};
  thrust::device_vector<label> out(2);
  rk::segmented_reduce(rk::device, items.begin(), offsets.begin(), offsets.end(), out.begin(), 0);
}

#include <rk/reduce.cuh>
template <class P, class T>
void run(P p, const T* in, const int* off, long segs, T* o)
{
  rk::segmented_reduce(p, in, off, off + segs + 1, o, T(0));
}
template void run(decltype(rk::single_pass), const float*, const int*, long, float*);
template void run(decltype(rk::two_pass), const float*, const int*, long, float*);
template void run(decltype(rk::device), const float*, const int*, long, float*);
template void run(decltype(rk::device), const double*, const int*, long, double*);
template void run(decltype(rk::device), const long*, const int*, long, long*);
template void run(decltype(rk::device), const int*, const int*, long, int*);

// rk on the GPU: a sum over a device_vector, a non-commutative reduction, and what rk::device
// chose. Without a GPU it says so and runs the host policy instead.
#include <rk/reduce.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>

#include <cstdint>
#include <iostream>

/// x -> a*x + b mod 2^32; composing maps is associative but not commutative.
struct affine
{
  std::uint32_t a, b;
};
struct compose
{
  __host__ __device__ affine operator()(affine f, affine g) const
  {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};
struct step_map
{
  __host__ __device__ affine operator()(std::uint32_t i) const
  {
    return {3u, i};
  }
};

int main()
{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
  {
    std::cout << "no CUDA GPU here: running the host policy instead of rk::device\n";
    const thrust::counting_iterator<std::int64_t> first(1);
    std::cout << "host sum of 1..1000000 = " << rk::reduce(rk::host, first, first + 1000000, std::int64_t{0}) << '\n';
    return 0;
  }
  try
  {
    thrust::device_vector<float> v(1 << 24);
    thrust::sequence(v.begin(), v.end(), 0.0f, 1.0f / (1 << 24));
    const float s = rk::reduce(rk::device, v.begin(), v.end(), 0.0f, cuda::std::plus<>{});
    std::cout << "sum = " << s << '\n' << rk::explain(rk::device, v.begin(), v.end(), 0.0f) << '\n';

    const auto maps = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), step_map{});
    const affine f  = rk::reduce(rk::device, maps, maps + 1000, affine{1, 0}, compose{});
    std::cout << "composition of 1000 affine maps: x -> " << f.a << " x + " << f.b << '\n';
  }
  catch (const rk::error& e)
  {
    std::cerr << "rk error: " << e.what() << '\n';
    return 1;
  }
}

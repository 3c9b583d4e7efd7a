// A kernel that faults surfaces as rk::cuda_error, not as a hang or a silent wrong answer.
// The fault poisons the CUDA context, so this is the only test in its process.

#include "gpu_harness.cuh"

#include <string>

namespace
{
struct faults_at_item
{
  std::int64_t where;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const
  {
#if defined(__CUDA_ARCH__)
    if (i == where)
    {
      __trap();
    }
#endif
    return i;
  }
};
} // namespace

RK_GPU_TEST_CASE("a kernel fault throws rk::cuda_error with CUDA's error string")
{
  const auto items = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), faults_at_item{12345});
  try
  {
    (void) rk::reduce(rk::device, items, items + 1000000, std::int64_t{0});
    FAIL("no exception");
  }
  catch (const rk::cuda_error& e)
  {
    MESSAGE(std::string(e.what()));
    CHECK(e.code() != cudaSuccess);
    CHECK(std::string(e.what()).find(cudaGetErrorString(e.code())) != std::string::npos);
  }
}

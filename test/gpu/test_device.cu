// Property suites for rk::device.

#include "gpu_harness.cuh"

using harness = rk_test::gpu_harness<rk::device_policy>;

RK_GPU_PROPERTY_SUITES("rk::device", harness)

RK_GPU_TEST_CASE("rk::device: non-commutative associative ops give the exact answer")
{
  rk_test::non_commutative(harness{});
}

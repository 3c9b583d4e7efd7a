// Property suites for rk::two_pass.

#include "gpu_harness.cuh"

using harness = rk_test::gpu_harness<rk::two_pass_policy>;

RK_GPU_PROPERTY_SUITES("rk::two_pass", harness)

RK_GPU_TEST_CASE("rk::two_pass: non-commutative associative ops give the exact answer")
{
  rk_test::non_commutative(harness{});
}

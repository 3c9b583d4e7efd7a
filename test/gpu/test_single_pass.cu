// Property suites for rk::single_pass.

#include "gpu_harness.cuh"

using harness = rk_test::gpu_harness<rk::single_pass_policy>;

RK_GPU_PROPERTY_SUITES("rk::single_pass", harness)

RK_GPU_TEST_CASE("rk::single_pass: non-commutative associative ops give the exact answer")
{
  rk_test::non_commutative(harness{});
}

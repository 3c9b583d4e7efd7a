// rk::reduce_axes on rk::two_pass and rk::single_pass over test_axes.cu's shapes (axes_shapes.cuh),
// in a source of its own so that it compiles beside test_axes.cu.

#include "axes_shapes.cuh"
#include "gpu_harness.cuh"

RK_GPU_TEST_CASE("rk::reduce_axes (rk::two_pass, rk::single_pass): every layout and axis subset, bits of rk::host")
{
  rk_test::axes_shapes(rk_test::gpu_harness<rk::two_pass_policy>{});
  rk_test::axes_shapes(rk_test::gpu_harness<rk::single_pass_policy>{});
}

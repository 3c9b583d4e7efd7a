#pragma once
// The shapes every GPU policy's axis reductions are checked on (test_axes.cu, test_axes_backends.cu).

#include "../support/axes_properties.hpp"

#include <cstdint>

namespace rk_test
{
/// Every layout and axis subset of these shapes through axes_properties, with rk::host's bits.
template <class H>
void axes_shapes(const H& h)
{
  rk_test::axes_properties_for_shape<1>(h, {257});
  rk_test::axes_properties_for_shape<2>(h, {33, 31});
  // Long enough for the column engine (2048 outputs or more) and for many chunks per output (its
  // chunks are at least 4 lanes); shorter under the sanitizers (RK_TEST_QUICK). At 100003 this
  // case alone took 220 s of the GPU suite on an H100, checked against the host.
  const std::int64_t long_extent = rk_test::quick_mode() ? 5003 : 20011;
  rk_test::axes_properties_for_shape<2>(h, {3, long_extent});
  rk_test::axes_properties_for_shape<2>(h, {long_extent, 3});
  rk_test::axes_properties_for_shape<3>(h, {2, 31, 33});
  // Columns 256 wide in groups (axis 0: each output one lane, read four a thread as vectors), runs
  // of whole tiles (axes 0 and 2 of layout_right: 40 runs of 256 items per output, the finish over
  // several threads per output), and two trailing axes as one run (axes 0 and 3).
  rk_test::axes_properties_for_shape<3>(h, {40, 3, 256});
  rk_test::axes_properties_for_shape<4>(h, {2, 3, 4, 256}, {{0, 2, 3}, {0, 3}, {1, 2, 3}});
  // Runs of 64 float tiles (128 of int64), longer than a window: the row engine splits each run
  // into parts that its last block joins.
  rk_test::axes_properties_for_shape<3>(h, {3, 2, 16384}, {{0, 2}, {0, 1, 2}});
  // Runs of an output's items a step apart, whole nodes of its tree, side by side in x (layout_left
  // over axes 0 and 2; a block's columns combined where they are consecutive runs: into out itself
  // for (33, 5, 64), over three blocks an output for (300, 3, 64), after the runs of another axis
  // for (3, 512, 5, 64) stored axis 1 innermost), and runs too long for one chunk each.
  rk_test::axes_properties_for_shape<3>(h, {33, 5, 64}, {{0, 2}, {0, 1, 2}, {1}});
  rk_test::axes_properties_for_shape<3>(h, {300, 3, 64}, {{0, 2}, {2, 0, 1}});
  rk_test::axes_properties_for_view(h, rk_test::view_shape<4>::stored_in({3, 512, 5, 64}, {3, 2, 0, 1}),
                                    {{0, 1, 3}, {1, 3}, {0, 1, 2, 3}});
  rk_test::axes_properties_for_shape<3>(h, {8, 3, rk_test::quick_mode() ? 32768 : 65536}, {{0, 2}});
  rk_test::axes_properties_for_shape<3>(h, {5, 0, 3});
  rk_test::axes_properties_for_shape<4>(h, {2, 3, 1, 33});
  rk_test::axes_properties_for_shape<8>(h, {2, 1, 3, 2, 1, 2, 3, 2}, {{7}, {3, 5}, {6, 4, 2, 0}});
}
} // namespace rk_test

#pragma once
// rk::reduce_by_key's kernels: the run pass (rk/cuda/agent/run_pass.cuh) and the reset of its
// look-back's tile states. The long runs it lists go on to segmented reduce's kernels.

#include <rk/cuda/agent/run_pass.cuh>
#include <rk/cuda/tuning.cuh>

namespace rk::detail
{
/// Marks every tile's look-back state as not yet known; runs before each run pass.
template <class Head>
__global__ void init_run_tiles_kernel(run_tile_state<Head> tiles, int tile_count)
{
  tiles.InitializeStatus(tile_count);
}

/// The run pass: one tile per block.
template <class Head, class Key, class Item, class T, class Keys, class Values, class UniqueKeys, class RunValues,
          class Init, class KeyEqual, class Op>
__global__ void __launch_bounds__(run_pass_shape<Key, Item, T>::threads, run_pass_blocks_per_sm)
  reduce_runs_kernel(Keys keys, Values values, Head n, UniqueKeys unique_keys, RunValues run_values, Init init,
                     KeyEqual key_equal, Op op, run_pass_outputs<Head> out)
{
  reduce_run_tile<Head, Key, Item, T>(keys, values, n, unique_keys, run_values, init, key_equal, op, out);
}
} // namespace rk::detail

#pragma once
// rk_perf --sweep: rk::single_pass under a compiled-in grid of launch shapes (sweep.cu), to choose
// the defaults of include/rk/cuda/tuning.cuh.

#include "harness.cuh"

#include <string>
#include <vector>

namespace rk_perf
{
/// The element types the sweep is compiled for.
const std::vector<std::string>& sweep_types();

/// The sizes (log2) the sweep measures unless --sizes says otherwise.
const std::vector<int>& sweep_default_log2_sizes();

/// Times CUB, the probe, rk::single_pass with the default tuning and with each shape of the grid
/// for every (type, size); prints one Markdown table per type and the fastest shape per size, and
/// appends every figure to `results` (impl: the shape, e.g. "256/1/4/1").
void run_sweep(run_context& ctx, const std::vector<std::string>& types, const std::vector<int>& log2_sizes,
               std::vector<measurement>& results);
} // namespace rk_perf

#pragma once
/// \file
/// rk: generic parallel reductions on the GPU and the host. Include this from code compiled by
/// nvcc; plain C++ code can include <rk/reduce.hpp> for the host policies alone.
///
/// \code
/// #include <rk/reduce.cuh>
/// thrust::device_vector<float> v(1 << 20, 1.0f);
/// float s = rk::reduce(rk::device, v.begin(), v.end(), 0.0f, cuda::std::plus<>{});
/// std::cout << rk::explain(rk::device, v.begin(), v.end(), 0.0f) << '\n';
/// \endcode
///
/// Layers, a folder each under rk/cuda/ (docs/design.md has the tree): dispatch/ (each
/// algorithm's checks and backend choice, and the engines they share) -> kernels/ (__global__
/// entry points and their epilogues, one file per algorithm) -> agent/ (the per-block bodies) ->
/// primitives/ (loads, lane and warp folds, block combines, arrivals, atomics). Beside them:
/// policy.cuh, tuning.cuh (every launch shape), launch.cuh, runtime.cuh (lib/runtime.cu).

#include <rk/reduce.hpp>

#include <rk/cuda/dispatch/accumulator.cuh>
#include <rk/cuda/dispatch/arg_reduce.cuh>
#include <rk/cuda/dispatch/explain.cuh>
#include <rk/cuda/dispatch/reduce.cuh>
#include <rk/cuda/dispatch/reduce_axes.cuh>
#include <rk/cuda/dispatch/reduce_by_key.cuh>
#include <rk/cuda/dispatch/reduce_partial.cuh>
#include <rk/cuda/dispatch/segmented_reduce.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/functional.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/tuning.cuh>

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
/// Layers, one header each: rk/cuda/dispatch.cuh (API and backend choice) -> two_pass.cuh,
/// single_pass.cuh, atomic.cuh (launchers) -> kernels.cuh (__global__ entry points and epilogues)
/// -> block_reduce.cuh (the shared block body) -> input.cuh, warp_reduce.cuh (loads, warp
/// primitives). Tuning: tuning.cuh. Compiled part: runtime.cuh (lib/runtime.cu).

#include <rk/reduce.hpp>

#include <rk/cuda/arg_dispatch.cuh>
#include <rk/cuda/dispatch.cuh>
#include <rk/cuda/error.cuh>
#include <rk/cuda/functional.cuh>
#include <rk/cuda/policy.cuh>
#include <rk/cuda/reduce_by_key_dispatch.cuh>
#include <rk/cuda/runtime.cuh>
#include <rk/cuda/segmented_dispatch.cuh>
#include <rk/cuda/tuning.cuh>

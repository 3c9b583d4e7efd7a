#pragma once
/// \file
/// rk, host-only subset: every algorithm with rk::seq and rk::host, the operators of
/// rk/functional.hpp, rk::fuse, rk::mean_var, rk::check_operator and the exceptions of
/// rk/error.hpp. Compiles with any C++17 compiler; it needs libcu++'s headers (CCCL, for
/// cuda::std::mdspan and cuda::std::tuple) but no CUDA compiler or runtime. For the GPU policies
/// include <rk/reduce.cuh> instead (it includes this one).
///
/// \code
/// #include <rk/reduce.hpp>
/// std::vector<int> v = {1, 2, 3};
/// int s = rk::reduce(rk::host, v.begin(), v.end(), 0);                 // 6
/// int m = rk::reduce(rk::seq, v.begin(), v.end(), 100, rk::minimum{}); // 1
/// \endcode

#include <rk/accumulator.hpp>
#include <rk/arg_reduce.hpp>
#include <rk/check_operator.hpp>
#include <rk/detail/config.hpp>
#include <rk/error.hpp>
#include <rk/explain.hpp>
#include <rk/functional.hpp>
#include <rk/fuse.hpp>
#include <rk/host/dispatch.hpp>
#include <rk/host/reduce_axes.hpp>
#include <rk/host/reduce_by_key.hpp>
#include <rk/host/reduce_partial.hpp>
#include <rk/partial.hpp>
#include <rk/policy.hpp>
#include <rk/reduce_axes.hpp>
#include <rk/reduce_by_key.hpp>
#include <rk/segmented_arg_reduce.hpp>
#include <rk/statistics.hpp>
#include <rk/transform_reduce.hpp>
#include <rk/version.hpp>

#pragma once
/// \file
/// rk, host-only subset: rk::reduce and rk::explain with rk::seq and rk::host, the operators of
/// rk/functional.hpp, rk::check_operator and the exceptions of rk/error.hpp. Compiles with any
/// C++17 compiler and needs no CUDA. For the GPU policies include <rk/reduce.cuh> instead (it includes this one).
///
/// \code
/// #include <rk/reduce.hpp>
/// std::vector<int> v = {1, 2, 3};
/// int s = rk::reduce(rk::host, v.begin(), v.end(), 0);                 // 6
/// int m = rk::reduce(rk::seq, v.begin(), v.end(), 100, rk::minimum{}); // 1
/// \endcode

#include <rk/arg_reduce.hpp>
#include <rk/check_operator.hpp>
#include <rk/detail/config.hpp>
#include <rk/error.hpp>
#include <rk/explain.hpp>
#include <rk/functional.hpp>
#include <rk/host/dispatch.hpp>
#include <rk/host/reduce_by_key.hpp>
#include <rk/policy.hpp>
#include <rk/reduce_by_key.hpp>
#include <rk/segmented_arg_reduce.hpp>
#include <rk/transform_reduce.hpp>
#include <rk/version.hpp>

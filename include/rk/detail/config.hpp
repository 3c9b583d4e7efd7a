#pragma once
// Portability macros shared by the host-only and the CUDA halves of rk.
// reduce.hpp must compile with a plain C++17 compiler, so nothing here may need CUDA.

#if defined(__CUDACC__)
#  define RK_HOST_DEVICE __host__ __device__
// Before a host-device template that may be instantiated with host-only iterators (the host
// policies' segment sources): nvcc then checks each use on its own side.
#  define RK_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#  define RK_HOST_DEVICE
#  define RK_EXEC_CHECK_DISABLE
#endif

#if __cplusplus < 201703L && !defined(_MSVC_LANG)
#  error "rk needs C++17 or newer"
#endif

#pragma once
// Portability macros shared by the host-only and the CUDA halves of rk.
// reduce.hpp must compile with a plain C++17 compiler, so nothing here may need CUDA.

#if defined(__CUDACC__)
#  define RK_HOST_DEVICE __host__ __device__
#else
#  define RK_HOST_DEVICE
#endif

#if __cplusplus < 201703L && !defined(_MSVC_LANG)
#  error "rk needs C++17 or newer"
#endif

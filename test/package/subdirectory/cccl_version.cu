// Compiled through rk::rk with FOUND_CCCL_VERSION, the version of the CCCL package CMake found
// (CCCL_VERSION's encoding, MMMmmmppp).
#include <cuda/version>

static_assert(CCCL_VERSION == FOUND_CCCL_VERSION,
              "nvcc compiles rk's users against other CCCL headers than those of the CCCL CMake found");

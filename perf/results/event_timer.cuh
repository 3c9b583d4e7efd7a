#pragma once
// The experiment programs' timer (rows-onebody-h200/long_rows.cu, csr-long-kernel-h200/csr.cu,
// segmented-few-h200/flat_off.cu): µs per call, 20 calls between CUDA events after 3 (at 256 MiB
// or more, L2 holds none of the input).
#include <cuda_runtime.h>

template <class Call>
float time_calls(Call call)
{
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i)
  {
    call();
  }
  cudaEventRecord(a);
  for (int i = 0; i < 20; ++i)
  {
    call();
  }
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1000 / 20;
}

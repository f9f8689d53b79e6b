// Shared helpers of the GPU tests (not a test itself: the glob takes tests/gpu/test_*.cu only).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "tmakit/device/mbarrier.cuh"

namespace tmakit_test {

// Empty when a GPU with compute capability >= 9.0 is present; otherwise the reason to skip.
inline std::string gpu_skip_reason() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    return "no CUDA GPU";
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "cudaGetDeviceProperties failed";
  if (prop.major < 9) return "needs compute capability >= 9.0 (TMA, mbarrier tx counts)";
  return {};
}

// A wait that gives up instead of trapping: true when the phase `ph` names completed within
// `max_cycles` clock cycles (then ph advances), false otherwise. For tests that must report a copy
// that never completes rather than end the process (400M cycles is about 0.2 s on an H200).
__device__ inline bool bounded_wait(tmakit::device::Barrier& b, tmakit::device::Phase& ph,
                                    long long max_cycles = 400'000'000) {
  const long long t0 = clock64();
  while (!tmakit::device::try_wait(b, ph.parity))
    if (clock64() - t0 > max_cycles) return false;
  ph.advance();
  return true;
}

}  // namespace tmakit_test

#define TMAKIT_REQUIRE_GPU()                                          \
  do {                                                                \
    const std::string why_ = tmakit_test::gpu_skip_reason();          \
    if (!why_.empty()) GTEST_SKIP() << why_;                          \
  } while (0)

#define TMAKIT_CUDA_OK(expr) ASSERT_EQ(cudaSuccess, (expr)) << #expr << ": " << cudaGetErrorString(cudaGetLastError())

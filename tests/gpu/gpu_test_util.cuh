// Shared helpers of the GPU tests (not a test itself: the glob takes tests/gpu/test_*.cu only).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tmakit/core/dtype.hpp"
#include "tmakit/device/mbarrier.cuh"

namespace tmakit_test {

// A 64 -> 32-bit mix (the finalizer of MurmurHash3's 64-bit form): test inputs from an index.
__host__ __device__ inline std::uint32_t hash32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

// Element i of a seeded input in [-1, 1): a multiple of 2^-7, exact in bf16 and f16.
__host__ __device__ inline float unit_value(std::uint64_t seed, std::size_t i) {
  return static_cast<float>(static_cast<int>(hash32(seed * 0x9e3779b97f4a7c15ull + i) % 256) - 128) / 128.0f;
}

// A device allocation freed with its owner (a failed cudaMalloc fails the test, not the process).
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes ? bytes : 16), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

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

// ---- TMA tests: buffers and data

// The first 1024-byte aligned address at or after p (in shared memory): what every swizzle needs.
__device__ inline unsigned char* align1024(unsigned char* p) {
  const std::uint32_t s = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return p + ((1024u - (s & 1023u)) & 1023u);
}

// Per-element pattern, unique per idx within the type's range; float types get normal values with
// the low 13 mantissa bits of f32 zero (so tf32 rounding and FTZ change nothing).
inline void put_pattern(tmakit::DataType t, std::uint64_t idx, unsigned char* dst) {
  using tmakit::DataType;
  const std::uint32_t eb = tmakit::element_bits(t) / 8;
  std::uint64_t v = 0;
  switch (t) {
    case DataType::float16: case DataType::bfloat16: v = 0x3000u + (idx & 0xfffu); break;
    case DataType::float32: case DataType::float32_ftz: case DataType::tfloat32: case DataType::tfloat32_ftz:
      v = 0x30000000u + ((idx & 0xffffu) << 13); break;
    case DataType::float64: v = 0x3ff0000000000000ull + (idx << 12); break;
    default: v = (idx + 1) * 0x9E3779B97F4A7C15ull; v ^= v >> 29; break;
  }
  for (std::uint32_t i = 0; i < eb; ++i) dst[i] = static_cast<unsigned char>(v >> (8 * i));
}

// scripts/gpu_suite.sh's TMAKIT_SWEEP_STRIDE, set under compute-sanitizer only: k > 1 keeps every
// k-th configuration of a sweep (and tells a test it runs under the sanitizer); 1 when unset.
inline int sweep_stride() {
  const char* k = std::getenv("TMAKIT_SWEEP_STRIDE");
  return k && std::atoi(k) > 1 ? std::atoi(k) : 1;
}

// ---- planted-bug tests: a kernel that traps on purpose runs in a child process (a trap ends the
// CUDA context, and with it every later test of the process).

// True in the child: the environment variable TMAKIT_WATCHDOG_CHILD=1.
inline bool is_child() {
  const char* v = std::getenv("TMAKIT_WATCHDOG_CHILD");
  return v && std::string(v) == "1";
}

struct ChildResult {
  std::string output;  // stdout and stderr together
  int status = -1;
  double seconds = 0;
};

// Re-executes this binary on one test ("Suite.Name") with TMAKIT_WATCHDOG_CHILD=1, killed after 60 s.
inline ChildResult run_child(const std::string& suite_dot_test) {
  std::array<char, 4096> self{};
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  ChildResult r;
  if (n <= 0) return r;
  const std::string cmd = "TMAKIT_WATCHDOG_CHILD=1 timeout -s KILL 60 '" + std::string(self.data(), n) +
                          "' --gtest_filter=" + suite_dot_test + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> chunk{};
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), p)) > 0) r.output.append(chunk.data(), got);
  r.status = pclose(p);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The child ended within `bound_s`, failed, and printed every needle.
inline void expect_diagnosis(const ChildResult& r, const std::vector<std::string>& needles, double bound_s) {
  EXPECT_LT(r.seconds, bound_s) << "the child did not end within " << bound_s << " s\n" << r.output;
  EXPECT_NE(r.status, 0) << "the planted bug did not fail the kernel\n" << r.output;
  for (const auto& s : needles) EXPECT_NE(r.output.find(s), std::string::npos) << "missing \"" << s << "\" in:\n" << r.output;
}

}  // namespace tmakit_test

#define TMAKIT_REQUIRE_GPU()                                          \
  do {                                                                \
    const std::string why_ = tmakit_test::gpu_skip_reason();          \
    if (!why_.empty()) GTEST_SKIP() << why_;                          \
  } while (0)

#define TMAKIT_CUDA_OK(expr) ASSERT_EQ(cudaSuccess, (expr)) << #expr << ": " << cudaGetErrorString(cudaGetLastError())

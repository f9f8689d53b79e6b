// bf16 test data for the GEMM benchmarks (bench_gemm, bench_allgather_gemm): seeded inputs in
// [-1, 1] (multiples of 2^-10; FP8: rounded to e4m3 or e5m2) and the largest difference between two outputs, with the largest
// magnitude of the reference (out[0] = max |a - b|, out[1] = max |b|; zero out before the call).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstddef>
#include <cstdint>

namespace tmakit_bench {

__device__ inline std::uint32_t hash32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}
__global__ void fill_bf16(__nv_bfloat16* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = __float2bfloat16_rn(static_cast<float>(static_cast<int>(hash32(seed * 0x9e3779b97f4a7c15ull + i) % 2049) - 1024) / 1024.0f);
}
// FP8 inputs for the FP8 GEMM: the same values rounded to e4m3 (E5m2: e5m2), one byte each.
template <bool E5m2>
__global__ void fill_fp8(std::uint8_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = static_cast<float>(static_cast<int>(hash32(seed * 0x9e3779b97f4a7c15ull + i) % 2049) - 1024) / 1024.0f;
    if constexpr (E5m2) p[i] = __nv_fp8_e5m2(v).__x;
    else p[i] = __nv_fp8_e4m3(v).__x;
  }
}
// The FP8 GEMM's accuracy on `samples` elements of D (m x n row-major bf16; A row-major and B
// column-major, K contiguous in both, e4m3, B e5m2 where BE5m2), each against its exact value (the
// dot product of A's row and B's column in double): |D - exact| / S with S = sum |a b| (the unit of
// the GPU tests' bounds). *sum += each error (zero it before the call).
template <bool BE5m2>
__global__ void fp8_sampled_error(const std::uint8_t* a, const std::uint8_t* b, const __nv_bfloat16* d, std::size_t m,
                                  std::size_t n, std::size_t k, int samples, float* sum) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < samples; i += gridDim.x * blockDim.x) {
    const std::uint32_t h = hash32(0x5eedull + static_cast<std::uint64_t>(i));
    const std::size_t row = h % m, col = hash32(h) % n;
    double exact = 0, s = 0;
    for (std::size_t kk = 0; kk < k; ++kk) {
      __nv_fp8_e4m3 x;
      x.__x = a[row * k + kk];
      double y;
      if constexpr (BE5m2) {
        __nv_fp8_e5m2 v;
        v.__x = b[col * k + kk];
        y = static_cast<float>(v);
      } else {
        __nv_fp8_e4m3 v;
        v.__x = b[col * k + kk];
        y = static_cast<float>(v);
      }
      const double p = static_cast<double>(static_cast<float>(x)) * y;
      exact += p;
      s += p < 0 ? -p : p;
    }
    const float e = s > 0 ? static_cast<float>(fabs(static_cast<double>(__bfloat162float(d[row * n + col])) - exact) / s) : 0.0f;
    atomicAdd(sum, e);
  }
}
__global__ void max_diff(const __nv_bfloat16* a, const __nv_bfloat16* b, std::size_t n, float* out) {
  float m = 0.0f, r = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float x = __bfloat162float(a[i]), y = __bfloat162float(b[i]);
    m = fmaxf(m, fabsf(x - y));
    r = fmaxf(r, fabsf(y));
  }
  atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));
  atomicMax(reinterpret_cast<int*>(out) + 1, __float_as_int(r));
}

}  // namespace tmakit_bench

// The second kernel of a split-K GEMM: the GEMM kernel's K slices have added their fp32 partial
// sums into the workspace W (TMA reductions); this writes D = alpha * W + beta * C in the output
// type and sets W back to zero for the next launch (so only the first launch needs a memset).
// Element-wise and memory-bound.
#pragma once

#include <cstdint>

#include "tmakit/core/dtype.hpp"
#include "tmakit/device/element_bits.cuh"

namespace tmakit::gemm_sm90 {

struct FinalizeParams {
  float* w = nullptr;                      // m x n fp32 per batch matrix, row-major
  std::int64_t ldw = 0, w_batch_stride = 0;  // ldw: a multiple of 4 (16-byte rows of four)
  std::uint16_t* d = nullptr;
  std::int64_t ldd = 0, d_batch_stride = 0;
  const std::uint16_t* c = nullptr;          // read when read_c
  std::int64_t ldc = 0, c_batch_stride = 0;
  std::int64_t m = 0, n = 0, batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  int read_c = 0;
  int vector_d = 0;  // D's rows start 8-byte aligned: four values are stored as one 8-byte word
};

// Rows go to blockIdx.y (grid-stride), groups of four columns to the threads along x: no division
// per element (a first form that divided a flat index by the row length took 16.6 us at
// 128 x 8192 on an H200, ncu; the copy itself is 10 MiB of traffic).
template <DataType T>
__global__ void __launch_bounds__(256) split_k_finalize(const FinalizeParams f) {
  const std::int64_t quads = (f.n + 3) / 4, rows = f.batch * f.m;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t l = row / f.m, r = row - l * f.m;
    float4* w_row = reinterpret_cast<float4*>(f.w + l * f.w_batch_stride + r * f.ldw);
    std::uint16_t* d_row = f.d + l * f.d_batch_stride + r * f.ldd;
    const std::uint16_t* c_row = f.read_c ? f.c + l * f.c_batch_stride + r * f.ldc : nullptr;
    for (std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < quads;
         q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      const float4 w4 = w_row[q];
      w_row[q] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      const float w[4] = {w4.x, w4.y, w4.z, w4.w};
      const std::int64_t col = 4 * q;
      std::uint16_t out[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float v = f.alpha * w[j];
        if (c_row && col + j < f.n) v += f.beta * device::from_bits<T>(c_row[col + j]);
        out[j] = device::to_bits<T>(v);
      }
      if (f.vector_d && col + 4 <= f.n) {
        *reinterpret_cast<uint2*>(d_row + col) =
            make_uint2(out[0] | (std::uint32_t{out[1]} << 16), out[2] | (std::uint32_t{out[3]} << 16));
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < f.n) d_row[col + j] = out[j];
      }
    }
  }
}

}  // namespace tmakit::gemm_sm90

// Warpgroup matrix multiply-accumulate (sm_90a): D(64 x N, fp32 registers) += A(64 x 16) * B(16 x N)
// with both operands in shared memory, each K-major or MN-major, described by 64-bit matrix
// descriptors (smem_store/gmma_descriptor.hpp derives them from the operand's canonical layout).
// All 128 threads of a warpgroup execute every call; the instructions are ptx_raw.cuh's.
//
//   fence();                                   // before the first wgmma that reads registers the
//                                              // warpgroup wrote, and after shared writes it reads
//   mma<DataType::bfloat16, 256, kTransA, kTransB>(acc, desc_a, desc_b, accumulate);   // x K/16
//   commit_group();  wait_group<N>();          // at most N groups of this warpgroup still running
//
// Accumulator fragment (m64nNk16, fp32): thread t of the warpgroup, warp w = t / 32, lane l; slot v
// (0 <= v < N / 2) holds row 16 w + l / 4 + 8 ((v / 2) % 2), column 8 (v / 4) + 2 (l % 4) + v % 2
// (smem_store/source.hpp's wgmma_accumulator models the same map).
#pragma once

#include <cstdint>

#include "tmakit/core/dtype.hpp"
#include "tmakit/device/ptx_raw.cuh"

namespace tmakit::device::wgmma {

__device__ __forceinline__ void fence() { ptx_raw::wgmma_fence(); }
__device__ __forceinline__ void commit_group() { ptx_raw::wgmma_commit_group(); }
template <int N>
__device__ __forceinline__ void wait_group() {
  ptx_raw::wgmma_wait_group<N>();
}

// Pins the accumulator registers at this point of the program: the compiler may not move reads or
// writes of them across it (an empty asm that reads and writes each one). Placed after fence() and
// after commit_group() / wait_group(), it keeps code outside the multiply from touching the
// registers while a wgmma owns them, which would make ptxas serialize the wgmmas.
template <int R>
__device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Element types with a wgmma form here: bf16 and f16 inputs, fp32 accumulation.
TMAKIT_HD constexpr bool has_mma(DataType t) { return t == DataType::bfloat16 || t == DataType::float16; }

// One m64nNk16 instruction; TransA / TransB: 0 K-major, 1 MN-major operand.
template <DataType T, int N, int TransA, int TransB>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  static_assert(has_mma(T), "wgmma here takes bf16 or f16 inputs");
  static_assert(N == 128 || N == 256, "wgmma here has the n128 and n256 forms");
  if constexpr (T == DataType::bfloat16) {
    if constexpr (N == 256) ptx_raw::wgmma_m64n256k16_f32_bf16_ss_t<TransA, TransB>(d, desc_a, desc_b, accumulate);
    else ptx_raw::wgmma_m64n128k16_f32_bf16_ss_t<TransA, TransB>(d, desc_a, desc_b, accumulate);
  } else {
    if constexpr (N == 256) ptx_raw::wgmma_m64n256k16_f32_f16_ss_t<TransA, TransB>(d, desc_a, desc_b, accumulate);
    else ptx_raw::wgmma_m64n128k16_f32_f16_ss_t<TransA, TransB>(d, desc_a, desc_b, accumulate);
  }
}

}  // namespace tmakit::device::wgmma

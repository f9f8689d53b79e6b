// Warpgroup matrix multiply-accumulate (sm_90a): D(64 x N, fp32 registers) += A(64 x 16) * B(16 x N)
// with both operands in shared memory (mma), each K-major or MN-major, described by 64-bit matrix
// descriptors (smem_store/gmma_descriptor.hpp derives them from the operand's canonical layout), or
// with A in registers and B in shared memory (mma_rs); with FP8 inputs, A(64 x 32) * B(32 x N), both
// from shared memory and K-major (mma_fp8: the same 32 bytes of K per instruction).
// All 128 threads of a warpgroup execute every call. The multiply forms are generated from one
// table of shapes (wgmma_forms.cuh, tools/gen_wgmma_forms.py); the fence and the group operations
// are below, each with its PTX.
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
#include "tmakit/device/wgmma_forms.cuh"

namespace tmakit::device::wgmma {

// wgmma.fence.sync.aligned;  -- before the first wgmma that reads registers the warpgroup wrote
// (accumulators, the RS form's A) and after shared-memory writes it reads.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" : : : "memory"); }
// wgmma.commit_group.sync.aligned;  -- closes the wgmmas issued since the last commit into a group.
__device__ __forceinline__ void commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" : : : "memory"); }
// wgmma.wait_group.sync.aligned N;  -- until at most N of this warpgroup's groups are still running.
template <int N>
__device__ __forceinline__ void wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" : : "n"(N) : "memory");
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
// Accumulators set to zero where no wgmma's scale-d does it: before sums added on the CUDA cores.
// Each zero comes out of an asm statement, which the compiler can neither hoist out of a loop over
// tiles nor fold into the adds that follow. A plain `acc[i] = 0` there was compiled, in one build of
// the promoted FP8 GEMM, to a zeroing before the loop over tiles only: every tile after a CTA's first
// started from the one before's sums (docs/lab/gemm.md, 2026-12-07 16:56).
template <int R>
__device__ __forceinline__ void zero_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("mov.b32 %0, 0;" : "=f"(d[i])::"memory");
}
// The same for the A registers of the RS form (mma_rs): they must not change while a wgmma reads them.
template <int R>
__device__ __forceinline__ void fence_operands(std::uint32_t (&a)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(a[i])::"memory");
}
// The same for 16-bit values. Pinned before a later wait_group, they are computed ahead of it in the
// PTX (nvcc keeps asm volatile statements in order). ptxas schedules the SASS on its own and may still
// hoist the wait above them: kernels/attention_sm90's overlap_fence shows what keeps it below.
template <int R>
__device__ __forceinline__ void fence_operands(std::uint16_t (&h)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+h"(h[i])::"memory");
}

// Element types with a wgmma form here: bf16 and f16 inputs, fp32 accumulation.
TMAKIT_HD constexpr bool has_mma(DataType t) { return t == DataType::bfloat16 || t == DataType::float16; }

// One m64nNk16 instruction; TransA / TransB: 0 K-major, 1 MN-major operand.
template <DataType T, int N, int TransA, int TransB>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  static_assert(has_mma(T), "wgmma here takes bf16 or f16 inputs");
  static_assert(wgmma_forms::has_ss(N), "no such m64nNk16 form in wgmma_forms.cuh: add N to tools/gen_wgmma_forms.py's table");
  wgmma_forms::Ss<N, T == DataType::bfloat16>::template mma<TransA, TransB>(d, desc_a, desc_b, accumulate);
}

// FP8 element types (one byte each): e4m3 (4 exponent bits, 3 mantissa bits, no infinities) and
// e5m2 (5 and 2, IEEE-like), as PTX's .e4m3 and .e5m2 and CUDA's __nv_fp8_e4m3 / __nv_fp8_e5m2.
enum class Fp8 : std::uint8_t { e4m3, e5m2 };

// One m64nNk32 instruction with FP8 inputs, A of type TA and B of type TB (any pair), both K-major:
// WGMMA reads one-byte operands only so (the PTX ISA's wgmma.mma_async has no imm-trans for them).
template <Fp8 TA, Fp8 TB, int N>
__device__ __forceinline__ void mma_fp8(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  static_assert(wgmma_forms::has_ss(N), "no such m64nNk32 form in wgmma_forms.cuh: add N to tools/gen_wgmma_forms.py's table");
  wgmma_forms::Ss8<N, TA == Fp8::e5m2, TB == Fp8::e5m2>::mma(d, desc_a, desc_b, accumulate);
}

// One m64nNk16 instruction with A from registers (the RS form): a holds this thread's share of the
// 64 x 16 A tile as four pairs of 16-bit elements (a_fragment below builds it from an accumulator);
// B from shared memory, TransB: 0 K-major, 1 MN-major.
template <DataType T, int N, int TransB>
__device__ __forceinline__ void mma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                       bool accumulate) {
  static_assert(has_mma(T), "wgmma here takes bf16 or f16 inputs");
  static_assert(wgmma_forms::has_rs(N), "no such RS form in wgmma_forms.cuh: add N to tools/gen_wgmma_forms.py's table");
  wgmma_forms::Rs<N, T == DataType::bfloat16>::template mma<TransB>(d, a, desc_b, accumulate);
}

// The A fragment of k16 step Kk of a 64 x N matrix held as an m64nN accumulator (fragment map in the
// header comment), its values already converted to 16-bit bits: slots 8 Kk .. 8 Kk + 7 hold columns
// [16 Kk, 16 Kk + 16) of this thread's two rows in exactly the order the RS form reads its four
// registers (row r, columns c, c + 1; row r + 8; row r, columns c + 8, c + 9; row r + 8), so the
// fragment is the slots packed pairwise: no data moves between threads.
template <int Kk, int V>
__device__ __forceinline__ void a_fragment(const std::uint16_t (&bits)[V], std::uint32_t (&a)[4]) {
  static_assert(V % 8 == 0 && Kk >= 0 && 8 * Kk + 8 <= V, "k16 step inside the accumulator");
#pragma unroll
  for (int j = 0; j < 4; ++j)
    a[j] = static_cast<std::uint32_t>(bits[8 * Kk + 2 * j]) | (static_cast<std::uint32_t>(bits[8 * Kk + 2 * j + 1]) << 16);
}

}  // namespace tmakit::device::wgmma

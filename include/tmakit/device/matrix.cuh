// Warp-level matrix stores to shared memory (stmatrix, sm_90+): eight 8 x 8 matrices of 16-bit
// elements per instruction at most (.x1, .x2, .x4), each register two elements of one matrix's row
// (or column, .trans); lanes 8j .. 8j + 7 give the eight row addresses of matrix j. The
// register -> shared store plans (smem_store.cuh) issue them. cuda::ptx has no stmatrix wrapper.
#pragma once

#include <cstdint>

namespace tmakit::device::matrix {

// stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 [addr], {r0, ...};
__device__ __forceinline__ void stmatrix_x1(std::uint32_t addr, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" : : "r"(addr), "r"(r0) : "memory");
}
__device__ __forceinline__ void stmatrix_x2(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" : : "r"(addr), "r"(r0), "r"(r1) : "memory");
}
__device__ __forceinline__ void stmatrix_x4(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                   std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :
               : "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x1_trans(std::uint32_t addr, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" : : "r"(addr), "r"(r0) : "memory");
}
__device__ __forceinline__ void stmatrix_x2_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
               :
               : "r"(addr), "r"(r0), "r"(r1)
               : "memory");
}
__device__ __forceinline__ void stmatrix_x4_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                         std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :
               : "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

}  // namespace tmakit::device::matrix

// Every raw inline-PTX statement of tmakit's device layer, gathered in one place. Everything else
// goes through CCCL's cuda::ptx wrappers (<cuda/ptx>); each function here says why cuda::ptx does
// not cover it (checked against the CCCL that ships with CUDA 13.0, CCCL 3.0).
//
// Operands are passed as the instruction spells them: shared-memory addresses as 32-bit shared
// window addresses (__cvta_generic_to_shared), global/generic addresses (descriptors included) as
// 64-bit generic addresses, L2 cache policies as the 64-bit value createpolicy produces, tensor
// coordinates as int32 innermost first. Callers (tma.cuh, watchdog.cuh) do the conversions.
#pragma once

#include <cstdint>

namespace tmakit::device::ptx_raw {

// ld.volatile.shared.b64: reads an mbarrier's 64-bit state word. cuda::ptx wraps instructions
// with special semantics, not plain loads; the explicit .shared space (instead of a generic load)
// keeps the read identical to the probe that measured it (tools/driver_sweep/mbarrier_probe.cu:
// on sm_90 the word reads 0 whatever the barrier awaits). Debug reporting only.
__device__ inline std::uint64_t ld_shared_volatile_b64(std::uint32_t smem_addr) {
  std::uint64_t v;
  asm volatile("ld.volatile.shared.b64 %0, [%1];" : "=l"(v) : "r"(smem_addr) : "memory");
  return v;
}

// ---------------------------------------------------------------------------------------------
// Descriptor prefetch and L2 cache policies.

// prefetch.tensormap [a] (generic address): cuda::ptx has no prefetch wrapper of any form.
__device__ inline void prefetch_tensormap(std::uint64_t map) {
  asm volatile("prefetch.tensormap [%0];" : : "l"(map) : "memory");
}

// createpolicy.fractional.L2::evict_* (fraction 1.0): cuda::ptx has no createpolicy wrapper.
__device__ inline std::uint64_t createpolicy_fractional_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// createpolicy.fractional.L2::evict_last: cuda::ptx has no createpolicy wrapper.
__device__ inline std::uint64_t createpolicy_fractional_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// createpolicy.fractional.L2::evict_normal: cuda::ptx has no createpolicy wrapper.
__device__ inline std::uint64_t createpolicy_fractional_evict_normal() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// ---------------------------------------------------------------------------------------------
// Tensor copies (ranks 1..5 from one template; the rank picks the instruction's .Nd).

// Coordinate operand lists, numbered from the %K the caller's string gives.
#define TMAKIT_PTX_OPS1(c) "r"(c[0])
#define TMAKIT_PTX_OPS2(c) TMAKIT_PTX_OPS1(c), "r"(c[1])
#define TMAKIT_PTX_OPS3(c) TMAKIT_PTX_OPS2(c), "r"(c[2])
#define TMAKIT_PTX_OPS4(c) TMAKIT_PTX_OPS3(c), "r"(c[3])
#define TMAKIT_PTX_OPS5(c) TMAKIT_PTX_OPS4(c), "r"(c[4])

#define TMAKIT_PTX_LOAD_HINT(N, CS)                                                                           \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"          \
               ".L2::cache_hint [%0], [%1, {" CS "}], [%2], %3;"                                              \
               :                                                                                              \
               : "r"(dst), "l"(map), "r"(bar), "l"(cache_policy), TMAKIT_PTX_OPS##N(c)                        \
               : "memory")

// cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint:
// cuda::ptx::cp_async_bulk_tensor has no .L2::cache_hint form.
template <int N>
__device__ inline void cp_async_bulk_tensor_tile_g2s_hint(std::uint32_t dst, std::uint64_t map, std::uint32_t bar,
                                                          std::uint64_t cache_policy, const std::int32_t (&c)[N]) {
  static_assert(N >= 1 && N <= 5, "rank 1..5");
  if constexpr (N == 1) TMAKIT_PTX_LOAD_HINT(1, "%4");
  else if constexpr (N == 2) TMAKIT_PTX_LOAD_HINT(2, "%4, %5");
  else if constexpr (N == 3) TMAKIT_PTX_LOAD_HINT(3, "%4, %5, %6");
  else if constexpr (N == 4) TMAKIT_PTX_LOAD_HINT(4, "%4, %5, %6, %7");
  else TMAKIT_PTX_LOAD_HINT(5, "%4, %5, %6, %7, %8");
}
#undef TMAKIT_PTX_LOAD_HINT

#define TMAKIT_PTX_MC_HINT(N, CS)                                                                             \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"          \
               ".multicast::cluster.L2::cache_hint [%0], [%1, {" CS "}], [%2], %3, %4;"                       \
               :                                                                                              \
               : "r"(dst), "l"(map), "r"(bar), "h"(cta_mask), "l"(cache_policy), TMAKIT_PTX_OPS##N(c)        \
               : "memory")

// cp.async.bulk.tensor.Nd...tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint:
// cuda::ptx::cp_async_bulk_tensor's multicast overloads have no .L2::cache_hint form.
template <int N>
__device__ inline void cp_async_bulk_tensor_tile_g2s_multicast_hint(std::uint32_t dst, std::uint64_t map,
                                                                    std::uint32_t bar, std::uint16_t cta_mask,
                                                                    std::uint64_t cache_policy,
                                                                    const std::int32_t (&c)[N]) {
  static_assert(N >= 1 && N <= 5, "rank 1..5");
  if constexpr (N == 1) TMAKIT_PTX_MC_HINT(1, "%5");
  else if constexpr (N == 2) TMAKIT_PTX_MC_HINT(2, "%5, %6");
  else if constexpr (N == 3) TMAKIT_PTX_MC_HINT(3, "%5, %6, %7");
  else if constexpr (N == 4) TMAKIT_PTX_MC_HINT(4, "%5, %6, %7, %8");
  else TMAKIT_PTX_MC_HINT(5, "%5, %6, %7, %8, %9");
}
#undef TMAKIT_PTX_MC_HINT

#define TMAKIT_PTX_IM2COL(N, CS, OS, ...)                                                                     \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"        \
               " [%0], [%1, {" CS "}], [%2], {" OS "};"                                                       \
               :                                                                                              \
               : "r"(dst), "l"(map), "r"(bar), TMAKIT_PTX_OPS##N(c), __VA_ARGS__                              \
               : "memory")

// cp.async.bulk.tensor.{3,4,5}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes (one
// overload per rank: the im2col offsets are rank - 2): cuda::ptx::cp_async_bulk_tensor is .tile only.
__device__ inline void cp_async_bulk_tensor_im2col_g2s(std::uint32_t dst, std::uint64_t map, std::uint32_t bar,
                                                       const std::int32_t (&c)[3], std::uint16_t off_w) {
  TMAKIT_PTX_IM2COL(3, "%3, %4, %5", "%6", "h"(off_w));
}
__device__ inline void cp_async_bulk_tensor_im2col_g2s(std::uint32_t dst, std::uint64_t map, std::uint32_t bar,
                                                       const std::int32_t (&c)[4], std::uint16_t off_w,
                                                       std::uint16_t off_h) {
  TMAKIT_PTX_IM2COL(4, "%3, %4, %5, %6", "%7, %8", "h"(off_w), "h"(off_h));
}
__device__ inline void cp_async_bulk_tensor_im2col_g2s(std::uint32_t dst, std::uint64_t map, std::uint32_t bar,
                                                       const std::int32_t (&c)[5], std::uint16_t off_w,
                                                       std::uint16_t off_h, std::uint16_t off_d) {
  TMAKIT_PTX_IM2COL(5, "%3, %4, %5, %6, %7", "%8, %9, %10", "h"(off_w), "h"(off_h), "h"(off_d));
}
#undef TMAKIT_PTX_IM2COL

#define TMAKIT_PTX_STORE_HINT(N, CS)                                                                          \
  asm volatile("cp.async.bulk.tensor." #N "d.global.shared::cta.tile.bulk_group.L2::cache_hint"                 \
               " [%0, {" CS "}], [%1], %2;"                                                                   \
               :                                                                                              \
               : "l"(map), "r"(src), "l"(cache_policy), TMAKIT_PTX_OPS##N(c)                                  \
               : "memory")

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group.L2::cache_hint: cuda::ptx::
// cp_async_bulk_tensor (shared -> global) has no .L2::cache_hint form.
template <int N>
__device__ inline void cp_async_bulk_tensor_tile_s2g_hint(std::uint64_t map, std::uint32_t src,
                                                          std::uint64_t cache_policy, const std::int32_t (&c)[N]) {
  static_assert(N >= 1 && N <= 5, "rank 1..5");
  if constexpr (N == 1) TMAKIT_PTX_STORE_HINT(1, "%3");
  else if constexpr (N == 2) TMAKIT_PTX_STORE_HINT(2, "%3, %4");
  else if constexpr (N == 3) TMAKIT_PTX_STORE_HINT(3, "%3, %4, %5");
  else if constexpr (N == 4) TMAKIT_PTX_STORE_HINT(4, "%3, %4, %5, %6");
  else TMAKIT_PTX_STORE_HINT(5, "%3, %4, %5, %6, %7");
}
#undef TMAKIT_PTX_STORE_HINT

#define TMAKIT_PTX_PREFETCH(N, CS)                                                                            \
  asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile [%0, {" CS "}];"                         \
               :                                                                                              \
               : "l"(map), TMAKIT_PTX_OPS##N(c)                                                               \
               : "memory")

// cp.async.bulk.prefetch.tensor.Nd.L2.global.tile: cuda::ptx has no cp.async.bulk.prefetch wrapper.
template <int N>
__device__ inline void cp_async_bulk_prefetch_tensor_tile_l2(std::uint64_t map, const std::int32_t (&c)[N]) {
  static_assert(N >= 1 && N <= 5, "rank 1..5");
  if constexpr (N == 1) TMAKIT_PTX_PREFETCH(1, "%1");
  else if constexpr (N == 2) TMAKIT_PTX_PREFETCH(2, "%1, %2");
  else if constexpr (N == 3) TMAKIT_PTX_PREFETCH(3, "%1, %2, %3");
  else if constexpr (N == 4) TMAKIT_PTX_PREFETCH(4, "%1, %2, %3, %4");
  else TMAKIT_PTX_PREFETCH(5, "%1, %2, %3, %4, %5");
}
#undef TMAKIT_PTX_PREFETCH

#define TMAKIT_PTX_PREFETCH_HINT(N, CS)                                                                       \
  asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile.L2::cache_hint [%0, {" CS "}], %1;"      \
               :                                                                                              \
               : "l"(map), "l"(cache_policy), TMAKIT_PTX_OPS##N(c)                                            \
               : "memory")

// cp.async.bulk.prefetch.tensor.Nd.L2.global.tile.L2::cache_hint: cuda::ptx has no
// cp.async.bulk.prefetch wrapper.
template <int N>
__device__ inline void cp_async_bulk_prefetch_tensor_tile_l2_hint(std::uint64_t map, std::uint64_t cache_policy,
                                                                  const std::int32_t (&c)[N]) {
  static_assert(N >= 1 && N <= 5, "rank 1..5");
  if constexpr (N == 1) TMAKIT_PTX_PREFETCH_HINT(1, "%2");
  else if constexpr (N == 2) TMAKIT_PTX_PREFETCH_HINT(2, "%2, %3");
  else if constexpr (N == 3) TMAKIT_PTX_PREFETCH_HINT(3, "%2, %3, %4");
  else if constexpr (N == 4) TMAKIT_PTX_PREFETCH_HINT(4, "%2, %3, %4, %5");
  else TMAKIT_PTX_PREFETCH_HINT(5, "%2, %3, %4, %5, %6");
}
#undef TMAKIT_PTX_PREFETCH_HINT

#undef TMAKIT_PTX_OPS1
#undef TMAKIT_PTX_OPS2
#undef TMAKIT_PTX_OPS3
#undef TMAKIT_PTX_OPS4
#undef TMAKIT_PTX_OPS5

// ---------------------------------------------------------------------------------------------
// 1-D bulk copies.

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint: cuda::ptx::
// cp_async_bulk has no .L2::cache_hint form.
__device__ inline void cp_async_bulk_g2s_hint(std::uint32_t dst, std::uint64_t src, std::uint32_t bytes,
                                              std::uint32_t bar, std::uint64_t cache_policy) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
      :
      : "r"(dst), "l"(src), "r"(bytes), "r"(bar), "l"(cache_policy)
      : "memory");
}

// cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint: cuda::ptx::cp_async_bulk has no
// .L2::cache_hint form.
__device__ inline void cp_async_bulk_s2g_hint(std::uint64_t dst, std::uint32_t src, std::uint32_t bytes,
                                              std::uint64_t cache_policy) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;"
               :
               : "l"(dst), "r"(src), "r"(bytes), "l"(cache_policy)
               : "memory");
}

// cp.async.bulk.prefetch.L2.global: cuda::ptx has no wrapper for the 1-D (non-tensor) L2 prefetch.
__device__ inline void cp_async_bulk_prefetch_l2(std::uint64_t src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" : : "l"(src), "r"(bytes) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Distributed shared memory (cluster.cuh, dsmem.cuh).

// mapa.shared::cluster.u32: the shared::cluster address of the variable at shared address `addr`
// in CTA `cta_rank` of this cluster. cuda::ptx has no mapa wrapper (cooperative_groups'
// map_shared_rank gives the generic-address form).
__device__ inline std::uint32_t mapa_shared_cluster(std::uint32_t addr, std::uint32_t cta_rank) {
  std::uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(cta_rank));
  return r;
}

// st.shared::cluster.{b8,b16,b32,b64,v4.b32} [addr], v: weak stores to a (possibly remote)
// shared::cluster address from mapa. cuda::ptx wraps st.async and st.bulk, not plain st.
__device__ inline void st_shared_cluster_b8(std::uint32_t addr, std::uint8_t v) {
  asm volatile("st.shared::cluster.b8 [%0], %1;" : : "r"(addr), "h"(static_cast<std::uint16_t>(v)) : "memory");
}
__device__ inline void st_shared_cluster_b16(std::uint32_t addr, std::uint16_t v) {
  asm volatile("st.shared::cluster.b16 [%0], %1;" : : "r"(addr), "h"(v) : "memory");
}
__device__ inline void st_shared_cluster_b32(std::uint32_t addr, std::uint32_t v) {
  asm volatile("st.shared::cluster.b32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
}
__device__ inline void st_shared_cluster_b64(std::uint32_t addr, std::uint64_t v) {
  asm volatile("st.shared::cluster.b64 [%0], %1;" : : "r"(addr), "l"(v) : "memory");
}
__device__ inline void st_shared_cluster_v4_b32(std::uint32_t addr, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                                std::uint32_t d) {
  asm volatile("st.shared::cluster.v4.b32 [%0], {%1, %2, %3, %4};" : : "r"(addr), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}


// ---------------------------------------------------------------------------------------------
// Register -> shared-memory stores (smem_store.cuh) and the WGMMA instructions its tests drive.

// stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: cuda::ptx has no stmatrix wrapper. Each
// register holds two b16 elements of one 8x8 matrix; lanes 8j..8j+7 give the row addresses of matrix j.
__device__ inline void stmatrix_x1(std::uint32_t addr, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" : : "r"(addr), "r"(r0) : "memory");
}
__device__ inline void stmatrix_x2(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" : : "r"(addr), "r"(r0), "r"(r1) : "memory");
}
__device__ inline void stmatrix_x4(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                   std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :
               : "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ inline void stmatrix_x1_trans(std::uint32_t addr, std::uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" : : "r"(addr), "r"(r0) : "memory");
}
__device__ inline void stmatrix_x2_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
               :
               : "r"(addr), "r"(r0), "r"(r1)
               : "memory");
}
__device__ inline void stmatrix_x4_trans(std::uint32_t addr, std::uint32_t r0, std::uint32_t r1, std::uint32_t r2,
                                         std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :
               : "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// wgmma.fence.sync.aligned / wgmma.commit_group.sync.aligned / wgmma.wait_group.sync.aligned N:
// cuda::ptx has no wgmma wrappers (sm_90a only).
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" : : : "memory"); }
__device__ inline void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" : : : "memory"); }
template <int N>
__device__ inline void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" : : "n"(N) : "memory");
}

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16, A and B from shared memory (descriptors), both
// K-major (imm-trans-a = imm-trans-b = 0), scale-d = accumulate ? 1 : 0: cuda::ptx has no wgmma wrapper.
__device__ inline void wgmma_m64n64k16_f32_bf16_ss(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate))
      : "memory");
}

// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16, A and B from shared memory (descriptors), both
// K-major (imm-trans-a = imm-trans-b = 0), scale-d = accumulate ? 1 : 0: cuda::ptx has no wgmma wrapper.
__device__ inline void wgmma_m64n128k16_f32_bf16_ss(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate))
      : "memory");
}

// ---------------------------------------------------------------------------------------------
// The GEMM mainloop (kernels/gemm_sm90): WGMMA with either operand K-major or MN-major, register
// reallocation between warpgroups, and named barriers over a subset of the CTA's warps.

// wgmma.mma_async.sync.aligned.m64n{128,256}k16.f32.{bf16,f16}, A and B from shared memory
// (descriptors); imm-trans-a / imm-trans-b = TransA / TransB (0: K-major, 1: MN-major); scale-d =
// accumulate ? 1 : 0: cuda::ptx has no wgmma wrapper.
template <int TransA, int TransB>
__device__ inline void wgmma_m64n128k16_f32_bf16_ss_t(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, %67, %68;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n256k16_f32_bf16_ss_t(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, %131, %132;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n128k16_f32_f16_ss_t(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, %67, %68;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n256k16_f32_f16_ss_t(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, %131, %132;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}

// ---------------------------------------------------------------------------------------------
// The attention kernel (kernels/attention_sm90): the n64 shape of the SS form above, and the RS
// form, whose A operand comes from registers.

// wgmma.mma_async.sync.aligned.m64n64k16.f32.{bf16,f16}, A and B from shared memory (descriptors);
// imm-trans-a / imm-trans-b = TransA / TransB (0: K-major, 1: MN-major); scale-d = accumulate ? 1 : 0:
// cuda::ptx has no wgmma wrapper.
template <int TransA, int TransB>
__device__ inline void wgmma_m64n64k16_f32_bf16_ss_t(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, %35, %36;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n64k16_f32_f16_ss_t(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, %35, %36;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}

// wgmma.mma_async.sync.aligned.m64n{64,128}k16.f32.{bf16,f16} with A from registers: four .b32
// registers per thread, each two 16-bit elements of the 64 x 16 A tile (thread t of the warpgroup,
// warp w = t / 32, lane l: a[0] row 16 w + l / 4, columns 2 (l % 4) + {0, 1}; a[1] the row 8 below;
// a[2], a[3] the same rows, columns + 8); B from shared memory (descriptor), imm-trans-b = TransB;
// scale-d = accumulate ? 1 : 0. The RS form has no imm-trans-a. cuda::ptx has no wgmma wrapper.
template <int TransB>
__device__ inline void wgmma_m64n64k16_f32_bf16_rs_t(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n64k16_f32_f16_rs_t(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n128k16_f32_bf16_rs_t(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n128k16_f32_f16_rs_t(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}

// The attention kernel's other widths (kernels/attention_sm90): m64n96k16 (head dim 96: O = P V) with
// A and B from shared memory (imm-trans-a / -b = TransA / TransB) or A from registers, and m64n256k16
// with A from registers (head dim 256: O = P V, P in registers); operands as the forms above.
template <int TransA, int TransB>
__device__ inline void wgmma_m64n96k16_f32_bf16_ss_t(float (&d)[48], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, %48, %49, p, 1, 1, %51, %52;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n96k16_f32_bf16_rs_t(float (&d)[48], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, {%48,%49,%50,%51}, %52, p, 1, 1, %54;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n256k16_f32_bf16_rs_t(float (&d)[128], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, p, 1, 1, %134;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n96k16_f32_f16_ss_t(float (&d)[48], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, %48, %49, p, 1, 1, %51, %52;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n96k16_f32_f16_rs_t(float (&d)[48], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, {%48,%49,%50,%51}, %52, p, 1, 1, %54;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}
template <int TransB>
__device__ inline void wgmma_m64n256k16_f32_f16_rs_t(float (&d)[128], const std::uint32_t (&a)[4], std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, p, 1, 1, %134;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}

// wgmma.mma_async.sync.aligned.m64n{80,160}k16.f32.{bf16,f16}, A and B from shared memory (descriptors);
// imm-trans-a / imm-trans-b = TransA / TransB; scale-d = accumulate ? 1 : 0 (the attention kernels'
// S = Q K^T with 80 or 160 KV rows per block): cuda::ptx has no wgmma wrapper.
template <int TransA, int TransB>
__device__ inline void wgmma_m64n80k16_f32_bf16_ss_t(float (&d)[40], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39}, %40, %41, p, 1, 1, %43, %44;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n80k16_f32_f16_ss_t(float (&d)[40], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39}, %40, %41, p, 1, 1, %43, %44;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n160k16_f32_bf16_ss_t(float (&d)[80], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79}, %80, %81, p, 1, 1, %83, %84;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}
template <int TransA, int TransB>
__device__ inline void wgmma_m64n160k16_f32_f16_ss_t(float (&d)[80], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79}, %80, %81, p, 1, 1, %83, %84;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransA), "n"(TransB)
      : "memory");
}

}  // namespace tmakit::device::ptx_raw

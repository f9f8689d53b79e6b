// The raw inline-PTX statements of tmakit's device layer that have no family header of their own
// (those that do: wgmma_forms.cuh / wgmma.cuh, matrix.cuh, named_barrier.cuh, registers.cuh,
// fast_math.cuh).
// Everything else goes through CCCL's cuda::ptx wrappers (<cuda/ptx>); each function here says why
// cuda::ptx does not cover it (checked against the CCCL that ships with CUDA 13.0, CCCL 3.0). Only
// the device layer's own headers include this one: kernels never name ptx_raw.
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


}  // namespace tmakit::device::ptx_raw

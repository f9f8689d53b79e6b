// TMA tensor copies and 1-D bulk copies (sm_90+), as thin wrappers over cuda::ptx (CCCL) and, where
// CCCL has no wrapper (L2 cache hints, im2col, L2 prefetch of a tile, descriptor prefetch), over
// inline PTX with the exact instruction spelled out.
//
// Descriptors (MapRef below) are `const CUtensorMap*`: the address of a `const __grid_constant__
// CUtensorMap` kernel parameter, or of a descriptor in global memory (written before the launch,
// or published with fence.proxy.tensormap: see acquire_tensor_map() / descriptor.cuh's acquire()),
// or descriptor.cuh's AcquiredTensorMap.
//
// Loads complete on a Barrier (mbarrier.cuh); one producer thread does
//   arrive_expect_box(bar, params)  (bytes from the encoder's box_bytes, never by hand)
//   load(map, smem, bar, x, y, ...)
// and everyone waits on the barrier. Stores and reductions complete through bulk groups:
//   store(...); commit_group(); wait_group_read<0>();   (smem reusable)  / wait_group<0>() (done)
//
// Ordering of ordinary shared-memory writes before a store (the async proxy reads shared memory):
// every thread that wrote the source must execute fence.proxy.async.shared::cta after its writes
// and before the CTA barrier that precedes the store. Use
//   publish_smem_writes();          // ALL threads: fence + __syncthreads()
//   if (leader) store_and_commit(map, smem, x, y);
// or, when the issuing thread wrote the source itself, store_after_smem_writes(map, smem, x, y).
#pragma once

#include <cuda.h>
#include <cuda/ptx>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit::device {

// ---------------------------------------------------------------------------------------------
// The descriptor argument: a `const CUtensorMap*` (a __grid_constant__ parameter's address or a
// map in global memory), a `const tmakit::TensorMapBytes*` (= device::TensorMap), or any handle
// with a `get()` returning the map's address (descriptor.cuh's AcquiredTensorMap).
struct MapRef {
  const void* p;
  __device__ MapRef(const CUtensorMap* m) : p(m) {}
  __device__ MapRef(const TensorMapBytes* m) : p(m) {}
  template <class H, class = decltype(static_cast<const void*>(std::declval<const H&>().get()))>
  __device__ MapRef(const H& h) : p(h.get()) {}
};

// ---------------------------------------------------------------------------------------------
// Byte counts from the encoder.

// Transaction bytes one tiled/im2col load with this map delivers (the value the driver stores).
TMAKIT_HD constexpr std::uint32_t tx_bytes(const TensorMapParams& p) { return static_cast<std::uint32_t>(box_bytes(p)); }

// arrive + expect the bytes of `copies` loads with this map.
__device__ inline void arrive_expect_box(Barrier& b, const TensorMapParams& p, std::uint32_t copies = 1) {
  arrive_expect_tx(b, tx_bytes(p) * copies);
}
__device__ inline void expect_box(Barrier& b, const TensorMapParams& p, std::uint32_t copies = 1) {
  expect_tx(b, tx_bytes(p) * copies);
}

// ---------------------------------------------------------------------------------------------
// Descriptors.

// Before the first use of a descriptor that was written in global memory DURING this grid (or by
// a previous kernel through generic stores without a release fence): acquire it for the tensormap
// proxy. Not needed for __grid_constant__ parameters or for descriptors copied in before launch.
__device__ inline void acquire_tensor_map(MapRef map) {
  cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, map.p, cuda::ptx::n32_t<128>{});
}

// Prefetch the descriptor into the descriptor cache (generic address).
__device__ inline void prefetch_tensor_map(MapRef map) {
  asm volatile("prefetch.tensormap [%0];" : : "l"(reinterpret_cast<std::uint64_t>(map.p)) : "memory");
}

// ---------------------------------------------------------------------------------------------
// L2 cache policies (for the *_hint overloads).

__device__ inline std::uint64_t policy_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ inline std::uint64_t policy_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ inline std::uint64_t policy_evict_normal() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
  return p;
}

namespace detail {

template <class... C>
inline constexpr bool all_int_v = (std::is_integral_v<C> && ...);

__device__ inline std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline std::uint64_t gen_u64(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

}  // namespace detail

// Coordinate lists for inline PTX, operands numbered from %K.
#define TMAKIT_OPS1(c) "r"(c[0])
#define TMAKIT_OPS2(c) TMAKIT_OPS1(c), "r"(c[1])
#define TMAKIT_OPS3(c) TMAKIT_OPS2(c), "r"(c[2])
#define TMAKIT_OPS4(c) TMAKIT_OPS3(c), "r"(c[3])
#define TMAKIT_OPS5(c) TMAKIT_OPS4(c), "r"(c[4])

// ---------------------------------------------------------------------------------------------
// Tiled load global -> shared (this CTA), ranks 1..5. coords: innermost first, int32, may be
// negative or past the end (out-of-bounds elements are filled).

template <class... C>
__device__ inline void load(MapRef map, void* smem_dst, Barrier& bar, C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map.p, c, raw(bar));
}

// Multicast: the same box lands at the same smem offset in every CTA of the cluster whose bit is
// set in cta_mask, and completes on the barrier at the same offset in each (sm_90a).
template <class... C>
__device__ inline void load_multicast(MapRef map, void* smem_dst, Barrier& bar, std::uint16_t cta_mask,
                                      C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map.p, c, raw(bar),
                                  cta_mask);
}

#define TMAKIT_LOAD_HINT(N, CS)                                                                               \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"          \
               ".L2::cache_hint [%0], [%1, {" CS "}], [%2], %3;"                                              \
               :                                                                                              \
               : "r"(d), "l"(m), "r"(b), "l"(cache_policy), TMAKIT_OPS##N(c)                                  \
               : "memory")

// Load with an L2 cache policy (from policy_evict_*() or createpolicy).
template <class... C>
__device__ inline void load_hint(MapRef map, void* smem_dst, Barrier& bar, std::uint64_t cache_policy,
                                 C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  if constexpr (N == 1) TMAKIT_LOAD_HINT(1, "%4");
  else if constexpr (N == 2) TMAKIT_LOAD_HINT(2, "%4, %5");
  else if constexpr (N == 3) TMAKIT_LOAD_HINT(3, "%4, %5, %6");
  else if constexpr (N == 4) TMAKIT_LOAD_HINT(4, "%4, %5, %6, %7");
  else TMAKIT_LOAD_HINT(5, "%4, %5, %6, %7, %8");
}
#undef TMAKIT_LOAD_HINT

#define TMAKIT_MC_HINT(N, CS)                                                                                 \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"          \
               ".multicast::cluster.L2::cache_hint [%0], [%1, {" CS "}], [%2], %3, %4;"                       \
               :                                                                                              \
               : "r"(d), "l"(m), "r"(b), "h"(cta_mask), "l"(cache_policy), TMAKIT_OPS##N(c)                  \
               : "memory")

template <class... C>
__device__ inline void load_multicast_hint(MapRef map, void* smem_dst, Barrier& bar, std::uint16_t cta_mask,
                                           std::uint64_t cache_policy, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  if constexpr (N == 1) TMAKIT_MC_HINT(1, "%5");
  else if constexpr (N == 2) TMAKIT_MC_HINT(2, "%5, %6");
  else if constexpr (N == 3) TMAKIT_MC_HINT(3, "%5, %6, %7");
  else if constexpr (N == 4) TMAKIT_MC_HINT(4, "%5, %6, %7, %8");
  else TMAKIT_MC_HINT(5, "%5, %6, %7, %8, %9");
}
#undef TMAKIT_MC_HINT

// ---------------------------------------------------------------------------------------------
// im2col load (ranks 3..5): coords are the full rank (C, W[, H[, D]], N) of the first pixel's
// base; offsets are the rank-2 16-bit kernel-position offsets (W[, H[, D]]).

#define TMAKIT_IM2COL(N, CS, OS, ...)                                                                         \
  asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"        \
               " [%0], [%1, {" CS "}], [%2], {" OS "};"                                                       \
               :                                                                                              \
               : "r"(d), "l"(m), "r"(b), TMAKIT_OPS##N(c), __VA_ARGS__                                        \
               : "memory")

__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[3],
                                   std::uint16_t off_w) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  TMAKIT_IM2COL(3, "%3, %4, %5", "%6", "h"(off_w));
}
__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[4],
                                   std::uint16_t off_w, std::uint16_t off_h) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  TMAKIT_IM2COL(4, "%3, %4, %5, %6", "%7, %8", "h"(off_w), "h"(off_h));
}
__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[5],
                                   std::uint16_t off_w, std::uint16_t off_h, std::uint16_t off_d) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  TMAKIT_IM2COL(5, "%3, %4, %5, %6, %7", "%8, %9, %10", "h"(off_w), "h"(off_h), "h"(off_d));
}
#undef TMAKIT_IM2COL

// ---------------------------------------------------------------------------------------------
// Store shared (this CTA) -> global, tiled, ranks 1..5; completes through the bulk group
// (commit_group + wait_group*). Out-of-bounds elements of the box are not written.

template <class... C>
__device__ inline void store(MapRef map, const void* smem_src, C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map.p, c, smem_src);
}

#define TMAKIT_STORE_HINT(N, CS)                                                                              \
  asm volatile("cp.async.bulk.tensor." #N "d.global.shared::cta.tile.bulk_group.L2::cache_hint"                 \
               " [%0, {" CS "}], [%1], %2;"                                                                   \
               :                                                                                              \
               : "l"(m), "r"(s), "l"(cache_policy), TMAKIT_OPS##N(c)                                          \
               : "memory")

template <class... C>
__device__ inline void store_hint(MapRef map, const void* smem_src, std::uint64_t cache_policy,
                                  C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t s = detail::smem_u32(smem_src);
  const std::uint64_t m = detail::gen_u64(map.p);
  if constexpr (N == 1) TMAKIT_STORE_HINT(1, "%3");
  else if constexpr (N == 2) TMAKIT_STORE_HINT(2, "%3, %4");
  else if constexpr (N == 3) TMAKIT_STORE_HINT(3, "%3, %4, %5");
  else if constexpr (N == 4) TMAKIT_STORE_HINT(4, "%3, %4, %5, %6");
  else TMAKIT_STORE_HINT(5, "%3, %4, %5, %6, %7");
}
#undef TMAKIT_STORE_HINT

// ---------------------------------------------------------------------------------------------
// Reduce shared -> global. Type rules (PTX ISA): add: u32 s32 u64 f32 f16 bf16 (f64 not);
// min/max: u32 s32 u64 s64 f16 bf16; inc/dec: u32; and/or/xor: b32 b64 (u32 s32 u64 s64). The
// element type comes from the descriptor.
enum class ReduceOp { add, min, max, inc, dec, and_, or_, xor_ };

namespace detail {
template <ReduceOp Op>
__device__ constexpr auto ptx_op() {
  if constexpr (Op == ReduceOp::add) return cuda::ptx::op_add;
  else if constexpr (Op == ReduceOp::min) return cuda::ptx::op_min;
  else if constexpr (Op == ReduceOp::max) return cuda::ptx::op_max;
  else if constexpr (Op == ReduceOp::inc) return cuda::ptx::op_inc;
  else if constexpr (Op == ReduceOp::dec) return cuda::ptx::op_dec;
  else if constexpr (Op == ReduceOp::and_) return cuda::ptx::op_and_op;
  else if constexpr (Op == ReduceOp::or_) return cuda::ptx::op_or_op;
  else return cuda::ptx::op_xor_op;
}
}  // namespace detail

template <ReduceOp Op, class... C>
__device__ inline void reduce(MapRef map, const void* smem_src, C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  cuda::ptx::cp_reduce_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, detail::ptx_op<Op>(), map.p,
                                         c, smem_src);
}

// ---------------------------------------------------------------------------------------------
// L2 prefetch of a tile (no shared memory, no completion).

#define TMAKIT_PREFETCH(N, CS)                                                                                \
  asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile [%0, {" CS "}];"                         \
               :                                                                                              \
               : "l"(m), TMAKIT_OPS##N(c)                                                                     \
               : "memory")
#define TMAKIT_PREFETCH_HINT(N, CS)                                                                           \
  asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile.L2::cache_hint [%0, {" CS "}], %1;"      \
               :                                                                                              \
               : "l"(m), "l"(cache_policy), TMAKIT_OPS##N(c)                                                  \
               : "memory")

template <class... C>
__device__ inline void prefetch_tile(MapRef map, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint64_t m = detail::gen_u64(map.p);
  if constexpr (N == 1) TMAKIT_PREFETCH(1, "%1");
  else if constexpr (N == 2) TMAKIT_PREFETCH(2, "%1, %2");
  else if constexpr (N == 3) TMAKIT_PREFETCH(3, "%1, %2, %3");
  else if constexpr (N == 4) TMAKIT_PREFETCH(4, "%1, %2, %3, %4");
  else TMAKIT_PREFETCH(5, "%1, %2, %3, %4, %5");
}
template <class... C>
__device__ inline void prefetch_tile_hint(MapRef map, std::uint64_t cache_policy, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint64_t m = detail::gen_u64(map.p);
  if constexpr (N == 1) TMAKIT_PREFETCH_HINT(1, "%2");
  else if constexpr (N == 2) TMAKIT_PREFETCH_HINT(2, "%2, %3");
  else if constexpr (N == 3) TMAKIT_PREFETCH_HINT(3, "%2, %3, %4");
  else if constexpr (N == 4) TMAKIT_PREFETCH_HINT(4, "%2, %3, %4, %5");
  else TMAKIT_PREFETCH_HINT(5, "%2, %3, %4, %5, %6");
}
#undef TMAKIT_PREFETCH
#undef TMAKIT_PREFETCH_HINT

#undef TMAKIT_OPS1
#undef TMAKIT_OPS2
#undef TMAKIT_OPS3
#undef TMAKIT_OPS4
#undef TMAKIT_OPS5

// ---------------------------------------------------------------------------------------------
// 1-D bulk copies (non-tensor). bytes: a multiple of 16; both addresses 16-byte aligned.

__device__ inline void bulk_load(void* smem_dst, const void* gmem_src, std::uint32_t bytes, Barrier& bar) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, gmem_src, bytes, raw(bar));
}
__device__ inline void bulk_load_hint(void* smem_dst, const void* gmem_src, std::uint32_t bytes, Barrier& bar,
                                      std::uint64_t cache_policy) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
      :
      : "r"(detail::smem_u32(smem_dst)), "l"(detail::gen_u64(gmem_src)), "r"(bytes), "r"(detail::smem_u32(raw(bar))),
        "l"(cache_policy)
      : "memory");
}
__device__ inline void bulk_store(void* gmem_dst, const void* smem_src, std::uint32_t bytes) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, gmem_dst, smem_src, bytes);
}
__device__ inline void bulk_store_hint(void* gmem_dst, const void* smem_src, std::uint32_t bytes,
                                       std::uint64_t cache_policy) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;"
               :
               : "l"(detail::gen_u64(gmem_dst)), "r"(detail::smem_u32(smem_src)), "r"(bytes), "l"(cache_policy)
               : "memory");
}

// ---------------------------------------------------------------------------------------------
// Bulk groups (stores, reductions, bulk_store).

__device__ inline void commit_group() { cuda::ptx::cp_async_bulk_commit_group(); }
// Wait until at most N committed groups are pending (complete: writes visible).
template <int N = 0>
__device__ inline void wait_group() { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<N>{}); }
// Wait until at most N committed groups still READ their shared source (smem reusable).
template <int N = 0>
__device__ inline void wait_group_read() { cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{}); }

// ---------------------------------------------------------------------------------------------
// Proxy fences.

// Orders this thread's earlier generic-proxy shared-memory accesses before later async-proxy
// operations (a TMA store reading them), and earlier async-proxy writes before later generic reads.
__device__ inline void fence_smem_writes_for_async() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

// ALL threads of the CTA: fence own shared writes, then CTA barrier. After it, one thread may
// issue a store/reduce of the data.
__device__ inline void publish_smem_writes() {
  fence_smem_writes_for_async();
  __syncthreads();
}

// One thread: store + commit (the data must already be published, see publish_smem_writes()).
template <class... C>
__device__ inline void store_and_commit(MapRef map, const void* smem_src, C... coords) {
  store(map, smem_src, coords...);
  commit_group();
}

// One thread that itself wrote all of the source: fence + store + commit.
template <class... C>
__device__ inline void store_after_smem_writes(MapRef map, const void* smem_src, C... coords) {
  fence_smem_writes_for_async();
  store(map, smem_src, coords...);
  commit_group();
}

}  // namespace tmakit::device

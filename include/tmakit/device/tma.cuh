// TMA tensor copies and 1-D bulk copies (sm_90+), as thin wrappers over cuda::ptx (CCCL) and, where
// CCCL has no wrapper (L2 cache hints, im2col, L2 prefetch of a tile, descriptor prefetch), over
// ptx_raw.cuh's inline PTX (one function per instruction form, the exact instruction spelled out).
//
// Descriptors (MapRef below) are `const CUtensorMap*`: the address of a `const __grid_constant__
// CUtensorMap` kernel parameter, or of a descriptor in global memory (written before the launch,
// or published with fence.proxy.tensormap: see acquire_tensor_map() / descriptor.cuh's acquire()),
// or descriptor.cuh's AcquiredTensorMap.
//
// Loads complete on a Barrier (mbarrier.cuh); one producer thread does
//   arrive_expect_box(bar, params)  (bytes from transaction_bytes(params), never by hand)
//   load(map, smem, bar, x, y, ...)
// and everyone waits on the barrier. Stores and reductions complete through bulk groups:
//   store(...); commit_group(); wait_group_read<0>();   (smem reusable)  / wait_group<0>() (done)
//
// Watchdog (TMAKIT_WATCHDOG on, see watchdog.cuh): every tensor copy that touches shared memory
// (load*, load_multicast*, load_im2col, store*, reduce) first checks that the shared address is a
// multiple of the alignment the descriptor stores for its swizzle (16 / 256 / 512 / 1024 B) and
// otherwise reports "TMA load into shared address 0x... not aligned to the 1024 B its 128B swizzle
// needs" and traps. With the switch off nothing of it is compiled.
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

#include "tmakit/core/reduce_op.hpp"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/ptx_raw.cuh"
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
TMAKIT_HD constexpr std::uint32_t tx_bytes(const TensorMapParams& p) { return static_cast<std::uint32_t>(transaction_bytes(p)); }

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
  ptx_raw::prefetch_tensormap(reinterpret_cast<std::uint64_t>(map.p));
}

// ---------------------------------------------------------------------------------------------
// L2 cache policies (for the *_hint overloads).

__device__ inline std::uint64_t policy_evict_first() { return ptx_raw::createpolicy_fractional_evict_first(); }
__device__ inline std::uint64_t policy_evict_last() { return ptx_raw::createpolicy_fractional_evict_last(); }
__device__ inline std::uint64_t policy_evict_normal() { return ptx_raw::createpolicy_fractional_evict_normal(); }

namespace detail {

template <class... C>
inline constexpr bool all_int_v = (std::is_integral_v<C> && ...);

__device__ inline std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline std::uint64_t gen_u64(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

// Watchdog (TMAKIT_WATCHDOG on): traps with a named diagnosis when the shared buffer is not aligned
// to what the descriptor's swizzle needs (watchdog.cuh, check_tma_smem_alignment). Off: no code.
__device__ inline void check_smem_alignment([[maybe_unused]] const char* what, [[maybe_unused]] const void* map,
                                           [[maybe_unused]] const void* smem) {
#if TMAKIT_WATCHDOG
  watchdog::check_tma_smem_alignment(what, map, smem_u32(smem));
#endif
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Tiled load global -> shared (this CTA), ranks 1..5. coords: innermost first, int32, may be
// negative or past the end (out-of-bounds elements are filled).

template <class... C>
__device__ inline void load(MapRef map, void* smem_dst, Barrier& bar, C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  detail::check_smem_alignment("load into", map.p, smem_dst);
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map.p, c, raw(bar));
}

// Multicast: the same box lands at the same smem offset in every CTA of the cluster whose bit is
// set in cta_mask, and completes on the barrier at the same offset in each (sm_90a).
template <class... C>
__device__ inline void load_multicast(MapRef map, void* smem_dst, Barrier& bar, std::uint16_t cta_mask,
                                      C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  detail::check_smem_alignment("multicast load into", map.p, smem_dst);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
  // sm_120 has no .multicast::cluster tensor copy (CCCL 3.0 wraps it for sm_90a/100a/101a only).
  (void)c, (void)cta_mask, (void)bar;
  printf("tmakit: TMA multicast is not available on sm_120; use per-CTA loads\n");
  __trap();
#else
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map.p, c, raw(bar),
                                  cta_mask);
#endif
}

// Load with an L2 cache policy (from policy_evict_*() or createpolicy).
template <class... C>
__device__ inline void load_hint(MapRef map, void* smem_dst, Barrier& bar, std::uint64_t cache_policy,
                                 C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("load into", map.p, smem_dst);
  ptx_raw::cp_async_bulk_tensor_tile_g2s_hint(d, m, b, cache_policy, c);
}

template <class... C>
__device__ inline void load_multicast_hint(MapRef map, void* smem_dst, Barrier& bar, std::uint16_t cta_mask,
                                           std::uint64_t cache_policy, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("multicast load into", map.p, smem_dst);
  ptx_raw::cp_async_bulk_tensor_tile_g2s_multicast_hint(d, m, b, cta_mask, cache_policy, c);
}

// ---------------------------------------------------------------------------------------------
// im2col load (ranks 3..5): coords are the full rank (C, W[, H[, D]], N) of the first pixel's
// base; offsets are the rank-2 16-bit kernel-position offsets (W[, H[, D]]).

__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[3],
                                   std::uint16_t off_w) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("im2col load into", map.p, smem_dst);
  ptx_raw::cp_async_bulk_tensor_im2col_g2s(d, m, b, c, off_w);
}
__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[4],
                                   std::uint16_t off_w, std::uint16_t off_h) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("im2col load into", map.p, smem_dst);
  ptx_raw::cp_async_bulk_tensor_im2col_g2s(d, m, b, c, off_w, off_h);
}
__device__ inline void load_im2col(MapRef map, void* smem_dst, Barrier& bar, const std::int32_t (&c)[5],
                                   std::uint16_t off_w, std::uint16_t off_h, std::uint16_t off_d) {
  const std::uint32_t d = detail::smem_u32(smem_dst), b = detail::smem_u32(raw(bar));
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("im2col load into", map.p, smem_dst);
  ptx_raw::cp_async_bulk_tensor_im2col_g2s(d, m, b, c, off_w, off_h, off_d);
}

// ---------------------------------------------------------------------------------------------
// Store shared (this CTA) -> global, tiled, ranks 1..5; completes through the bulk group
// (commit_group + wait_group*). Out-of-bounds elements of the box are not written.

template <class... C>
__device__ inline void store(MapRef map, const void* smem_src, C... coords) {
  static_assert(sizeof...(C) >= 1 && sizeof...(C) <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[sizeof...(C)] = {static_cast<std::int32_t>(coords)...};
  detail::check_smem_alignment("store from", map.p, smem_src);
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map.p, c, smem_src);
}

template <class... C>
__device__ inline void store_hint(MapRef map, const void* smem_src, std::uint64_t cache_policy,
                                  C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint32_t s = detail::smem_u32(smem_src);
  const std::uint64_t m = detail::gen_u64(map.p);
  detail::check_smem_alignment("store from", map.p, smem_src);
  ptx_raw::cp_async_bulk_tensor_tile_s2g_hint(m, s, cache_policy, c);
}

// ---------------------------------------------------------------------------------------------
// Reduce shared -> global. Type rules (PTX ISA): add: u32 s32 u64 f32 f16 bf16 (f64 not);
// min/max: u32 s32 u64 s64 f16 bf16; inc/dec: u32; and/or/xor: b32 b64 (u32 s32 u64 s64). The
// element type comes from the descriptor. The op is the host's tmakit::ReduceOp (core/reduce_op.hpp:
// names and the type table, which the planner checks as plan.reduce_dtype).
using ReduceOp = ::tmakit::ReduceOp;

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
  detail::check_smem_alignment("reduce from", map.p, smem_src);
  cuda::ptx::cp_reduce_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, detail::ptx_op<Op>(), map.p,
                                         c, smem_src);
}

// ---------------------------------------------------------------------------------------------
// L2 prefetch of a tile (no shared memory, no completion).

template <class... C>
__device__ inline void prefetch_tile(MapRef map, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint64_t m = detail::gen_u64(map.p);
  ptx_raw::cp_async_bulk_prefetch_tensor_tile_l2(m, c);
}
template <class... C>
__device__ inline void prefetch_tile_hint(MapRef map, std::uint64_t cache_policy, C... coords) {
  constexpr int N = sizeof...(C);
  static_assert(N >= 1 && N <= 5 && detail::all_int_v<C...>, "1..5 integer coordinates");
  const std::int32_t c[N] = {static_cast<std::int32_t>(coords)...};
  const std::uint64_t m = detail::gen_u64(map.p);
  ptx_raw::cp_async_bulk_prefetch_tensor_tile_l2_hint(m, cache_policy, c);
}

// ---------------------------------------------------------------------------------------------
// 1-D bulk copies (non-tensor). bytes: a multiple of 16; both addresses 16-byte aligned.

__device__ inline void bulk_load(void* smem_dst, const void* gmem_src, std::uint32_t bytes, Barrier& bar) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, gmem_src, bytes, raw(bar));
}
__device__ inline void bulk_load_hint(void* smem_dst, const void* gmem_src, std::uint32_t bytes, Barrier& bar,
                                      std::uint64_t cache_policy) {
  ptx_raw::cp_async_bulk_g2s_hint(detail::smem_u32(smem_dst), detail::gen_u64(gmem_src), bytes,
                                  detail::smem_u32(raw(bar)), cache_policy);
}
// L2 prefetch of a global byte range (no shared memory, no completion; a hint the hardware may drop).
__device__ inline void bulk_prefetch_l2(const void* gmem_src, std::uint32_t bytes) {
  ptx_raw::cp_async_bulk_prefetch_l2(detail::gen_u64(gmem_src), bytes);
}
__device__ inline void bulk_store(void* gmem_dst, const void* smem_src, std::uint32_t bytes) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, gmem_dst, smem_src, bytes);
}
__device__ inline void bulk_store_hint(void* gmem_dst, const void* smem_src, std::uint32_t bytes,
                                       std::uint64_t cache_policy) {
  ptx_raw::cp_async_bulk_s2g_hint(detail::gen_u64(gmem_dst), detail::smem_u32(smem_src), bytes, cache_policy);
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

// Copy kernels of bench_stream_copy's `probe` mode: each tests one hypothesis for why SM-driven
// copies (tmakit's persistent TMA ring, a plain 16-byte vector kernel) plateau near 0.92x of
// cudaMemcpyAsync D2D on Hopper, which is itself an SM kernel (docs/lab/stream_copy.md). Every kernel
// copies `bytes` (a multiple of 16) from src to dst, both 16-byte aligned.
//
//   tma_phased    read/write phasing: a CTA loads all its stages, then stores all of them (bursts
//                 of reads, then of writes), optionally in lockstep across the grid
//   vec_wave      vector copy, D loads of 16 B in flight per thread, wave-strided: at any moment the
//                 whole grid reads one contiguous region (the 4 KiB-pieces-per-CTA mapping, with
//                 vectors: a 256-thread block's row is 4 KiB)
//   vec_span      vector copy, each block one contiguous span per iteration (persistent, or one
//                 span per block over a grid as large as the data)
//   tma_load_stg  bulk load into shared memory, then 16-byte STG stores from it, one tile per CTA
//
// Load and store flavours (VecLoad / VecStore) pick the cache hints of the vector kernels.
#pragma once

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/tma.cuh"

namespace stream_copy {

namespace td = tmakit::device;

__host__ __device__ constexpr std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------------------------
// Grid-wide barrier for the lockstep form of tma_phased (one thread per CTA arrives). Needs every
// CTA resident at once (grid <= SMs with one CTA per SM). sync[0] counts arrivals and is never
// reset: the host passes the count every earlier launch left there (`base`). A CTA that waits
// longer than ~2 s (clock64 cycles) sets sync[1] and stops synchronising, so a grid that is not
// co-resident ends instead of hanging, and the row is reported as such.
struct GridSync {
  unsigned long long* sync;
  unsigned long long base;
  std::uint64_t arrivals = 0;
  bool broken = false;
  __device__ void arrive_and_wait() {
    arrivals += gridDim.x;
    if (broken) return;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> count(sync[0]);
    count.fetch_add(1, cuda::memory_order_relaxed);
    const long long t0 = clock64();
    while (count.load(cuda::memory_order_relaxed) < base + arrivals) {
      if (clock64() - t0 > 4'000'000'000ll) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(sync[1]).store(1, cuda::memory_order_relaxed);
        broken = true;
        return;
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Read/write phasing. Round r of CTA b covers chunks (r * grid + b) * S .. + S - 1 (the grid's
// rounds are contiguous in memory): load all S (one barrier expecting their bytes), wait, store
// all S, wait until the stores have read shared memory, next round. kLockstep: every CTA finishes
// its loads before any starts storing and finishes its stores (wait_group<0>: written, not only
// read) before any loads again; kEvictFirstStores: the stores carry an L2 evict_first policy, so
// that their dirty lines leave L2 early instead of during the next read burst.
template <std::uint32_t kStages, std::uint32_t kChunk, bool kLockstep = false, bool kEvictFirstStores = false>
__global__ void __launch_bounds__(32)
    tma_phased(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, std::uint64_t bytes,
               unsigned long long* sync, unsigned long long sync_base) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ td::Barrier full;
  if (threadIdx.x != 0) return;
  const std::uint64_t nchunks = (bytes + kChunk - 1) / kChunk;
  const std::uint64_t per_round = static_cast<std::uint64_t>(gridDim.x) * kStages;
  const std::uint64_t rounds = (nchunks + per_round - 1) / per_round;
  td::init(full, 1);
  td::fence_smem_writes_for_async();
  const std::uint64_t policy = kEvictFirstStores ? td::policy_evict_first() : 0;
  GridSync gs{sync, sync_base};
  std::uint32_t parity = 0;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const std::uint64_t first = (r * gridDim.x + blockIdx.x) * kStages;
    const std::uint32_t mine = static_cast<std::uint32_t>(first < nchunks ? min_u64(kStages, nchunks - first) : 0);
    auto size_of = [&](std::uint32_t s) {
      return static_cast<std::uint32_t>(min_u64(kChunk, bytes - (first + s) * kChunk));
    };
    if (mine > 0) {
      std::uint32_t total = 0;
      for (std::uint32_t s = 0; s < mine; ++s) total += size_of(s);
      td::arrive_expect_tx(full, total);
      for (std::uint32_t s = 0; s < mine; ++s) td::bulk_load(smem + s * kChunk, src + (first + s) * kChunk, size_of(s), full);
      while (!td::try_wait(full, parity)) {
      }
      parity ^= 1u;
      td::fence_smem_writes_for_async();
    }
    if constexpr (kLockstep) gs.arrive_and_wait();
    for (std::uint32_t s = 0; s < mine; ++s) {
      if constexpr (kEvictFirstStores) td::bulk_store_hint(dst + (first + s) * kChunk, smem + s * kChunk, size_of(s), policy);
      else td::bulk_store(dst + (first + s) * kChunk, smem + s * kChunk, size_of(s));
    }
    td::commit_group();
    if constexpr (kLockstep) {
      td::wait_group<0>();
      gs.arrive_and_wait();
    } else {
      td::wait_group_read<0>();
    }
  }
  td::wait_group<0>();
}

// Arrivals one launch of tma_phased<..., true> adds to sync[0] (two per round per CTA).
inline unsigned long long lockstep_arrivals(std::uint64_t bytes, std::uint32_t stages, std::uint32_t chunk,
                                            unsigned grid) {
  const std::uint64_t nchunks = (bytes + chunk - 1) / chunk;
  const std::uint64_t per_round = static_cast<std::uint64_t>(grid) * stages;
  return 2ull * ((nchunks + per_round - 1) / per_round) * grid;
}

// ---------------------------------------------------------------------------------------------
// 16-byte loads and stores with cache hints.
enum class VecLoad {
  plain,        // ld.global.v4                           LDG.E.128
  nc_noalloc,   // ld.global.nc.L1::no_allocate.b128      LDG.E.NA.128.CONSTANT (read-only path)
  nc_noalloc_256B,  // ... .L2::256B: ask L2 to fetch 256 B around each miss
  cs,           // ld.global.cs (__ldcs, cache-streaming)  LDG.E.EF.128
};
enum class VecStore {
  plain,  // st.global.v4                  STG.E.128
  cs,     // st.global.cs (__stcs)         STG.E.EF.128
};

template <VecLoad L>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (L == VecLoad::plain) return *p;
  else if constexpr (L == VecLoad::nc_noalloc) return cuda::ptx::ld_nc_L1_no_allocate(cuda::ptx::space_global, p);
  else if constexpr (L == VecLoad::nc_noalloc_256B)
    return cuda::ptx::ld_nc_L1_no_allocate_L2_256B(cuda::ptx::space_global, p);
  else return __ldcs(p);
}
template <VecStore S>
__device__ __forceinline__ void store16(uint4* p, uint4 v) {
  if constexpr (S == VecStore::plain) *p = v;
  else __stcs(p, v);
}

// D loads in flight per thread, then D stores; element j of round `base` for global thread t is
// base + j * T + t (T = all threads of the grid), so one round of the grid reads T * D * 16
// contiguous bytes. With D = 12, 512 threads and one block per SM this is the SM copy of NVIDIA's
// nvbandwidth (github.com/NVIDIA/nvbandwidth, kernels.cu: stridingMemcpyKernel, used by its
// device_local_copy SM test).
template <int kThreads, int kBlocksPerSm, int D, VecLoad L, VecStore S>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    vec_wave(const uint4* __restrict__ src, uint4* __restrict__ dst, std::uint64_t n) {
  const std::uint64_t T = static_cast<std::uint64_t>(gridDim.x) * kThreads;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  std::uint64_t base = 0;
  for (; base + T * D <= n; base += T * D) {
    uint4 v[D];
#pragma unroll
    for (int j = 0; j < D; ++j) v[j] = load16<L>(src + base + j * T + t);
#pragma unroll
    for (int j = 0; j < D; ++j) store16<S>(dst + base + j * T + t, v[j]);
  }
  for (std::uint64_t i = base + t; i < n; i += T) store16<S>(dst + i, load16<L>(src + i));
}

// Block b copies spans b, b + grid, ... of kSpan bytes each; inside a span, passes of
// kThreads * D elements (D loads in flight per thread, then D stores). With grid = number of
// spans and kSpan = kThreads * D * 16 every block copies one tile and exits (CUB's vectorized
// transform does copies this way: github.com/NVIDIA/cccl, cub/device/dispatch/kernels/kernel_transform.cuh).
template <int kThreads, int kBlocksPerSm, int D, std::uint32_t kSpan, VecLoad L, VecStore S>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    vec_span(const uint4* __restrict__ src, uint4* __restrict__ dst, std::uint64_t n) {
  constexpr std::uint64_t kSpanElems = kSpan / 16;
  constexpr std::uint64_t kPass = static_cast<std::uint64_t>(kThreads) * D;
  static_assert(kSpan % 16 == 0 && kSpanElems % kPass == 0, "a span is whole passes");
  const std::uint64_t nspans = (n + kSpanElems - 1) / kSpanElems;
  for (std::uint64_t s = blockIdx.x; s < nspans; s += gridDim.x) {
    const std::uint64_t begin = s * kSpanElems;
    const std::uint64_t end = min_u64(begin + kSpanElems, n);
    std::uint64_t p = begin;
    for (; p + kPass <= end; p += kPass) {
      uint4 v[D];
#pragma unroll
      for (int j = 0; j < D; ++j) v[j] = load16<L>(src + p + j * kThreads + threadIdx.x);
#pragma unroll
      for (int j = 0; j < D; ++j) store16<S>(dst + p + j * kThreads + threadIdx.x, v[j]);
    }
    for (std::uint64_t i = p + threadIdx.x; i < end; i += kThreads) store16<S>(dst + i, load16<L>(src + i));
  }
}

// One tile of kTile bytes per CTA, grid as large as the data: one thread bulk-loads the tile into
// shared memory, every thread waits on the barrier, then stores it with 16-byte STGs. This is the
// shape of CUB's bulk-copy ("ublkcp") transform on sm_90 (github.com/NVIDIA/cccl,
// cub/device/dispatch/kernels/kernel_transform.cuh; tuning_transform.cuh asks for >= 48 KiB in
// flight per SM on H200), which leaves the write path to ordinary stores and the SM's block
// scheduler to keep several tiles per SM in flight.
template <int kThreads, std::uint32_t kTile, VecStore S>
__global__ void __launch_bounds__(kThreads)
    tma_load_stg(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, std::uint64_t bytes) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ td::Barrier full;
  const std::uint64_t off = static_cast<std::uint64_t>(blockIdx.x) * kTile;
  const auto n = static_cast<std::uint32_t>(min_u64(kTile, bytes - off));
  if (threadIdx.x == 0) {
    td::init(full, 1);
    td::fence_smem_writes_for_async();
    td::arrive_expect_tx(full, n);
    td::bulk_load(smem, src + off, n, full);
  }
  __syncthreads();  // the barrier is initialised before anyone waits on it
  while (!td::try_wait(full, 0)) {
  }
  const uint4* s = reinterpret_cast<const uint4*>(smem);
  uint4* d = reinterpret_cast<uint4*>(dst + off);
  for (std::uint32_t i = threadIdx.x; i < n / 16; i += kThreads) store16<S>(d + i, s[i]);
}

}  // namespace stream_copy

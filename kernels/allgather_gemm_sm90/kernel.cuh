// The all-gather fused into the GEMM (sm_90a): one launch per rank computes D = allgather(A) * B,
// A's rows sharded over the ranks, in a grid with two roles:
//
//   CTAs [0, P)       pullers (one thread each): every remote row block of A (128 rows, the GEMM's
//                     row tile) crosses NVLink once, by TMA: loads from the owner's window (its
//                     peer descriptor) into a ring of shared-memory stages, stores into the same
//                     rows of this rank's window (the tensor is gathered in place); once a row
//                     block's stores have completed, its flag is released (the call's number)
//   CTAs [P, grid)    the GEMM (kernels/gemm_sm90's gemm_cta, unchanged), with a Grid that starts
//                     on this rank's own row blocks (no wait) and takes the remote ones in the
//                     order the pullers deliver them; its producer acquires a row block's flag
//                     before its first load of that block's A tile
//
// The pullers' order, tile coordinates and byte counts are the RowGatherPlan's
// (tmakit/peer/row_gather_plan.hpp); their handshake with the peers is the collectives' counted
// signals (device/peer_signal.cuh): puller b arrives at block b's slot of every peer before it
// reads (the peers' shards are ready: they were written before their launch), and at the end
// signals each peer the bytes it read there and waits until every peer has read its share of this
// rank's shard (so the shard may be rewritten once the call is done).
//
// Flags: one 64-bit word per row block of A in this rank's memory, holding the number of the last
// call that released it (numbers grow call by call on the communicator, so the same flags serve
// every launch without a reset). Release: bulk stores complete (wait_group 0), async-proxy fence,
// system fence, then a release store; acquire: an acquire load, then an async-proxy fence before
// the TMA loads that read the rows. With the watchdog compiled in, the wait is bounded and names
// the row block, the peer rank that owns it and the puller that should have released it; every
// other wait of the kernel (the GEMM's stage barriers, the pullers' stages and signals) has twice
// that bound, so a row block that never comes (its owner never called, or its copies never
// completed) is named by the row block's wait rather than by a wait queued behind it.
#pragma once

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#include "kernels/collectives_sm90/kernel.cuh"
#include "kernels/gemm_sm90/kernel.cuh"
#include "tmakit/device/peer_signal.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/peer/row_gather_plan.hpp"

namespace tmakit::allgather_gemm {

// Everything a launch reads from the host, as one __grid_constant__ parameter.
struct FusedParams {
  gemm_sm90::KernelParams gemm;     // the GEMM on this rank's gathered A (a plain Gemm's plan)
  CUtensorMap a_peer[kMaxPeers];    // A in rank q's window (the row gather's load plan, re-pointed)
  CUtensorMap a_store;              // A in this rank's window (its store plan)
  TmaPlan load, store;
  RowGatherSchedule schedule;
  PeerSignals signals;
  std::uint64_t* flags = nullptr;   // one per row block of A, this rank's memory
  std::uint64_t call = 0;           // this launch's number on the communicator
  std::int32_t col_tiles = 0;       // the plan's tiles per row of tiles
  std::int32_t block_tiles = 0;     // tiles per row block
  std::int32_t block_tile_rows = 0; // rows of tiles per row block
  std::int32_t block_rows = 0;
  std::uint32_t stage_bytes = 0, stages = 0;
  std::uint64_t block_bytes = 0;
  std::int32_t withhold_rank = -1;  // planted fault (tests): row blocks of this owner are pulled, never released
};

namespace detail {

__device__ inline void release_rows(std::uint64_t* flag, std::uint64_t call) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*flag).store(call, cuda::memory_order_release);
}

#if TMAKIT_WATCHDOG
// The bound of the GEMM producer's wait for a row block (ns; set_watchdog_bound_ns sets it and gives
// every other wait of the kernel twice as long, so that a row block that never comes is named by
// this wait and not by the GEMM consumers' or the pullers' waits that queue behind it).
static __constant__ unsigned long long row_wait_bound_ns = TMAKIT_WATCHDOG_DEFAULT_NS / 2;

__device__ __noinline__ inline void report_rows_and_trap(const FusedParams& f, std::int32_t m, std::int32_t puller,
                                                         std::uint64_t got, unsigned long long waited,
                                                         unsigned long long bound) {
  device::watchdog::detail::claim_reporter();
  const std::int32_t owner = m / f.schedule.shard_blocks;
  const long long first = static_cast<long long>(m) * f.block_rows;
  printf("tmakit watchdog: rank %d GEMM CTA %d: waited %llu ns (bound %llu ns) for row block %d (rows %lld..%lld of A) "
         "from peer rank %d\n",
         f.schedule.rank, static_cast<int>(blockIdx.x), waited, bound, m, first, first + f.block_rows - 1, owner);
  printf("tmakit watchdog: diagnosis: row block never released: row block %d of peer rank %d's shard holds call %llu, "
         "this is call %llu; puller CTA %d did not release it (the peer never arrived, the pull's copies never "
         "completed, or the puller withheld it)\n",
         m, owner, static_cast<unsigned long long>(got), static_cast<unsigned long long>(f.call), puller);
  __threadfence_system();
  __trap();
}
#endif

// The GEMM producer's wait for row block m (pulled by `puller`), then the fence that orders the
// acquire before the TMA loads (async proxy) of its rows.
__device__ inline void wait_rows(const FusedParams& f, std::int32_t m, std::int32_t puller) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device> flag(f.flags[m]);
  std::uint64_t v = flag.load(cuda::memory_order_acquire);
  if (v < f.call) {
#if TMAKIT_WATCHDOG
    const unsigned long long bound = row_wait_bound_ns;
    const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
    while ((v = flag.load(cuda::memory_order_acquire)) < f.call) {
      const unsigned long long dt = cuda::ptx::get_sreg_globaltimer() - t0;
      if (dt > bound) report_rows_and_trap(f, m, puller, v, dt, bound);
      __nanosleep(128);
    }
#else
    (void)puller;
    while (flag.load(cuda::memory_order_acquire) < f.call) __nanosleep(128);
#endif
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
}

// The GEMM's tile shape inside the fused kernel (the plain GEMM's wide tile).
using GemmTile = gemm_sm90::WideTile;

// The GEMM's view of the grid (gemm_sm90::WholeGrid's members): CTAs from P on, this rank's row
// blocks first, the remote ones in pull order, each waited for.
struct PulledRows {
  const FusedParams& f;
  __device__ __forceinline__ std::int32_t first_cta() const { return f.schedule.pullers; }
  __device__ __forceinline__ std::int32_t row_tile(std::int32_t m) const { return f.schedule.consumer_row_block(m); }
  __device__ __forceinline__ void before_rows(std::int32_t m) const {
    const std::int32_t puller = f.schedule.puller_of(m);
    if (puller >= 0) wait_rows(f, m, puller);
  }
};

// Puller b (one thread): its remote row blocks j = b, b + P, ... in pull order, each a pipeline of
// block_tiles tile copies on the collectives' ring (f.stages stages, freed by the puller's own
// bulk groups: run_bulk_ring, lag 1), drained and released before the next. The stages' full
// barriers follow the stages in the dynamic shared memory (allgather_gemm.cu reserves room for
// kMaxStages of them); the ring has no empty barriers.
__device__ inline void pull_rows(const FusedParams& f, unsigned char* dyn) {
  unsigned char* smem = device::align_smem(dyn, f.load.smem_alignment);
  collectives::detail::Ring ring{
      reinterpret_cast<device::Barrier*>(smem + static_cast<std::size_t>(f.stages) * f.stage_bytes), nullptr, f.stages};
  const auto b = static_cast<std::int32_t>(blockIdx.x);
  const RowGatherSchedule& sc = f.schedule;
  ring.init_full();
  device::arrive_and_wait_all(f.signals, static_cast<std::uint32_t>(b), f.call);
  auto stage = [&](std::uint32_t s) { return smem + static_cast<std::size_t>(s) * f.stage_bytes; };
  collectives::detail::RingState st = ring.start();
  for (std::int32_t j = b; j < sc.remote_blocks(); j += sc.pullers) {
    const std::int32_t owner = sc.owner(j), m = sc.row_block(j), in_shard = j % sc.shard_blocks;
    auto at = [&](std::uint32_t i) {
      collectives::detail::Coord c;
      c.v[0] = in_shard * f.block_tile_rows + static_cast<std::int32_t>(i) / f.col_tiles;
      c.v[1] = static_cast<std::int32_t>(i) % f.col_tiles;
      c.v[2] = owner;
      return c;
    };
    device::run_bulk_ring<1>(
        ring, st, static_cast<std::uint32_t>(f.block_tiles),
        [&](std::uint32_t i, const collectives::detail::RingState& r) {
          collectives::detail::load_stage(ring, r, f.load, &f.a_peer[owner], stage(r.index), at(i));
        },
        [&](std::uint32_t i, std::uint32_t s) { device::store_tile(f.store, &f.a_store, stage(s), at(i).v); });
    device::wait_group<0>();
    device::publish_async_writes();
    if (owner != f.withhold_rank) release_rows(&f.flags[m], f.call);
  }
  device::exchange_bytes_all(
      f.signals, static_cast<std::uint32_t>(b),
      [&](std::int32_t q) { return static_cast<std::uint64_t>(sc.blocks_read_from(b, q)) * f.block_bytes; },
      [&](std::int32_t q) { return static_cast<std::uint64_t>(sc.blocks_read_by(b, q)) * f.block_bytes; });
}

}  // namespace detail

// bf16, A row-major (K-major), B K-major or MN-major; one CTA per cluster, no split K.
template <bool BMn>
__global__ void __launch_bounds__(gemm_sm90::kThreads, 1) allgather_gemm_kernel(const __grid_constant__ FusedParams f) {
  extern __shared__ unsigned char dyn[];
  if (static_cast<std::int32_t>(blockIdx.x) < f.schedule.pullers) {
    if (threadIdx.x == 0) detail::pull_rows(f, dyn);
    return;
  }
  gemm_sm90::gemm_cta<gemm_sm90::Form<gemm_sm90::Inputs::bf16, DataType::bfloat16, false, BMn, 1, false, detail::GemmTile>>(f.gemm, dyn,
                                                                                                     detail::PulledRows{f});
}

}  // namespace tmakit::allgather_gemm

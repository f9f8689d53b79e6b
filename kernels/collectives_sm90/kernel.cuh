// The collective kernel (sm_90a): one thread per block moves its tiles with TMA, in a pipeline of
// `stages` shared-memory tiles, and synchronizes with the other ranks through counted signals
// (device/peer_signal.cuh). Every box, coordinate, byte count and shared offset comes from the
// CollectivePlan (tmakit/peer/collective_plan.hpp) the host made; the kernel only walks it.
//
// Block b of rank r, call e (tiles t = b, b + blocks, ...):
//   all-gather      1. arrive at every peer (store e), wait until every peer's block b has entered call e
//                   2. per tile: TMA load of this rank's tile (local) -> shared; TMA store of it into
//                      slice r of every rank's output (peer descriptors; this rank's too)
//                   3. wait for the writes, signal the bytes written to each peer, wait for each
//                      peer's bytes (exactly what the plan says)
//   reduce-scatter  0. per tile: TMA load of slice r of the input -> shared; TMA store into this
//                      rank's output (its own contribution comes first, so the sums start there)
//                   1. arrive / wait as above (a peer's reduce-adds come only after this)
//                   2. per tile and peer q: TMA load of slice q -> shared; TMA reduce-add into
//                      rank q's output
//                   3. as above
// Pull (CollectiveShape::pull): the same steps reading the peers' memory instead of writing it:
//   all-gather      per tile and source rank q: TMA load from q's input (peer descriptor) -> shared;
//                   TMA store into slice q of this rank's output
//   reduce-scatter  0. and 1. as above; 2. per tile and peer q: TMA load of slice r of q's input ->
//                   shared; TMA reduce-add into this rank's output (local)
//   3. each block signals each peer the bytes it READ from it, and waits until every peer has read
//      its share of this rank's input (the input may be rewritten after the call)
// Pipeline: the device ring (device/ring.cuh) of `stages` stages, a run-time count, walked by
// run_bulk_ring: tile i's copies are one bulk group; the stage of tile i-lag is refilled (tile
// i-lag+stages) once that group has read it (wait_group_read<lag>, lag 1 to 3), so stages-lag loads
// and the writes of every committed group are in flight. The one thread that issues the copies
// out of a stage is the one that waits for their reads and refills it: no empty barriers.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tmakit/device/launch.cuh"
#include "tmakit/device/load_tile.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/peer_signal.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/store_tile.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/gather_schedule.hpp"
#include "tmakit/peer/signals.hpp"

namespace tmakit::collectives {

inline constexpr std::uint32_t kMaxStages = 16;

// Everything a launch needs, as one __grid_constant__ parameter.
struct CollectiveArgs {
  CUtensorMap in[kMaxPeers];      // the input tensor in rank p's window (pull reads the peers')
  CUtensorMap out[kMaxPeers];     // the output tensor in rank p's window (push writes the peers')
  TmaPlan load;                   // input tile -> shared
  TmaPlan push;                   // shared -> output: store (all-gather) or reduce-add (reduce-scatter)
  TmaPlan own;                    // reduce-scatter: this rank's own slice -> its output (store)
  PeerSignals signals;
  std::int64_t tiles = 0;         // of one chunk
  std::int64_t col_tiles = 0;
  std::uint32_t tile_bytes = 0;   // bytes per tile copy (the plan's)
  std::uint32_t stage_bytes = 0;
  std::uint32_t stages = 0;
  std::uint32_t lag = 1;          // 1 to 3 (run_bulk_ring's Lag)
  std::uint32_t pull = 0;         // 0: push (write the peers' memory), 1: pull (read it)
  std::uint32_t schedule = 0;     // pushed all-gather: the order of its stores (GatherSchedule)
  std::uint64_t call = 0;         // 1, 2, ... on this communicator
};

namespace detail {

struct Coord {
  std::int32_t v[kMaxTileModes] = {};
};

__device__ inline Coord tile_coord(const CollectiveArgs& a, std::int64_t t, std::int32_t slice) {
  Coord c;
  c.v[0] = static_cast<std::int32_t>(t / a.col_tiles);
  c.v[1] = static_cast<std::int32_t>(t % a.col_tiles);
  c.v[2] = slice;
  return c;
}

// A block's ring: a.stages stages (a run-time count, 2 to kMaxStages), freed by the block's one
// thread's own bulk groups (device::run_bulk_ring: the thread that stores a stage out waits for
// those stores' reads before it refills the stage, so the ring has no empty barriers).
using Ring = device::Ring<device::kRuntimeStages>;
using RingState = device::RingState<device::kRuntimeStages>;

// A tile into round r's stage: the ring arms the stage's full barrier with the plan's bytes, then
// the planned copies are issued on it.
__device__ __forceinline__ void load_stage(Ring& ring, const RingState& r, const TmaPlan& plan, const CUtensorMap* src,
                                           unsigned char* stage, const Coord& c) {
  device::Barrier& full = ring.arm(r, plan.expect_tx_bytes);
  device::load_armed_tile(plan, src, stage, full, c.v);
}

}  // namespace detail

// Every pipeline below runs its jobs through the ring with run_bulk_ring<Lag> (job i's copies are
// one bulk group; job i - Lag's stage is refilled once that group has read it), all on one walk:
// `st` continues from one pipeline to the next.
template <CollectiveKind Kind, int Lag>
__device__ __forceinline__ void collective_body(const CollectiveArgs& a, unsigned char* dyn, device::Barrier* full) {
  unsigned char* smem = device::align_smem(dyn, a.load.smem_alignment);
  const std::uint32_t block = blockIdx.x;
  const std::int32_t rank = a.signals.rank, world = a.signals.world;
  detail::Ring ring{full, nullptr, a.stages};
  ring.init_full();
  const std::uint32_t blocks = gridDim.x;
  const auto schedule = static_cast<GatherSchedule>(a.schedule);
  const auto b32 = static_cast<std::int32_t>(block);
  const TileStride walk = gather_walk(schedule, b32, static_cast<std::int32_t>(blocks), a.tiles, world);
  const auto n = static_cast<std::uint32_t>(walk.count);
  auto tile = [&](std::uint32_t i) { return walk.first + static_cast<std::int64_t>(i) * walk.step; };
  auto stage = [&](std::uint32_t s) { return smem + static_cast<std::size_t>(s) * a.stage_bytes; };
  detail::RingState st = ring.start();

  auto at = [&](std::uint32_t i, std::int32_t slice) { return detail::tile_coord(a, tile(i), slice); };
  // A tile of `src` (the load plan's) into round r's stage.
  auto load = [&](const CUtensorMap* src, const detail::Coord& c, const detail::RingState& r) {
    detail::load_stage(ring, r, a.load, src, stage(r.index), c);
  };
  using State = detail::RingState;

  if constexpr (Kind == CollectiveKind::reduce_scatter) {
    // 0. this rank's own slice into its output
    device::run_bulk_ring<Lag>(
        ring, st, n, [&](std::uint32_t j, const State& r) { load(&a.in[rank], at(j, rank), r); },
        [&](std::uint32_t j, std::uint32_t s) { device::store_tile(a.own, &a.out[rank], stage(s), at(j, 0).v); });
    device::wait_group<0>();
    device::publish_async_writes();
  }

  device::arrive_and_wait_all(a.signals, block, a.call);

  const auto w = static_cast<std::uint32_t>(world);
  if constexpr (Kind == CollectiveKind::all_gather) {
    auto to = [&](std::int32_t d) { return &a.out[(rank + d) % world]; };
    auto load_own = [&](std::uint32_t j, const State& r) { load(&a.in[rank], at(j, 0), r); };
    if (!a.pull && schedule == GatherSchedule::peers_in_turn) {  // all tiles to distance 1, then 2, ..., then 0
      device::run_bulk_ring<Lag>(
          ring, st, n * w, [&](std::uint32_t j, const State& r) { load_own(j % n, r); },
          [&](std::uint32_t j, std::uint32_t s) {
            const auto turn = static_cast<std::int32_t>(j / n);
            device::store_tile(a.push, to(gather_turn_distance(world, turn)), stage(s), at(j % n, rank).v);
          });
    } else if (!a.pull && schedule == GatherSchedule::peer_groups) {  // one peer per group of blocks
      device::run_bulk_ring<Lag>(ring, st, n, load_own, [&](std::uint32_t j, std::uint32_t s) {
        const detail::Coord c = at(j, rank);
        device::store_tile(a.push, to(gather_group_distance(b32, world)), stage(s), c.v);
        if (gather_group_stores_own(b32, tile(j), world)) device::store_tile(a.push, to(0), stage(s), c.v);
      });
    } else if (!a.pull) {  // one load, a store into every rank's output (every_peer, rotated)
      device::run_bulk_ring<Lag>(ring, st, n, load_own, [&](std::uint32_t j, std::uint32_t s) {
        const detail::Coord c = at(j, rank);
        for (std::int32_t d = 0; d < world; ++d)
          device::store_tile(a.push, to(gather_store_distance(schedule, world, b32, j, d)), stage(s), c.v);
      });
    } else {  // per source rank q: a load from q's input, a store into slice q of this rank's output
      device::run_bulk_ring<Lag>(
          ring, st, n * w, [&](std::uint32_t j, const State& r) { load(&a.in[(rank + j % w) % w], at(j / w, 0), r); },
          [&](std::uint32_t j, std::uint32_t s) {
            device::store_tile(a.push, &a.out[rank], stage(s), at(j / w, static_cast<std::int32_t>((rank + j % w) % w)).v);
          });
    }
  } else {
    const std::uint32_t peers = w - 1;
    auto peer = [&](std::uint32_t j) { return static_cast<std::int32_t>((rank + 1 + j % peers) % w); };
    if (!a.pull) {  // a load of slice q, a reduce-add into rank q's output
      device::run_bulk_ring<Lag>(
          ring, st, n * peers, [&](std::uint32_t j, const State& r) { load(&a.in[rank], at(j / peers, peer(j)), r); },
          [&](std::uint32_t j, std::uint32_t s) {
            device::reduce_tile<ReduceOp::add>(a.push, &a.out[peer(j)], stage(s), at(j / peers, 0).v);
          });
    } else {  // a load of slice `rank` of rank q's input, a reduce-add into this rank's output
      device::run_bulk_ring<Lag>(
          ring, st, n * peers, [&](std::uint32_t j, const State& r) { load(&a.in[peer(j)], at(j / peers, rank), r); },
          [&](std::uint32_t j, std::uint32_t s) {
            device::reduce_tile<ReduceOp::add>(a.push, &a.out[rank], stage(s), at(j / peers, 0).v);
          });
    }
  }

  // push: the bytes this block wrote into each peer; pull: the bytes it read from each peer (the
  // peer may reuse its input once they are counted). The same count either way.
  // Under a schedule (pushed all-gather), the counts per peer follow from it (gather_tiles_to).
  auto count = [&](std::int32_t d) {
    return static_cast<std::uint64_t>(gather_tiles_to(schedule, b32, static_cast<std::int32_t>(blocks), a.tiles, world,
                                                      d)) *
           a.tile_bytes;
  };
  auto sent = [&](std::int32_t p) { return count((p - rank + world) % world); };
  auto expected = [&](std::int32_t p) { return count((rank - p + world) % world); };
  device::exchange_bytes_all(a.signals, block, sent, expected);
}

template <CollectiveKind Kind>
__global__ void __launch_bounds__(32, 1) collective_kernel(const __grid_constant__ CollectiveArgs a) {
  extern __shared__ unsigned char dyn[];
  __shared__ device::Barrier full[kMaxStages];
  if (threadIdx.x != 0) return;
  switch (a.lag) {
    case 2: collective_body<Kind, 2>(a, dyn, full); break;
    case 3: collective_body<Kind, 3>(a, dyn, full); break;
    default: collective_body<Kind, 1>(a, dyn, full); break;
  }
}

}  // namespace tmakit::collectives

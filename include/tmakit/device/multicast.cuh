// Multicast pipelines with ARM-BEFORE-ISSUE built in (sm_90a).
//
// Every CTA holds, per stage, a "full" barrier (the copies into this CTA complete on it; 1 arrival:
// the CTA's own arm) and an "empty" barrier (counts one arrival per CTA this CTA issues into). The
// host plans (cluster/multicast.hpp) give each CTA a StageRole: expect_bytes (the sum of all
// issues into it, fan-in included), senders and receivers.
//
// Round k uses stage s = k % Stages. The producer thread of each CTA:
//   arm_round(pipe, role, k)              arms full[s] with expect_bytes, THEN arrives (release,
//                                         cluster scope) on empty[s] of every sender: "my buffer s is
//                                         free and armed for round k"
//   wait_receivers_armed(pipe, role, k)   (issuers) waits until all its receivers did that
//   issue_multicast(pipe, map, ...)       issues the copy, completing on full[s] of each receiver
// and all threads wait_round(pipe, k), consume, __syncthreads(), then the producer arms round
// k + Stages for the same stage. No issue can reach a receiver's barrier before that receiver armed
// it (at pipeline start and on every buffer reuse), and a buffer is never overwritten while its
// consumers read it: the empty arrivals come after the consumers' __syncthreads(). The initial
// barrier setup and the final teardown are cluster barriers (release/acquire): pipeline_init() and
// pipeline_teardown(), called by ALL threads.
//
// Warp-specialized form (the fast one; docs/cluster.md "Benchmarks"): the issue and the cluster
// handshake leave the consumers' path. Three roles, one thread or warp each:
//   PRODUCER (one thread):  for k: produce(pipe, role, map, dst, mask, bytes, k, coords...)
//                           (waits until its receivers armed round k, acquire.cluster; issues)
//   RELEASER (one thread of ANOTHER warp):  run_releaser(pipe, role, rounds)
//                           for k: waits until this CTA's consumers left stage s (round k - Stages),
//                           arms full[s] for round k, THEN arrives on empty[s] of every sender
//   CONSUMERS (W warps, all lanes):  for k: wait_round(pipe, k); <read stage k % Stages>;
//                           consumer_done(pipe, k)   (__syncwarp + one release.cta arrival per warp
//                           on the local consumed[s], which counts W)
// pipeline_init(pipe, role, W) sets it up. Per round each CTA sends ONE remote arrival per sender
// (not one per consumer warp) and no CTA-wide barrier is taken.
//
// The remote "stage free + armed" arrival is RELAXED (mbarrier.arrive.relaxed.cluster) in release
// builds: measured on an H100, an arrive.release.cluster costs about a microsecond in a loop with
// copies in flight and capped the pipeline at ~23 GB/s per SM (docs/cluster.md). What it would
// order is not needed for correctness: (1) the consumers' reads of stage s are complete before their
// release.cta arrivals that the releaser waited for, all causally before the issue; (2) the copy
// for round k cannot complete_tx into an earlier phase: that phase completed before the consumers
// could read it; (3) a byte count landing before the arm cannot complete the phase early: the arm's
// own arrival is still pending (the hardware allows a transiently negative tx-count). So arming is
// still program-ordered before the release of the issuers (ARM-BEFORE-ISSUE as a protocol), without
// a cluster-scope fence. (1) rests on how loads complete (a read whose value has returned cannot
// see a later write), not on a cluster-scope happens-before in the PTX memory model; to have the
// formal guarantee, define TMAKIT_MULTICAST_RELEASE_CLUSTER (costs ~1 us per round, measured).
// With TMAKIT_WATCHDOG on, the arrival is release.cluster too, so the issuer's ledger check
// (issue before arm / wrong fan-in) reads an up-to-date ledger.
//
// With the watchdog on, issue_multicast() registers the copy on each receiver's ledger and traps
// with "issue before arm" / "wrong fan-in" instead of issuing (cluster_watchdog.cuh).
#pragma once

#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/cluster_watchdog.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/cluster/multicast.hpp"

namespace tmakit::device {

template <int Stages>
struct MulticastPipeline {
  static_assert(Stages >= 1, "at least one stage");
  Barrier full[Stages];
  Barrier empty[Stages];
  Barrier consumed[Stages];  // warp-specialized form only: the consumer warps' local "stage read"
};

// ALL threads of every CTA of the cluster: barrier setup, then a cluster barrier. consumer_warps:
// 0 for the single-producer-thread form (arm_round), W for the warp-specialized form.
// empty_arrivals_per_receiver: arrivals each receiver makes per round on an issuer's empty
// barrier (1: one releaser / producer thread; W when every consumer warp hands the stage back).
template <int Stages>
__device__ inline void pipeline_init(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t consumer_warps = 0,
                                     std::uint32_t empty_arrivals_per_receiver = 1) {
  init_cluster_barriers([&] {
    const std::uint32_t e = role.empty_arrivals() ? role.empty_arrivals() : 1u;
    for (int s = 0; s < Stages; ++s) {
      init(p.full[s], 1);
      init(p.empty[s], e * empty_arrivals_per_receiver);
      init(p.consumed[s], consumer_warps ? consumer_warps : 1u);
    }
  });
}

// Whether the "stage free and armed" arrival is release.cluster (true) or relaxed.cluster (false):
// relaxed in release builds (see the header for why), release with the watchdog or
// TMAKIT_MULTICAST_RELEASE_CLUSTER. The template parameter of release_to_senders / run_releaser
// defaults to it; bench_cluster sets it to measure both.
#if TMAKIT_WATCHDOG || defined(TMAKIT_MULTICAST_RELEASE_CLUSTER)
inline constexpr bool kReleaseClusterHandBack = true;
#else
inline constexpr bool kReleaseClusterHandBack = false;
#endif

// The "stage free and armed" arrival on every sender's empty barrier.
template <bool Release = kReleaseClusterHandBack, int Stages>
__device__ inline void release_to_senders(MulticastPipeline<Stages>& p, const StageRole& role, int s) {
  for (std::uint32_t r = 0; r < 16; ++r)
    if (role.senders >> r & 1u) {
      if constexpr (Release) arrive_remote(p.empty[s], r);
      else arrive_remote_relaxed(p.empty[s], r);
    }
}

// Arms full[k % Stages] for round k with the bytes of every issue into this CTA (role.expect_bytes),
// without releasing anyone (arm_round / run_releaser release the senders next; a form that hands
// stages over with cluster barriers, like bench_cluster's burst, calls it alone).
template <int Stages>
__device__ inline void arm_stage(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t k) {
  arrive_expect_tx(p.full[k % Stages], role.expect_bytes);
}

// Producer thread of each CTA: arm round k, then release every sender (ARM-BEFORE-ISSUE) with a
// release.cluster arrival on its empty barrier.
template <int Stages>
__device__ inline void arm_round(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t k) {
  arm_stage(p, role, k);
  release_to_senders<true>(p, role, static_cast<int>(k % Stages));
}

// Issuer thread: wait until every receiver of its copies armed round k (and freed the buffer).
template <int Stages>
__device__ inline void wait_receivers_armed(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t k) {
  if (!role.receivers) return;
  const int s = static_cast<int>(k % Stages);
  watchdog::wait_parity(p.empty[s], (k / Stages) & 1u, watchdog::bound_ns(), true);
}

// Issuer thread, after wait_receivers_armed(): the copy of `bytes` bytes per receiver (the plan's
// issue.bytes) into smem_dst of every CTA in `mask`, completing on their full barrier of round k.
// A mask naming only this CTA is a plain load.
template <int Stages, class... C>
__device__ inline void issue_multicast(MulticastPipeline<Stages>& p, MapRef map, void* smem_dst, std::uint16_t mask,
                                       std::uint32_t bytes, std::uint32_t k, C... coords) {
  Barrier& f = p.full[k % Stages];
  for (std::uint32_t r = 0; r < 16; ++r)
    if (mask >> r & 1u) watchdog::register_cluster_copy(f, r, bytes, k / Stages);
  if (mask == (1u << cluster_rank())) {
    load(map, smem_dst, f, coords...);
  } else {
    load_multicast(map, smem_dst, f, mask, coords...);  // traps on sm_120 (no multicast there)
  }
}

// Both steps: what an issuing CTA does for round k.
template <int Stages, class... C>
__device__ inline void produce(MulticastPipeline<Stages>& p, const StageRole& role, MapRef map, void* smem_dst,
                               std::uint16_t mask, std::uint32_t bytes, std::uint32_t k, C... coords) {
  wait_receivers_armed(p, role, k);
  issue_multicast(p, map, smem_dst, mask, bytes, k, coords...);
}

// All consumer threads: wait until round k's bytes (from every sender) have landed.
template <int Stages>
__device__ inline void wait_round(MulticastPipeline<Stages>& p, std::uint32_t k) {
  watchdog::wait_parity(p.full[k % Stages], (k / Stages) & 1u, watchdog::bound_ns());
}

// Warp-specialized CONSUMER warp, all lanes, after reading round k's stage: one release.cta
// arrival per warp on consumed[s] (the releaser waits for all W).
template <int Stages>
__device__ inline void consumer_done(MulticastPipeline<Stages>& p, std::uint32_t k) {
  __syncwarp();  // every lane of this warp has finished reading the stage
  if ((threadIdx.x & 31u) == 0u) arrive(p.consumed[k % Stages]);
}

// Warp-specialized RELEASER: one thread, not in the producer's warp, for all `rounds`: round k
// (k >= Stages) waits until the consumers left the stage (round k - Stages), then arms full[s]
// with expect_bytes, then releases every sender.
template <bool Release = kReleaseClusterHandBack, int Stages>
__device__ inline void run_releaser(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t rounds) {
  for (std::uint32_t k = 0; k < rounds; ++k) {
    const int s = static_cast<int>(k % Stages);
    if (k >= static_cast<std::uint32_t>(Stages))
      watchdog::wait_parity(p.consumed[s], ((k - Stages) / Stages) & 1u, watchdog::bound_ns());
    arm_stage(p, role, k);                    // ARM first ...
    release_to_senders<Release>(p, role, s);  // ... then release the issuers
  }
}

// ALL threads of every CTA, at the end: no CTA exits while a peer may still arrive on or copy into it.
__device__ inline void pipeline_teardown() { cluster_sync(); }

}  // namespace tmakit::device

// Multicast pipelines with ARM-BEFORE-ISSUE built in (sm_90a).
//
// Every CTA holds, per stage, a "full" barrier (the copies into this CTA complete on it; 1 arrival:
// the CTA's own arm) and an "empty" barrier (counts one arrival per CTA this CTA issues into). The
// host plans (plan/cluster_multicast.hpp) give each CTA a StageRole: expect_bytes (the sum of all
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
#include "tmakit/plan/cluster_multicast.hpp"

namespace tmakit::device {

template <int Stages>
struct MulticastPipeline {
  static_assert(Stages >= 1, "at least one stage");
  Barrier full[Stages];
  Barrier empty[Stages];
};

// ALL threads of every CTA of the cluster: barrier setup, then a cluster barrier.
template <int Stages>
__device__ inline void pipeline_init(MulticastPipeline<Stages>& p, const StageRole& role) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const std::uint32_t e = role.empty_arrivals();
    for (int s = 0; s < Stages; ++s) {
      init(p.full[s], 1);
      init(p.empty[s], e ? e : 1u);
    }
    fence_init_cluster();
  }
  cluster_sync();
}

// Producer thread of each CTA: arm round k, then release every sender (ARM-BEFORE-ISSUE).
template <int Stages>
__device__ inline void arm_round(MulticastPipeline<Stages>& p, const StageRole& role, std::uint32_t k) {
  const int s = static_cast<int>(k % Stages);
  arrive_expect_tx(p.full[s], role.expect_bytes);
  for (std::uint32_t r = 0; r < 16; ++r)
    if (role.senders >> r & 1u) arrive_remote(p.empty[s], r);
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
    if (mask >> r & 1u) watchdog::register_cluster_copy(f, r, bytes, k / Stages, map.p);
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

// ALL threads of every CTA, at the end: no CTA exits while a peer may still arrive on or copy into it.
__device__ inline void pipeline_teardown() { cluster_sync(); }

}  // namespace tmakit::device

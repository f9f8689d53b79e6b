// Thread-block cluster helpers (sm_90+): rank and size, the cluster barrier with release/acquire
// semantics, cluster-scope fences, and address mapping into a peer CTA's shared memory (mapa).
//
// Handing data to another CTA (docs/cluster.md, "Memory ordering"):
//   * generic stores into a peer's smem (st.shared::cluster / a map_shared_rank pointer), or into
//     your own smem that a peer then reads: finish with cluster_arrive_release() +
//     cluster_wait_acquire() (= cluster_sync()) on both sides, or a release.cluster arrive on the
//     consumer's mbarrier (arrive_remote) that the consumer waits on with wait_cluster().
//   * __syncthreads() / .cta-scoped arrives order nothing for another CTA: that is the planted
//     "CTA-scoped barrier used across CTAs" bug (plan/cluster_handoff.hpp names it).
//   * bulk copies and st.async complete on the consumer's mbarrier (complete_tx): its wait makes
//     the bytes visible, no extra fence.
#pragma once

#include <cooperative_groups.h>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/ptx_raw.cuh"

namespace tmakit::device {

// %cluster_ctarank / %cluster_nctarank.
__device__ inline std::uint32_t cluster_rank() { return cuda::ptx::get_sreg_cluster_ctarank(); }
__device__ inline std::uint32_t cluster_size() { return cuda::ptx::get_sreg_cluster_nctarank(); }

// barrier.cluster.arrive.release: this thread's earlier memory operations are released at cluster
// scope to every thread that completes the matching wait. Every thread of every CTA of the
// cluster must arrive (the barrier counts all non-exited threads).
__device__ inline void cluster_arrive_release() { cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release); }
// barrier.cluster.arrive.relaxed: no ordering (only for pure execution sync: nothing handed over).
__device__ inline void cluster_arrive_relaxed() { cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed); }
// barrier.cluster.wait.acquire.
__device__ inline void cluster_wait_acquire() { cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire); }
// Both: the cluster-wide __syncthreads with release/acquire at cluster scope.
__device__ inline void cluster_sync() {
  cluster_arrive_release();
  cluster_wait_acquire();
}

// fence.acq_rel.cluster (order this thread's accesses at cluster scope without a barrier).
__device__ inline void fence_acq_rel_cluster() { cuda::ptx::fence(cuda::ptx::sem_acq_rel, cuda::ptx::scope_cluster); }

// The same variable in CTA `cta_rank`'s shared memory: generic pointer (map_shared_rank) ...
template <class T>
__device__ inline T* map_to_rank(T* local, std::uint32_t cta_rank) {
  return cooperative_groups::this_cluster().map_shared_rank(local, cta_rank);
}
// ... and 32-bit shared::cluster address (mapa), for st.shared::cluster.
__device__ inline std::uint32_t mapa(const void* local, std::uint32_t cta_rank) {
  return ptx_raw::mapa_shared_cluster(static_cast<std::uint32_t>(__cvta_generic_to_shared(local)), cta_rank);
}

// Barrier setup for cluster use: call from ALL threads of every CTA. Thread 0 of each CTA runs
// `init_all()` (its init() calls), fences the inits at cluster scope, then the whole cluster
// synchronizes: after it, any CTA may arrive on or copy into any peer's barriers.
template <class InitAll>
__device__ inline void init_cluster_barriers(InitAll&& init_all) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    init_all();
    fence_init_cluster();
  }
  cluster_sync();
}
// The same for `count` barriers with `arrivals[i]` each (0 counts as 1).
__device__ inline void init_cluster_barriers(Barrier* bars, const std::uint32_t* arrivals, int count) {
  init_cluster_barriers([&] {
    for (int i = 0; i < count; ++i) init(bars[i], arrivals[i] ? arrivals[i] : 1u);
  });
}

}  // namespace tmakit::device

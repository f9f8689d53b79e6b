// Ring<Stages>: the one pipeline of tmakit's kernels. A ring of `Stages` shared-memory stages, each
// with a `full` barrier (the stage's copies complete on it) and an `empty` barrier (its readers
// hand it back on it), walked by a RingState (stage index + phase parity, advanced by ++).
//
//   producer (one thread)                      consumers (each reading warpgroup)
//   RingState<S> st;                           RingState<S> st;
//   for each round:                            for each round:
//     ring.wait_free(st);                        ring.wait_full(st);
//     Barrier& full = ring.arm(st, bytes);       ... read stage st.index ...
//     <issue the stage's copies on full>         release.release(ring, st);   (one elected thread
//     ++st;                                      ++st;                          per receiving CTA)
//
// The producer arms its own stage's `full` barrier with the bytes every copy into this CTA brings
// (the copy programs' kBytes, multicast slices of peers included), then issues. A peer's multicast
// slice may land on a stage before this CTA armed it: the phase cannot complete early, because the
// arm's own arrival is still pending and the hardware lets the transaction count go negative until
// it comes (PTX ISA, mbarrier: tx-count range), and it cannot land in an earlier phase, because the
// peer issues only after every consumer of every receiving CTA released the stage, which they do
// after waiting for that earlier phase. So one wait (empty) and one arm stand between a stage's
// release and its next copies: no second thread and no second barrier.
//
// `empty` counts one arrival per (reading warpgroup, receiving CTA) pair that must release a stage
// before this CTA's producer may fill it again: a producer whose copies land in C CTAs of W reading
// warpgroups each waits for W * C arrivals. Each consumer warpgroup therefore releases every
// stage into each CTA whose producer writes into it (RingRelease: thread r of the warpgroup, r < C,
// arrives on CTA r's barrier, whose address it computed once).
//
// The first round of each stage finds it free: a fresh barrier's phase 0 is in progress, and
// waiting for parity 1 (the phase before it) returns at once, so the producer's state starts at
// phase 0 and waits for parity phase ^ 1.
//
// With the watchdog compiled in (TMAKIT_WATCHDOG, the checked kernels), every wait is bounded and a
// stage that never fills or is never released reports its barrier's ledger and traps instead of
// hanging (watchdog.cuh).
#pragma once

#include <cooperative_groups.h>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/watchdog.cuh"

namespace tmakit::device {

// Which stage a round uses and the parity of its phase. ++ moves to the next round.
template <int Stages>
struct RingState {
  static_assert(Stages >= 1, "at least one stage");
  std::uint32_t index = 0;
  std::uint32_t phase = 0;
  __device__ __forceinline__ RingState& operator++() {
    if (++index == static_cast<std::uint32_t>(Stages)) {
      index = 0;
      phase ^= 1u;
    }
    return *this;
  }
};

template <int Stages>
struct Ring {
  static_assert(Stages >= 1, "at least one stage");
  Barrier full[Stages];
  Barrier empty[Stages];

  // One thread, before anyone uses the ring: `releases` arrivals free a stage (reading warpgroups
  // times the CTAs this CTA's copies land in). Make it visible with __syncthreads() (one CTA) or
  // fence_init_cluster() + a cluster barrier (cluster_init_ring below does both for a cluster).
  __device__ void init(std::uint32_t releases) {
    for (int s = 0; s < Stages; ++s) {
      device::init(full[s], 1);
      device::init(empty[s], releases);
    }
  }

  // Producer: until every release of the stage's previous round has come.
  __device__ __forceinline__ void wait_free(const RingState<Stages>& st) {
    watchdog::wait_parity(empty[st.index], st.phase ^ 1u, watchdog::bound_ns());
  }
  // Producer: arm the stage with the bytes of every copy into this CTA (one arrival), then issue
  // the copies on the barrier returned.
  __device__ __forceinline__ Barrier& arm(const RingState<Stages>& st, std::uint32_t bytes) {
    Barrier& f = full[st.index];
    arrive_expect_tx(f, bytes);
    return f;
  }
  // Consumers: until the stage's copies of this round have landed.
  __device__ __forceinline__ void wait_full(const RingState<Stages>& st) {
    watchdog::wait_parity(full[st.index], st.phase, watchdog::bound_ns());
  }
};

// A consumer warpgroup's hand-back of ring stages to the CTAs whose producers fill them. Built once
// per thread (a remote address is computed here, not per release); release() is called by every
// thread of the warpgroup after its reads of the stage are complete (for WGMMA: after
// wgmma.wait_group), and only threads 0 .. Ctas - 1 arrive. Ctas == 1: thread 0 arrives on the
// local barrier, which release() reads off the ring (no address held in a register).
template <int Stages, int Ctas>
struct RingRelease {
  static_assert(Ctas >= 2 && Ctas <= 16, "a cluster of at most 16 CTAs");
  Barrier* empty = nullptr;  // stage 0's empty barrier in CTA `thread` of the cluster (null: this thread does not arrive)

  __device__ RingRelease(Ring<Stages>& ring, std::uint32_t thread_in_warpgroup) {
    if (thread_in_warpgroup < static_cast<std::uint32_t>(Ctas))
      empty = cooperative_groups::this_cluster().map_shared_rank(&ring.empty[0], thread_in_warpgroup);
  }
  __device__ __forceinline__ void release(Ring<Stages>&, const RingState<Stages>& st) const {
    if (!empty) return;
    Barrier& b = empty[st.index];
    // relaxed: the stage's reads have completed (wgmma.wait_group / the consumers' own loads) before
    // this arrival, and the producer's next copies cannot overtake a read whose value has returned.
    detail::ledger_arrive(b, 0);
    cuda::ptx::mbarrier_arrive(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster, cuda::ptx::space_cluster, raw(b), 1u);
  }
};
template <int Stages>
struct RingRelease<Stages, 1> {
  bool arrives = false;  // thread 0 of the warpgroup
  __device__ RingRelease(Ring<Stages>&, std::uint32_t thread_in_warpgroup) : arrives(thread_in_warpgroup == 0) {}
  __device__ __forceinline__ void release(Ring<Stages>& ring, const RingState<Stages>& st) const {
    if (arrives) arrive(ring.empty[st.index]);
  }
};

// ALL threads of every CTA of a cluster: thread 0 initializes this CTA's ring (and whatever else
// `more()` initializes), then the cluster synchronizes: after it any CTA may arrive on or copy into
// any peer's stages.
template <int Stages, class More>
__device__ inline void cluster_init_ring(Ring<Stages>& ring, std::uint32_t releases, More&& more) {
  init_cluster_barriers([&] {
    ring.init(releases);
    more();
  });
}

}  // namespace tmakit::device

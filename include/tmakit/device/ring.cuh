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
// A reader that takes only some runs of rounds (ping-pong consumers: each warpgroup every other
// tile) walks past the others' rounds with `st += n`, and must not wait for a round while the round
// one ring's length before it may still be incomplete: a parity wait tells a phase only from the
// one before it, so a wait two phases early would pass at once on the old phase. The kernel orders
// such readers so that a reader's first wait of a run comes after the other reader has waited for
// every round before the run (kernels/gemm_sm90/kernel.cuh: the turn barrier).
//
// The first round of each stage finds it free: a fresh barrier's phase 0 is in progress, and
// waiting for parity 1 (the phase before it) returns at once, so the producer's state starts at
// phase 0 and waits for parity phase ^ 1.
//
// With the watchdog compiled in (TMAKIT_WATCHDOG, the checked kernels), every wait is bounded and a
// stage that never fills or is never released reports its barrier's ledger and traps instead of
// hanging (watchdog.cuh).
//
// A stage count chosen at run time (the collectives: 2 to 16 stages, the caller's): Ring and
// RingState of kRuntimeStages. RingState<kRuntimeStages> holds its count and walks it as the
// compile-time form does; Ring<kRuntimeStages> holds no barriers but points at `full` and `empty`
// arrays of the count's length that the kernel lays out itself (a static array of the largest
// count, or dynamic shared memory after the stages), with the same members.
//
// A ring freed by its producer's bulk groups (run_bulk_ring below): when the one thread that fills a
// stage is also the only reader of it, by bulk copies out of shared memory (TMA stores and
// reductions, one bulk group per round), the stage is free again once that group has read it
// (cp.async.bulk.wait_group.read), and that same thread waits for it before it refills the stage.
// No other thread reads the stage, so nobody has anything to hand back: the `empty` barriers are
// neither initialized nor waited on (init_full; Ring<kRuntimeStages> may point them at nothing).
#pragma once

#include <cooperative_groups.h>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/device/watchdog.cuh"

namespace tmakit::device {

// The `Stages` of a ring whose stage count is chosen at run time (RingState and Ring below).
inline constexpr int kRuntimeStages = 0;

// Which stage a round uses and the parity of its phase. ++ moves to the next round.
template <int Stages>
struct RingState {
  static_assert(Stages >= 1, "at least one stage (or kRuntimeStages)");
  std::uint32_t index = 0;
  std::uint32_t phase = 0;
  __device__ static constexpr std::uint32_t count() { return static_cast<std::uint32_t>(Stages); }
  __device__ __forceinline__ RingState& operator++() {
    if (++index == count()) {
      index = 0;
      phase ^= 1u;
    }
    return *this;
  }
  // n rounds on at once: a reader that takes every other run of rounds (ping-pong consumers) walks
  // past the rounds its partner reads. A division by the constant stage count.
  __device__ __forceinline__ RingState& operator+=(std::uint32_t n) {
    const std::uint32_t i = index + n;
    phase ^= (i / count()) & 1u;
    index = i % count();
    return *this;
  }
};

// The same walk over a stage count chosen at run time (at least 1), held by the state.
template <>
struct RingState<kRuntimeStages> {
  std::uint32_t index = 0;
  std::uint32_t phase = 0;
  std::uint32_t stages = 1;
  __device__ explicit RingState(std::uint32_t stage_count) : stages(stage_count) {}
  __device__ __forceinline__ std::uint32_t count() const { return stages; }
  __device__ __forceinline__ RingState& operator++() {
    if (++index == stages) {
      index = 0;
      phase ^= 1u;
    }
    return *this;
  }
  __device__ __forceinline__ RingState& operator+=(std::uint32_t n) {  // n rounds on (a run-time division)
    const std::uint32_t i = index + n;
    phase ^= (i / stages) & 1u;
    index = i % stages;
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
  // One thread, for a ring freed by its producer's bulk groups (run_bulk_ring): the full barriers
  // only (`empty` is never waited on, so it is left uninitialized).
  __device__ void init_full() {
    for (int s = 0; s < Stages; ++s) device::init(full[s], 1);
  }
};

// A ring of a stage count chosen at run time: the same members over barriers the kernel lays out
// (full[0 .. stages), empty[0 .. stages)), which may be a static array of the largest count or
// shared memory after the stages. `empty` may be null for a ring freed by its producer's bulk
// groups (run_bulk_ring: init_full, no wait_free, no RingRelease).
template <>
struct Ring<kRuntimeStages> {
  Barrier* full = nullptr;
  Barrier* empty = nullptr;
  std::uint32_t stages = 0;

  // The first round's state.
  __device__ __forceinline__ RingState<kRuntimeStages> start() const { return RingState<kRuntimeStages>(stages); }
  __device__ void init(std::uint32_t releases) {
    for (std::uint32_t s = 0; s < stages; ++s) {
      device::init(full[s], 1);
      device::init(empty[s], releases);
    }
  }
  __device__ void init_full() {
    for (std::uint32_t s = 0; s < stages; ++s) device::init(full[s], 1);
  }
  __device__ __forceinline__ void wait_free(const RingState<kRuntimeStages>& st) {
    watchdog::wait_parity(empty[st.index], st.phase ^ 1u, watchdog::bound_ns());
  }
  __device__ __forceinline__ Barrier& arm(const RingState<kRuntimeStages>& st, std::uint32_t bytes) {
    Barrier& f = full[st.index];
    arrive_expect_tx(f, bytes);
    return f;
  }
  __device__ __forceinline__ void wait_full(const RingState<kRuntimeStages>& st) {
    watchdog::wait_parity(full[st.index], st.phase, watchdog::bound_ns());
  }
};

// The producer-only pipeline of a ring freed by its producer's bulk groups: n jobs, one round each,
// all issued by the calling thread, which is the stages' only reader. load(j, st) arms round st's
// full barrier (ring.arm) and issues job j's copies into stage st.index; issue(j, index) issues its
// bulk copies out of the stage, which run_bulk_ring commits as one bulk group per job. Job i - Lag's
// stage is refilled (with job i - Lag + stages) once job i's group is committed and job i - Lag's
// group has read its stage (wait_group_read<Lag>): no empty barrier, because the thread that waits
// for those reads is the thread that refills. In flight: stages - Lag loads, and the writes of
// every committed group. 1 <= Lag < the stage count.
// `st` is the ring's state at the first job (every stage free: the caller has waited for the reads
// of earlier groups, wait_group_read<0> or wait_group<0>) and at the round after the last on return,
// so successive pipelines continue the same walk.
template <int Lag, int Stages, class Count, class Load, class Issue>
__device__ __forceinline__ void run_bulk_ring(Ring<Stages>& ring, RingState<Stages>& st, Count n, Load&& load,
                                              Issue&& issue) {
  static_assert(Lag >= 1, "a stage is refilled after a later job's group is committed");
  constexpr Count lag = static_cast<Count>(Lag);
  const Count stages = static_cast<Count>(st.count());
  RingState<Stages> fill = st;  // the round of the next load: job j's is the first round plus j
  for (Count j = 0; j < n && j < stages; ++j, ++fill) load(j, fill);
  for (Count i = 0; i < n; ++i, ++st) {
    ring.wait_full(st);
    issue(i, st.index);
    commit_group();
    if (i >= lag && i - lag + stages < n) {
      wait_group_read<Lag>();  // job i - Lag's group has read its stage: fill's stage
      load(i - lag + stages, fill);
      ++fill;
    }
  }
}

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

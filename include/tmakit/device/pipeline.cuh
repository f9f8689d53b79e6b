// A ring of shared-memory stages between one producer (TMA copies) and its consumers, built on
// mbarrier.cuh. Each stage has two barriers:
//   full[s]  - the producer arms it with the bytes the stage's copies deliver (load_tile arms it
//              from the plan: one arrival per armed plan); consumers wait on it;
//   empty[s] - each consumer arrives once when it no longer reads the stage; the producer waits
//              on it before overwriting the stage.
// A PipeState walks the ring: the stage index and the parity of the phase to wait for. The
// producer starts one phase ahead on `empty` (every stage is free before the first round), so it
// waits for the opposite parity of the consumers' state at the same position.
//
//   __shared__ tmakit::device::Pipeline<4> pipe;
//   if (threadIdx.x == 0) pipe.init(/*arms per stage*/ 2, /*consumers*/ 2);  // then __syncthreads()
//   producer:  PipeState s;  pipe.producer_acquire(s);  load_tile(.., pipe.full[s.stage], ..);  s.advance();
//   consumer:  PipeState s;  pipe.consumer_wait(s);  ... read stage s.stage ...;  pipe.consumer_release(s);  s.advance();
#pragma once

#include <cstdint>

#include "tmakit/device/mbarrier.cuh"

namespace tmakit::device {

template <int Stages>
struct PipeStateT {
  std::uint32_t stage = 0;
  std::uint32_t parity = 0;
  __device__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      parity ^= 1u;
    }
  }
};

template <int Stages>
struct Pipeline {
  static_assert(Stages >= 1, "a pipeline has at least one stage");
  using State = PipeStateT<Stages>;
  Barrier full[Stages];
  Barrier empty[Stages];

  // One thread: `arms` arrivals complete a full phase (one per plan armed per stage), `consumers`
  // arrivals an empty phase. Make it visible (__syncthreads()) before use.
  __device__ void init(std::uint32_t arms, std::uint32_t consumers) {
    for (int s = 0; s < Stages; ++s) {
      device::init(full[s], arms);
      device::init(empty[s], consumers);
    }
  }
  // Producer: waits until stage s.stage may be overwritten.
  __device__ void producer_acquire(const State& s) { watchdog::wait_parity(empty[s.stage], s.parity ^ 1u, watchdog::bound_ns()); }
  // Consumer: waits until stage s.stage holds its data.
  __device__ void consumer_wait(const State& s) { watchdog::wait_parity(full[s.stage], s.parity, watchdog::bound_ns()); }
  // Consumer (one thread per consumer): the stage is no longer read.
  __device__ void consumer_release(const State& s) { arrive(empty[s.stage]); }
};


// The same ring when the stages are filled by every CTA of a cluster (multicast copies land in each
// CTA's copy of a stage), with ARM-BEFORE-ISSUE: no copy may reach a CTA's stage before that CTA's
// consumers have left it AND it has armed the stage's `full` barrier with the bytes to come. One
// releaser thread per CTA (of a warp that issues no WGMMA) does both, then tells every CTA's
// producer: it waits on the local `consumed` barrier (the consumers' releases), arms `full`, and
// arrives on `empty` of every CTA of the cluster. A producer issues a stage's copies once `empty`
// has every releaser's arrival, and arms nothing itself. Multicast copies that reached a barrier
// before its arm slowed a GEMM's loads to about half (docs/lab/gemm.md), and the remote arrivals
// stay off the consumers' path.
//
//   init(arms, consumers, cluster_size)  one thread; then fence_init_cluster() + cluster_sync()
//   releaser:  release_and_arm(s, rank, cluster_size, arm)  (arm(full): arm_tile per plan); s.advance()
//   producer:  producer_acquire(s); issue_tile / issue_tile_multicast into full[s.stage]; s.advance()
//   consumer:  consumer_wait(s) ... consumer_release(s); s.advance()
template <int Stages>
struct ClusterPipeline {
  static_assert(Stages >= 1, "a pipeline has at least one stage");
  using State = PipeStateT<Stages>;
  Barrier full[Stages];
  Barrier consumed[Stages];
  Barrier empty[Stages];

  // arms: arm_tile calls per stage (one arrival each) on full; consumers: arrivals on consumed;
  // cluster_size: releasers (one per CTA) on empty.
  __device__ void init(std::uint32_t arms, std::uint32_t consumers, std::uint32_t cluster_size) {
    for (int s = 0; s < Stages; ++s) {
      device::init(full[s], arms);
      device::init(consumed[s], consumers);
      device::init(empty[s], cluster_size);
    }
  }
  // Producer: every CTA has armed stage s.stage for this round.
  __device__ void producer_acquire(const State& s) { watchdog::wait_parity(empty[s.stage], s.parity, watchdog::bound_ns()); }
  __device__ void consumer_wait(const State& s) { watchdog::wait_parity(full[s.stage], s.parity, watchdog::bound_ns()); }
  __device__ void consumer_release(const State& s) { arrive(consumed[s.stage]); }
  // Releaser, once per round: waits until this CTA's consumers left the stage (the first Stages
  // rounds find it free), arms its full barrier, then frees it in every CTA. The remote arrivals
  // are relaxed: the consumers' reads completed before their release.cta arrivals, which this thread
  // acquired, and the arm is program-ordered before them.
  template <class Arm>
  __device__ void release_and_arm(const State& s, std::uint32_t rank, std::uint32_t cluster_size, Arm&& arm) {
    watchdog::wait_parity(consumed[s.stage], s.parity ^ 1u, watchdog::bound_ns());
    arm(full[s.stage]);
    for (std::uint32_t r = 0; r < cluster_size; ++r) {
      if (r == rank) device::arrive(empty[s.stage]);
      else arrive_remote_relaxed(empty[s.stage], r);
    }
  }
};

}  // namespace tmakit::device

// The watchdog's cluster checks (TMAKIT_WATCHDOG on; nothing compiled otherwise). Before a copy
// into a PEER's barrier is issued (multicast.cuh, dsmem.cuh), the issuing thread reads the peer's
// ledger through distributed shared memory, registers the copy there, and traps with a named
// diagnosis instead of issuing when:
//   issue before arm   the receiver has not armed the phase the copy is for yet
//                      ("tmakit watchdog: diagnosis: issue before arm: ...")
//   wrong fan-in       the copies registered on the receiver's barrier exceed what it armed
//                      ("tmakit watchdog: diagnosis: wrong fan-in: ...")
//   duplicate issue    the same bulk copy (source, destination, phase) is issued a second time,
//                      e.g. by one thread per warp ("tmakit watchdog: diagnosis: duplicate issue: ...")
//   wrong thread count an element-wise DSMEM copy run by a block of another size than its plan's
//                      DsmemSpec::threads ("tmakit watchdog: diagnosis: wrong thread count: ...")
// These checks are exact because the pipeline arms before it releases issuers (ARM-BEFORE-ISSUE):
// at registration time the receiver's arming for the phase is complete and visible.
#pragma once

#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/watchdog.cuh"

namespace tmakit::device::watchdog {

#if TMAKIT_WATCHDOG
namespace detail {
__device__ __noinline__ inline void cluster_report_and_trap(int what, std::uint32_t peer, std::uint32_t bar_addr,
                                                            std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  claim_reporter();
  const std::uint32_t me = cluster_rank();
  printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u), cluster CTA %u: copy into CTA %u's mbarrier at shared "
         "0x%x refused\n",
         blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, me, peer, bar_addr);
  if (what == 0)
    printf("tmakit watchdog: diagnosis: issue before arm: CTA %u armed its barrier %u time(s), the copy is for phase "
           "%u (needs %u arm(s)); every receiver must arm (arrive_expect_tx) and then release the issuer (arrival on "
           "the issuer's empty barrier, or a cluster barrier) before anything is issued into it\n",
           peer, a, b, b + 1);
  else if (what == 1)
    printf("tmakit watchdog: diagnosis: wrong fan-in: CTA %u's barrier armed %u B but the copies into it register %u B "
           "(this one: %u B from CTA %u); a receiver expects the SUM of every issue whose mask includes it (take "
           "expect_bytes from the plan)\n",
           peer, a, b, c, me);
  else if (what == 2)
    printf("tmakit watchdog: diagnosis: duplicate issue: bulk copy shared 0x%x -> CTA %u shared 0x%x (%u B) issued "
           "again for the same phase; exactly one thread per CTA issues each copy (elect one thread, not one per "
           "warp)\n",
           a, peer, b, c);
  else
    printf("tmakit watchdog: diagnosis: wrong thread count: the element-wise plan was made for %u thread(s) (its "
           "receiver counts %u remote arrival(s) per copy) but the block has %u; plan with DsmemSpec::threads = the "
           "block size\n",
           a, a, b);
  __threadfence_system();
  __trap();
}
}  // namespace detail

// Registers a copy of `bytes` into CTA `peer`'s barrier `local_bar` (same offset), for the phase
// after `phase_index` completed ones, and checks arm-before-issue and fan-in.
// `receiver_arms_per_phase` is how many arrive_expect_tx / arrivals the receiver's own arming
// makes per phase (1 for tmakit's pipelines and DSMEM copies). The ledger counts every arrival,
// the remote ones of st.shared::cluster copies (arrive_remote) included, so the check needs the
// phase_index complete phases (init_count arrivals each) plus the receiver's arms for this one.
// (L.last is not written: several issuers register on one barrier concurrently.)
__device__ inline void register_cluster_copy(Barrier& local_bar, std::uint32_t peer, std::uint32_t bytes,
                                             std::uint32_t phase_index, std::uint32_t receiver_arms_per_phase = 1) {
  Barrier* p = map_to_rank(&local_bar, peer);
  Ledger& L = p->ledger;
  const std::uint32_t arrivals = detail::read(&L.arrivals);
  const std::uint32_t per_phase = L.init_count ? L.init_count : 1u;
  const std::uint32_t done = phase_index * per_phase;
  if (arrivals < done + receiver_arms_per_phase) {
    const std::uint32_t phases_armed = arrivals >= done ? phase_index : arrivals / per_phase;
    detail::cluster_report_and_trap(0, peer, smem_address(local_bar), phases_armed, phase_index, 0);
  }
  const std::uint32_t registered = atomicAdd(&L.tx_registered, bytes) + bytes;
  atomicAdd(&L.registrations, 1u);
  const std::uint32_t armed = detail::read(&L.tx_armed);
  if (registered > armed) detail::cluster_report_and_trap(1, peer, smem_address(local_bar), armed, registered, bytes);
}

// Duplicate-issue check for a bulk copy: (source, destination, receiver's arm count) as a key.
__device__ inline void check_single_issue(Barrier& local_bar, std::uint32_t peer, std::uint32_t src_addr,
                                          std::uint32_t dst_addr, std::uint32_t bytes) {
  Barrier* p = map_to_rank(&local_bar, peer);
  const unsigned long long arms = detail::read(&p->ledger.arrivals);
  const unsigned long long key = (arms << 40) ^ (static_cast<unsigned long long>(src_addr) << 20) ^ dst_addr ^
                                 (static_cast<unsigned long long>(peer) << 60);
  const unsigned long long old = atomicExch(&p->ledger.last_issue, key);
  if (old == key) detail::cluster_report_and_trap(2, peer, smem_address(local_bar), src_addr, dst_addr, bytes);
}

// Element-wise DSMEM copies: the plan's remote arrivals (st.shared::cluster) are counted for
// plan_threads threads; a block of another size would over- or under-arrive on the receiver.
__device__ inline void check_block_threads(Barrier& local_bar, std::uint32_t peer, std::uint32_t plan_threads,
                                           std::uint32_t block_threads) {
  if (plan_threads != block_threads)
    detail::cluster_report_and_trap(3, peer, smem_address(local_bar), plan_threads, block_threads, 0);
}

#else
__device__ inline void register_cluster_copy(Barrier&, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t = 1) {}
__device__ inline void check_single_issue(Barrier&, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t) {}
__device__ inline void check_block_threads(Barrier&, std::uint32_t, std::uint32_t, std::uint32_t) {}
#endif

}  // namespace tmakit::device::watchdog

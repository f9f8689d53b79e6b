// The mbarrier object and its operations without the waits (mbarrier.cuh is the header to
// include: it adds wait(), defined with the watchdog in watchdog.cuh). Split so that the watchdog,
// which reads a Barrier's ledger, and the waits, which use the watchdog, include each other in one
// direction only: barrier_ops.cuh <- watchdog.cuh <- mbarrier.cuh.
#pragma once

#include <cooperative_groups.h>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/tensor_map/derived.hpp"

#ifndef TMAKIT_WATCHDOG
#ifdef NDEBUG
#define TMAKIT_WATCHDOG 0
#else
#define TMAKIT_WATCHDOG 1
#endif
#endif

namespace tmakit::device {

// The largest transaction count one expect_tx / arrive_expect_tx may add (tensor_map/derived.hpp).
inline constexpr std::uint32_t kMaxTxBytes = kMaxTransactionBytes;

#if TMAKIT_WATCHDOG
namespace watchdog {
enum class ExpectKind : std::uint32_t { none = 0, tma_load = 1, bulk_copy = 2, note = 3 };
// What a caller said would arrive on a barrier (the last registration is kept).
struct Expectation {
  ExpectKind kind;
  std::uint32_t bytes;
  std::uint32_t box[3];
  std::uint32_t rank;
  const char* dtype;  // a string literal, e.g. "bf16"
  const void* source;  // descriptor or source address
  const char* text;    // ExpectKind::note
};
// Debug ledger: counts since init(), updated by tmakit's wrappers (shared-memory atomics). It holds
// what was ARMED, not what is still pending: the hardware's own counts are not readable on sm_90.
struct Ledger {
  std::uint32_t init_count;      // arrivals per phase
  std::uint32_t arrivals;        // arrivals made through arrive*/arrive_expect_tx*
  std::uint32_t tx_armed;        // bytes armed through expect_tx / arrive_expect_tx
  std::uint32_t tx_registered;   // bytes of copies registered with watchdog::expect_*
  std::uint32_t registrations;
  Expectation last;
  unsigned long long last_issue;  // cluster copies (dsmem.cuh): key of the last bulk copy issued into this barrier
};
}  // namespace watchdog
#endif

// An mbarrier object: 8 bytes in shared memory, 8-byte aligned (plus the ledger when the watchdog
// is compiled in; always pass Barrier&, never assume sizeof(Barrier) == 8).
struct alignas(8) Barrier {
  std::uint64_t word;
#if TMAKIT_WATCHDOG
  watchdog::Ledger ledger;
#endif
};

// The parity of the phase a waiter waits for; flips each time a wait completes.
struct Phase {
  std::uint32_t parity = 0;
  __device__ void advance() { parity ^= 1u; }
};

__device__ inline std::uint64_t* raw(Barrier& b) { return &b.word; }

// The barrier's shared-window (32-bit) address, as printed by the watchdog.
__device__ inline std::uint32_t smem_address(const Barrier& b) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(&b.word));
}

namespace detail {
#if TMAKIT_WATCHDOG
// Ledger updates happen BEFORE the hardware operation they describe (the arrive's release orders
// them before the phase can complete), and the fence orders arming before later registrations.
__device__ inline void ledger_arrive(Barrier& b, std::uint32_t tx) {
  if (tx) atomicAdd(&b.ledger.tx_armed, tx);
  atomicAdd(&b.ledger.arrivals, 1u);
  __threadfence_block();
}
__device__ inline void ledger_tx(Barrier& b, std::uint32_t tx) {
  atomicAdd(&b.ledger.tx_armed, tx);
  __threadfence_block();
}
#else
__device__ inline void ledger_arrive(Barrier&, std::uint32_t) {}
__device__ inline void ledger_tx(Barrier&, std::uint32_t) {}
#endif
// The peer CTA's copy of `b` (same shared offset) in the cluster.
__device__ inline Barrier* peer(Barrier& b, std::uint32_t cta_rank) {
  return cooperative_groups::this_cluster().map_shared_rank(&b, cta_rank);
}
}  // namespace detail

// Initializes the barrier to expect `arrivals` arrivals per phase, and orders the initialization
// before later async-proxy operations of this thread (fence.proxy.async.shared::cta), so copies
// may complete on it. Call from one thread, then make it visible (a __syncthreads() in the CTA;
// for cluster peers, fence_init_cluster() + a cluster barrier) before anyone arrives or issues
// copies on it.
__device__ inline void init(Barrier& b, std::uint32_t arrivals) {
#if TMAKIT_WATCHDOG
  b.ledger = watchdog::Ledger{};
  b.ledger.init_count = arrivals;
#endif
  cuda::ptx::mbarrier_init(raw(b), arrivals);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
}

// Makes barrier initialization visible to the async proxy and to cluster peers.
__device__ inline void fence_init_cluster() { cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster); }

__device__ inline void arrive(Barrier& b) {
  detail::ledger_arrive(b, 0);
  (void)cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, raw(b));
}

// Adds `bytes` (<= kMaxTxBytes) to the transaction count the current phase waits for, and arrives.
__device__ inline void arrive_expect_tx(Barrier& b, std::uint32_t bytes) {
  detail::ledger_arrive(b, bytes);
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             raw(b), bytes);
}

// Adds `bytes` (<= kMaxTxBytes) to the transaction count without arriving.
__device__ inline void expect_tx(Barrier& b, std::uint32_t bytes) {
  detail::ledger_tx(b, bytes);
  cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cta, cuda::ptx::space_shared, raw(b), bytes);
}

// Remote forms: arrive on the barrier at the same shared offset in CTA `cta_rank` of this cluster
// (release at cluster scope). `b` is this CTA's barrier; the peer's must be initialized and made
// visible (fence_init_cluster() + cluster sync) first, and must outlive the arrive.
__device__ inline void arrive_remote(Barrier& b, std::uint32_t cta_rank) {
  Barrier* p = detail::peer(b, cta_rank);
  detail::ledger_arrive(*p, 0);
  cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_cluster, raw(*p));
}
// The same arrival without release semantics (mbarrier.arrive.relaxed.cluster.shared::cluster,
// PTX ISA 8.6): it orders nothing before it. For a signal whose receiver needs no data from the
// arriving thread, e.g. "stage free" when the stage's phase cannot complete before this arrival.
__device__ inline void arrive_remote_relaxed(Barrier& b, std::uint32_t cta_rank) {
  Barrier* p = detail::peer(b, cta_rank);
  detail::ledger_arrive(*p, 0);
  cuda::ptx::mbarrier_arrive(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster, cuda::ptx::space_cluster, raw(*p), 1u);
}
__device__ inline void arrive_expect_tx_remote(Barrier& b, std::uint32_t cta_rank, std::uint32_t bytes) {
  Barrier* p = detail::peer(b, cta_rank);
  detail::ledger_arrive(*p, bytes);
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                             cuda::ptx::space_cluster, raw(*p), bytes);
}

// Adds `bytes` to the transaction count of the peer's barrier (same shared offset, CTA `cta_rank`)
// without arriving (mbarrier.expect_tx.relaxed.cluster.shared::cluster).
__device__ inline void expect_tx_remote(Barrier& b, std::uint32_t cta_rank, std::uint32_t bytes) {
  Barrier* p = detail::peer(b, cta_rank);
  detail::ledger_tx(*p, bytes);
  cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster, cuda::ptx::space_cluster, raw(*p),
                                bytes);
}

// One potentially blocking probe with acquire at CLUSTER scope: for a consumer that reads data
// another CTA wrote with ordinary (generic-proxy) stores and handed over with a release.cluster
// arrive on this barrier (dsmem.cuh's st_cluster path).
__device__ inline bool try_wait_cluster(Barrier& b, std::uint32_t parity) {
  return cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, raw(b), parity);
}

// One non-blocking probe: true once the phase with this parity has completed.
__device__ inline bool test_wait(Barrier& b, std::uint32_t parity) {
  return cuda::ptx::mbarrier_test_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, raw(b), parity);
}

// One potentially blocking probe (the hardware may suspend the thread for a while).
__device__ inline bool try_wait(Barrier& b, std::uint32_t parity) {
  return cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, raw(b), parity);
}


}  // namespace tmakit::device


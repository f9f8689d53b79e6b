// Cross-CTA handoffs: how one CTA hands shared-memory data to another in its cluster, and the
// checks that catch the orderings that look right and are not (CTA-scoped synchronization used
// across CTAs, remote stores followed by an unordered signal, a bulk copy issued by more than one
// thread). A kernel describes each handoff it performs; validate_handoff() names every violation.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/cluster/rules.hpp"

namespace tmakit {

// How the data reaches the consumer's view.
enum class HandoffWrite : std::uint32_t {
  remote_stores = 0,  // st.shared::cluster / generic stores through a mapa'd (map_shared_rank) pointer
  local_stores = 1,   // the producer writes its own smem; the consumer reads it through DSMEM
  st_async = 2,       // st.async ... mbarrier::complete_tx on the consumer's barrier
  bulk_copy = 3,      // cp.async.bulk / TMA multicast completing on the consumer's barrier
};

// What the producer does to signal, and the consumer to wait.
enum class HandoffSync : std::uint32_t {
  syncthreads = 0,             // __syncthreads / bar.sync: CTA scope only
  cluster_barrier = 1,         // barrier.cluster.arrive.release + barrier.cluster.wait.acquire
  cluster_barrier_relaxed = 2, // barrier.cluster.arrive.relaxed + wait (no release ordering)
  mbarrier_arrive_cluster = 3, // remote mbarrier.arrive.release.cluster; consumer waits .acquire.cluster
  mbarrier_arrive_cta = 4,     // mbarrier.arrive.release.cta (or a consumer wait with .cta acquire) across CTAs
  mbarrier_complete_tx = 5,    // the copy itself completes the consumer's barrier (st.async / bulk)
};

struct HandoffSpec {
  HandoffWrite write = HandoffWrite::bulk_copy;
  HandoffSync sync = HandoffSync::mbarrier_complete_tx;
  std::uint32_t producer_cta = 0, consumer_cta = 1;
  std::uint32_t issuing_threads_per_copy = 1;  // bulk_copy: threads that issue the SAME copy
};

TMAKIT_HD constexpr ClusterDiagnostics validate_handoff(const HandoffSpec& h) {
  ClusterDiagnostics d;
  const bool cross = h.producer_cta != h.consumer_cta;
  const std::int32_t c = static_cast<std::int32_t>(h.consumer_cta);
  if (cross && (h.sync == HandoffSync::syncthreads || h.sync == HandoffSync::mbarrier_arrive_cta))
    d.add(ClusterRule::handoff_cta_scope, c, static_cast<std::int64_t>(h.sync), static_cast<std::int64_t>(HandoffSync::cluster_barrier));
  if (cross && h.sync == HandoffSync::cluster_barrier_relaxed &&
      (h.write == HandoffWrite::remote_stores || h.write == HandoffWrite::local_stores))
    d.add(ClusterRule::handoff_no_release, c, static_cast<std::int64_t>(h.sync), static_cast<std::int64_t>(HandoffSync::cluster_barrier));
  // Plain (generic) stores do not complete_tx: nothing would signal the consumer, nothing released.
  if (h.sync == HandoffSync::mbarrier_complete_tx &&
      (h.write == HandoffWrite::remote_stores || h.write == HandoffWrite::local_stores))
    d.add(ClusterRule::handoff_no_release, c, static_cast<std::int64_t>(h.sync), static_cast<std::int64_t>(HandoffSync::mbarrier_arrive_cluster));
  if ((h.write == HandoffWrite::st_async || h.write == HandoffWrite::bulk_copy) &&
      h.sync != HandoffSync::mbarrier_complete_tx && h.sync != HandoffSync::cluster_barrier)
    d.add(ClusterRule::handoff_no_release, c, static_cast<std::int64_t>(h.sync), static_cast<std::int64_t>(HandoffSync::mbarrier_complete_tx));
  if (h.write == HandoffWrite::bulk_copy && h.issuing_threads_per_copy != 1)
    d.add(ClusterRule::handoff_issuers, c, h.issuing_threads_per_copy, 1);
  return d;
}

}  // namespace tmakit

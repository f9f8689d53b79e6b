// One pipeline stage of a cluster, all its copies together: the TMA loads and multicasts of every
// operand (MulticastPlan, cluster/multicast.hpp) and the DSMEM copies from one CTA's shared memory
// into a peer's (DsmemPlan, cluster/dsmem_copy.hpp) that complete on the same "full" barrier of
// each receiving CTA. Each plan is right alone; a kernel arms the SUM of what lands in a CTA. This
// answers, per CTA: the bytes to arm (stage_role()'s sum over the multicast plans plus the DSMEM
// copies' tx bytes), the remote arrivals its barrier counts (element-wise DSMEM stores), who
// delivers into it and whom it issues into (masks, bit r = CTA rank r), and the CTAs that issue.
// A sum past the mbarrier's transaction count is expect.tx_limit.
//
// CTA pairs (cta_group::2, sm_100-class targets). Per the PTX ISA: two CTAs whose %cluster_ctarank
// differs in bit 0 only form a CTA pair (bit 0 clear: the even CTA); a cp.async.bulk.tensor with
// .cta_group::2 may complete_tx on an mbarrier in the shared memory of the destination CTA or of its
// peer, and with .multicast::cluster the signal for each destination goes to that destination or
// its peer by the parity of the CTA that holds `mbar`; .cta_group needs sm_100a / sm_100f or
// sm_110a / sm_110f (of tmakit's targets, sm_100). A 2-CTA kernel points the copies of both CTAs of
// a pair at the even CTA's barrier (the pair's leader), so that barrier counts the TMA bytes landing
// in both CTAs: 2 x the bytes into one CTA, whatever the cluster's size. This is what the stage
// plans with cta_group::2: TMA bytes landing in CTA r complete on the barrier of CTA r & ~1. DSMEM
// copies keep completing on their receiver's own barrier (their plans signal the receiver's
// barrier; .cta_group qualifies the tensor copy). Blackwell is not run here: this follows the PTX
// ISA, unverified on hardware.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/cluster/mask_text.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/core/arch.hpp"

namespace tmakit {

// A DSMEM copy of the stage: `plan` moves bytes from CTA `from`'s shared memory into CTA `to`'s.
struct StageDsmemCopy {
  DsmemPlan plan;
  std::uint32_t from = 0, to = 0;
};

// Which CTAs a TMA copy's completion is counted on: each CTA's own barrier (cta_group::1, every
// target), or the barrier of its pair's even CTA (cta_group::2, sm_100-class targets).
enum class CtaGroup : std::uint32_t { one = 1, two = 2 };

struct StageOptions {
  CtaGroup cta_group = CtaGroup::one;
  Arch arch = Arch::sm_90;  // the target: cta_group::2 needs sm_100 (cta_group.arch otherwise)
};

struct StageCta {
  std::uint32_t expect_bytes = 0;     // arm this CTA's full barrier with this per stage (every copy completing on it)
  std::uint32_t tma_bytes = 0;        // of which TMA loads and multicasts complete on it (cta_group::2: the pair's
                                      // on its even CTA, none on its odd CTA)
  std::uint32_t dsmem_bytes = 0;      // of which DSMEM copies (bulk, st.async) deliver
  std::uint32_t tma_landed_bytes = 0; // TMA bytes landing in this CTA's shared memory, whichever barrier counts them
  std::uint32_t tma_barrier = 0;      // the CTA whose barrier counts them: this one, or (cta_group::2) r & ~1
  std::uint32_t remote_arrivals = 0;  // arrivals DSMEM st.shared::cluster copies add (init count 1 + these)
  std::uint16_t senders = 0;          // CTAs whose copies land here
  std::uint16_t receivers = 0;        // CTAs this CTA's copies land in
  bool issues = false;                // this CTA issues at least one copy of the stage
};

struct ClusterStage {
  std::uint32_t ctas = 0;
  StageOptions options;
  StageCta cta[kMaxClusterSize];
  // expect.tx_limit per barrier; DSMEM copies naming a CTA outside the cluster (mask.outside_cluster);
  // cta_group::2 for a target without CTA pairs (cta_group.arch) or in an odd cluster (cta_group.pair)
  ClusterDiagnostics diagnostics;
  bool ok() const { return diagnostics.ok(); }
};

// The stage's copies summed per barrier. With cta_group::2 in an odd cluster, the last CTA (no peer)
// keeps its TMA bytes on its own barrier, and the stage is refused (cta_group.pair).
ClusterStage plan_cluster_stage(std::uint32_t ctas, const MulticastPlan* plans, int plan_count,
                                const StageDsmemCopy* copies, int copy_count, const StageOptions& options = {});

// One line per CTA: bytes to arm (with the TMA / DSMEM parts), senders, receivers, issues; with
// cta_group::2, whose TMA bytes the barrier counts (its pair's) or where its own are counted.
std::string describe_cluster_stage(const ClusterStage& s);
// The same per CTA as JSON objects (the CLI's "ctas" and Python's ClusterStage.ctas): rank,
// expect_bytes, tma_bytes, dsmem_bytes, tma_landed_bytes, tma_barrier, remote_arrivals, init_count,
// senders and receivers (masks and cta_mask_text), issues.
nlohmann::ordered_json cluster_stage_ctas_json(const ClusterStage& s);

// The words a caller types for a multicast copy (the CLI's cluster-stage and Python's multicast and
// cluster_stage read them the same way): `share`, the cluster dimensions whose CTAs share the tile
// ("x", "y", "z" or several, e.g. "xy", each once); `mode`, "sliced" (each sharer issues a slice,
// the stage's default and what `tmakit plan --cluster` plans) or "leader_broadcast" (one CTA
// issues the whole tile to all). False with `why` naming the text and what is expected.
bool parse_multicast_share(std::string_view text, bool (&share)[3], std::string& why);
bool parse_multicast_mode(std::string_view text, MulticastMode& mode, std::string& why);

}  // namespace tmakit

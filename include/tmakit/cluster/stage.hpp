// One pipeline stage of a cluster, all its copies together: the TMA loads and multicasts of every
// operand (MulticastPlan, cluster/multicast.hpp) and the DSMEM copies from one CTA's shared memory
// into a peer's (DsmemPlan, cluster/dsmem_copy.hpp) that complete on the same "full" barrier of
// each receiving CTA. Each plan is right alone; a kernel arms the SUM of what lands in a CTA. This
// answers, per CTA: the bytes to arm (stage_role()'s sum over the multicast plans plus the DSMEM
// copies' tx bytes), the remote arrivals its barrier counts (element-wise DSMEM stores), who
// delivers into it and whom it issues into (masks, bit r = CTA rank r), and the CTAs that issue.
// A sum past the mbarrier's transaction count is expect.tx_limit.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/cluster/multicast.hpp"

namespace tmakit {

// A DSMEM copy of the stage: `plan` moves bytes from CTA `from`'s shared memory into CTA `to`'s.
struct StageDsmemCopy {
  DsmemPlan plan;
  std::uint32_t from = 0, to = 0;
};

struct StageCta {
  std::uint32_t expect_bytes = 0;     // arm this CTA's full barrier with this per stage (all copies into it)
  std::uint32_t tma_bytes = 0;        // of which TMA loads and multicasts deliver
  std::uint32_t dsmem_bytes = 0;      // of which DSMEM copies (bulk, st.async) deliver
  std::uint32_t remote_arrivals = 0;  // arrivals DSMEM st.shared::cluster copies add (init count 1 + these)
  std::uint16_t senders = 0;          // CTAs whose copies land here
  std::uint16_t receivers = 0;        // CTAs this CTA's copies land in
  bool issues = false;                // this CTA issues at least one copy of the stage
};

struct ClusterStage {
  std::uint32_t ctas = 0;
  StageCta cta[kMaxClusterSize];
  ClusterDiagnostics diagnostics;  // expect.tx_limit per CTA; dsmem copies naming a CTA outside the cluster
  bool ok() const { return diagnostics.ok(); }
};

ClusterStage plan_cluster_stage(std::uint32_t ctas, const MulticastPlan* plans, int plan_count,
                                const StageDsmemCopy* copies, int copy_count);

// A CTA mask as a reader checks it: "0b10 (0x2: CTA 1)", never a bare decimal; `ctas` digits.
std::string cta_mask_text(std::uint16_t mask, std::uint32_t ctas);

// One line per CTA: bytes to arm (with the TMA / DSMEM parts), senders, receivers, issues.
std::string describe_cluster_stage(const ClusterStage& s);
// The same per CTA as JSON objects (the CLI's "ctas" and Python's ClusterStage.ctas): rank,
// expect_bytes, tma_bytes, dsmem_bytes, remote_arrivals, init_count, senders and receivers (masks and
// cta_mask_text), issues.
nlohmann::ordered_json cluster_stage_ctas_json(const ClusterStage& s);

// The words a caller types for a multicast copy (the CLI's cluster-stage and Python's multicast and
// cluster_stage read them the same way): `share`, the cluster dimensions whose CTAs share the tile
// ("x", "y", "z" or several, e.g. "xy", each once); `mode`, "sliced" (each sharer issues a slice,
// the stage's default and what `tmakit plan --cluster` plans) or "leader_broadcast" (one CTA
// issues the whole tile to all). False with `why` naming the text and what is expected.
bool parse_multicast_share(std::string_view text, bool (&share)[3], std::string& why);
bool parse_multicast_mode(std::string_view text, MulticastMode& mode, std::string& why);

}  // namespace tmakit

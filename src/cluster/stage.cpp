// One cluster stage's copies summed per CTA (see tmakit/cluster/stage.hpp).
#include "tmakit/cluster/stage.hpp"

namespace tmakit {

namespace {

// The CTA whose barrier counts the TMA bytes landing in CTA r: r itself, or with cta_group::2 the
// even CTA of its pair (r & ~1), when the pair is within the cluster.
std::uint32_t tma_barrier_of(std::uint32_t r, std::uint32_t ctas, CtaGroup group) {
  return group == CtaGroup::two && (r | 1u) < ctas ? (r & ~1u) : r;
}

void check_cta_group(ClusterStage& s) {
  if (s.options.cta_group != CtaGroup::two) return;
  if (s.options.arch != Arch::sm_100)
    s.diagnostics.add(ClusterRule::cta_group_arch, -1, static_cast<std::int64_t>(s.options.arch), 100);
  if (s.ctas % 2 != 0)
    s.diagnostics.add(ClusterRule::cta_group_pair, -1, s.ctas, s.ctas - 1);
}

}  // namespace

ClusterStage plan_cluster_stage(std::uint32_t ctas, const MulticastPlan* plans, int plan_count,
                                const StageDsmemCopy* copies, int copy_count, const StageOptions& options) {
  ClusterStage s;
  s.ctas = ctas > kMaxClusterSize ? kMaxClusterSize : ctas;
  s.options = options;
  check_cta_group(s);
  std::uint64_t wide[kMaxClusterSize] = {};  // per barrier, unclamped: the sum is checked before it is stored
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageRole role = stage_role(plans, plan_count, r);  // the TMA part: the multicast plans' sum
    StageCta& c = s.cta[r];
    c.tma_landed_bytes = role.expect_bytes;
    c.tma_barrier = tma_barrier_of(r, s.ctas, options.cta_group);
    c.senders = role.senders;
    c.receivers = role.receivers;
    for (int i = 0; i < plan_count; ++i) c.issues = c.issues || plans[i].cta[r].issues;
    wide[c.tma_barrier] += role.expect_bytes;
  }
  for (std::uint32_t r = 0; r < s.ctas; ++r)
    s.cta[r].tma_bytes = static_cast<std::uint32_t>(wide[r] > 0xffffffffu ? 0xffffffffu : wide[r]);
  for (int i = 0; i < copy_count; ++i) {
    const StageDsmemCopy& x = copies[i];
    if (x.from >= s.ctas || x.to >= s.ctas) {  // blamed on the issuing CTA where it is one of the cluster's
      s.diagnostics.add(ClusterRule::mask_outside_cluster, x.from >= s.ctas ? -1 : static_cast<std::int32_t>(x.from),
                        x.from >= s.ctas ? x.from : x.to, s.ctas);
      continue;
    }
    StageCta& to = s.cta[x.to];
    to.dsmem_bytes += x.plan.tx_bytes;
    wide[x.to] += x.plan.tx_bytes;
    to.remote_arrivals += x.plan.remote_arrivals;
    to.senders = static_cast<std::uint16_t>(to.senders | (1u << x.from));
    s.cta[x.from].receivers = static_cast<std::uint16_t>(s.cta[x.from].receivers | (1u << x.to));
    s.cta[x.from].issues = true;
  }
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    s.cta[r].expect_bytes = static_cast<std::uint32_t>(wide[r] > 0xffffffffu ? 0xffffffffu : wide[r]);
    if (wide[r] > kMaxTransactionBytes)
      s.diagnostics.add(ClusterRule::tx_limit, static_cast<std::int32_t>(r), static_cast<std::int64_t>(wide[r]),
                        kMaxTransactionBytes);
  }
  return s;
}

nlohmann::ordered_json cluster_stage_ctas_json(const ClusterStage& s) {
  nlohmann::ordered_json ctas = nlohmann::ordered_json::array();
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageCta& c = s.cta[r];
    ctas.push_back({{"rank", r},
                    {"expect_bytes", c.expect_bytes},
                    {"tma_bytes", c.tma_bytes},
                    {"dsmem_bytes", c.dsmem_bytes},
                    {"tma_landed_bytes", c.tma_landed_bytes},
                    {"tma_barrier", c.tma_barrier},
                    {"remote_arrivals", c.remote_arrivals},
                    {"init_count", 1 + c.remote_arrivals},
                    {"senders", c.senders},
                    {"senders_text", cta_mask_text(c.senders, s.ctas)},
                    {"receivers", c.receivers},
                    {"receivers_text", cta_mask_text(c.receivers, s.ctas)},
                    {"issues", c.issues}});
  }
  return ctas;
}

bool parse_multicast_share(std::string_view text, bool (&share)[3], std::string& why) {
  bool seen[3] = {false, false, false};
  for (const char c : text) {
    if (c < 'x' || c > 'z' || seen[c - 'x']) {
      why = "share '" + std::string(text) +
            "': the cluster dimensions whose CTAs share the tile, each cluster dimension once (x, y, z or several, "
            "e.g. xy)";
      return false;
    }
    seen[c - 'x'] = true;
  }
  if (text.empty()) {
    why = "share '': name at least one cluster dimension (x, y or z)";
    return false;
  }
  for (int d = 0; d < 3; ++d) share[d] = seen[d];
  return true;
}

bool parse_multicast_mode(std::string_view text, MulticastMode& mode, std::string& why) {
  if (text == "sliced") mode = MulticastMode::sliced;
  else if (text == "leader_broadcast") mode = MulticastMode::leader_broadcast;
  else {
    why = "mode '" + std::string(text) + "': expected 'sliced' or 'leader_broadcast'";
    return false;
  }
  return true;
}

namespace {

// With cta_group::2: the TMA bytes a pair's even CTA counts ("16384 into CTA 0 + 16384 into CTA 1,
// its pair"), or where an odd CTA's are counted.
std::string pair_words(const ClusterStage& s, std::uint32_t r) {
  const StageCta& c = s.cta[r];
  if (c.tma_barrier != r)
    return "; TMA: " + std::to_string(c.tma_landed_bytes) + " into CTA " + std::to_string(r) + ", counted on CTA " +
           std::to_string(c.tma_barrier) + "'s barrier (cta_group::2)";
  if ((r | 1u) >= s.ctas) return "; TMA: no peer (cta_group::2 needs an even cluster)";
  return "; TMA: " + std::to_string(c.tma_landed_bytes) + " into CTA " + std::to_string(r) + " + " +
         std::to_string(s.cta[r | 1u].tma_landed_bytes) + " into CTA " + std::to_string(r | 1u) +
         ", its pair (cta_group::2)";
}

}  // namespace

std::string describe_cluster_stage(const ClusterStage& s) {
  std::string out;
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageCta& c = s.cta[r];
    out += "CTA " + std::to_string(r) + ": arm " + std::to_string(c.expect_bytes) + " bytes on its full barrier (TMA " +
           std::to_string(c.tma_bytes) + " + DSMEM " + std::to_string(c.dsmem_bytes) + ")";
    if (c.remote_arrivals) out += ", init count 1 + " + std::to_string(c.remote_arrivals) + " remote arrivals";
    if (s.options.cta_group == CtaGroup::two) out += pair_words(s, r);
    out += "; copies from " + cta_mask_text(c.senders, s.ctas) + "; issues " +
           (c.issues ? "into " + cta_mask_text(c.receivers, s.ctas) : std::string("nothing")) + "\n";
  }
  return out;
}

}  // namespace tmakit

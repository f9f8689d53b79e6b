// One cluster stage's copies summed per CTA (see tmakit/cluster/stage.hpp).
#include "tmakit/cluster/stage.hpp"

#include <cstdio>

namespace tmakit {

ClusterStage plan_cluster_stage(std::uint32_t ctas, const MulticastPlan* plans, int plan_count,
                                const StageDsmemCopy* copies, int copy_count) {
  ClusterStage s;
  s.ctas = ctas > kMaxClusterSize ? kMaxClusterSize : ctas;
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageRole role = stage_role(plans, plan_count, r);  // the TMA part: the multicast plans' sum
    StageCta& c = s.cta[r];
    c.tma_bytes = role.expect_bytes;
    c.senders = role.senders;
    c.receivers = role.receivers;
    for (int i = 0; i < plan_count; ++i) c.issues = c.issues || plans[i].cta[r].issues;
  }
  std::uint64_t wide[kMaxClusterSize] = {};
  for (std::uint32_t r = 0; r < s.ctas; ++r) wide[r] = s.cta[r].tma_bytes;
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

std::string cta_mask_text(std::uint16_t mask, std::uint32_t ctas) {
  std::string bits;
  const std::uint32_t n = ctas < 1 ? 1 : (ctas > 16 ? 16 : ctas);
  for (std::uint32_t i = n; i-- > 0;) bits += (mask >> i & 1u) ? '1' : '0';
  char hex[8];
  std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(mask));
  std::string list;
  for (std::uint32_t r = 0; r < 16; ++r)
    if (mask >> r & 1u) list += (list.empty() ? "" : ", ") + std::to_string(r);
  const bool one = mask != 0 && (mask & (mask - 1)) == 0;
  return "0b" + bits + " (0x" + hex + ": " + (mask == 0 ? std::string("no CTA") : (one ? "CTA " : "CTAs ") + list) + ")";
}

nlohmann::ordered_json cluster_stage_ctas_json(const ClusterStage& s) {
  nlohmann::ordered_json ctas = nlohmann::ordered_json::array();
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageCta& c = s.cta[r];
    ctas.push_back({{"rank", r},
                    {"expect_bytes", c.expect_bytes},
                    {"tma_bytes", c.tma_bytes},
                    {"dsmem_bytes", c.dsmem_bytes},
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

std::string describe_cluster_stage(const ClusterStage& s) {
  std::string out;
  for (std::uint32_t r = 0; r < s.ctas; ++r) {
    const StageCta& c = s.cta[r];
    out += "CTA " + std::to_string(r) + ": arm " + std::to_string(c.expect_bytes) + " bytes on its full barrier (TMA " +
           std::to_string(c.tma_bytes) + " + DSMEM " + std::to_string(c.dsmem_bytes) + ")";
    if (c.remote_arrivals) out += ", init count 1 + " + std::to_string(c.remote_arrivals) + " remote arrivals";
    out += "; copies from " + cta_mask_text(c.senders, s.ctas) + "; issues " +
           (c.issues ? "into " + cta_mask_text(c.receivers, s.ctas) : std::string("nothing")) + "\n";
  }
  return out;
}

}  // namespace tmakit

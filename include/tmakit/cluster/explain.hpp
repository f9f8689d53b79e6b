// Words for cluster diagnostics (host only): "error [expect.fan_in] CTA 1: ... fix: ...".
#pragma once

#include <string>

#include "tmakit/cluster/rules.hpp"

namespace tmakit {

inline std::string explain(const ClusterViolation& v) {
  std::string s = cluster_rule_is_note(v.rule) ? "note [" : "error [";
  s += cluster_rule_id(v.rule);
  s += "]";
  if (v.cta >= 0) s += " CTA " + std::to_string(v.cta);
  s += ": ";
  const std::string val = std::to_string(v.value), exp = std::to_string(v.expected);
  switch (v.rule) {
    case ClusterRule::cluster_size: s += "cluster of " + val + " CTAs (1.." + exp + ")"; break;
    case ClusterRule::cluster_nonportable: s += val + " CTAs is above the portable " + exp; break;
    case ClusterRule::mask_outside_cluster: s += "mask names CTA " + val + ", cluster has " + exp; break;
    case ClusterRule::mask_inactive_cta: s += "mask names inactive CTA " + val; break;
    case ClusterRule::mask_empty: s += "issue with an empty CTA mask"; break;
    case ClusterRule::fan_in: s += "barrier expects " + val + " B but the issues into it deliver " + exp + " B"; break;
    case ClusterRule::tx_limit: s += val + " B expected in one phase, limit " + exp + " B"; break;
    case ClusterRule::slice_divisible: s += "box extent " + val + " does not split into " + exp + " slices"; break;
    case ClusterRule::slice_outermost: s += "slice dim " + val + ", outermost non-unit box dim " + exp; break;
    case ClusterRule::slice_alignment: s += "slice at smem offset " + val + " B, needs a multiple of " + exp + " B"; break;
    case ClusterRule::share_dims: s += "no sharing dimension"; break;
    case ClusterRule::box_params: s += "box parameter " + val; break;
    case ClusterRule::straddle: s += "tile of group " + val + " shared with a CTA of group " + exp + ": unicast for every CTA"; break;
    case ClusterRule::dsmem_element_count: s += "destination holds " + val + " elements, source " + exp; break;
    case ClusterRule::dsmem_elem_bytes: s += "element of " + val + " B"; break;
    case ClusterRule::dsmem_rank: s += "rank / extent " + val; break;
    case ClusterRule::dsmem_not_injective: s += "destination byte " + val + " written twice (next free " + exp + ")"; break;
    case ClusterRule::dsmem_too_large: s += val + " B, limit " + exp + " B"; break;
    case ClusterRule::handoff_cta_scope: s += "CTA-scoped synchronization hands data to another CTA"; break;
    case ClusterRule::handoff_no_release: s += "signal without cluster-scope release after the writes"; break;
    case ClusterRule::handoff_issuers: s += val + " threads issue the same bulk copy (exactly " + exp + ")"; break;
    case ClusterRule::dsmem_bulk_alignment: s += "bulk refused: a piece of " + val + " is not 16 B aligned/sized"; break;
    case ClusterRule::dsmem_swizzle_elem_bytes: s += "element of " + val + " B under a swizzle with " + exp + " B chunks"; break;
  }
  s += "; fix: ";
  s += cluster_rule_fix(v.rule);
  return s;
}

}  // namespace tmakit

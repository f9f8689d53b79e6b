// A kernel's armed bytes against a cluster stage's sums (see tmakit/cluster/stage_check.hpp).
#include <string>

#include "tmakit/cluster/stage_check.hpp"

namespace tmakit {

namespace {

// What the barrier does when `armed` bytes are armed and `want` complete on it.
std::string outcome(std::uint64_t armed, std::uint64_t want) {
  if (armed > want)
    return "the barrier waits for " + std::to_string(armed - want) +
           " bytes that never come: it never completes (the hang)";
  return "the phase completes after " + std::to_string(armed) + " bytes while " + std::to_string(want - armed) +
         " more are still arriving: the consumer can read the stage before it is there, and the late bytes count "
         "against the next phase";
}

// The mistake the numbers show when they show one ("" otherwise): `armed` on CTA r's barrier.
std::string mistake(const ClusterStage& s, std::uint32_t r, std::uint64_t armed) {
  const StageCta& c = s.cta[r];
  const std::uint64_t n = s.ctas, own = c.tma_landed_bytes, dsmem = c.dsmem_bytes;
  const std::string R = std::to_string(r);
  if (s.options.cta_group == CtaGroup::two) {
    if (c.tma_barrier != r) {  // an odd CTA: its TMA bytes complete on its pair's even CTA
      if (own > 0 && armed == own + dsmem)
        return std::to_string(armed) + " B counts the " + std::to_string(own) + " TMA bytes into CTA " + R +
               ", which with cta_group::2 complete on CTA " + std::to_string(c.tma_barrier) +
               "'s barrier (its pair's even CTA), not on this one";
      return "";
    }
    if ((r | 1u) < s.ctas) {  // a pair's even CTA
      const std::uint64_t peer = s.cta[r | 1u].tma_landed_bytes, P = r | 1u;
      if (n > 2 && own > 0 && own == peer && armed == n * own + dsmem)
        return std::to_string(armed) + " B = " + std::to_string(n) + " x " + std::to_string(own) +
               ", the cluster's " + std::to_string(n) + " CTAs x the TMA bytes into one CTA; with cta_group::2 a "
               "pair's even CTA counts the TMA bytes of its pair only: " + std::to_string(own) + " into CTA " + R +
               " + " + std::to_string(peer) + " into CTA " + std::to_string(P) + " = 2 x " + std::to_string(own);
      if (peer > 0 && armed == own + dsmem)
        return std::to_string(armed) + " B counts the TMA bytes into CTA " + R + " alone; with cta_group::2 the " +
               std::to_string(peer) + " TMA bytes into CTA " + std::to_string(P) + ", its pair, complete on this " +
               "barrier too";
    }
    return "";
  }
  if (n > 1 && c.expect_bytes > 0 && armed == n * c.expect_bytes)
    return std::to_string(armed) + " B = " + std::to_string(n) + " x " + std::to_string(c.expect_bytes) +
           ", the cluster's " + std::to_string(n) + " CTAs x the bytes into this CTA: each CTA's barrier counts "
           "the bytes that land in it only";
  return "";
}

}  // namespace

std::vector<StageFinding> check_kernel_armed(const ClusterStage& s, const KernelArmed* armed, int count) {
  std::vector<StageFinding> out;
  for (int i = 0; i < count; ++i) {
    const KernelArmed& a = armed[i];
    if (a.cta >= s.ctas) {
      out.push_back({ClusterRule::armed_mismatch, -1,
                     "armed " + std::to_string(a.bytes) + " B on CTA " + std::to_string(a.cta) +
                         ", past the last rank of the cluster's " + std::to_string(s.ctas) + " CTAs"});
      continue;
    }
    const std::uint64_t want = s.cta[a.cta].expect_bytes;
    if (a.bytes == want) continue;
    std::string d = "armed " + std::to_string(a.bytes) + " B, the stage completes " + std::to_string(want) +
                    " B on this barrier";
    if (const std::string why = mistake(s, a.cta, a.bytes); !why.empty()) d += ": " + why;
    d += ": " + outcome(a.bytes, want);
    out.push_back({ClusterRule::armed_mismatch, static_cast<std::int32_t>(a.cta), d});
  }
  return out;
}

}  // namespace tmakit

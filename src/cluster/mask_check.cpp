// A kernel's ctaMasks against one operand's multicast plan, and the `mask=` text that gives them
// (see tmakit/cluster/stage_check.hpp).
#include <string>

#include "tmakit/cluster/stage_check.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit {

namespace {

// "the cluster's 2 CTAs (ranks 0..1)"
std::string cluster_words(std::uint32_t n) {
  return "the cluster's " + std::to_string(n) + " CTA" + (n == 1 ? "" : "s") + " (rank" +
         (n == 1 ? " 0)" : "s 0.." + std::to_string(n - 1) + ")");
}

// What the plan's issue of CTA r delivers to: its mask, or its own bit for a plain (unicast) load.
std::uint16_t plan_mask(const MulticastPlan& p, std::uint32_t r) {
  const MulticastIssue& i = p.cta[r].issue;
  return i.multicast ? i.mask : static_cast<std::uint16_t>(1u << r);
}

std::uint16_t issuers(const MulticastPlan& p) {
  std::uint32_t m = 0;
  for (std::uint32_t r = 0; r < p.spec.cluster.size() && r < kMaxClusterSize; ++r)
    if (p.cta[r].issues) m |= 1u << r;
  return static_cast<std::uint16_t>(m);
}

StageFinding outside(std::int32_t cta, std::uint16_t mask, std::uint32_t n) {
  const std::uint16_t past = static_cast<std::uint16_t>(mask & ~ClusterShape{n, 1, 1}.full_mask());
  return {ClusterRule::multicast_mask_outside_cluster, cta,
          "ctaMask " + cta_mask_text(mask, n) + (cta < 0 ? " of every issuing CTA" : "") + " names " +
              cta_list_text(past) + ", past the last rank of " +
              cluster_words(n) + ": the copy is sent to the shared memory of CTAs that do not exist"};
}

// The mask of CTA r (within the cluster) against the plan's.
void compare(const MulticastPlan& p, std::uint32_t r, std::uint16_t mask, std::vector<StageFinding>& out) {
  const std::uint32_t n = p.spec.cluster.size();
  const std::int32_t cta = static_cast<std::int32_t>(r);
  if (!p.cta[r].issues) {
    out.push_back({ClusterRule::multicast_mask_mismatch, cta,
                   "CTA " + std::to_string(r) + " issues no copy of this operand in the plan (its issuers: " +
                       cta_mask_text(issuers(p), n) + "): a copy with ctaMask " + cta_mask_text(mask, n) +
                       " delivers bytes that no barrier is armed for, over buffers that hold the tile"});
    return;
  }
  const std::uint16_t want = plan_mask(p, r);
  if (mask == want) return;
  const std::uint16_t missing = static_cast<std::uint16_t>(want & ~mask), extra = static_cast<std::uint16_t>(mask & ~want);
  std::string d = "ctaMask " + cta_mask_text(mask, n) + ", the plan's " + cta_mask_text(want, n);
  const bool one_missing = popcount16(missing) == 1, one_extra = popcount16(extra) == 1;
  if (missing)
    d += ": missing " + cta_list_text(missing) + (one_missing ? ", which shares the tile: it never receives this copy, "
                                                                "and its barrier, armed with the plan's bytes, never "
                                                                "completes (the hang)"
                                                              : ", which share the tile: they never receive this copy, "
                                                                "and their barriers, armed with the plan's bytes, never "
                                                                "complete (the hang)");
  if (extra)
    d += std::string(missing ? "; " : ": ") + "extra " + cta_list_text(extra) +
         (one_extra ? ", which does not share the tile: it receives bytes its barrier is not armed for, over the "
                      "buffer of its own tile"
                    : ", which do not share the tile: they receive bytes their barriers are not armed for, over the "
                      "buffers of their own tiles");
  out.push_back({ClusterRule::multicast_mask_mismatch, cta, d});
}

}  // namespace

std::vector<StageFinding> check_kernel_masks(const MulticastPlan& plan, const KernelMask* masks, int count) {
  std::vector<StageFinding> out;
  const std::uint32_t n = plan.spec.cluster.size() > kMaxClusterSize ? kMaxClusterSize : plan.spec.cluster.size();
  const std::uint16_t full = ClusterShape{n, 1, 1}.full_mask();
  for (int i = 0; i < count; ++i) {
    const KernelMask& k = masks[i];
    if (k.cta >= static_cast<std::int32_t>(n)) {
      out.push_back({ClusterRule::multicast_mask_outside_cluster, -1,
                     "a ctaMask given for CTA " + std::to_string(k.cta) + ", past the last rank of " + cluster_words(n)});
      continue;
    }
    if (k.mask & ~full) out.push_back(outside(k.cta, k.mask, n));
    const std::uint16_t inside = static_cast<std::uint16_t>(k.mask & full);  // the bits past it are named above
    if (k.cta >= 0) {
      compare(plan, static_cast<std::uint32_t>(k.cta), inside, out);
      continue;
    }
    for (std::uint32_t r = 0; r < n; ++r)
      if (plan.cta[r].issues) compare(plan, r, inside, out);
  }
  return out;
}

bool parse_kernel_masks(std::string_view text, std::vector<KernelMask>& out, std::string& why) {
  std::vector<std::string_view> items;  // split at the commas outside a [list]
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '[') ++depth;
    if (i < text.size() && text[i] == ']') --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      items.push_back(trim_space(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::vector<KernelMask> masks;
  for (const std::string_view item : items) {
    const std::size_t colon = item.find(':');
    KernelMask k;
    if (colon == std::string_view::npos) {
      if (items.size() > 1) {
        why = "mask " + quote_user_text(text) + ": give one ctaMask for every issuing CTA, or R:MASK for each CTA";
        return false;
      }
    } else {
      std::uint64_t r = 0;
      const std::string_view rank = trim_space(item.substr(0, colon));
      if (rank.empty() || rank.find_first_not_of("0123456789") != std::string_view::npos || !parse_u64(rank, r) || r > 15) {
        why = "mask " + quote_user_text(text) + ": " + quote_user_text(rank) + " is not a CTA rank (0..15) before ':'";
        return false;
      }
      k.cta = static_cast<std::int32_t>(r);
      for (const KernelMask& m : masks)
        if (m.cta == k.cta) {
          why = "mask " + quote_user_text(text) + ": CTA " + std::to_string(r) + " given twice";
          return false;
        }
    }
    if (!parse_cta_mask(colon == std::string_view::npos ? item : item.substr(colon + 1), k.mask, why)) return false;
    masks.push_back(k);
  }
  out.insert(out.end(), masks.begin(), masks.end());
  return true;
}

}  // namespace tmakit

// The rules cluster plans (multicast, DSMEM copies, cross-CTA handoffs) must satisfy, each with a
// stable id, a message template and a concrete fix. Plan validation returns EVERY violation at
// once (ClusterDiagnostics: core's ViolationList of ClusterViolation), never asserts.
//
// Ids are stable: tests, docs/cluster.md and users' scripts match on them. Add new rules at the
// end of the enum; never renumber or rename.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/tensor_map/derived.hpp"

namespace tmakit {

enum class ClusterRule : std::uint32_t {
  cluster_size = 0,        // cluster.size: 1..16 CTAs, every extent >= 1
  cluster_nonportable,     // cluster.nonportable (note): > 8 CTAs needs cudaFuncAttributeNonPortableClusterSizeAllowed
  mask_outside_cluster,    // mask.outside_cluster: a mask bit names a CTA rank >= cluster size
  mask_inactive_cta,       // mask.inactive_cta: a mask bit names a CTA that takes no part (active mask)
  mask_empty,              // mask.empty: an issue delivers to nobody
  fan_in,                  // expect.fan_in: a receiver's expected bytes differ from what the issues into it deliver
  tx_limit,                // expect.tx_limit: expected bytes > 2^20 - 1 (one mbarrier phase's tx range)
  slice_divisible,         // slice.divisible: box[slice_dim] (in element-stride steps) not divisible by the slice count, or the slices' bytes do not add up to the tile's
  slice_outermost,         // slice.outermost: the sliced box dim is not the outermost non-unit one (slices not contiguous)
  slice_alignment,         // slice.alignment: a slice's smem offset breaks the TMA destination alignment (128 B / swizzle repeat)
  share_dims,              // share.dims: no sharing dimension given, or sharing along a dim of extent 1 only
  box_params,              // box.params: the box is not a tiled map of rank 1..5 with non-zero dims
  straddle,                // group.straddle (note): the cluster straddles a group boundary; unicast fallback
  dsmem_element_count,     // dsmem.element_count: source and destination hold different numbers of elements
  dsmem_elem_bytes,        // dsmem.elem_bytes: element size not 1, 2, 4, 8 or 16
  dsmem_rank,              // dsmem.rank: region rank not 1..4, or a zero extent
  dsmem_not_injective,     // dsmem.not_injective: the destination layout writes one byte twice
  dsmem_too_large,         // dsmem.too_large: more than 2^20 - 1 bytes (one phase) or 2^20 elements
  handoff_cta_scope,       // handoff.cta_scope: cross-CTA data handed over with CTA-scoped synchronization
  handoff_no_release,      // handoff.no_release: remote writes followed by a relaxed/unordered signal (or by none:
                           //   plain stores handed over "with complete_tx", which only async copies perform)
  handoff_issuers,         // handoff.issuers: a bulk copy issued by more (or fewer) than exactly one thread
  dsmem_bulk_alignment,    // dsmem.bulk_alignment (note): bulk path refused: a piece not 16 B aligned / sized
  dsmem_swizzle_elem_bytes,  // dsmem.swizzle_elem_bytes: an element larger than its region's swizzle chunk (2^M B)
};

inline constexpr int kClusterRuleCount = static_cast<int>(ClusterRule::dsmem_swizzle_elem_bytes) + 1;

TMAKIT_HD constexpr const char* cluster_rule_id(ClusterRule r) {
  switch (r) {
    case ClusterRule::cluster_size: return "cluster.size";
    case ClusterRule::cluster_nonportable: return "cluster.nonportable";
    case ClusterRule::mask_outside_cluster: return "mask.outside_cluster";
    case ClusterRule::mask_inactive_cta: return "mask.inactive_cta";
    case ClusterRule::mask_empty: return "mask.empty";
    case ClusterRule::fan_in: return "expect.fan_in";
    case ClusterRule::tx_limit: return "expect.tx_limit";
    case ClusterRule::slice_divisible: return "slice.divisible";
    case ClusterRule::slice_outermost: return "slice.outermost";
    case ClusterRule::slice_alignment: return "slice.alignment";
    case ClusterRule::share_dims: return "share.dims";
    case ClusterRule::box_params: return "box.params";
    case ClusterRule::straddle: return "group.straddle";
    case ClusterRule::dsmem_element_count: return "dsmem.element_count";
    case ClusterRule::dsmem_elem_bytes: return "dsmem.elem_bytes";
    case ClusterRule::dsmem_rank: return "dsmem.rank";
    case ClusterRule::dsmem_not_injective: return "dsmem.not_injective";
    case ClusterRule::dsmem_too_large: return "dsmem.too_large";
    case ClusterRule::handoff_cta_scope: return "handoff.cta_scope";
    case ClusterRule::handoff_no_release: return "handoff.no_release";
    case ClusterRule::handoff_issuers: return "handoff.issuers";
    case ClusterRule::dsmem_bulk_alignment: return "dsmem.bulk_alignment";
    case ClusterRule::dsmem_swizzle_elem_bytes: return "dsmem.swizzle_elem_bytes";
  }
  return "?";
}

// Notes describe a decision (the plan is still valid); everything else is an error.
TMAKIT_HD constexpr bool cluster_rule_is_note(ClusterRule r) {
  return r == ClusterRule::cluster_nonportable || r == ClusterRule::straddle || r == ClusterRule::dsmem_bulk_alignment;
}

TMAKIT_HD constexpr const char* cluster_rule_fix(ClusterRule r) {
  switch (r) {
    case ClusterRule::cluster_size: return "use 1..16 CTAs per cluster (x*y*z), every extent >= 1";
    case ClusterRule::cluster_nonportable:
      return "set cudaFuncAttributeNonPortableClusterSizeAllowed = 1 on the kernel before launching with > 8 CTAs";
    case ClusterRule::mask_outside_cluster: return "clear mask bits >= cluster size (bit r = %cluster_ctarank r)";
    case ClusterRule::mask_inactive_cta: return "drop inactive CTAs from the mask, or mark them active";
    case ClusterRule::mask_empty: return "remove the issue, or give it at least one receiving CTA";
    case ClusterRule::fan_in:
      return "each receiver expects the SUM of the bytes of every issue whose mask contains it (all peers' slices, "
             "both operands if they share the barrier): take expect_bytes from the plan";
    case ClusterRule::tx_limit:
      return "split the stage: arm at most 2^20 - 1 bytes per mbarrier phase (more stages or smaller boxes)";
    case ClusterRule::slice_divisible:
      return "pick a slice count dividing box[slice_dim] / elementStrides[slice_dim], or use leader_broadcast (an "
             "interleaved map's untraversed dim, rank - 2, delivers one slice whatever its box: slice another dim)";
    case ClusterRule::slice_outermost:
      return "slice along the outermost box dimension with box > 1 (slices must be contiguous in shared memory)";
    case ClusterRule::slice_alignment:
      return "make each slice's shared-memory offset (its share of the box's image, rows padded to the swizzle span) a "
             "multiple of the TMA destination alignment (tma_smem_alignment: 128 B unswizzled, the swizzle repeat "
             "256 / 512 / 1024 B otherwise), or slice fewer ways";
    case ClusterRule::share_dims: return "name the cluster dimension(s) along which CTAs share the tile (extent > 1)";
    case ClusterRule::box_params: return "give a tiled map's params (rank 1..5, box dims >= 1, element strides >= 1)";
    case ClusterRule::straddle:
      return "none needed: every CTA computes the same decision from cluster-uniform group ids and loads unicast";
    case ClusterRule::dsmem_element_count: return "source and destination must describe the same number of elements";
    case ClusterRule::dsmem_elem_bytes: return "use elements of 1, 2, 4, 8 or 16 bytes";
    case ClusterRule::dsmem_rank: return "describe each region with 1..4 modes, every extent >= 1";
    case ClusterRule::dsmem_not_injective: return "give the destination distinct byte offsets for distinct elements";
    case ClusterRule::dsmem_too_large:
      return "split the copy: at most 2^20 - 1 bytes per barrier phase and 2^20 elements per plan";
    case ClusterRule::handoff_cta_scope:
      return "hand data to another CTA with cluster scope: barrier.cluster.arrive.release + wait.acquire "
             "(cluster_sync), or mbarrier arrive .release.cluster + wait .acquire.cluster; __syncthreads / "
             ".cta scope do not order another CTA's view";
    case ClusterRule::handoff_no_release:
      return "signal with release semantics at cluster scope (arrive_remote / cluster_arrive_release), or use "
             "st.async / a bulk copy that completes on the receiver's mbarrier (plain stores never complete_tx)";
    case ClusterRule::handoff_issuers:
      return "elect exactly one thread per CTA per bulk copy (e.g. threadIdx.x == 0), not one per warp";
    case ClusterRule::dsmem_bulk_alignment:
      return "align both regions' pieces to 16 B and make their sizes multiples of 16 B to get the bulk path";
    case ClusterRule::dsmem_swizzle_elem_bytes:
      return "use elements no larger than the swizzle's 2^M-byte chunk (it moves chunks, splitting larger elements; "
             "layout rule layout.swizzle.elem_bytes), or describe the data with smaller elements";
  }
  return "";
}

// One violation: the rule, the CTA rank (or piece / issue index) it concerns (-1: none), the value
// found and the value expected (both 0 where meaningless).
struct ClusterViolation {
  ClusterRule rule;
  std::int32_t cta;
  std::int64_t value;
  std::int64_t expected;
};

// Every violation of a cluster plan: core's ViolationList (fixed capacity, no allocation, constexpr /
// device usable; `truncated` when more occurred) of ClusterViolation, plus the cluster-specific
// parts: add() by (rule, cta, value, expected), and ok() / errors(), which let notes pass.
struct ClusterDiagnostics : ViolationList<ClusterRule, 32, ClusterViolation> {
  // Unlike the tensor-map list, every slot is zeroed: plans holding these are constexpr variables
  // (e.g. tests' static_asserts on plan_multicast), which must be fully initialized.
  TMAKIT_HD constexpr ClusterDiagnostics() {
    for (ClusterViolation& v : items) v = ClusterViolation{};
  }
  TMAKIT_HD constexpr void add(ClusterRule r, std::int32_t cta, std::int64_t value, std::int64_t expected = 0) {
    ViolationList::add(ClusterViolation{r, cta, value, expected});
  }
  // No errors (notes allowed).
  TMAKIT_HD constexpr bool ok() const {
    for (int i = 0; i < count; ++i)
      if (!cluster_rule_is_note(items[i].rule)) return false;
    return !truncated;
  }
  TMAKIT_HD constexpr int errors() const {
    int n = 0;
    for (int i = 0; i < count; ++i) n += cluster_rule_is_note(items[i].rule) ? 0 : 1;
    return n;
  }
};

}  // namespace tmakit

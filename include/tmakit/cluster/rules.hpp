// The rules cluster plans (multicast, DSMEM copies, cross-CTA handoffs) must satisfy, one table
// row each: a stable id, a message template and a concrete fix. Plan validation returns EVERY
// violation at once (ClusterDiagnostics: core's ViolationList of ClusterViolation), never asserts.
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
  multicast_mask_outside_cluster,  // multicast.mask_outside_cluster: a kernel's own ctaMask names a CTA rank >= cluster size
  multicast_mask_mismatch,         // multicast.mask_mismatch: a kernel's own ctaMask is not the plan's for that CTA's copy
  armed_mismatch,                  // expect.armed_mismatch: a kernel arms a barrier with other than the stage's bytes into it
  cta_group_arch,                  // cta_group.arch: cta_group::2 for a target without CTA pairs (not sm_100-class)
  cta_group_pair,                  // cta_group.pair: cta_group::2 in a cluster with an odd CTA count (one CTA has no peer)
};

// `text` is the finding with its numbers as placeholders: {value} and {expected} stand for
// ClusterViolation's value and expected (explain() in tmakit/cluster/explain.hpp fills them in).
// Notes describe a decision (the plan is still valid); everything else is an error. Every rule has
// a fix that needs no values.
TMAKIT_HD constexpr RuleTable<ClusterRule, 28> rule_table(ClusterRule) {
  return {{
      {ClusterRule::cluster_size, "cluster.size", "cluster shape",
       "cluster of {value} CTAs (1..{expected})", Severity::error,
       "use 1..16 CTAs per cluster (x*y*z), every extent >= 1"},
      {ClusterRule::cluster_nonportable, "cluster.nonportable", "cluster shape",
       "{value} CTAs is above the portable {expected}", Severity::note,
       "set cudaFuncAttributeNonPortableClusterSizeAllowed = 1 on the kernel before launching with > 8 CTAs"},
      {ClusterRule::mask_outside_cluster, "mask.outside_cluster", "CTA mask",
       "mask names CTA {value}, cluster has {expected}", Severity::error,
       "clear mask bits >= cluster size (bit r = %cluster_ctarank r)"},
      {ClusterRule::mask_inactive_cta, "mask.inactive_cta", "CTA mask",
       "mask names inactive CTA {value}", Severity::error,
       "drop inactive CTAs from the mask, or mark them active"},
      {ClusterRule::mask_empty, "mask.empty", "CTA mask",
       "issue with an empty CTA mask", Severity::error,
       "remove the issue, or give it at least one receiving CTA"},
      {ClusterRule::fan_in, "expect.fan_in", "expected bytes",
       "barrier expects {value} B but the issues into it deliver {expected} B", Severity::error,
       "each receiver expects the SUM of the bytes of every issue whose mask contains it (all peers' slices, both "
       "operands if they share the barrier): take expect_bytes from the plan"},
      {ClusterRule::tx_limit, "expect.tx_limit", "expected bytes",
       "{value} B expected in one phase, limit {expected} B", Severity::error,
       "split the stage: arm at most 2^20 - 1 bytes per mbarrier phase (more stages or smaller boxes)"},
      {ClusterRule::slice_divisible, "slice.divisible", "slices",
       "box extent {value} does not split into {expected} slices", Severity::error,
       "pick a slice count dividing box[slice_dim] / elementStrides[slice_dim], or use leader_broadcast (an "
       "interleaved map's untraversed dim, rank - 2, delivers one slice whatever its box: slice another dim)"},
      {ClusterRule::slice_outermost, "slice.outermost", "slices",
       "slice dim {value}, outermost non-unit box dim {expected}", Severity::error,
       "slice along the outermost box dimension with box > 1 (slices must be contiguous in shared memory)"},
      {ClusterRule::slice_alignment, "slice.alignment", "slices",
       "slice at smem offset {value} B, needs a multiple of {expected} B", Severity::error,
       "make each slice's shared-memory offset (its share of the box's image, rows padded to the swizzle span) a "
       "multiple of the TMA destination alignment (tma_smem_alignment: 128 B unswizzled, the swizzle repeat 256 / "
       "512 / 1024 B otherwise), or slice fewer ways"},
      {ClusterRule::share_dims, "share.dims", "sharing dimensions",
       "no sharing dimension", Severity::error,
       "name the cluster dimension(s) along which CTAs share the tile (extent > 1)"},
      {ClusterRule::box_params, "box.params", "box",
       "box parameter {value}", Severity::error,
       "give a tiled map's params (rank 1..5, box dims >= 1, element strides >= 1)"},
      {ClusterRule::straddle, "group.straddle", "groups",
       "tile of group {value} shared with a CTA of group {expected}: unicast for every CTA", Severity::note,
       "none needed: every CTA computes the same decision from cluster-uniform group ids and loads unicast"},
      {ClusterRule::dsmem_element_count, "dsmem.element_count", "DSMEM regions",
       "destination holds {value} elements, source {expected}", Severity::error,
       "source and destination must describe the same number of elements"},
      {ClusterRule::dsmem_elem_bytes, "dsmem.elem_bytes", "DSMEM regions",
       "element of {value} B", Severity::error,
       "use elements of 1, 2, 4, 8 or 16 bytes"},
      {ClusterRule::dsmem_rank, "dsmem.rank", "DSMEM regions",
       "rank / extent {value}", Severity::error,
       "describe each region with 1..4 modes, every extent >= 1"},
      {ClusterRule::dsmem_not_injective, "dsmem.not_injective", "DSMEM destination",
       "destination byte {value} written twice (next free {expected})", Severity::error,
       "give the destination distinct byte offsets for distinct elements"},
      {ClusterRule::dsmem_too_large, "dsmem.too_large", "DSMEM regions",
       "{value} B, limit {expected} B", Severity::error,
       "split the copy: at most 2^20 - 1 bytes per barrier phase and 2^20 elements per plan"},
      {ClusterRule::handoff_cta_scope, "handoff.cta_scope", "handoff synchronization",
       "CTA-scoped synchronization hands data to another CTA", Severity::error,
       "hand data to another CTA with cluster scope: barrier.cluster.arrive.release + wait.acquire (cluster_sync), "
       "or mbarrier arrive .release.cluster + wait .acquire.cluster; __syncthreads / .cta scope do not order another "
       "CTA's view"},
      {ClusterRule::handoff_no_release, "handoff.no_release", "handoff signal",
       "signal without cluster-scope release after the writes", Severity::error,
       "signal with release semantics at cluster scope (arrive_remote / cluster_arrive_release), or use st.async / a "
       "bulk copy that completes on the receiver's mbarrier (plain stores never complete_tx)"},
      {ClusterRule::handoff_issuers, "handoff.issuers", "handoff issuers",
       "{value} threads issue the same bulk copy (exactly {expected})", Severity::error,
       "elect exactly one thread per CTA per bulk copy (e.g. threadIdx.x == 0), not one per warp"},
      {ClusterRule::dsmem_bulk_alignment, "dsmem.bulk_alignment", "DSMEM regions",
       "bulk refused: a piece of {value} is not 16 B aligned/sized", Severity::note,
       "align both regions' pieces to 16 B and make their sizes multiples of 16 B to get the bulk path"},
      {ClusterRule::dsmem_swizzle_elem_bytes, "dsmem.swizzle_elem_bytes", "DSMEM regions",
       "element of {value} B under a swizzle with {expected} B chunks", Severity::error,
       "use elements no larger than the swizzle's 2^M-byte chunk (it moves chunks, splitting larger elements; layout "
       "rule layout.swizzle.elem_bytes), or describe the data with smaller elements"},
      // The next three rules compare a kernel's own numbers with the plan's; their findings are
      // StageFindings (cluster/stage_check.hpp), whose words name the masks and bytes. The cta_group
      // rules are plan_cluster_stage's (cluster/stage.hpp).
      {ClusterRule::multicast_mask_outside_cluster, "multicast.mask_outside_cluster", "kernel's ctaMask",
       "the kernel's ctaMask names CTAs past the cluster's last rank: the copy is sent to CTAs that do not exist",
       Severity::error,
       "build each ctaMask from ranks below the cluster's size (bit r = %cluster_ctarank r): pass the plan's mask "
       "for the issuing CTA (tmakit cluster-stage, MulticastPlan::cta[r].issue.mask), not one written for another "
       "cluster shape"},
      {ClusterRule::multicast_mask_mismatch, "multicast.mask_mismatch", "kernel's ctaMask",
       "the kernel's ctaMask is not the plan's for this CTA's copy: a CTA left out never receives the bytes its "
       "barrier is armed for (it hangs), a CTA named in excess receives bytes it is not armed for, over a buffer "
       "that holds its own tile",
       Severity::error,
       "pass the plan's mask for each issuing CTA: the CTAs that share the tile (cluster coordinates equal on every "
       "dimension not shared), computed from the CTA's own coordinates, not one mask for every CTA"},
      {ClusterRule::armed_mismatch, "expect.armed_mismatch", "armed bytes",
       "the kernel arms the barrier with other than the bytes the stage's copies complete on it",
       Severity::error,
       "arm each CTA's full barrier with the stage's expect_bytes (tmakit cluster-stage): the sum of every copy that "
       "completes on it; with cta_group::2 a pair's even CTA arms the TMA bytes of both CTAs of its pair (2 x the "
       "bytes into one CTA, not the cluster's size x), its odd CTA none for its TMA loads"},
      {ClusterRule::cta_group_arch, "cta_group.arch", "CTA group",
       "cta_group::2 for target sm_{value}: CTA pairs (the .cta_group qualifier) exist on sm_100-class targets only",
       Severity::error,
       "target sm_100 for cta_group::2 (the PTX ISA gives .cta_group to sm_100a / sm_100f and sm_110a / sm_110f), "
       "or load with cta_group::1 (each CTA's copies complete on its own barrier)"},
      {ClusterRule::cta_group_pair, "cta_group.pair", "CTA group",
       "cta_group::2 in a cluster of {value} CTAs: CTA {expected} has no peer (a pair is two ranks that differ in "
       "bit 0 only)",
       Severity::error,
       "launch clusters of an even number of CTAs for cta_group::2, or use cta_group::1"},
  }};
}
static_assert(rule_table_well_formed(rule_table(ClusterRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<ClusterRule> == static_cast<int>(ClusterRule::cta_group_pair) + 1,
              "a row for every enum value");

// One violation: the rule, the CTA rank (or piece / issue index) it concerns (-1: none), the value
// found and the value expected (both 0 where meaningless).
struct ClusterViolation {
  ClusterRule rule = ClusterRule::cluster_size;
  std::int32_t cta = -1;
  std::int64_t value = 0;
  std::int64_t expected = 0;
};

// Every violation of a cluster plan: core's list (fixed capacity, no allocation, constexpr / device
// usable; `truncated` when more occurred), add(rule, cta, value, expected); ok() / errors() let
// notes pass.
using ClusterDiagnostics = ViolationList<ClusterRule, 32, ClusterViolation>;

}  // namespace tmakit

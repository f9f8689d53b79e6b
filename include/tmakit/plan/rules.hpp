// The rules the TMA planner enforces, each with a stable id, and the fixed-capacity list of
// refusals it returns (plain data: usable in constexpr and device code). Words and fixes, in the
// user's own mode names, come from explain_plan() (tmakit/plan/explain.hpp, host only).
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Never renumber or rename;
// add new rules at the end.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

enum class PlanRule : std::uint32_t {
  gmem_dtype = 0,        // gmem.dtype: element type the planner cannot place (invalid, packed sub-byte)
  gmem_rank,             // gmem.rank: more global modes than kMaxTileModes
  gmem_extent,           // gmem.extent: a global extent < 1
  gmem_negative_stride,  // gmem.negative_stride: TMA strides are unsigned
  gmem_base_align,       // gmem.base_align: base address / alignment not a multiple of 16 bytes
  gmem_stride_align,     // gmem.stride_align: a stride TMA needs is not a multiple of 16 bytes
  tile_rank,             // tile.rank: tiler entries != global modes
  tile_extent,           // tile.extent: a tile extent < 1
  smem_rank,             // smem.rank: shared layout's modes do not match the tiled modes
  smem_mode_size,        // smem.mode_size: a shared mode's size differs from its tile extent
  smem_swizzle,          // smem.swizzle: the shared layout's swizzle is not a TMA pattern
  smem_overlap,          // smem.overlap: two tile elements would share a place (equal strides, overlapping instructions)
  smem_no_contiguous,    // smem.no_contiguous: no shared mode of stride 1
  inner_contiguous,      // plan.inner_contiguous: the smem-contiguous mode is strided in global memory
  inner_bytes,           // plan.inner_bytes: inner box bytes not a multiple of 16
  inner_span,            // plan.inner_span: contiguous run cannot be cut into swizzle-span rows
  box_split,             // plan.box_split: an extent > 256 with no divisor <= 256
  inner_start,           // plan.inner_start: retired, never reported (implied by plan.inner_bytes); id kept
  factor_divides,        // plan.factor_divides: a global extent not divisible by a tile piece
  rank_exceeded,         // plan.rank: more than 5 TMA dimensions needed
  smem_offset_align,     // plan.smem_offset_align: an instruction's smem offset breaks the alignment
  too_many_loops,        // plan.loops: more instruction loops than kMaxPlanLoops
  expect_tx_limit,       // plan.expect_tx: bytes per stage above 2^20 - 1
  smem_capacity,         // plan.smem_capacity: the tile does not fit in shared memory
  multicast_split,       // plan.multicast: the instructions cannot be split over the multicast CTAs
  multicast_cluster,     // plan.cluster: invalid cluster shape / multicast dimension
  descriptor_invalid,    // plan.descriptor: validate() refused the planned descriptor
  leaf_capacity,         // plan.capacity: more tile pieces than kMaxTileLeaves
  gmem_stride_range,     // gmem.stride_range: a stride TMA needs is at or above 2^40 bytes
};

inline constexpr std::uint32_t kPlanRuleCount = static_cast<std::uint32_t>(PlanRule::gmem_stride_range) + 1;

TMAKIT_HD constexpr const char* plan_rule_id(PlanRule r) {
  switch (r) {
    case PlanRule::gmem_dtype: return "gmem.dtype";
    case PlanRule::gmem_rank: return "gmem.rank";
    case PlanRule::gmem_extent: return "gmem.extent";
    case PlanRule::gmem_negative_stride: return "gmem.negative_stride";
    case PlanRule::gmem_base_align: return "gmem.base_align";
    case PlanRule::gmem_stride_align: return "gmem.stride_align";
    case PlanRule::tile_rank: return "tile.rank";
    case PlanRule::tile_extent: return "tile.extent";
    case PlanRule::smem_rank: return "smem.rank";
    case PlanRule::smem_mode_size: return "smem.mode_size";
    case PlanRule::smem_swizzle: return "smem.swizzle";
    case PlanRule::smem_overlap: return "smem.overlap";
    case PlanRule::smem_no_contiguous: return "smem.no_contiguous";
    case PlanRule::inner_contiguous: return "plan.inner_contiguous";
    case PlanRule::inner_bytes: return "plan.inner_bytes";
    case PlanRule::inner_span: return "plan.inner_span";
    case PlanRule::box_split: return "plan.box_split";
    case PlanRule::inner_start: return "plan.inner_start";
    case PlanRule::factor_divides: return "plan.factor_divides";
    case PlanRule::rank_exceeded: return "plan.rank";
    case PlanRule::smem_offset_align: return "plan.smem_offset_align";
    case PlanRule::too_many_loops: return "plan.loops";
    case PlanRule::expect_tx_limit: return "plan.expect_tx";
    case PlanRule::smem_capacity: return "plan.smem_capacity";
    case PlanRule::multicast_split: return "plan.multicast";
    case PlanRule::multicast_cluster: return "plan.cluster";
    case PlanRule::descriptor_invalid: return "plan.descriptor";
    case PlanRule::leaf_capacity: return "plan.capacity";
    case PlanRule::gmem_stride_range: return "gmem.stride_range";
  }
  return "plan.unknown";
}

// One refusal: the rule, the global (tile) mode it concerns (-1: none), which piece of that mode's
// shared layout (-1: the whole mode) and up to four numbers whose meaning each rule documents in
// src/plan/explain.cpp (e.g. inner_contiguous: a = global stride, b = the mode that IS contiguous).
struct PlanIssue {
  PlanRule rule = PlanRule::gmem_dtype;
  std::int32_t mode = -1;
  std::int32_t part = -1;
  std::int64_t a = 0, b = 0, c = 0, d = 0;
};

struct PlanIssues {
  static constexpr int kCapacity = 16;
  PlanIssue items[kCapacity] = {};
  int count = 0;
  bool truncated = false;
  TMAKIT_HD constexpr void add(const PlanIssue& i) {
    if (count < kCapacity) items[count++] = i;
    else truncated = true;
  }
  TMAKIT_HD constexpr void add(PlanRule r, std::int32_t mode, std::int32_t part, std::int64_t a = 0,
                               std::int64_t b = 0, std::int64_t c = 0, std::int64_t d = 0) {
    add(PlanIssue{r, mode, part, a, b, c, d});
  }
  TMAKIT_HD constexpr bool empty() const { return count == 0 && !truncated; }
  TMAKIT_HD constexpr bool contains(PlanRule r) const {
    for (int i = 0; i < count; ++i)
      if (items[i].rule == r) return true;
    return false;
  }
  TMAKIT_HD constexpr const PlanIssue* begin() const { return items; }
  TMAKIT_HD constexpr const PlanIssue* end() const { return items + count; }
};

}  // namespace tmakit

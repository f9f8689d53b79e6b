// The rules the TMA planner enforces (one table row each, with its stable id), and the
// fixed-capacity list of refusals it returns (plain data: usable in constexpr and device code).
// Words and fixes, in the user's own mode names, come from explain_plan() (tmakit/plan/explain.hpp,
// host only).
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Never renumber or rename;
// add new rules at the end.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace tmakit {

enum class PlanRule : std::uint32_t {
  gmem_dtype = 0,        // gmem.dtype: element type the planner cannot place (not a tensor-map type)
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
  store_multicast,       // plan.store_multicast: a store / reduce plan with multicast (loads only)
  store_oob_fill,        // plan.store_oob_fill: a store / reduce plan with an OOB fill (loads only)
  reduce_dtype,          // plan.reduce_dtype: the reduction op does not take the element type (PTX ISA)
  gmem_dtype_arch,       // gmem.dtype_arch: a packed sub-byte type on an architecture without them (sm_90)
  box_pieces,            // plan.box_pieces: the box cannot be cut into the requested number of copies
  coord_range,           // plan.coord_range: a tile coordinate whose TMA coordinates leave int32
};

// `text` says what the input does wrong in one line; `part` names the input the rule concerns. The
// words with the user's numbers and mode names, and the fixes, come from explain_plan().
TMAKIT_HD constexpr RuleTable<PlanRule, 35> rule_table(PlanRule) {
  return {{
      {PlanRule::gmem_dtype, "gmem.dtype", "global tensor",
       "an element type the planner cannot place (not a tensor-map data type)"},
      {PlanRule::gmem_rank, "gmem.rank", "global tensor", "more global modes than kMaxTileModes"},
      {PlanRule::gmem_extent, "gmem.extent", "global tensor", "a global extent below 1"},
      {PlanRule::gmem_negative_stride, "gmem.negative_stride", "global tensor",
       "a negative global stride (TMA strides are unsigned)"},
      {PlanRule::gmem_base_align, "gmem.base_align", "global tensor",
       "a base address or known alignment that is not a multiple of 16 bytes"},
      {PlanRule::gmem_stride_align, "gmem.stride_align", "global tensor",
       "a stride TMA needs that is not a multiple of 16 bytes"},
      {PlanRule::tile_rank, "tile.rank", "tiler", "a tiler whose entries do not match the global modes one to one"},
      {PlanRule::tile_extent, "tile.extent", "tiler", "a tile extent below 1"},
      {PlanRule::smem_rank, "smem.rank", "shared layout", "a shared layout whose modes do not match the tiled modes"},
      {PlanRule::smem_mode_size, "smem.mode_size", "shared layout",
       "a shared mode whose size differs from its tile extent"},
      {PlanRule::smem_swizzle, "smem.swizzle", "shared layout", "a shared swizzle that is not a pattern TMA writes"},
      {PlanRule::smem_overlap, "smem.overlap", "shared layout",
       "two tile elements would share a place (equal strides, or overlapping instructions)"},
      {PlanRule::smem_no_contiguous, "smem.no_contiguous", "shared layout", "no shared mode of stride 1"},
      {PlanRule::inner_contiguous, "plan.inner_contiguous", "shared layout",
       "the mode contiguous in shared memory is strided in global memory"},
      {PlanRule::inner_bytes, "plan.inner_bytes", "tiler", "inner box bytes that are not a multiple of 16"},
      {PlanRule::inner_span, "plan.inner_span", "shared layout",
       "a contiguous run that cannot be cut into rows of the swizzle span"},
      {PlanRule::box_split, "plan.box_split", "tiler",
       "an extent above 256 with no divisor of at most 256 to cut it by"},
      {PlanRule::inner_start, "plan.inner_start", "tiler",
       "the innermost coordinate moves by a non-multiple of 16 bytes (retired: implied by plan.inner_bytes, "
       "never reported; the id is kept)"},
      {PlanRule::factor_divides, "plan.factor_divides", "global tensor",
       "a global extent that is not a multiple of a tile piece"},
      {PlanRule::rank_exceeded, "plan.rank", "plan", "more than 5 TMA dimensions needed"},
      {PlanRule::smem_offset_align, "plan.smem_offset_align", "shared layout",
       "an instruction's shared-memory offset breaks the destination alignment"},
      {PlanRule::too_many_loops, "plan.loops", "plan", "more instruction loops than kMaxPlanLoops"},
      {PlanRule::expect_tx_limit, "plan.expect_tx", "plan",
       "more bytes per stage than an mbarrier transaction count holds (2^20 - 1)"},
      {PlanRule::smem_capacity, "plan.smem_capacity", "shared layout", "a tile that does not fit in shared memory"},
      {PlanRule::multicast_split, "plan.multicast", "cluster",
       "instructions that cannot be split over the multicast CTAs"},
      {PlanRule::multicast_cluster, "plan.cluster", "cluster", "an invalid cluster shape or multicast dimension"},
      {PlanRule::descriptor_invalid, "plan.descriptor", "plan", "validate() refused the planned descriptor"},
      {PlanRule::leaf_capacity, "plan.capacity", "shared layout", "more tile pieces than kMaxTileLeaves"},
      {PlanRule::gmem_stride_range, "gmem.stride_range", "global tensor", "a stride TMA needs at or above 2^40 bytes"},
      {PlanRule::store_multicast, "plan.store_multicast", "cluster",
       "a store or reduction with multicast (TMA multicasts loads only)"},
      {PlanRule::store_oob_fill, "plan.store_oob_fill", "plan",
       "a store or reduction with an out-of-bounds fill (the fill applies to loads only)"},
      {PlanRule::reduce_dtype, "plan.reduce_dtype", "global tensor",
       "a reduction op that cp.reduce.async.bulk.tensor does not perform on the element type"},
      {PlanRule::gmem_dtype_arch, "gmem.dtype_arch", "global tensor",
       "a packed sub-byte element type on an architecture that has none (sm_90; sm_100 and sm_120 have them)"},
      {PlanRule::box_pieces, "plan.box_pieces", "plan options",
       "a box that cannot be cut into the requested number of equal, aligned copies"},
      {PlanRule::coord_range, "plan.coord_range", "tile coordinate",
       "a tile coordinate at which an instruction's TMA coordinates leave the 32-bit range TMA takes"},
  }};
}
static_assert(rule_table_well_formed(rule_table(PlanRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<PlanRule> == static_cast<int>(PlanRule::coord_range) + 1, "a row for every enum value");

// One refusal: the rule, the global (tile) mode and the piece of it the refusal concerns, and the
// numbers its words and fix need, each in the field named for its role. Added by name, e.g.
//   issues.add(PlanIssue{.rule = PlanRule::factor_divides, .mode = g, .part = p, .value = extent, .limit = piece});
// (designators in member order); fields a rule does not name keep their defaults. What each rule fills:
//   gmem.dtype             value = the DataType; from DLPack: value = -1 - its type code, bits = its bits,
//                          count = its lanes
//   gmem.rank              value = the global modes, limit = kMaxTileModes
//   gmem.extent            value = the extent
//   gmem.negative_stride   value = the stride
//   gmem.base_align        value = the address (0: not known), bytes = the known alignment,
//                          count = the view's offset in elements (GlobalTensor::view_offset; 0: none)
//   gmem.stride_align      value = the stride (elements), bytes = the TMA dimension's stride in bytes (-1: more
//   gmem.stride_range        than int64 holds), count = the coordinates of the mode one step of that dimension takes
//   tile.rank              value = the tiler's entries, limit = the global modes
//   tile.extent            value = the extent
//   smem.rank              value = the shared layout's top-level modes, limit = the tiled modes,
//                          count = the global modes
//   smem.mode_size         value = the size found, limit = the tile extent, index = the shared top-level mode.
//                          A hand-written TileProblem: index -1: value = the product of the mode's pieces;
//                          index -2: value = a piece's offset, limit = the product of the pieces before it;
//                          index -3: value = the extent of a piece whose mode or extent no piece can have
//   smem.swizzle           swizzle, bytes = whole bytes per element (0 below a byte)
//   smem.overlap           value = the shared stride (elements). Two pieces of one stride: other_mode and
//                          other_part = the other piece; a stride of 0 or less: other_mode -1; an instruction loop
//                          that steps into what the box and the loops below it write: bytes = its step (rounded
//                          down), limit = the bytes those cover (> 0: this case)
//   smem.no_contiguous     value = the smallest shared stride (mode: the global mode of stride 1, -1: none)
//   plan.inner_contiguous  value = the global stride, other_mode = the tiled global mode of stride 1 (-1: none)
//   plan.inner_bytes       value = the elements, bytes = their bytes (rounded down), bits = their bits (0: not given)
//   plan.inner_span        value = the elements, limit = the elements of a swizzle-span row, bytes = the span
//   plan.box_split         value = the elements, limit = the most one box dimension holds (256, or the span's
//                          row); bytes = the row bytes the pieces must be a multiple of (0: none)
//   plan.inner_start       (retired) value = the elements, bytes = their bytes
//   plan.factor_divides    value = the global extent, limit = the piece it must be a multiple of
//   plan.rank              value = the TMA dimensions needed, count = those in the box
//   plan.smem_offset_align value = the step in bytes (rounded down), limit = the alignment, bits = the step in bits
//   plan.loops             limit = kMaxPlanLoops
//   plan.expect_tx         value = the bytes per stage, limit = 2^20 - 1
//   plan.smem_capacity     value = the bytes (-1: more than int64 holds), limit = the bytes per block; with a
//                          mode: value = the bytes (at least) one step of that piece moves
//   plan.multicast         value = the instructions, limit = the CTAs that share them
//   plan.cluster           value = the cluster's CTAs, dim = the multicast dimension (-1: none)
//   plan.descriptor        descriptor
//   plan.capacity          value = the pieces, limit = kMaxTileLeaves
//   plan.store_multicast   value = the PlanDirection, dim = the multicast dimension
//   plan.store_oob_fill    value = the PlanDirection, setting = the OobFill
//   plan.reduce_dtype      value = the ReduceOp, setting = the DataType, limit = the ops it takes (bit per
//                          ReduceOp); value -1: setting = a direction none of PlanDirection's
//   gmem.dtype_arch        value = the DataType, setting = the Arch
//   plan.box_pieces        value = the box's outermost extent, limit = the copies asked for
//   plan.coord_range       value = the TMA coordinate, index = the instruction, dim = the TMA dimension
struct PlanIssue {
  PlanRule rule = PlanRule::gmem_dtype;
  std::int32_t mode = -1;         // the global (tile) mode it concerns (-1: none)
  std::int32_t part = -1;         // which piece of that mode's shared layout (-1: the whole mode)
  std::int64_t value = 0;         // the offending number in the unit the rule names, or an enum's number
  std::int64_t limit = 0;         // what value must stay within, be a multiple of or equal (a maximum, an alignment)
  std::int64_t bytes = 0;         // a byte count named with value: its size, a step, a span, an alignment
  std::int64_t bits = 0;          // a size in bits, exact where bytes would round down; an element's width
  std::int64_t count = 0;         // how many of something goes with value: coordinates per step, modes, lanes
  std::int64_t setting = 0;       // a second input setting named with value, as its enum's number (Arch, OobFill)
  std::int32_t index = -1;        // an index the words name: a shared top-level mode, an instruction (-1: none)
  std::int32_t dim = -1;          // a TMA dimension, or the cluster's multicast one (0 x, 1 y, 2 z; -1: none)
  std::int32_t other_mode = -1;   // a second global mode the refusal concerns (-1: none)
  std::int32_t other_part = -1;   // which piece of other_mode's shared layout (-1: the whole mode)
  SwizzleParams swizzle{};        // smem.swizzle: the shared layout's swizzle, as given
  Violation<Rule> descriptor{};   // plan.descriptor: what validate() refused in the planned descriptor
  // Added by name only (add(PlanIssue{...})): ViolationList's positional add(rule, numbers...) is off.
  static constexpr bool kAddByName = true;
};

// Every refusal of one planning call: core's list, add(PlanIssue{.rule = ..., ...}).
using PlanIssues = ViolationList<PlanRule, 16, PlanIssue>;

}  // namespace tmakit

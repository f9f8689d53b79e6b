// A descriptor someone else made (a DSL's TMA atom, Triton's TensorDescriptor, cuda.core's
// TensorMapDescriptor, a hand-written cuTensorMapEncodeTiled call) checked against the plan tmakit
// makes for the same tensor, shared layout and tile (host only; src/plan/check_descriptor.cpp).
//
// Every field whose bits differ from the plan's descriptor (diff() of tensor_map/describe.hpp names
// them) becomes one finding with what it does to the copy: a different box delivers a different
// number of bytes per copy, so a barrier armed with the plan's expect_tx never completes (or
// completes before the data is there); a different swizzle puts the right bytes in the wrong
// places; and so on. Then the bytes themselves: what one copy of this descriptor delivers against
// what the plan arms per instruction, and, when the caller says what the kernel arms its barrier
// with, that number against the bytes the stage's copies deliver. When the caller gives the shared
// address the tile starts at, that address against the plan's alignment (tensor_map/smem_base.hpp:
// smem.base_align128, smem.base_align). For a store or reduce plan the shared tile is the copy's
// source: a different swizzle reads it from other places than the kernel wrote it.
//
// Ids are stable (check.box, check.armed_bytes, ...): tests and users' scripts match on them. Never
// renumber or rename; add new rules at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"
#include "tmakit/plan/tma_plan.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/smem_base.hpp"

namespace tmakit {

enum class PlanCheckRule : std::uint32_t {
  address = 0,    // check.address: globalAddress
  kind,           // check.kind: im2col flag
  rank,           // check.rank: tensorRank
  dtype,          // check.dtype: tensorDataType, tf32Rounding
  dims,           // check.dims: globalDim
  strides,        // check.strides: globalStrides
  box,            // check.box: boxDim, boxBytes
  elem_strides,   // check.elem_strides: elementStrides
  swizzle,        // check.swizzle: swizzle, swizzleAtomicity, swizzleMode96B, smemAlignment
  interleave,     // check.interleave
  l2_promotion,   // check.l2promotion
  oob_fill,       // check.oobfill
  other_bits,     // check.other_bits: reserved bits, im2col fields
  copy_bytes,     // check.copy_bytes: one copy of the descriptor delivers other than the plan's bytes per instruction
  armed_bytes,    // check.armed_bytes: the kernel arms its barrier with other than the stage's bytes
  copies,         // check.copies: more (or fewer) copies per stage than the plan issues (an ungrouped partition)
  tx_limit,       // check.tx_limit: a phase's bytes exceed the mbarrier transaction count (2^20 - 1)
  derived,        // check.derived: a stored boxBytes / smemAlignment its own fields do not imply
};

// The largest transaction count an mbarrier phase holds (PTX ISA, mbarrier: tx-count range
// [-(2^20 - 1), 2^20 - 1]).
inline constexpr std::uint64_t kMbarrierTxCountMax = (std::uint64_t{1} << 20) - 1;

// `text` is what the difference does to the copy (it follows "<field>: plan <a>, descriptor <b>: ");
// `fix` the remedy that needs no values.
TMAKIT_HD constexpr RuleTable<PlanCheckRule, 18> rule_table(PlanCheckRule) {
  return {{
      {PlanCheckRule::address, "check.address", "globalAddress",
       "the copy reads another tensor (or another part of it) than the plan's",
       Severity::error,
       "point the descriptor at the tensor's base (on the device: set_global_address, device/descriptor.cuh), or plan with the tensor itself"},
      {PlanCheckRule::kind, "check.kind", "im2col",
       "an im2col map walks pixels and channels, not the plan's box: other coordinates, other bytes",
       Severity::error,
       "encode a tiled map (cuTensorMapEncodeTiled) as the plan does"},
      {PlanCheckRule::rank, "check.rank", "tensorRank",
       "the copy takes another number of coordinates: the plan's instructions address other elements",
       Severity::error,
       "encode the plan's rank: its dims list which tensor modes the descriptor's dimensions are"},
      {PlanCheckRule::dtype, "check.dtype", "tensorDataType",
       "elements of another size: every byte count, stride and box in bytes changes (and tf32 rounding "
       "alters the values)",
       Severity::error,
       "encode the tensor's element type"},
      {PlanCheckRule::dims, "check.dims", "globalDim",
       "the tensor's bounds differ: elements inside the plan's tensor read as out-of-bounds fill (zeros), "
       "or elements past it are read",
       Severity::error,
       "encode the extents of the tensor's modes in the plan's order (innermost first)"},
      {PlanCheckRule::strides, "check.strides", "globalStrides",
       "rows come from other addresses: the tile holds the wrong elements",
       Severity::error,
       "encode the tensor's byte strides in the plan's dimension order"},
      {PlanCheckRule::box, "check.box", "boxDim",
       "one copy moves another box: other bytes arrive than the plan's expect_tx counts, so a barrier "
       "armed with it never completes (fewer bytes: the copy hangs) or completes before the tile is "
       "there (more bytes), and the tile lands in other places",
       Severity::error,
       "encode the plan's box, or arm the barrier with what this box delivers and lay out shared memory for it"},
      {PlanCheckRule::elem_strides, "check.elem_strides", "elementStrides",
       "the box skips elements: other elements and other bytes per copy",
       Severity::error,
       "encode element strides 1 (or the plan's)"},
      {PlanCheckRule::swizzle, "check.swizzle", "swizzle",
       "the bytes arrive, but at other places in shared memory: the consumer (WGMMA, ldmatrix, the "
       "epilogue) reads the wrong elements; the tile base alignment the descriptor needs differs too",
       Severity::error,
       "encode the swizzle of the plan's shared layout: the one a load's consumer reads the tile with, the one "
       "the kernel writes a store's or reduction's tile in"},
      {PlanCheckRule::interleave, "check.interleave", "interleave",
       "an interleaved layout moves 16/32-byte chunks in another order: other places and other bytes",
       Severity::error,
       "encode interleave NONE (or the plan's)"},
      {PlanCheckRule::l2_promotion, "check.l2promotion", "l2Promotion",
       "only the L2 fetch granularity differs: the same bytes arrive, possibly at another speed",
       Severity::note,
       "none needed for correctness"},
      {PlanCheckRule::oob_fill, "check.oobfill", "oobFill",
       "out-of-bounds elements arrive as NaN instead of zero (or the reverse): only tiles that cross "
       "the tensor's edge differ",
       Severity::error,
       "encode the plan's out-of-bounds fill"},
      {PlanCheckRule::other_bits, "check.other_bits", "descriptor",
       "bits no tiled field of the plan explains: the hardware may read them as another setting",
       Severity::error,
       "encode with cuTensorMapEncodeTiled (or tmakit) rather than editing the bytes"},
      {PlanCheckRule::copy_bytes, "check.copy_bytes", "transaction bytes",
       "one copy of the descriptor delivers other than the bytes the plan counts per instruction: a "
       "barrier armed with the plan's expect_tx never completes (fewer bytes) or completes early (more)",
       Severity::error,
       "make the descriptor's box (and type, element strides) the plan's, or re-plan for the box the kernel copies"},
      {PlanCheckRule::armed_bytes, "check.armed_bytes", "expect_tx",
       "the kernel arms its barrier with other than the bytes its copies deliver: with fewer delivered the "
       "phase never completes (the copy hangs), with more it completes before the data is there",
       Severity::error,
       "arm the barrier with the plan's expect_tx_bytes (per stage, for every CTA that receives the tile) "
       "and issue all of the plan's instructions; in CuTe DSL, group the tile's modes (tile_M, tile_K) "
       "into mode 0 with cute.group_modes before tma_partition so that one copy moves the whole box"},
      {PlanCheckRule::copies, "check.copies", "copies per stage",
       "each copy moves the plan's box, but the stage issues another number of them than the plan: the "
       "barrier receives copies x box bytes, not the bytes it is armed for",
       Severity::error,
       "issue the plan's copies per stage: a copy partitioned without grouping repeats the whole box once per "
       "element of the ungrouped modes; in CuTe DSL, group the tile's modes (tile_M, tile_K) into mode 0 with "
       "cute.group_modes(tile, 0, rank) before tma_partition so that one copy moves the whole box"},
      {PlanCheckRule::tx_limit, "check.tx_limit", "transaction count",
       "the bytes of one phase exceed what an mbarrier's transaction count holds (2^20 - 1 = 1,048,575): "
       "the count leaves its range, the phase completes on the wrong bytes and the next wait never "
       "completes (the hang)",
       Severity::error,
       "keep a stage's bytes per barrier at most 1,048,575: issue the plan's copies (in CuTe DSL, group the "
       "tile's modes with cute.group_modes before tma_partition), or split the stage over more barriers"},
      {PlanCheckRule::derived, "check.derived", "derived field",
       "the descriptor stores a value its own fields do not imply (the driver writes boxBytes from the box, the "
       "element type and strides, smemAlignment from the swizzle): another encoder wrote it, or the bytes were "
       "edited, and what reads it disagrees with the fields",
       Severity::error,
       "encode the map with cuTensorMapEncodeTiled (or tmakit encode) from the fields, rather than editing "
       "bytes or copying another encoder's"},
  }};
}
static_assert(rule_table_well_formed(rule_table(PlanCheckRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<PlanCheckRule> == static_cast<int>(PlanCheckRule::derived) + 1, "a row for every enum value");

// One finding in the library's one shape (core/finding.hpp), with its numbers kept apart:
//   where  the field as diff() names it: "boxDim[1]", "swizzle", "transaction bytes", "expect_tx"
//   what   "<where>: plan <expected>, descriptor <actual>: <effect>" ("kernel <actual>" for the
//          kernel's numbers: check.armed_bytes, check.copies, check.tx_limit)
//   fix    the rule's fix
// message(): "error [check.box] boxDim[1]: plan 128, descriptor 64: <effect>; fix: <fix>".
struct PlanCheckFinding : Finding {
  PlanCheckRule rule = PlanCheckRule::other_bits;
  std::string expected, actual;       // the plan's value, the descriptor's (or the kernel's)
  std::vector<int> byte_offsets;      // differing bytes of the descriptor (empty for byte counts)
  std::string effect;                 // what it does to the copy (the rule's text, with the numbers for byte counts)
};

struct PlanCheckOptions {
  // What the kernel arms its barrier with per stage (bytes), when known: 0 = not checked.
  std::uint64_t armed_bytes = 0;
  // Copies that deliver into a receiving CTA per stage (all issuers of a multicast group together):
  // 0 = the plan's instruction count.
  std::uint32_t copies = 0;
  // The shared address the tile starts at (the kernel's buffer), when known: checked against the
  // plan's smem_alignment and swizzle (smem.base_align128, smem.base_align).
  std::optional<std::uint64_t> smem_base;
};

struct PlanCheck {
  std::vector<PlanCheckFinding> findings;  // errors first in field order, then notes
  std::vector<SmemBaseFinding> smem_base;  // the tile's shared address (options.smem_base), all errors
  TensorMapBytes expected{};               // the plan's descriptor (address: the descriptor's when the plan has none)
  bool address_compared = false;           // false when the plan has no address (0): addresses are not compared
  std::uint64_t copy_bytes = 0;            // what one copy of the checked descriptor delivers (transaction_bytes)
  std::uint64_t stage_bytes = 0;           // copy_bytes x copies: what a receiving CTA gets per stage
  std::uint32_t plan_expect_tx = 0;        // plan.expect_tx_bytes
  // No error finding: the descriptor, the kernel's byte count and the tile's address are what the
  // plan needs.
  bool ok() const;
  // The barrier would wait for bytes that never come: armed (or the plan's expect_tx) above what
  // arrives, or a phase's bytes past the mbarrier's transaction count (check.tx_limit).
  bool hangs = false;
  std::uint64_t armed_bytes = 0;           // what the barrier is armed with: options.armed_bytes, else plan_expect_tx
};

PlanCheck check_against_plan(const TensorMapBytes& descriptor, const TmaPlan& plan, const PlanCheckOptions& options = {});

}  // namespace tmakit

// Notes on a tensor map the driver accepts: choices no rule refuses but that decide what a copy
// costs or where its bytes land (host only; src/tensor_map/notes.cpp). `tmakit capture` prints them
// next to each captured descriptor; they are never errors.
//
//   note.l2_promotion_none   l2Promotion NONE on a load: an L2 miss fetches only the sectors touched
//   note.swizzle_none        no swizzle, with box rows of 32, 64 or 128 B that a swizzle would fit
//   note.swizzle_row_padded  box rows narrower than the swizzle's span: each row is padded to the span
//                            in shared memory (measured on the H200: derived.hpp, smem_padded_row)
//   note.interleave          an interleaved map: dim 0 counts 16/32-byte chunks and one dimension is
//                            not traversed (measured on the H100: derived.hpp)
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

enum class MapNoteRule : std::uint8_t {
  l2_promotion_none = 0,
  swizzle_none,
  swizzle_row_padded,
  interleave,
};

TMAKIT_HD constexpr RuleTable<MapNoteRule, 4> rule_table(MapNoteRule) {
  return {{
      {MapNoteRule::l2_promotion_none, "note.l2_promotion_none", "l2Promotion",
       "an L2 miss fetches only the 32-byte sectors the copy touches", Severity::note,
       "L2_128B or L2_256B fetch whole lines (a performance choice: the same bytes arrive)"},
      {MapNoteRule::swizzle_none, "note.swizzle_none", "swizzle",
       "the box's rows land unswizzled: a consumer reading 16-byte pieces down its columns (WGMMA, "
       "ldmatrix) meets bank conflicts",
       Severity::note, ""},
      {MapNoteRule::swizzle_row_padded, "note.swizzle_row_padded", "swizzle",
       "the box's rows are narrower than the swizzle's span: each is padded to the span in shared memory",
       Severity::note, ""},
      {MapNoteRule::interleave, "note.interleave", "interleave",
       "an interleaved map: globalDim[0] and boxDim[0] count 16/32-byte chunks, and one copy takes a single "
       "slice of dimension rank - 2",
       Severity::note, "encode interleave NONE unless the tensor is stored interleaved (NC/8HWC8, NC/16HWC16)"},
  }};
}
static_assert(rule_table_well_formed(rule_table(MapNoteRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<MapNoteRule> == static_cast<int>(MapNoteRule::interleave) + 1, "a row for every enum value");

// One note in the library's one shape (core/finding.hpp), in words with the map's numbers: where
// the parameter ("swizzle"), what "swizzle = NONE with box rows of 128 B: <the rule's text>";
// message(): "note [note.swizzle_none] swizzle = NONE with box rows of 128 B: ...; fix: ...".
struct MapNote : Finding {
  MapNoteRule rule = MapNoteRule::l2_promotion_none;
};

// The notes on `p`, in enum order; none for parameters validate() refuses (its errors come first).
std::vector<MapNote> map_notes(const TensorMapParams& p);

}  // namespace tmakit

// The notes on an accepted tensor map (tensor_map/notes.hpp).
#include "tmakit/tensor_map/notes.hpp"

#include <string>

#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {
namespace {

// "note [id] <what>: <the rule's text> (<detail>); fix: <fix>"
MapNote note(MapNoteRule rule, const std::string& what, const std::string& fix = "", const std::string& detail = "") {
  const RuleInfo<MapNoteRule> r = rule_info(rule);
  MapNote n;
  static_cast<Finding&>(n) =
      make_finding(rule, r.part, what + ": " + r.text + (detail.empty() ? "" : " (" + detail + ")"), fix);
  n.rule = rule;
  return n;
}

// Bytes of one dim-0 row of the box (channels of one pixel for im2col maps).
std::uint64_t row_bytes(const TensorMapParams& p) {
  const std::uint64_t units = p.kind == MapKind::tiled ? p.box[0] : p.channels;
  return units * smem_element_bits(p.dtype) / 8;
}

void swizzle_notes(const TensorMapParams& p, std::vector<MapNote>& out) {
  if (p.interleave != Interleave::none) return;
  const std::uint64_t row = row_bytes(p), span = swizzle_span_bytes(p.swizzle);
  const std::string rows = "box rows of " + std::to_string(row) + " B";
  if (p.swizzle == Swizzle::none && (row == 32 || row == 64 || row == 128)) {
    out.push_back(note(MapNoteRule::swizzle_none, "swizzle = NONE with " + rows,
                       "encode SWIZZLE_" + std::to_string(row) +
                           "B and read the tile with the matching swizzled layout"));
  } else if (span != 0 && row < span) {
    const std::string what = "swizzle = " + std::string(name_of(p.swizzle)) + " with " + rows;
    const std::string detail = p.kind != MapKind::tiled ? ""
                               : "one copy's shared image spans " + std::to_string(box_smem_image_bytes(p)) +
                                     " B for the " + std::to_string(transaction_bytes(p)) + " B it delivers";
    const std::string widen = "widen the box's rows to " + std::to_string(span) + " B";
    out.push_back(note(MapNoteRule::swizzle_row_padded, what,
                       row == 32 || row == 64 ? "encode SWIZZLE_" + std::to_string(row) + "B if the consumer reads " +
                                                    std::to_string(row) + "-byte swizzled rows, or " + widen
                                              : widen + ", or encode SWIZZLE_NONE",
                       detail));
  }
}

}  // namespace

std::vector<MapNote> map_notes(const TensorMapParams& p) {
  std::vector<MapNote> out;
  if (!is_valid(p)) return out;
  if (p.l2 == L2Promotion::none) out.push_back(note(MapNoteRule::l2_promotion_none, "l2Promotion = NONE"));
  swizzle_notes(p, out);
  if (p.interleave != Interleave::none)
    out.push_back(note(MapNoteRule::interleave, "interleave = " + std::string(name_of(p.interleave))));
  return out;
}

}  // namespace tmakit

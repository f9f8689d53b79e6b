// A gather4 / scatter4 check (gather4.hpp) in words (host only; src/tensor_map/gather4_explain.cpp):
// every finding as one line with its numbers and a fix, what one copy moves, and the JSON object the
// CLI (`tmakit check-gather --json`) and Python (`tmakit.check_gather`) share.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tmakit/tensor_map/explain.hpp"
#include "tmakit/tensor_map/gather4.hpp"

namespace tmakit {

// Every error of `c`, in its order: the gather4.* / scatter4.* findings, then the tile mode's
// (explain() of c.tile_mode). Each message reads "error [<id>] <input> = <value>: <rule>; fix: <fix>".
std::vector<Diagnostic> explain_gather4(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c);

// What the copy is and moves, a few lines (the CLI's output when nothing is refused):
//   gather4 on sm_100a into .shared::cta (per the PTX ISA; unverified on hardware)
//   instruction  cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4...
//   one copy     4 rows x 64 BFLOAT16 (128 B each) = 512 B; the map's box is one row, 128 B
//   expect_tx    512 B per phase (1 copy)
std::string describe_gather4(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c);

// {"op", "target", "dst" (cta / cluster / multicast; null for scatter4), "instruction", "row_bytes",
//  "copy_bytes", "box_bytes", "copies", "expect_tx" (null for scatter4), "armed_bytes" (null when not
//  given), "result" (0 / 1), "errors": [{"rule", "field", "value", "message", "fix", "where", "what"}],
//  "text"}.
nlohmann::ordered_json gather4_json(const TensorMapParams& p, const Gather4Request& r, const Gather4Check& c);

// The op and destination by name: op "gather4" / "scatter4", dst "cta" / "cluster" / "multicast"
// (any case; "" = cta). False with `why` for another name, or for a dst given with scatter4 (it reads
// .shared::cta and writes global memory: it has no destination in shared memory).
bool parse_gather4_form(std::string_view op, std::string_view dst, Gather4Form& out, std::string& why);

}  // namespace tmakit

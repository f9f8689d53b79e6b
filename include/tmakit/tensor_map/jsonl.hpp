// JSON lines in and out (host only): the schema of `tmakit encode --jsonl` and of
// tools/driver_sweep, so that tmakit's answers and the driver's can be compared line by line.
//
// Input: one JSON object per line. Keys (all optional; unknown keys are ignored, so a driver_sweep
// output line is valid input):
//   kind          "tiled" (default), "im2col" or "im2col_wide"
//   arch          "sm_90" (default), "sm_100", "sm_120" (any spelling names.hpp accepts) or 90/100/120
//   dtype, interleave, swizzle, l2, oob, mode (im2col_wide)
//                 the cuda.h integer (any uint32: out-of-range values are held and reported by
//                 validate) or a name as names.hpp accepts it; default 0
//   rank          uint32; default: the number of "dims" entries
//   address       uint64
//   dims, strides uint64 arrays; box, elem_strides uint32 arrays; lower, upper int32 arrays
//                 (im2col_wide: one entry, or a plain int); channels, pixels uint32.
//                 A plain number counts as an array of one. Missing entries are 0, except that a
//                 missing "elem_strides" key means all 1. Entries past what TensorMapParams holds
//                 (rank 6 inputs) are checked for type and range, then dropped: validate reports the
//                 rank. null is the same as a missing key.
// A value of the wrong JSON type, a non-integer number, or an integer that does not fit the
// parameter's type (negative dims, dims >= 2^64, box >= 2^32, ...) makes the line invalid input
// (never undefined behaviour): it is refused with rule "input.type" / "input.range" / "input.name".
// A line that is not a JSON object is refused with rule "input.json". Blank lines are skipped
// (as driver_sweep does), so output line i answers non-blank input line i.
//
// Output, one line per non-blank input line:
//   {"result":0,"bytes":"<256 lowercase hex chars, memory order>","errors":[]}
//   {"result":1,"bytes":"","errors":[{"rule":"strides.align16","field":"globalStrides[0]",
//                                      "value":"2056","message":"error [strides.align16] ..."}]}
// result is the CUresult the driver would return: 0 = CUDA_SUCCESS, 1 = CUDA_ERROR_INVALID_VALUE.
// Output lines are nlohmann objects written by json_text (tmakit/host/json.hpp).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace tmakit::jsonl {

// One error as it appears in an output line (and, through `message`, on the CLI's stderr).
struct Error {
  std::string rule;     // stable id: a validate rule id, or input.json / input.type / input.range / input.name
  std::string field;    // cuda.h parameter name with index, e.g. "globalStrides[0]"; may be empty
  std::string value;    // the offending value as text; may be empty
  std::string message;  // one human-readable line
};

// Parses one line into `out` (starting from a default TensorMapParams). Returns false and appends
// to `errors` (every input error found, not just the first) when the line is not valid input.
bool parse_params(std::string_view line, TensorMapParams& out, std::vector<Error>& errors);

// The errors for a validation refusal, one per violation (words and fix from explain()).
std::vector<Error> describe(const TensorMapParams& p, const Violations& v);

// Parses, validates and encodes one line; appends the output line (ending in '\n') to `out`.
// Returns true when the line was accepted (result 0).
bool process_line(std::string_view line, std::string& out);

// The longest input line process_stream reads (bytes, without the newline). A line of the schema
// is a few hundred bytes; parsing takes about 25 times a line's size in memory, so a bound keeps a
// stream without newlines (/dev/zero, a binary file) from taking all of it.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

struct StreamStats {
  std::size_t lines = 0;       // output lines written
  std::size_t accepted = 0;    // result 0
  std::size_t too_long = 0;    // the 1-based number of an input line over kMaxLineBytes (reading stopped there), or 0
};

// Reads JSON lines from `in` until EOF and writes one output line per non-blank input line to
// `out` (buffered: written in large blocks), in constant memory. A line over kMaxLineBytes stops
// the reading: the lines before it are written, that one is not (StreamStats::too_long).
StreamStats process_stream(std::istream& in, std::ostream& out);

// --- output pieces (shared with the CLI and describe.hpp's decode_json) ---

// The 128 bytes as 256 lowercase hex characters in memory order.
std::string to_hex(const TensorMapBytes& b);
// The same into `s` (its capacity reused: for writers of many lines).
void to_hex_into(const TensorMapBytes& b, std::string& s);

// A JSON array of error objects {"rule","field","value","message"}.
nlohmann::ordered_json errors_json(const std::vector<Error>& errors);

// The parameters as a JSON object in the input schema, with enum names instead of integers (values
// outside an enum stay integers), e.g. {"kind":"tiled","arch":"sm_90","dtype":"BFLOAT16","rank":2,...}.
// Arrays hold min(rank, capacity) entries.
nlohmann::ordered_json params_json(const TensorMapParams& p);

}  // namespace tmakit::jsonl

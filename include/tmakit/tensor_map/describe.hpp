// Host-side rendering of a decoded tensor map and of the differences between two: every field by
// name, its value in words, and where it sits in the 128 bytes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/decode.hpp"

namespace tmakit {

// One field of a descriptor, merged across its bit ranges (e.g. a stride's low and high parts).
struct DescribedField {
  std::string name;   // "globalDim[1]", "swizzle", "boxBytes"
  std::string value;  // in words: "4096", "128B", "BFLOAT16", "0x7f0000000000"
  std::string raw;    // the bits as stored, hex
  std::string bytes;  // byte offsets it occupies, e.g. "8-9"
  bool derived = false;     // filled by the driver from other fields
  bool unverified = false;  // position/values not confirmed by any driver on hardware (sm_100+ only fields)
};

// Fields of a decoded map in layout order (only the ones its kind and rank use).
std::vector<DescribedField> describe_fields(const TensorMapBytes& bytes, const DecodedTensorMap& d);

// Multi-line text, and a JSON object, for `tmakit decode` (json_text in tmakit/host/json.hpp
// writes the object as one line).
std::string decode_text(const TensorMapBytes& bytes);
nlohmann::ordered_json decode_json(const TensorMapBytes& bytes);

// One difference between two descriptors.
struct FieldDifference {
  std::string name;   // field name, or "reserved" for bits no field of either descriptor explains
  std::string a, b;   // values in words
  std::vector<int> byte_offsets;  // every differing byte this field accounts for
};

// Every differing bit is attributed to a field of `a`'s or `b`'s layout, or named reserved.
std::vector<FieldDifference> diff(const TensorMapBytes& a, const TensorMapBytes& b);
// Text and a JSON object {"identical":...,"differences":[...]}, for `tmakit diff`.
std::string diff_text(const TensorMapBytes& a, const TensorMapBytes& b);
nlohmann::ordered_json diff_json(const TensorMapBytes& a, const TensorMapBytes& b);

// Parses 256 hex digits (whitespace, an optional 0x and ':'/'-' separators ignored). Returns
// false with a reason in `error` otherwise.
bool parse_hex(const std::string& text, TensorMapBytes& out, std::string* error = nullptr);

}  // namespace tmakit

// `tmakit decode` and `tmakit diff`: adapters from the CLI to tmakit/tensor_map/describe.hpp.
// Each hex argument is the text of a descriptor as given (cli::read_hex_arg); parse_hex reads its
// 256 hex digits (memory order).
// Exit status (README): decode 0 once decoded (unexplained bits are reported, not an error); diff
// 0 when identical, 1 when the descriptors differ; 2 when an argument is not 128 bytes of hex.
#pragma once

#include <iosfwd>
#include <string>

namespace tmakit::cli {

struct DecodeOptions {
  bool json = false;  // --json
};

int run_decode(const std::string& hex, const DecodeOptions& opts, std::ostream& out, std::ostream& err);
int run_diff(const std::string& hex_a, const std::string& hex_b, const DecodeOptions& opts, std::ostream& out,
             std::ostream& err);

}  // namespace tmakit::cli

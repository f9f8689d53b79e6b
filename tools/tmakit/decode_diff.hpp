// Adapters from the CLI to decode / diff (tmakit/tensor_map/decode.hpp, diff.hpp).
// OWNER of the bodies: the lead (decode/diff work). The CLI has already validated the arguments:
// each hex string is exactly 256 lowercase hex digits (memory order); cli::hex_to_bytes
// (cli_parse.hpp) turns one into TensorMapBytes.
// Exit status contract: 0 = decoded / no differences, 1 = (diff) the descriptors differ, or
// (decode) the bytes are not a descriptor the driver could have written; 2 = not implemented /
// bad usage.
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

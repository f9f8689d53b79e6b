// tmakit decode HEX|@FILE|@- [--json]
// Prints every field of the descriptor by name, its value in words and its bytes (decode_text), or
// the same as one JSON object (decode_json). Exit 0 once decoded, whatever the bytes hold
// (unexplained bits are reported, not an error); 2 when the argument is not 128 bytes of hex.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"

namespace tmakit::cli {

int run_decode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string name = "tmakit decode";
  CLI::App app{"Decode a tensor map into its parameters.", name};
  std::string arg;
  bool json = false;
  app.add_option("DESCRIPTOR", arg, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), name, out, err); rc >= 0) return rc;
  std::string text, why;
  if (!read_hex_arg(arg, in, text, why)) return value_error(err, name, "DESCRIPTOR: " + why);
  TensorMapBytes m;
  if (!parse_descriptor(text, "decode", m, err)) return kExitUsage;
  if (json) {
    print_json(out, decode_json(m));
  } else {
    out << decode_text(m);
  }
  return kExitOk;
}

}  // namespace tmakit::cli

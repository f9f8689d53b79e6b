// tmakit decode HEX|@FILE|@- [--json]
// Prints every field of the descriptor by name, its value in words and its bytes (decode_text), or
// the same as one JSON object (decode_json, with "ok" and "exit"). Exit 0 once decoded, whatever
// the bytes hold (unexplained bits are reported, not an error); 2 when the argument is not 128
// bytes of hex or its file cannot be read.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"

namespace tmakit::cli {

int run_decode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit decode", wants_json(args), out, err};
  CLI::App app{"Decode a tensor map into its parameters.", rep.command};
  std::string arg;
  bool json = false;
  app.add_option("DESCRIPTOR", arg, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  TensorMapBytes m;
  if (int rc = 0; !read_descriptor_arg(arg, "DESCRIPTOR", in, rep, m, rc)) return rc;
  if (json) return rep.json_result(decode_json(m), kExitOk, true);
  out << decode_text(m);
  return kExitOk;
}

}  // namespace tmakit::cli

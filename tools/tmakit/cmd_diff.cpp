// tmakit diff HEX|@FILE|@- HEX|@FILE|@- [--json]
// Prints every field whose bits differ, both values in words and the bytes (diff_text), or one JSON
// object (diff_json, with "ok": true and "exit"). Exit 0 when identical, 1 when they differ (as
// diff(1) does: a result, not an error), 2 when an argument is not 128 bytes of hex or its file
// cannot be read.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"

namespace tmakit::cli {

int run_diff(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit diff", wants_json(args), out, err};
  CLI::App app{"Compare two tensor maps field by field.", rep.command};
  std::string arg_a, arg_b;
  bool json = false;
  app.add_option("A", arg_a, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  app.add_option("B", arg_b, "the second descriptor, as A")->required();
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  TensorMapBytes a, b;
  if (int rc = 0; !read_descriptor_arg(arg_a, "A", in, rep, a, rc) || !read_descriptor_arg(arg_b, "B", in, rep, b, rc))
    return rc;
  const int rc = a == b ? kExitOk : kExitRefused;
  if (json) return rep.json_result(diff_json(a, b), rc, true);
  out << diff_text(a, b);
  return rc;
}

}  // namespace tmakit::cli

// tmakit diff HEX|@FILE|@- HEX|@FILE|@- [--json]
// Prints every field whose bits differ, both values in words and the bytes (diff_text), or one JSON
// object (diff_json). Exit 0 when identical, 1 when they differ (as diff(1) does), 2 when an
// argument is not 128 bytes of hex.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"

namespace tmakit::cli {

int run_diff(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const std::string name = "tmakit diff";
  CLI::App app{"Compare two tensor maps field by field.", name};
  std::string arg_a, arg_b;
  bool json = false;
  app.add_option("A", arg_a, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  app.add_option("B", arg_b, "the second descriptor, as A")->required();
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), name, out, err); rc >= 0) return rc;
  std::string text_a, text_b, why;
  if (!read_hex_arg(arg_a, in, text_a, why)) return value_error(err, name, "A: " + why);
  if (!read_hex_arg(arg_b, in, text_b, why)) return value_error(err, name, "B: " + why);
  TensorMapBytes a, b;
  if (!parse_descriptor(text_a, "diff (first descriptor)", a, err) ||
      !parse_descriptor(text_b, "diff (second descriptor)", b, err))
    return kExitUsage;
  if (json) {
    print_json(out, diff_json(a, b));
  } else {
    out << diff_text(a, b);
  }
  return a == b ? kExitOk : kExitRefused;
}

}  // namespace tmakit::cli

// `tmakit decode` and `tmakit diff` (contract in decode_diff.hpp): thin adapters over
// tmakit/tensor_map/describe.hpp.
#include "decode_diff.hpp"

#include <ostream>

#include "tmakit/tensor_map/describe.hpp"

namespace tmakit::cli {

namespace {
bool parse(const std::string& hex, TensorMapBytes& m, const char* what, std::ostream& err) {
  std::string why;
  if (parse_hex(hex, m, &why)) return true;
  err << "tmakit: " << what << ": " << why << "\n";
  return false;
}
}  // namespace

// Exit 0 once the bytes are decoded (whatever they hold: unexplained bits are reported, not an
// error); 2 when the argument is not 128 bytes of hex.
int run_decode(const std::string& hex, const DecodeOptions& opts, std::ostream& out, std::ostream& err) {
  TensorMapBytes m;
  if (!parse(hex, m, "decode", err)) return 2;
  out << (opts.json ? decode_json(m) + "\n" : decode_text(m));
  return 0;
}

// Exit 0 when identical, 1 when they differ (as diff(1) does), 2 on bad input.
int run_diff(const std::string& hex_a, const std::string& hex_b, const DecodeOptions& opts, std::ostream& out,
             std::ostream& err) {
  TensorMapBytes a, b;
  if (!parse(hex_a, a, "diff (first descriptor)", err) || !parse(hex_b, b, "diff (second descriptor)", err)) return 2;
  out << (opts.json ? diff_json(a, b) + "\n" : diff_text(a, b));
  return a == b ? 0 : 1;
}

}  // namespace tmakit::cli

// libFuzzer target: the CuTe layout notation and every operation of `tmakit layout`, see docs/fuzzing.md.
//
// Input layout:
//   byte 0              the operation: kOps[byte % 16] (the 16 operations of `tmakit layout`)
//   bytes 1..           its arguments, separated by NUL or newline: A, then B / PROFILE / N
// The arguments are parsed as the CLI parses them (parse_layout, parse_tiler, parse_int_tuple,
// parse_swizzled_layout); the operation runs on the library (algebra.hpp), then the same words go
// through `tmakit layout OP ... --json` in-process (run_cli), whose exit status must be 0, 1 or 2
// and whose stdout must be one JSON object (unless a word is an option, e.g. --help). Every '/' in
// those words becomes '_', so `--svg FILE` only writes into the work directory.
//
// Checks on top of the sanitizers (ASan, UBSan with -fno-sanitize-recover, no uncaught exception,
// no hang):
//   - notation round trip: to_string of anything parsed parses back to the same value;
//   - every accepted result passes check_offsets (its offsets fit in int64) and, when it parses,
//     round-trips through the notation;
//   - composition with a layout: size(A o B) == size(B); coalesce: same size and the same offset
//     for every index (up to 4096 of them); right_inverse: A(R(i)) == i; left_inverse:
//     A(R(A(i))) == A(i) (CuTe's post-conditions, up to 4096 indices);
//     max_common_vector == size(max_common_layout) when both are accepted.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "fuzz_words.hpp"
#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"

using namespace tmakit;

namespace {

const char* const kOps[16] = {"coalesce",        "composition",     "complement",    "logical_divide",
                              "zipped_divide",   "tiled_divide",    "logical_product", "blocked_product",
                              "raked_product",   "left_inverse",    "right_inverse", "max_common_vector",
                              "max_common_layout", "size",          "cosize",        "print"};

constexpr std::int64_t kMaxChecked = 4096;  // indices walked by the function checks

void round_trips(const Layout& l) {
  const Parsed<Layout> p = parse_layout(to_string(l));
  if (p.ok) require(p.value == l);
}

void accepted(const LayoutResult& r) {
  if (!r.ok()) return;
  require(check_offsets(r.value).ok());
  round_trips(r.value);
}

void run_library(const std::string& op, const std::vector<std::string>& w) {
  if (op == "print" || op == "size" || op == "cosize") {
    const Parsed<SwizzledLayout> p = parse_swizzled_layout(w[0]);
    if (!p.ok) return;
    const Parsed<SwizzledLayout> again = parse_swizzled_layout(to_string(p.value));
    require(again.ok && again.value.layout == p.value.layout);
    (void)checked_size(p.value.layout);
    (void)checked_cosize(p.value.layout);
    return;
  }
  const Parsed<Layout> pa = parse_layout(w[0]);
  if (!pa.ok) return;
  const Layout& a = pa.value;
  round_trips(a);
  // A's offsets are computed only where they fit in int64 (Layout::operator() is unchecked, as on
  // the device): the function checks walk no index of a layout that check_offsets refuses.
  const bool evaluable = check_offsets(a).ok();
  const std::int64_t na = !evaluable ? 0 : a.size() < kMaxChecked ? a.size() : kMaxChecked;
  if (op == "coalesce") {
    if (w.size() == 1) {
      const Layout c = coalesce(a);
      require(c.size() == a.size());
      for (std::int64_t i = 0; i < na; ++i) require(c(i) == a(i));
      return;
    }
    const Parsed<IntTuple> p = parse_int_tuple(w[1]);
    if (p.ok) accepted(coalesce(a, p.value));
    return;
  }
  if (op == "complement") {
    if (w.size() == 1) return accepted(complement(a));
    const Parsed<IntTuple> n = parse_int_tuple(w[1]);
    if (n.ok && n.value.is_leaf()) accepted(complement(a, n.value.value()));
    return;
  }
  if (op == "left_inverse") {
    const LayoutResult r = left_inverse(a);
    accepted(r);
    if (!r.ok() || a.size() > kMaxChecked) return;
    std::set<std::int64_t> offsets;
    for (std::int64_t i = 0; i < na; ++i) offsets.insert(a(i));
    if (static_cast<std::int64_t>(offsets.size()) != na) return;  // not injective: CuTe's quasi-inverse, no law
    for (std::int64_t i = 0; i < na; ++i) require(r.value(a(i)) == i);
    return;
  }
  if (op == "right_inverse") {
    const Layout r = right_inverse(a);
    const std::int64_t nr = !evaluable ? 0 : r.size() < kMaxChecked ? r.size() : kMaxChecked;
    for (std::int64_t i = 0; i < nr; ++i) require(a(r(i)) == i);
    return;
  }
  if (w.size() < 2) return;
  if (op == "composition" || op == "logical_divide" || op == "zipped_divide" || op == "tiled_divide" ||
      op == "logical_product") {
    const Parsed<Tiler> pt = parse_tiler(w[1]);
    if (!pt.ok) return;
    const Parsed<Tiler> again = parse_tiler(to_string(pt.value));
    require(again.ok && again.value == pt.value);
    const Tiler& t = pt.value;
    if (op == "composition") {
      const LayoutResult r = composition(a, t);
      accepted(r);
      if (r.ok() && !t.by_mode) require(r.value.size() == t.layout.size());
    } else if (op == "logical_divide") {
      accepted(logical_divide(a, t));
    } else if (op == "zipped_divide") {
      accepted(zipped_divide(a, t));
    } else if (op == "tiled_divide") {
      accepted(tiled_divide(a, t));
    } else {
      accepted(logical_product(a, t));
    }
    return;
  }
  const Parsed<Layout> pb = parse_layout(w[1]);
  if (!pb.ok) return;
  const Layout& b = pb.value;
  if (op == "blocked_product") return accepted(blocked_product(a, b));
  if (op == "raked_product") return accepted(raked_product(a, b));
  const LayoutResult l = max_common_layout(a, b);
  const IntResult v = max_common_vector(a, b);
  accepted(l);
  if (l.ok() && v.ok()) require(v.value == l.value.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::string op = kOps[data[0] % 16];
  std::vector<std::string> words = fuzz_words(data, size, false);
  if (words.size() > 3) words.resize(3);

  run_library(op, words);

  // The same words through the CLI: exit 0, 1 or 2, and one JSON object on stdout.
  // Every '/' becomes '_' (as in fuzz_cli), so `--svg FILE` can only write into the work directory.
  std::vector<std::string> argv{"layout", op};
  bool option = false;
  for (std::string w : words) {
    for (char& c : w) c = c == '/' ? '_' : c;
    option = option || (!w.empty() && w[0] == '-');
    argv.push_back(w);
  }
  argv.push_back("--json");
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(argv, in, out, err);
  require(rc == 0 || rc == 1 || rc == 2);
  if (option) return 0;  // --help prints text; other options are fuzz_cli's business
  const nlohmann::json j = nlohmann::json::parse(out.str(), nullptr, false);
  require(!j.is_discarded() && j.is_object());
  return 0;
}

// tmakit's layout algebra against CuTe itself: tests/data/cute_reference*.jsonl.gz hold CuTe's
// answers (C++ CuTe, static layouts, compiled from NVIDIA/cutlass's headers by
// tests/cute_reference/make_reference.py) for random layouts, one JSON line per case:
//   {"op": OP, "args": [A, B...], "result": R}   or   {"op": OP, "args": [...], "refused": MESSAGE}
// OP is one of the 16 operations of `tmakit layout`; the args are in tmakit's notation (as the CLI
// takes them); R is a layout, an integer (size, cosize, max_common_vector) or, for print, CuTe's
// offsets layout(i) for every index i < size. "refused" means the instantiation did not compile
// (one of CuTe's static checks failed), with the compiler's first error.
//
// Agreement:
//   a layout: the same shape (IntTuple equality) and the same offset for every index < size
//     (strides of extent-1 modes may differ); left_inverse: the same offset R(A(i)) for every
//     index i of A (any value is valid off A's image);
//   an integer: equal; print: tmakit's grid (make_grid, the CLI's table) holds CuTe's offsets;
//   refused: tmakit refuses, with the rule that names the same condition (kRefusalRule).
// The deliberate differences (docs/layout.md) are counted, never silently skipped.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tmakit/layout/render.hpp"
#include "test_data.hpp"
#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"

using namespace tmakit;

namespace {

struct Case {
  std::string op;
  std::vector<std::string> args;
  bool refused = false;
  std::string refusal;  // CuTe's compiler message
  nlohmann::json result;
  std::string where;  // file:line
};

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out;
    for (const char* file : {"cute_reference.jsonl.gz", "cute_reference_cheap.jsonl.gz", "cute_reference_algebra.jsonl.gz"}) {
      const std::vector<std::string> lines = tmakit_test::read_gz_lines(tmakit_test::data_path(file));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const nlohmann::json j = nlohmann::json::parse(lines[i]);
        Case c;
        c.op = j.at("op").get<std::string>();
        c.args = j.at("args").get<std::vector<std::string>>();
        c.refused = j.contains("refused");
        if (c.refused) c.refusal = j.at("refused").get<std::string>();
        else c.result = j.at("result");
        c.where = std::string(file) + ":" + std::to_string(i + 1);
        out.push_back(std::move(c));
      }
    }
    return out;
  }();
  return cases;
}

// CuTe's static check -> the tmakit rule that names it.
LayoutRule refusal_rule(const std::string& cute_message) {
  if (cute_message.find("Stride Divisibility Condition") != std::string::npos) return LayoutRule::composition_stride;
  if (cute_message.find("Shape Divisibility Condition") != std::string::npos) return LayoutRule::composition_shape;
  if (cute_message.find("Non-injective Layout detected in complement") != std::string::npos)
    return LayoutRule::complement_not_injective;
  if (cute_message.find("Left inverse divisibility condition") != std::string::npos)
    return LayoutRule::left_inverse_divisibility;
  if (cute_message.find("tuple_size") != std::string::npos || cute_message.find("Mismatched Ranks") != std::string::npos)
    return LayoutRule::product_rank;
  if (cute_message.find("Too many modes") != std::string::npos) return LayoutRule::tiler_rank;
  return LayoutRule::ok;  // unknown: the test reports it
}

Layout L(const std::string& s) {
  const Parsed<Layout> p = parse_layout(s);
  if (!p.ok) ADD_FAILURE() << "cannot parse layout " << s << ": " << p.error.message;
  return p.value;
}

// Every index < size of both layouts, compared (sizes compared by the caller through the shapes).
bool same_offsets(const Layout& a, const Layout& b, std::string* why) {
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i)
    if (a(i) != b(i)) {
      *why = "index " + std::to_string(i) + ": tmakit " + std::to_string(a(i)) + ", CuTe " + std::to_string(b(i));
      return false;
    }
  return true;
}

// The result tmakit gives for a case (a layout, an integer, or a refusal), as LayoutResult / IntResult.
struct Outcome {
  bool is_int = false;
  LayoutResult layout;
  IntResult value;
  LayoutDiagnostic diagnostic() const { return is_int ? value.diagnostic : layout.diagnostic; }
};

Outcome run(const Case& c) {
  Outcome o;
  const std::string& op = c.op;
  const Layout a = L(c.args[0]);
  auto tiler = [&]() {
    const Parsed<Tiler> p = parse_tiler(c.args[1]);
    if (!p.ok) ADD_FAILURE() << c.where << ": cannot parse tiler " << c.args[1] << ": " << p.error.message;
    return p.value;
  };
  if (op == "size" || op == "cosize" || op == "max_common_vector") {
    o.is_int = true;
    o.value = op == "size" ? checked_size(a) : op == "cosize" ? checked_cosize(a) : max_common_vector(a, L(c.args[1]));
  } else if (op == "coalesce") {
    if (c.args.size() == 1) {
      o.layout = accept(coalesce(a));
    } else {
      const Parsed<IntTuple> p = parse_int_tuple(c.args[1]);
      EXPECT_TRUE(p.ok) << c.where;
      o.layout = coalesce(a, p.value);
    }
  } else if (op == "complement") {
    o.layout = c.args.size() == 1 ? complement(a) : complement(a, std::stoll(c.args[1]));
  } else if (op == "composition") {
    o.layout = composition(a, tiler());
  } else if (op == "logical_divide") {
    o.layout = logical_divide(a, tiler());
  } else if (op == "zipped_divide") {
    o.layout = zipped_divide(a, tiler());
  } else if (op == "tiled_divide") {
    o.layout = tiled_divide(a, tiler());
  } else if (op == "logical_product") {
    o.layout = logical_product(a, tiler());
  } else if (op == "blocked_product") {
    o.layout = blocked_product(a, L(c.args[1]));
  } else if (op == "raked_product") {
    o.layout = raked_product(a, L(c.args[1]));
  } else if (op == "left_inverse") {
    o.layout = left_inverse(a);
  } else if (op == "right_inverse") {
    o.layout = accept(right_inverse(a));
  } else if (op == "max_common_layout") {
    o.layout = max_common_layout(a, L(c.args[1]));
  } else {
    ADD_FAILURE() << c.where << ": unknown op " << op;
  }
  return o;
}

// Whether tmakit agrees with CuTe on case c; *why says how it does not.
bool agrees(const Case& c, std::string* why) {
  if (c.op == "print") {
    const Layout a = L(c.args[0]);
    const LayoutGrid g = make_grid(SwizzledLayout{SwizzleParams{}, a}, 0);
    const std::vector<std::int64_t> want = c.result.get<std::vector<std::int64_t>>();
    if (static_cast<std::int64_t>(want.size()) != g.rows * g.cols) {
      *why = "grid of " + std::to_string(g.rows * g.cols) + " cells, CuTe " + std::to_string(want.size()) + " offsets";
      return false;
    }
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t col = 0; col < g.cols; ++col)
        if (g.at(r, col) != want[static_cast<std::size_t>(r + col * g.rows)]) {
          *why = "cell (" + std::to_string(r) + "," + std::to_string(col) + ")";
          return false;
        }
    return true;
  }
  const Outcome o = run(c);
  const LayoutDiagnostic d = o.diagnostic();
  if (c.refused) {
    const LayoutRule want = refusal_rule(c.refusal);
    if (d.ok()) {
      *why = "CuTe refuses (" + c.refusal + "), tmakit gives " + (o.is_int ? std::to_string(o.value.value) : to_string(o.layout.value));
      return false;
    }
    if (d.rule != want) {
      *why = "CuTe refuses (" + c.refusal + "), tmakit refuses with " + message(d);
      return false;
    }
    return true;
  }
  if (!d.ok()) {
    *why = "CuTe gives " + c.result.dump() + ", tmakit refuses: " + message(d);
    return false;
  }
  if (o.is_int) {
    const std::int64_t want = std::stoll(c.result.get<std::string>());
    if (o.value.value != want) {
      *why = "tmakit " + std::to_string(o.value.value) + ", CuTe " + std::to_string(want);
      return false;
    }
    return true;
  }
  const Layout want = L(c.result.get<std::string>());
  const Layout& got = o.layout.value;
  if (c.op == "left_inverse") {  // equal on A's image
    const Layout a = L(c.args[0]);
    for (std::int64_t i = 0; i < a.size(); ++i)
      if (got(a(i)) != want(a(i))) {
        *why = "R(A(" + std::to_string(i) + ")): tmakit " + std::to_string(got(a(i))) + ", CuTe " + std::to_string(want(a(i))) +
               " (tmakit " + to_string(got) + ", CuTe " + to_string(want) + ")";
        return false;
      }
    return true;
  }
  if (!(got.shape == want.shape)) {
    *why = "tmakit " + to_string(got) + ", CuTe " + to_string(want);
    return false;
  }
  if (!same_offsets(got, want, why)) {
    *why += " (tmakit " + to_string(got) + ", CuTe " + to_string(want) + ")";
    return false;
  }
  return true;
}

class CuteReference : public ::testing::TestWithParam<const char*> {};

TEST_P(CuteReference, EveryCaseAgrees) {
  const std::string op = GetParam();
  int n = 0, refused = 0, failed = 0;
  for (const Case& c : all_cases()) {
    if (c.op != op) continue;
    ++n;
    refused += c.refused ? 1 : 0;
    std::string why;
    if (!agrees(c, &why)) {
      if (++failed <= 8) {
        std::string args;
        for (const std::string& s : c.args) args += " '" + s + "'";
        ADD_FAILURE() << c.where << ": tmakit layout " << op << args << ": " << why;
      }
    }
  }
  std::printf("[ CuTe     ] %-18s %6d cases (%d refused by CuTe), %d disagree\n", op.c_str(), n, refused, failed);
  EXPECT_EQ(failed, 0);
  EXPECT_GE(n, 100) << "the reference data should hold every operation";
}

INSTANTIATE_TEST_SUITE_P(AllOperations, CuteReference,
                         ::testing::Values("coalesce", "composition", "complement", "logical_divide", "zipped_divide",
                                           "tiled_divide", "logical_product", "blocked_product", "raked_product",
                                           "left_inverse", "right_inverse", "max_common_vector", "max_common_layout",
                                           "size", "cosize", "print"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace

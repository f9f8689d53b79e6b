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
//     (strides of extent-1 modes may differ; checked leaf by leaf, see same_offsets);
//     left_inverse: the same offset R(A(i)) for every index i of A (any value is valid off A's
//     image);
//   an integer: equal; print: tmakit's grid (make_grid, the CLI's table) holds CuTe's offsets;
//   refused: tmakit refuses, with the rule that names the same condition (refusal_rule).
// The deliberate differences (docs/layout.md) concern layouts the data does not hold (dynamic ones,
// negative strides, overflow, the empty layout); no case is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
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

// Every tests/data/cute_reference*.jsonl.gz, by name.
std::vector<std::string> reference_files() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(TMAKIT_TEST_DATA_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("cute_reference") && name.ends_with(".jsonl.gz")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The lines of every reference file, decompressed once; where = file:line.
struct Line {
  std::string where;
  std::string text;
};

const std::vector<Line>& all_lines() {
  static const std::vector<Line> lines = [] {
    std::vector<Line> out;
    for (const std::string& file : reference_files()) {
      std::vector<std::string> text = tmakit_test::read_gz_lines(tmakit_test::data_path(file.c_str()));
      for (std::size_t i = 0; i < text.size(); ++i) out.push_back({file + ":" + std::to_string(i + 1), std::move(text[i])});
    }
    return out;
  }();
  return lines;
}

// The cases of one operation. Only its own lines are parsed (make_reference.py writes each line as
// {"op":"NAME",...}); a line written otherwise is parsed to find its operation.
std::vector<Case> cases_of(const std::string& op) {
  const std::string prefix = "{\"op\":\"" + op + "\"";
  std::vector<Case> out;
  for (const Line& line : all_lines()) {
    if (line.text.starts_with("{\"op\":\"") && !line.text.starts_with(prefix)) continue;
    const nlohmann::json j = nlohmann::json::parse(line.text);
    if (j.at("op").get<std::string>() != op) continue;
    Case c;
    c.op = op;
    c.args = j.at("args").get<std::vector<std::string>>();
    c.refused = j.contains("refused");
    if (c.refused) c.refusal = j.at("refused").get<std::string>();
    else c.result = j.at("result");
    c.where = line.where;
    out.push_back(std::move(c));
  }
  return out;
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

// Whether two layouts of the same shape give the same offset for every index < size. With equal
// shapes, index i has the same coordinate in both, and its offset is the sum over the leaves of
// coordinate times stride; so the offsets agree everywhere exactly when every leaf of extent > 1 has
// the same stride in both (the index with coordinate 1 in that leaf and 0 elsewhere tells them
// apart otherwise). That is what this checks: a leaf at a time, not an index at a time, because a
// divide's result can hold tens of millions of indices. *why names the first index that differs.
bool same_offsets(const Layout& a, const Layout& b, std::string* why) {
  std::int64_t index = 1;  // the index of the unit coordinate in leaf k: the extents before it
  for (int k = 0; k < a.num_leaves(); ++k) {
    const std::int64_t extent = a.shape.leaf_at(k);
    if (extent > 1 && a.stride.leaf_at(k) != b.stride.leaf_at(k)) {
      *why = "index " + std::to_string(index) + ": tmakit " + std::to_string(a(index)) + ", CuTe " + std::to_string(b(index));
      return false;
    }
    index *= extent;
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

// same_offsets (leaf by leaf) says what the comparison of every offset says, on layouts of one shape
// that differ in a stride of extent 1, of extent > 1, in a nested mode, or not at all.
TEST(CuteReferenceComparison, LeafByLeafIsIndexByIndex) {
  const char* pairs[][2] = {
      {"(4,8):(1,4)", "(4,8):(1,4)"},           {"(4,8):(1,4)", "(4,8):(1,5)"},
      {"(4,1,8):(1,0,4)", "(4,1,8):(1,7,4)"},   {"((2,2),(1,8)):((1,4),(3,2))", "((2,2),(1,8)):((1,4),(9,2))"},
      {"(3,(2,5)):(0,(1,6))", "(3,(2,5)):(0,(2,6))"}, {"1:0", "1:5"}};
  for (const auto& p : pairs) {
    const Layout a = L(p[0]), b = L(p[1]);
    ASSERT_TRUE(a.shape == b.shape) << p[0];  // the replay compares the shapes first
    bool every_index = true;
    for (std::int64_t i = 0; i < a.size(); ++i) every_index = every_index && a(i) == b(i);
    std::string why;
    EXPECT_EQ(same_offsets(a, b, &why), every_index) << p[0] << " vs " << p[1] << ": " << why;
  }
  std::string why;
  EXPECT_FALSE(same_offsets(L("(4,8):(1,4)"), L("(4,8):(1,5)"), &why));
  EXPECT_EQ(why, "index 4: tmakit 4, CuTe 5");  // the first index that differs: coordinate (0,1)
  EXPECT_TRUE(same_offsets(L("(4,1,8):(1,0,4)"), L("(4,1,8):(1,7,4)"), &why));
}

class CuteReference : public ::testing::TestWithParam<const char*> {};

TEST_P(CuteReference, EveryCaseAgrees) {
  const std::string op = GetParam();
  int n = 0, refused = 0, failed = 0;
  for (const Case& c : cases_of(op)) {
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
  EXPECT_GE(n, 10000) << "the reference data should hold at least 10,000 cases of every operation";
}

INSTANTIATE_TEST_SUITE_P(AllOperations, CuteReference,
                         ::testing::Values("coalesce", "composition", "complement", "logical_divide", "zipped_divide",
                                           "tiled_divide", "logical_product", "blocked_product", "raked_product",
                                           "left_inverse", "right_inverse", "max_common_vector", "max_common_layout",
                                           "size", "cosize", "print"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace

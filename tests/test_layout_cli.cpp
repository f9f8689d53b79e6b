// `tmakit layout`, in-process through run_cli: results, exit codes, JSON, errors, print, SVG.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

using nlohmann::json;

namespace {

struct CliRun {
  int rc;
  std::string out, err;
};

CliRun layout(std::vector<std::string> args) {
  args.insert(args.begin(), "layout");
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(args, in, out, err);
  return {rc, out.str(), err.str()};
}

}  // namespace

TEST(LayoutCli, EveryOperationPrintsOneLine) {
  struct Case {
    std::vector<std::string> args;
    const char* out;
  } cases[] = {
      {{"coalesce", "(2,(1,6)):(1,(6,2))"}, "12:1\n"},
      {{"coalesce", "(2,(1,6)):(1,(6,2))", "(1,1)"}, "(2,6):(1,2)\n"},
      {{"composition", "(6,2):(8,2)", "(4,3):(3,1)"}, "((2,2),3):((24,2),8)\n"},
      {{"composition", "(12,(4,8)):(59,(13,1))", "<3:4,8:2>"}, "(3,(2,4)):(236,(26,1))\n"},
      {{"composition", "(12,(4,8)):(59,(13,1))", "(3,8)"}, "(3,(4,2)):(59,(13,1))\n"},
      {{"complement", "4:2", "24"}, "(2,3):(1,8)\n"},
      {{"complement", "(4,6):(1,4)"}, "1:0\n"},
      {{"logical_divide", "(4,2,3):(2,1,8)", "4:2"}, "((2,2),(2,3)):((4,1),(2,8))\n"},
      {{"zipped_divide", "(9,(4,8)):(59,(13,1))", "<3:3,(2,4):(1,8)>"}, "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))\n"},
      {{"tiled_divide", "(9,(4,8)):(59,(13,1))", "<3:3,(2,4):(1,8)>"}, "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))\n"},
      {{"logical_product", "(2,2):(4,1)", "6:1"}, "((2,2),(2,3)):((4,1),(2,8))\n"},
      {{"blocked_product", "(2,5):(5,1)", "(3,4):(1,3)"}, "((2,3),(5,4)):((5,10),(1,30))\n"},
      {{"raked_product", "(2,5):(5,1)", "(3,4):(1,3)"}, "((3,2),(4,5)):((10,5),(30,1))\n"},
      {{"left_inverse", "4:2"}, "(2,4):(0,1)\n"},
      {{"right_inverse", "(4,8):(8,1)"}, "(8,4):(4,1)\n"},
      {{"max_common_vector", "(4,8):(1,8)", "(4,8):(1,4)"}, "4\n"},
      {{"max_common_layout", "(4,8):(1,8)", "(4,8):(1,4)"}, "4:1\n"},
      {{"size", "((2,2),3):((1,4),2)"}, "12\n"},
      {{"cosize", "((2,2),3):((1,4),2)"}, "10\n"},
      {{"size", "Sw<3,4,3> o (8,64):(64,1)"}, "512\n"},
  };
  for (const auto& c : cases) {
    const CliRun r = layout(c.args);
    EXPECT_EQ(r.rc, 0) << c.args[0] << ": " << r.err;
    EXPECT_EQ(r.out, c.out) << c.args[0];
    EXPECT_EQ(r.err, "");
  }
}

TEST(LayoutCli, Json) {
  CliRun r = layout({"composition", "(6,2):(8,2)", "(4,3):(3,1)", "--json"});
  ASSERT_EQ(r.rc, 0);
  json j = json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["result"], "((2,2),3):((24,2),8)");
  EXPECT_EQ(j["shape"], "((2,2),3)");
  EXPECT_EQ(j["size"], 12);
  EXPECT_EQ(j["rank"], 2);
  r = layout({"max_common_vector", "(4,8):(1,4)", "(4,8):(1,4)", "--json"});
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(json::parse(r.out)["result"], 32);
  // a refusal: exit 1, JSON error with the rule, the numbers and a fix
  r = layout({"composition", "(6,2):(1,7)", "2:8", "--json"});
  EXPECT_EQ(r.rc, 1);
  j = json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["error"]["rule"], "layout.composition.stride_divisibility");
  EXPECT_EQ(j["error"]["values"], json::array({8, 6}));
  EXPECT_FALSE(j["error"]["fix"].get<std::string>().empty());
  // bad notation: exit 2, the position
  r = layout({"size", "(4,8", "--json"});
  EXPECT_EQ(r.rc, 2);
  j = json::parse(r.out);
  EXPECT_EQ(j["error"]["rule"], "layout.notation");
  EXPECT_EQ(j["error"]["position"], 4);
}

// Arguments that are not UTF-8 come back in JSON with U+FFFD, not as an uncaught exception (this
// aborted before; found by fuzz/fuzz_cli.cpp, docs/fuzzing.md).
TEST(LayoutCli, JsonEchoesArgumentsThatAreNotUtf8) {
  CliRun r = layout({"size", "\xff(", "--json"});  // bad notation: echoes the input
  EXPECT_EQ(r.rc, 2);
  json j = json::parse(r.out);
  EXPECT_EQ(j["error"]["rule"], "layout.notation");
  EXPECT_EQ(j["error"]["input"], "\xef\xbf\xbd(");  // U+FFFD for the byte 0xff
  r = layout({"frobnicate\xfe", "4:1", "--json"});  // usage error: echoes the operation
  EXPECT_EQ(r.rc, 2);
  j = json::parse(r.out);
  EXPECT_EQ(j["op"], "frobnicate\xef\xbf\xbd");
}

TEST(LayoutCli, ErrorsAndExitCodes) {
  CliRun r = layout({"complement", "(2,2):(1,1)", "8"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("layout.complement.not_injective"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
  r = layout({"composition", "(6,2", "4:1"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("position 4: expected ',' or ')'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n      ^"), std::string::npos) << r.err;  // caret under the position
  EXPECT_EQ(layout({"frobnicate", "4:1"}).rc, 2);
  EXPECT_EQ(layout({"coalesce"}).rc, 2);
  EXPECT_EQ(layout({"size", "4:1", "8:1"}).rc, 2);
  EXPECT_EQ(layout({"composition", "Sw<3,4,3> o (8,8):(8,1)", "4:1"}).rc, 2);
  EXPECT_EQ(layout({"print", "Sw<3,4,3> o (8,8):(8,1)"}).rc, 2);  // needs --dtype
  EXPECT_EQ(layout({"print", "4:1", "--bogus"}).rc, 2);
  EXPECT_EQ(layout({"print", "4:1", "--dtype", "nonsense"}).rc, 2);
  r = layout({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("blocked_product"), std::string::npos);
  // elements larger than the swizzle chunk: refused (exit 1)
  r = layout({"print", "Sw<1,2,3> o (8,8):(8,1)", "--dtype", "f64"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("layout.swizzle.elem_bytes"), std::string::npos) << r.err;
}

TEST(LayoutCli, PrintTable) {
  const CliRun r = layout({"print", "(2,3):(3,1)"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "(2,3):(3,1)\n"
            "     0   1   2\n"
            "   +---+---+---+\n"
            "0  | 0 | 1 | 2 |\n"
            "   +---+---+---+\n"
            "1  | 3 | 4 | 5 |\n"
            "   +---+---+---+\n");
  // swizzled, element offsets: 128B swizzle, f32 (4 per 16-byte chunk); 64 f32 = 256-byte rows, so
  // row 1 starts at byte 256 (bit 8 set): its 16-byte chunks are XORed with 2
  const CliRun s = layout({"print", "Sw<3,4,3> o (2,64):(64,1)", "--dtype", "f32", "--json"});
  ASSERT_EQ(s.rc, 0) << s.err;
  const json j = json::parse(s.out);
  EXPECT_EQ(j["rows"], 2);
  EXPECT_EQ(j["cols"], 64);
  EXPECT_EQ(j["offsets"][0][0], 0);
  EXPECT_EQ(j["offsets"][1][0], 72);  // chunk 0 -> chunk 2 (element 64 + 8)
  EXPECT_EQ(j["offsets"][1][4], 76);  // chunk 1 -> chunk 3
  EXPECT_EQ(j["offsets"][1][8], 64);  // chunk 2 -> chunk 0
  EXPECT_EQ(j["banks"][1][0], 8);     // byte 288 = word 72 -> bank 8
}

TEST(LayoutCli, SvgColoursBanks) {
  const std::string path = (std::filesystem::temp_directory_path() / "tmakit_layout_cli_test.svg").string();
  std::filesystem::remove(path);
  const CliRun r = layout({"print", "Sw<3,4,3> o (8,64):(64,1)", "--dtype", "bf16", "--svg", path});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  const std::string svg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::size_t cells = 0, banks = 0;
  for (std::size_t p = svg.find("<rect x="); p != std::string::npos; p = svg.find("<rect x=", p + 1)) ++cells;
  for (std::size_t p = svg.find(">b"); p != std::string::npos; p = svg.find(">b", p + 1)) ++banks;
  EXPECT_EQ(cells, 512u);
  EXPECT_EQ(banks, 512u);
  EXPECT_NE(svg.find("Sw&lt;3,4,3&gt; o (8,64):(64,1)"), std::string::npos);
  // an algebra result can be drawn too
  EXPECT_EQ(layout({"logical_divide", "(8,8):(8,1)", "<2:1,4:1>", "--svg", path}).rc, 0);
  // ... with its banks when --dtype is given (once ignored for algebra ops)
  ASSERT_EQ(layout({"logical_divide", "(8,8):(8,1)", "<2:1,4:1>", "--dtype", "f32", "--svg", path}).rc, 0);
  std::ifstream g(path);
  const std::string svg2((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  cells = banks = 0;
  for (std::size_t p = svg2.find("<rect x="); p != std::string::npos; p = svg2.find("<rect x=", p + 1)) ++cells;
  for (std::size_t p = svg2.find(">b"); p != std::string::npos; p = svg2.find(">b", p + 1)) ++banks;
  EXPECT_EQ(cells, 64u);
  EXPECT_EQ(banks, 64u);
  EXPECT_NE(svg2.find("f32: element offsets; colour = 4-byte bank"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(LayoutCli, DtypeIsValidatedForEveryOperation) {
  // a bad --dtype was silently ignored by the algebra operations
  CliRun r = layout({"composition", "(8,8):(8,1)", "<2:1,4:1>", "--dtype", "nonsense"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--dtype"), std::string::npos) << r.err;
  EXPECT_EQ(layout({"coalesce", "(2,4):(1,2)", "--dtype", "nonsense"}).rc, 2);
  EXPECT_EQ(layout({"max_common_vector", "8:1", "8:1", "--dtype", "nonsense"}).rc, 2);
  EXPECT_EQ(layout({"size", "8:1", "--dtype", "nonsense"}).rc, 2);
  // a valid one changes nothing without --svg
  r = layout({"coalesce", "(2,4):(1,2)", "--dtype", "bf16"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "8:1\n");
}

// ---- overflow, the empty layout, and layouts too large to draw

TEST(LayoutCli, OverflowIsARefusalWithItsRule) {
  struct Case {
    std::vector<std::string> args;
    const char* op;
  } cases[] = {
      {{"cosize", "(2,2):(4611686018427387904,4611686018427387904)"}, "cosize"},
      {{"logical_divide", "(4,8):(8,1)", "2:4611686018427387904"}, "complement"},
      {{"logical_product", "4611686018427387904:1", "(4,8):(8,1)"}, "logical_product"},
      {{"print", "(2,2):(4611686018427387904,4611686018427387904)"}, "offsets"},
  };
  for (const Case& c : cases) {
    const CliRun r = layout(c.args);
    EXPECT_EQ(r.rc, 1) << c.args[0];
    EXPECT_EQ(r.out, "") << c.args[0];
    EXPECT_NE(r.err.find("layout.overflow: " + std::string(c.op)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
    std::vector<std::string> js = c.args;
    js.push_back("--json");
    const CliRun j = layout(js);
    EXPECT_EQ(j.rc, 1);
    const json o = json::parse(j.out);
    EXPECT_EQ(o["ok"], false);
    EXPECT_EQ(o["error"]["rule"], "layout.overflow");
    EXPECT_FALSE(o["error"]["fix"].get<std::string>().empty());
  }
  // A result whose cosize does not fit still prints; its JSON cosize is null, not a wrapped number.
  const CliRun j = layout({"coalesce", "(2,2):(4611686018427387904,4611686018427387904)", "--json"});
  EXPECT_EQ(j.rc, 0);
  EXPECT_TRUE(json::parse(j.out)["cosize"].is_null());
}

TEST(LayoutCli, EmptyLayout) {
  EXPECT_EQ(layout({"composition", "()", "(4,8):(8,1)"}).out, "(4,8):(0,0)\n");
  EXPECT_EQ(layout({"logical_divide", "()", "2:1"}).out, "(2,1):(0,0)\n");
  EXPECT_EQ(layout({"max_common_vector", "()", "(4,8)"}).out, "1\n");
  EXPECT_EQ(layout({"max_common_layout", "(4,8)", "()"}).out, "1:0\n");
  EXPECT_EQ(layout({"size", "()"}).out, "1\n");
  EXPECT_EQ(layout({"cosize", "()"}).out, "1\n");
  const CliRun r = layout({"logical_divide", "()", "(4,8)"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("layout.tiler.rank"), std::string::npos) << r.err;
  EXPECT_EQ(layout({"print", "()"}).rc, 0);
}

TEST(LayoutCli, TooLargeToDrawIsRefusedBeforeAllocating) {
  const std::string svg = (std::filesystem::temp_directory_path() / "tmakit_too_large.svg").string();
  for (const char* l : {"(65536,65536):(1,65536)", "4611686018427387904:1", "(16384,16384):(1,16384)", "(257,256)"}) {
    const CliRun r = layout({"print", l});
    EXPECT_EQ(r.rc, 1) << l;
    EXPECT_NE(r.err.find("layout.too_large_to_draw"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("draw a slice"), std::string::npos) << r.err;
    const CliRun j = layout({"print", l, "--json"});
    EXPECT_EQ(j.rc, 1);
    const json o = json::parse(j.out);
    EXPECT_EQ(o["error"]["rule"], "layout.too_large_to_draw");
    EXPECT_EQ(o["error"]["values"][1], 65536);
    const CliRun s = layout({"coalesce", l, "--svg", svg});
    EXPECT_EQ(s.rc, 1) << l;
    EXPECT_NE(s.err.find("layout.too_large_to_draw"), std::string::npos) << s.err;
  }
  EXPECT_EQ(layout({"print", "(256,256)"}).rc, 0);  // the limit itself is drawn
  std::remove(svg.c_str());
}

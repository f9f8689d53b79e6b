// JSON lines: schema parsing (including rank 6, missing fields, bad JSON, values that do not fit)
// and the output line format.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/validate.hpp"

using namespace tmakit;
using nlohmann::json;

namespace {

TensorMapParams parse_ok(const std::string& line) {
  TensorMapParams p;
  std::vector<jsonl::Error> errors;
  EXPECT_TRUE(jsonl::parse_params(line, p, errors)) << line << "\n" << (errors.empty() ? "" : errors[0].message);
  return p;
}

std::vector<jsonl::Error> parse_bad(const std::string& line) {
  TensorMapParams p;
  std::vector<jsonl::Error> errors;
  EXPECT_FALSE(jsonl::parse_params(line, p, errors)) << line;
  EXPECT_FALSE(errors.empty());
  return errors;
}

json run_line(const std::string& line) {
  std::string out;
  jsonl::process_line(line, out);
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "exactly one output line";
  return json::parse(out);
}

bool is_hex256(const std::string& s) {
  if (s.size() != 256) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

void expect_result_shape(const json& r) {
  ASSERT_TRUE(r.is_object());
  ASSERT_TRUE(r.contains("result"));
  ASSERT_TRUE(r.contains("bytes"));
  ASSERT_TRUE(r.contains("errors"));
  ASSERT_TRUE(r["errors"].is_array());
  const int result = r["result"].get<int>();
  ASSERT_TRUE(result == 0 || result == 1);
  if (result == 0) {
    EXPECT_TRUE(is_hex256(r["bytes"].get<std::string>())) << r.dump();
    EXPECT_TRUE(r["errors"].empty());
  } else {
    EXPECT_EQ(r["bytes"].get<std::string>(), "");
    EXPECT_FALSE(r["errors"].empty());
  }
  for (const auto& e : r["errors"]) {
    for (const char* k : {"rule", "field", "value", "message"}) {
      ASSERT_TRUE(e.contains(k)) << e.dump();
      EXPECT_TRUE(e[k].is_string()) << e.dump();
    }
    EXPECT_FALSE(e["rule"].get<std::string>().empty());
    EXPECT_FALSE(e["message"].get<std::string>().empty());
  }
}

const char* kTiled =
    R"({"kind":"tiled","dtype":9,"rank":3,"address":139637976727552,"dims":[64,100,7],"strides":[128,12800],)"
    R"("box":[64,32,2],"elem_strides":[1,1,1],"interleave":0,"swizzle":3,"l2":2,"oob":0})";

}  // namespace

TEST(JsonlParse, Tiled) {
  const TensorMapParams p = parse_ok(kTiled);
  EXPECT_EQ(p.kind, MapKind::tiled);
  EXPECT_EQ(p.arch, Arch::sm_90);
  EXPECT_EQ(p.dtype, DataType::bfloat16);
  EXPECT_EQ(p.rank, 3u);
  EXPECT_EQ(p.address, 0x7f0000000000ull);
  EXPECT_EQ(p.dims[0], 64u);
  EXPECT_EQ(p.dims[1], 100u);
  EXPECT_EQ(p.dims[2], 7u);
  EXPECT_EQ(p.dims[3], 0u);
  EXPECT_EQ(p.strides[0], 128u);
  EXPECT_EQ(p.strides[1], 12800u);
  EXPECT_EQ(p.box[0], 64u);
  EXPECT_EQ(p.box[2], 2u);
  EXPECT_EQ(p.elem_strides[2], 1u);
  EXPECT_EQ(p.swizzle, Swizzle::b128);
  EXPECT_EQ(p.l2, L2Promotion::b128);
  EXPECT_EQ(p.oob, OobFill::none);
}

TEST(JsonlParse, Im2colAndWide) {
  TensorMapParams p = parse_ok(
      R"({"kind":"im2col","dtype":9,"rank":4,"address":0,"dims":[64,30,30,8],"strides":[128,3840,115200],)"
      R"("elem_strides":[1,1,1,1],"interleave":0,"swizzle":3,"l2":2,"oob":0,"lower":[-1,-2],"upper":[1,2],)"
      R"("channels":64,"pixels":128})");
  EXPECT_EQ(p.kind, MapKind::im2col);
  EXPECT_EQ(p.lower[0], -1);
  EXPECT_EQ(p.lower[1], -2);
  EXPECT_EQ(p.upper[1], 2);
  EXPECT_EQ(p.channels, 64u);
  EXPECT_EQ(p.pixels, 128u);

  p = parse_ok(R"({"kind":"im2col_wide","rank":3,"dims":[8,9,10],"lower":[-32769],"upper":5,"mode":1})");
  EXPECT_EQ(p.kind, MapKind::im2col_wide);
  EXPECT_EQ(p.lower[0], -32769);
  EXPECT_EQ(p.upper[0], 5);
  EXPECT_EQ(p.wide_mode, Im2colWideMode::w128);
}

TEST(JsonlParse, Rank6IsHeldNotCrashed) {
  const TensorMapParams p = parse_ok(
      R"({"kind":"tiled","dtype":0,"rank":6,"address":0,"dims":[1,2,3,4,5,8589934592],)"
      R"("strides":[16,32,64,128,256],"box":[1,1,1,1,1,1],"elem_strides":[1,1,1,1,1,1]})");
  EXPECT_EQ(p.rank, 6u);
  EXPECT_EQ(p.dims[4], 5u);
  EXPECT_EQ(p.strides[3], 128u);
  const json r = run_line(
      R"({"kind":"im2col","dtype":0,"rank":6,"dims":[1,2,3,4,5,6],"strides":[16,32,64,128,256],)"
      R"("elem_strides":[1,1,1,1,1,1],"lower":[0,0,0],"upper":[0,0,0],"channels":1,"pixels":1})");
  expect_result_shape(r);
  EXPECT_EQ(r["result"], 1);
}

TEST(JsonlParse, MissingFieldsTakeDefaults) {
  TensorMapParams p = parse_ok("{}");
  EXPECT_EQ(p.kind, MapKind::tiled);
  EXPECT_EQ(p.rank, 0u);
  EXPECT_EQ(p.dtype, DataType::uint8);
  for (std::uint32_t e : p.elem_strides) EXPECT_EQ(e, 1u) << "missing elem_strides = all 1";

  p = parse_ok(R"({"dims":[4,5,6]})");
  EXPECT_EQ(p.rank, 3u) << "missing rank = number of dims";

  p = parse_ok(R"({"rank":4,"dims":[4,5],"elem_strides":[2],"box":[8]})");
  EXPECT_EQ(p.rank, 4u);
  EXPECT_EQ(p.dims[2], 0u) << "short arrays: missing entries are 0";
  EXPECT_EQ(p.elem_strides[0], 2u);
  EXPECT_EQ(p.elem_strides[1], 0u) << "a given but short elem_strides is 0-filled (as driver_sweep does)";
  EXPECT_EQ(p.box[1], 0u);

  p = parse_ok(R"({"dims":null,"rank":null,"dtype":null})");
  EXPECT_EQ(p.rank, 0u);
}

TEST(JsonlParse, NamesAccepted) {
  const TensorMapParams p = parse_ok(
      R"({"kind":"im2col-wide","arch":"sm_100a","dtype":"bf16","interleave":"NONE","swizzle":"128B_ATOM_64B",)"
      R"("l2":"L2_256B","oob":"nan","mode":"W128"})");
  EXPECT_EQ(p.kind, MapKind::im2col_wide);
  EXPECT_EQ(p.arch, Arch::sm_100);
  EXPECT_EQ(p.dtype, DataType::bfloat16);
  EXPECT_EQ(p.swizzle, Swizzle::b128_atom_64b);
  EXPECT_EQ(p.l2, L2Promotion::b256);
  EXPECT_EQ(p.oob, OobFill::nan_request_zero_fma);
  EXPECT_EQ(p.wide_mode, Im2colWideMode::w128);
  EXPECT_EQ(parse_ok(R"({"arch":120})").arch, Arch::sm_120);
  EXPECT_EQ(parse_bad(R"({"arch":"sm_80"})")[0].rule, "input.name");
  EXPECT_EQ(parse_bad(R"({"swizzle":"256B"})")[0].rule, "input.name");
  EXPECT_EQ(parse_bad(R"({"kind":"tile"})")[0].rule, "input.name");
}

TEST(JsonlParse, OutOfRangeEnumIntegersAreHeldForValidate) {
  const TensorMapParams p = parse_ok(R"({"dtype":99,"interleave":3,"swizzle":7,"l2":4,"oob":2,"mode":2})");
  EXPECT_EQ(static_cast<std::uint32_t>(p.dtype), 99u);
  EXPECT_EQ(static_cast<std::uint32_t>(p.swizzle), 7u);
  EXPECT_EQ(static_cast<std::uint32_t>(p.wide_mode), 2u);
}

TEST(JsonlParse, ValuesThatDoNotFitAreRefused) {
  struct Case {
    const char* line;
    const char* rule;
    const char* field;
  };
  const Case cases[] = {
      {R"({"dims":[1,-1]})", "input.range", "globalDim[1]"},
      {R"({"dims":[18446744073709551616]})", "input.range", "globalDim[0]"},
      {R"({"dims":[1e30]})", "input.range", "globalDim[0]"},
      {R"({"dims":[1.5]})", "input.type", "globalDim[0]"},
      {R"({"dims":["4"]})", "input.type", "globalDim[0]"},
      {R"({"dims":{"a":1}})", "input.type", "globalDim"},
      {R"({"box":[4294967296]})", "input.range", "boxDim[0]"},
      {R"({"elem_strides":[-1]})", "input.range", "elementStrides[0]"},
      {R"({"strides":[16,32,64,128,256,-5]})", "input.range", "globalStrides[5]"},
      {R"({"lower":[2147483648]})", "input.range", "pixelBoxLowerCorner[0]"},
      {R"({"upper":[-2147483649]})", "input.range", "pixelBoxUpperCorner[0]"},
      {R"({"rank":-1})", "input.range", "tensorRank"},
      {R"({"rank":4294967296})", "input.range", "tensorRank"},
      {R"({"address":-16})", "input.range", "globalAddress"},
      {R"({"address":true})", "input.type", "globalAddress"},
      {R"({"dtype":-1})", "input.range", "tensorDataType"},
      {R"({"channels":4294967296})", "input.range", "channelsPerPixel"},
      {R"({"pixels":[1]})", "input.type", "pixelsPerColumn"},
  };
  for (const Case& c : cases) {
    const auto errors = parse_bad(c.line);
    ASSERT_FALSE(errors.empty()) << c.line;
    EXPECT_EQ(errors[0].rule, c.rule) << c.line;
    EXPECT_EQ(errors[0].field, c.field) << c.line;
    EXPECT_FALSE(errors[0].message.empty());
    EXPECT_EQ(errors[0].message.rfind("error [" + std::string(c.rule) + "] " + c.field + " = ", 0), 0u) << errors[0].message;
    expect_result_shape(run_line(c.line));
  }
  // Every input error is reported, not only the first.
  EXPECT_EQ(parse_bad(R"({"dims":[-1,-2],"box":[-3]})").size(), 3u);
  // The largest values that fit are accepted.
  const TensorMapParams p =
      parse_ok(R"({"dims":[18446744073709551615],"box":[4294967295],"lower":[-2147483648],"address":18446744073709551600})");
  EXPECT_EQ(p.dims[0], 18446744073709551615ull);
  EXPECT_EQ(p.box[0], 4294967295u);
  EXPECT_EQ(p.lower[0], -2147483647 - 1);
}

TEST(JsonlParse, BadJson) {
  for (const char* line : {"{", "not json", R"({"dims":[1,2})", "[1,2,3]", "42", "\"str\"", "{\"a\":1}}", "\xff\xfe"}) {
    const auto errors = parse_bad(line);
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors[0].rule, "input.json") << line;
    // Diagnostic::message()'s format: no field and no value, then ": " and the rule in words.
    EXPECT_EQ(errors[0].message.rfind("error [input.json] ", 0), 0u) << errors[0].message;
    const json r = run_line(line);
    expect_result_shape(r);
    EXPECT_EQ(r["result"], 1);
    EXPECT_EQ(r["errors"][0]["rule"], "input.json");
  }
}

TEST(JsonlParse, DriverSweepOutputLinesAreValidInput) {
  const TensorMapParams p = parse_ok(
      R"({"address":0,"box":[8],"dims":[8],"dtype":0,"elem_strides":[1],"interleave":0,"kind":"tiled","l2":0,)"
      R"("oob":0,"rank":1,"strides":[],"swizzle":0,"result":0,"bytes":"00","unwritten":"ff"})");
  EXPECT_EQ(p.rank, 1u);
  EXPECT_EQ(p.box[0], 8u);
}

TEST(JsonlOutput, AcceptedLineShape) {
  const json r = run_line(kTiled);
  expect_result_shape(r);
  EXPECT_EQ(r["result"], 0);
}

TEST(JsonlOutput, RefusedLineShape) {
  const json r = run_line(R"({"kind":"tiled","dtype":9,"rank":2,"dims":[4096,4096],"strides":[8200],"box":[64,128]})");
  expect_result_shape(r);
  EXPECT_EQ(r["result"], 1);
  const json r0 = run_line(R"({"kind":"tiled","dtype":9,"rank":0})");
  EXPECT_EQ(r0["result"], 1);
}

TEST(JsonlOutput, StreamKeepsGoingAfterBadLinesAndSkipsBlankOnes) {
  std::istringstream in(std::string(kTiled) + "\n\n   \nnot json\r\n" + R"({"dims":[-1]})" + "\n" + kTiled);
  std::ostringstream out;
  const jsonl::StreamStats stats = jsonl::process_stream(in, out);
  EXPECT_EQ(stats.lines, 4u);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<json> results;
  while (std::getline(lines, line)) results.push_back(json::parse(line));
  ASSERT_EQ(results.size(), 4u);
  for (const json& r : results) expect_result_shape(r);
  EXPECT_EQ(results[1]["errors"][0]["rule"], "input.json");
  EXPECT_EQ(results[2]["errors"][0]["rule"], "input.range");
  EXPECT_EQ(results[0]["result"], 0);
  EXPECT_EQ(results[3]["result"], 0);
  EXPECT_EQ(results[0]["bytes"], results[3]["bytes"]);
  EXPECT_EQ(stats.accepted, 2u);
}

TEST(JsonlOutput, ManyLinesAreBufferedCorrectly) {
  std::string input;
  for (int i = 0; i < 3000; ++i) input += std::string(kTiled) + "\n" + (i % 7 ? "" : "oops\n");
  std::istringstream in(input);
  std::ostringstream out;
  const auto stats = jsonl::process_stream(in, out);
  EXPECT_EQ(stats.lines, 3000u + 429u);
  const std::string text = out.str();
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), stats.lines);
}

TEST(JsonlFormat, HexIsLowercaseMemoryOrder) {
  TensorMapBytes b;
  b.set_byte(0, 0xab);
  b.set_byte(127, 0x0f);
  const std::string h = jsonl::to_hex(b);
  ASSERT_EQ(h.size(), 256u);
  EXPECT_EQ(h.substr(0, 2), "ab");
  EXPECT_EQ(h.substr(254, 2), "0f");
}

// Output strings go through json_text: escapes, and U+FFFD for bytes that are not UTF-8.
TEST(JsonlFormat, JsonStringEscaping) {
  std::string out = json_text(json("a\"b\\c\nd\x01\xe2\x89\xa4\xff"));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\u0001\xe2\x89\xa4\xef\xbf\xbd\"");
  EXPECT_EQ(json::parse(out).get<std::string>(), "a\"b\\c\nd\x01\xe2\x89\xa4\xef\xbf\xbd");
  out = json_text(json("\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80"));  // surrogate, overlong, > U+10FFFF
  json parsed;
  EXPECT_NO_THROW(parsed = json::parse(out));
  EXPECT_TRUE(parsed.is_string());
}

TEST(JsonlFormat, ParamsRoundTripThroughTheSchema) {
  for (const char* line :
       {kTiled,
        R"({"kind":"im2col","arch":"sm_120","dtype":99,"rank":5,"address":1,"dims":[1,2,3,4,5],"strides":[16,32,48,64],)"
        R"("elem_strides":[1,2,3,4,5],"interleave":1,"swizzle":7,"l2":3,"oob":1,"lower":[-1,-2,-3],"upper":[1,2,3],)"
        R"("channels":8,"pixels":9})",
        R"({"kind":"im2col_wide","dtype":6,"rank":3,"dims":[8,9,10],"strides":[16,160],"lower":[-3],"upper":[4],)"
        R"("channels":8,"pixels":64,"mode":1})"}) {
    const TensorMapParams p = parse_ok(line);
    const std::string s = json_text(jsonl::params_json(p));
    const TensorMapParams q = parse_ok(s);
    const std::string s2 = json_text(jsonl::params_json(q));
    EXPECT_EQ(s, s2);
    EXPECT_EQ(p.kind, q.kind);
    EXPECT_EQ(p.arch, q.arch);
    EXPECT_EQ(p.dtype, q.dtype);
    EXPECT_EQ(p.rank, q.rank);
    EXPECT_EQ(p.address, q.address);
    EXPECT_EQ(p.swizzle, q.swizzle);
    EXPECT_EQ(p.lower[2], q.lower[2]);
    EXPECT_EQ(p.wide_mode, q.wide_mode);
    EXPECT_TRUE(json::parse(s).is_object());
  }
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  EXPECT_EQ(jsonl::params_json(p)["dtype"], "BFLOAT16");
}

// A line over kMaxLineBytes stops the stream there (a file without newlines, such as /dev/zero, was
// read into one line until memory ran out): the lines before it are written, it and the rest are
// not, and the stats name it. A line of exactly the bound is read; blank lines count as lines.
TEST(JsonlStream, LinesAreBounded) {
  const std::string good = R"({"kind":"tiled","dtype":9,"dims":[64],"box":[64]})";
  std::istringstream in(good + "\n\n" + std::string(jsonl::kMaxLineBytes + 1, '{') + "\n" + good + "\n");
  std::ostringstream out;
  const jsonl::StreamStats s = jsonl::process_stream(in, out);
  EXPECT_EQ(s.too_long, 3u);
  EXPECT_EQ(s.lines, 1u);
  const std::string written = out.str();
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 1);
  std::istringstream at_bound(std::string(jsonl::kMaxLineBytes - good.size(), ' ') + good);  // no final newline
  std::ostringstream out2;
  const jsonl::StreamStats s2 = jsonl::process_stream(at_bound, out2);
  EXPECT_EQ(s2.too_long, 0u);
  EXPECT_EQ(s2.accepted, 1u);
}

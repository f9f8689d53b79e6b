// The tmakit CLI: argument parsing in-process (parse_encode_args, run_cli), and the built binary's
// exit codes and output shape. Asserts shapes and exit codes (the README's contract), not specific
// bytes: test_driver_vectors and test_decode_diff check the bytes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <filesystem>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli_run.hpp"
#include "cmd_encode.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/validate.hpp"

using namespace tmakit;
using namespace tmakit::cli;
using tmakit_test::CliRun;
using tmakit_test::read_file;
using tmakit_test::run_binary;
using tmakit_test::run_inprocess;
using nlohmann::json;

namespace {

bool is_hex256(const std::string& s) {
  if (s.size() != 256) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string w;
  while (in >> w) v.push_back(w);
  return v;
}

ParseResult parse(const std::string& args, Command c = Command::encode) { return parse_encode_args(split(args), c); }

const std::string kTiled = "tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 64,128 --swizzle 128B";
const std::string kIm2col =
    "im2col --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1,-1 --upper 1,1 --channels 64 "
    "--pixels 128";
const std::string kWide =
    "im2col-wide --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1 --upper 1 --channels 64 "
    "--pixels 128 --mode W128";
const std::string kMisaligned = "tiled --dtype bf16 --dims 4096,4096 --strides 8200 --box 64,128";

// The binary with its stdin read from a file.
CliRun run_binary_stdin(const std::string& args, const std::string& stdin_file) {
  return run_binary(args, "<'" + stdin_file + "'");
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::ofstream(p) << text;
  return p;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

}  // namespace

// ---------------------------------------------------------------- parse_encode_args

TEST(ParseEncodeArgs, Tiled) {
  const ParseResult r = parse(kTiled + " --elem-strides 1,2 --l2 256B --oob nan --address 0x7f0000000000 --arch sm_90a");
  ASSERT_TRUE(r.ok()) << r.message;
  const TensorMapParams& p = r.request.params;
  EXPECT_EQ(p.kind, MapKind::tiled);
  EXPECT_EQ(p.dtype, DataType::bfloat16);
  EXPECT_EQ(p.rank, 2u);
  EXPECT_EQ(p.dims[0], 4096u);
  EXPECT_EQ(p.dims[1], 4096u);
  EXPECT_EQ(p.strides[0], 8192u);
  EXPECT_EQ(p.box[0], 64u);
  EXPECT_EQ(p.box[1], 128u);
  EXPECT_EQ(p.elem_strides[1], 2u);
  EXPECT_EQ(p.swizzle, Swizzle::b128);
  EXPECT_EQ(p.l2, L2Promotion::b256);
  EXPECT_EQ(p.oob, OobFill::nan_request_zero_fma);
  EXPECT_EQ(p.address, 0x7f0000000000ull);
  EXPECT_EQ(p.arch, Arch::sm_90);
  EXPECT_FALSE(r.request.json);
  EXPECT_FALSE(r.request.jsonl);
}

TEST(ParseEncodeArgs, Defaults) {
  const ParseResult r = parse("tiled --dtype u8 --dims 256 --box 16");
  ASSERT_TRUE(r.ok()) << r.message;
  const TensorMapParams& p = r.request.params;
  EXPECT_EQ(p.rank, 1u);
  EXPECT_EQ(p.address, 0u);
  EXPECT_EQ(p.arch, Arch::sm_90);
  EXPECT_EQ(p.interleave, Interleave::none);
  EXPECT_EQ(p.swizzle, Swizzle::none);
  EXPECT_EQ(p.l2, L2Promotion::none);
  EXPECT_EQ(p.oob, OobFill::none);
  for (std::uint32_t e : p.elem_strides) EXPECT_EQ(e, 1u);
}

TEST(ParseEncodeArgs, HexNumbersAndSpaces) {
  const ParseResult r = parse_encode_args(
      {"tiled", "--dtype", "FLOAT32", "--dims", "0x100, 0X20", "--strides", "0x400", "--box", "0x10,8"});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.params.dims[0], 256u);
  EXPECT_EQ(r.request.params.dims[1], 32u);
  EXPECT_EQ(r.request.params.strides[0], 1024u);
  EXPECT_EQ(r.request.params.box[0], 16u);
}

TEST(ParseEncodeArgs, Im2colAndWide) {
  ParseResult r = parse(kIm2col);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.params.kind, MapKind::im2col);
  EXPECT_EQ(r.request.params.rank, 4u);
  EXPECT_EQ(r.request.params.lower[0], -1);
  EXPECT_EQ(r.request.params.lower[1], -1);
  EXPECT_EQ(r.request.params.upper[1], 1);
  EXPECT_EQ(r.request.params.channels, 64u);
  EXPECT_EQ(r.request.params.pixels, 128u);

  r = parse(kWide);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.params.kind, MapKind::im2col_wide);
  EXPECT_EQ(r.request.params.lower[0], -1);
  EXPECT_EQ(r.request.params.upper[0], 1);
  EXPECT_EQ(r.request.params.wide_mode, Im2colWideMode::w128);

  r = parse_encode_args({"im2col", "--dtype", "f16", "--dims", "64,30,30,8", "--strides", "128,3840,115200",
                         "--lower=-0x10,-2", "--upper", "3,4", "--channels", "64", "--pixels", "128"});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.params.lower[0], -16);
}

TEST(ParseEncodeArgs, JsonFlagBeforeOrAfterTheKind) {
  EXPECT_TRUE(parse("--json " + kTiled).request.json);
  EXPECT_TRUE(parse(kTiled + " --json").request.json);
  EXPECT_TRUE(parse(kTiled + " --json", Command::check).request.json);
}

TEST(ParseEncodeArgs, Jsonl) {
  ParseResult r = parse("--jsonl -");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.request.jsonl);
  EXPECT_EQ(r.request.jsonl_path, "-");
  r = parse("--jsonl configs.jsonl");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.jsonl_path, "configs.jsonl");
  EXPECT_EQ(parse("--jsonl x " + kTiled).exit_code(), 2);
  EXPECT_EQ(parse("--jsonl -", Command::check).exit_code(), 2);
}

TEST(ParseEncodeArgs, Rank6IsHeldForValidate) {
  const ParseResult r = parse("tiled --dtype u8 --dims 1,2,3,4,5,6 --strides 16,32,64,128,256 --box 1,1,1,1,1,1");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.request.params.rank, 6u);
  EXPECT_EQ(r.request.params.dims[4], 5u);
}

TEST(ParseEncodeArgs, Help) {
  for (const char* args : {"--help", "tiled --help", "im2col -h"}) {
    const ParseResult r = parse(args);
    EXPECT_EQ(r.status, ParseResult::Status::help) << args;
    EXPECT_EQ(r.exit_code(), 0);
    EXPECT_NE(r.message.find("--"), std::string::npos);
  }
  EXPECT_NE(parse("tiled --help").message.find("--box"), std::string::npos);
}

TEST(ParseEncodeArgs, BadUsageNamesTheOptionAndTheValidValues) {
  struct Case {
    std::string args;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"", {"tiled", "im2col", "--jsonl"}},
      {"tile --dtype u8", {"tile"}},
      {"tiled --dims 16 --box 16", {"--dtype"}},
      {"tiled --dtype u8 --box 16", {"--dims"}},
      {"tiled --dtype u8 --dims 16", {"--box"}},
      {"tiled --dtype bf17 --dims 16 --box 16", {"--dtype", "bf17", "BFLOAT16"}},
      {"tiled --dtype u8 --dims 16 --box 16 --swizzle 256B", {"--swizzle", "256B", "128B_ATOM_64B"}},
      {"tiled --dtype u8 --dims 16 --box 16 --l2 512B", {"--l2", "L2_256B"}},
      {"tiled --dtype u8 --dims 16 --box 16 --oob zero", {"--oob", "NAN_REQUEST_ZERO_FMA"}},
      {"tiled --dtype u8 --dims 16 --box 16 --interleave 64B", {"--interleave", "32B"}},
      {"tiled --dtype u8 --dims 16 --box 16 --arch sm_80", {"--arch", "sm_90"}},
      {"tiled --dtype u8 --dims 4096x2 --box 16", {"--dims", "4096x2"}},
      {"tiled --dtype u8 --dims 16,,2 --box 16", {"--dims", "empty"}},
      {"tiled --dtype u8 --dims 16 --box -1", {"--box"}},
      {"tiled --dtype u8 --dims 16 --box 4294967296", {"--box", "2^32"}},
      {"tiled --dtype u8 --dims 18446744073709551616 --box 1", {"--dims", "2^64"}},
      {"tiled --dtype u8 --dims 16 --box 16 --address 0xg", {"--address"}},
      {"tiled --dtype u8 --dims 16,16 --box 16,16", {"--strides", "required"}},
      {"tiled --dtype u8 --dims 16,16 --strides 16,32 --box 16,16", {"--strides", "expected 1 value"}},
      {"tiled --dtype u8 --dims 16,16 --strides 16 --box 16", {"--box", "expected 2 values"}},
      {"tiled --dtype u8 --dims 16 --box 16 --elem-strides 1,1", {"--elem-strides"}},
      {"tiled --dtype u8 --dims 16 --box 16 --bogus 1", {"--bogus"}},
      {"tiled --dtype u8 --dims 16 --box 16 extra", {"extra"}},
      {"im2col --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --channels 64 --pixels 128", {"--lower"}},
      {"im2col --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower 1 --upper 1,1 --channels 64 --pixels 128",
       {"--lower", "expected 2 values"}},
      {"im2col --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower 1,2147483648 --upper 1,1 --channels 64 "
       "--pixels 128",
       {"--lower"}},
      {"im2col-wide --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1 --upper 1 --channels 64 "
       "--pixels 128",
       {"--mode"}},
      {"im2col-wide --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1 --upper 1 --channels 64 "
       "--pixels 128 --mode W256",
       {"--mode", "W128"}},
      {"im2col-wide --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1,2 --upper 1 --channels 64 "
       "--pixels 128 --mode W",
       {"--lower"}},
      {"tiled --dtype u8 --dims 16 --box 16 --channels 4", {"--channels"}},
  };
  for (const Case& c : cases) {
    const ParseResult r = parse(c.args);
    EXPECT_EQ(r.status, ParseResult::Status::usage_error) << c.args;
    EXPECT_EQ(r.exit_code(), 2) << c.args;
    for (const std::string& m : c.mentions) EXPECT_NE(r.message.find(m), std::string::npos) << c.args << "\n" << r.message;
  }
}

TEST(ParseEncodeArgs, NeverThrowsOnOddInput) {
  const std::vector<std::vector<std::string>> odd = {
      {""}, {"-"}, {"--"}, {"tiled", "--"}, {"tiled", "--dims"}, {"tiled", "--dims", ""}, {"--json", "--json"},
      {"tiled", "--dtype", "u8", "--dims", "", "--box", ""}, {"im2col", "--lower=-"}, {std::string("\0x", 2)},
      {"tiled", "--dtype=u8", "--dims=1", "--box=1", "--json=maybe"}, {"im2col-wide", "--lower", "--upper"}};
  for (const auto& args : odd) {
    ParseResult r;
    EXPECT_NO_THROW(r = parse_encode_args(args));
    EXPECT_NO_THROW(r = parse_encode_args(args, Command::check));
  }
  // An empty --dims is a usage error that names --dims (it was read as rank 0, and the error then
  // blamed --strides or --box, whose counts follow from the rank).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"tiled", "--dtype", "u8", "--dims", "", "--box", "1"},
                                               {"tiled", "--dtype", "u8", "--dims", "", "--strides", "64", "--box", "1"}}) {
    const ParseResult r = parse_encode_args(args);
    EXPECT_EQ(r.status, ParseResult::Status::usage_error);
    EXPECT_EQ(r.option, "--dims");
    EXPECT_NE(r.message.find("--dims: empty list"), std::string::npos) << r.message;
  }
}

TEST(ParseNumbers, U64AndI64) {
  std::uint64_t u = 0;
  EXPECT_TRUE(parse_u64("18446744073709551615", u));
  EXPECT_EQ(u, 18446744073709551615ull);
  EXPECT_TRUE(parse_u64("0xffffffffffffffff", u));
  EXPECT_EQ(u, 18446744073709551615ull);
  EXPECT_TRUE(parse_u64(" 0 ", u));
  EXPECT_EQ(u, 0u);
  for (const char* bad : {"", "18446744073709551616", "0x10000000000000000", "-1", "+1", "0x", "1e3", "1.0", "12a", "0b1"})
    EXPECT_FALSE(parse_u64(bad, u)) << bad;
  std::int64_t i = 0;
  EXPECT_TRUE(parse_i64("-9223372036854775808", i));
  EXPECT_EQ(i, INT64_MIN);
  EXPECT_TRUE(parse_i64("-0x10", i));
  EXPECT_EQ(i, -16);
  EXPECT_TRUE(parse_i64("9223372036854775807", i));
  EXPECT_FALSE(parse_i64("9223372036854775808", i));
  EXPECT_FALSE(parse_i64("-9223372036854775809", i));
  EXPECT_FALSE(parse_i64("--1", i));
  EXPECT_FALSE(parse_i64("-", i));
}

// read_hex_arg reads the text (argument, @FILE, @-); parse_hex is the one reader of the digits.
TEST(HexArgs, Normalization) {
  const std::string h(256, 'a');
  TensorMapBytes all_aa;
  for (int i = 0; i < 128; ++i) all_aa.set_byte(i, 0xaa);
  std::istringstream no_stdin;
  std::string out, why;
  TensorMapBytes b;
  EXPECT_TRUE(read_hex_arg(h, no_stdin, out, why)) << why;
  EXPECT_EQ(out, h);
  EXPECT_TRUE(parse_hex(out, b, &why)) << why;
  EXPECT_EQ(b, all_aa);
  std::string spaced = "0x";
  for (int i = 0; i < 128; ++i) spaced += (i % 16 ? " " : "\n") + std::string("AB");
  EXPECT_TRUE(read_hex_arg(spaced, no_stdin, out, why)) << why;
  EXPECT_EQ(out, spaced);
  EXPECT_TRUE(parse_hex(out, b, &why)) << why;
  for (int i = 0; i < 128; ++i) EXPECT_EQ(b.byte(i), 0xab);
  EXPECT_FALSE(parse_hex(h.substr(2), b, &why));
  EXPECT_NE(why.find("254"), std::string::npos) << why;
  EXPECT_FALSE(parse_hex(h.substr(1) + "g", b, &why));
  EXPECT_NE(why.find("hex digit"), std::string::npos) << why;

  const auto file = write_temp("tmakit_hex", "0x" + h + "\n");
  EXPECT_TRUE(read_hex_arg("@" + file.string(), no_stdin, out, why)) << why;
  EXPECT_EQ(out, "0x" + h + "\n");
  EXPECT_TRUE(parse_hex(out, b, &why)) << why;
  EXPECT_EQ(b, all_aa);
  std::filesystem::remove(file);
  EXPECT_FALSE(read_hex_arg("@/nonexistent/tmakit/file", no_stdin, out, why));
  std::istringstream fake_stdin(h);
  EXPECT_TRUE(read_hex_arg("@-", fake_stdin, out, why)) << why;
  EXPECT_EQ(out, h);

  // parse_hex reads the digits in memory order, and refuses a wrong length.
  EXPECT_TRUE(parse_hex(std::string(254, '0') + "f1", b, &why)) << why;
  EXPECT_EQ(b.byte(127), 0xf1);
  EXPECT_FALSE(parse_hex("00", b, &why));
}

// ---------------------------------------------------------------- run_cli in-process

TEST(RunCli, EncodePrintsOneHexLine) {
  auto args = split("encode " + kTiled);
  const CliRun r = run_inprocess(args);
  EXPECT_EQ(r.rc, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_TRUE(is_hex256(r.out.substr(0, r.out.size() - 1))) << r.out;
  EXPECT_EQ(r.err, "");
  for (const std::string& kind : {kIm2col, kWide}) {
    const CliRun k = run_inprocess(split("encode " + kind));
    EXPECT_EQ(k.rc, 0) << k.err;
    EXPECT_EQ(k.out.size(), 257u);
  }
}

TEST(RunCli, EncodeJson) {
  const CliRun r = run_inprocess(split("encode " + kTiled + " --json"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(is_hex256(j["bytes"].get<std::string>()));
  EXPECT_TRUE(j["fields"].is_object());
  EXPECT_EQ(j["fields"]["dtype"], "BFLOAT16");
  EXPECT_EQ(j["fields"]["swizzle"], "128B");
}

TEST(RunCli, CheckOk) {
  const CliRun r = run_inprocess(split("check " + kTiled));
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "ok\n");
  const CliRun j = run_inprocess(split("check " + kTiled + " --json"));
  EXPECT_EQ(j.rc, 0);
  EXPECT_EQ(json::parse(j.out)["result"], 0);
}

TEST(RunCli, RefusalExitsOneWithEveryViolation) {
  CliRun r = run_inprocess(split("encode " + kMisaligned));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  for (const std::string& l : lines_of(r.err)) EXPECT_FALSE(l.empty());
  r = run_inprocess(split("encode " + kMisaligned + " --json"));
  EXPECT_EQ(r.rc, 1);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["bytes"], "");
  EXPECT_FALSE(j["errors"].empty());
  r = run_inprocess(split("check " + kMisaligned));
  EXPECT_EQ(r.rc, 1);
  EXPECT_FALSE(r.out.empty());
  r = run_inprocess(split("check " + kMisaligned + " --json"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(json::parse(r.out)["result"], 1);
  // rank 6 is a refusal (exit 1), not a crash or a usage error
  r = run_inprocess(split("encode tiled --dtype u8 --dims 1,2,3,4,5,6 --strides 16,32,64,128,256 --box 1,1,1,1,1,1"));
  EXPECT_EQ(r.rc, 1);
}

TEST(RunCli, JsonlFromStdin) {
  const std::string input = R"({"kind":"tiled","dtype":9,"rank":2,"dims":[64,64],"strides":[128],"box":[64,64]})"
                            "\nnot json\n";
  const CliRun r = run_inprocess({"encode", "--jsonl", "-"}, input);
  EXPECT_EQ(r.rc, 0);
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(json::parse(lines[0])["result"], 0);
  EXPECT_EQ(json::parse(lines[1])["errors"][0]["rule"], "input.json");
}

TEST(RunCli, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {}, {"frobnicate"}, {"encode"}, {"encode", "tiled"}, {"decode"}, {"diff", std::string(256, '0')},
           {"decode", "xyz"}, {"decode", std::string(255, '0')}, {"diff", std::string(256, '0'), "@/nonexistent/x"},
           {"encode", "--jsonl", "/nonexistent/tmakit.jsonl"}, {"encode", "--jsonl", "/"}}) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2) << (args.empty() ? "" : args[0]);
    EXPECT_FALSE(r.err.empty());
    EXPECT_EQ(r.out, "");
  }
}

TEST(RunCli, HelpExitsZero) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"encode", "--help"}, {"encode", "tiled", "--help"}, {"check", "im2col", "--help"},
           {"decode", "--help"}, {"diff", "--help"}, {"--version"}}) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 0) << args[0];
    EXPECT_FALSE(r.out.empty());
  }
}

TEST(RunCli, DecodeAndDiffAreRouted) {
  // README: decode exits 0; diff exits 0 when identical, 1 when not.
  const std::string zero(256, '0');
  const std::string one = std::string(254, '0') + "01";
  const CliRun d = run_inprocess({"decode", zero});
  EXPECT_EQ(d.rc, 0) << d.err;
  EXPECT_FALSE(d.out.empty());
  const CliRun same = run_inprocess({"diff", zero, zero, "--json"});
  EXPECT_EQ(same.rc, 0) << same.err;
  EXPECT_TRUE(json::parse(same.out)["identical"].get<bool>()) << same.out;
  const CliRun differ = run_inprocess({"diff", zero, one});
  EXPECT_EQ(differ.rc, 1) << differ.err;
  EXPECT_NE(differ.out.find("reserved"), std::string::npos) << differ.out;
}

// decode --stored-at: where a map is stored, checked for what reads it (tensor_map/storage.hpp; lab
// format.md 2026-12-06 10:28: a TMA load through a map at 32 mod 64 faulted, at 64 mod 128 it ran).
TEST(RunCli, DecodeChecksWhereTheMapIsStored) {
  const std::string zero(256, '0');
  const CliRun aligned = run_inprocess({"decode", zero, "--stored-at", "0x7f0000000080"});
  EXPECT_EQ(aligned.rc, 0) << aligned.err;
  EXPECT_EQ(aligned.out.find("map.storage"), std::string::npos) << aligned.out;
  const CliRun abi = run_inprocess({"decode", zero, "--stored-at", "0x7f0000000040"});
  EXPECT_EQ(abi.rc, 0) << abi.err;
  EXPECT_NE(abi.out.find("note [map.storage_abi] the tensor map at 0x7f0000000040 is 64- but not 128-byte aligned"),
            std::string::npos)
      << abi.out;
  const CliRun bad = run_inprocess({"decode", zero, "--stored-at", "0x7f0000000020"});
  EXPECT_EQ(bad.rc, 1) << bad.err;
  EXPECT_NE(bad.out.find("error [map.storage_align] the tensor map at 0x7f0000000020 starts 32 bytes past a 64-byte "
                         "boundary"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("; fix: store the map at a multiple of 128 bytes"), std::string::npos) << bad.out;
  const CliRun j = run_inprocess({"decode", zero, "--stored-at", "8", "--json"});
  EXPECT_EQ(j.rc, 1) << j.err;
  const json o = json::parse(j.out);
  EXPECT_FALSE(o["ok"].get<bool>());
  EXPECT_EQ(o["exit"].get<int>(), 1);
  EXPECT_EQ(o["error"]["rule"], "map.storage_align");
  EXPECT_EQ(o["storage"]["address"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(o["storage"]["errors"].size(), 1u);
  EXPECT_EQ(o["rank"], json::parse(run_inprocess({"decode", zero, "--json"}).out)["rank"]);  // the decode is all there
  const CliRun note = run_inprocess({"decode", zero, "--stored-at", "64", "--json"});
  EXPECT_EQ(note.rc, 0) << note.err;
  EXPECT_EQ(json::parse(note.out)["storage"]["notes"][0]["rule"], "map.storage_abi");
  for (const char* bad_address : {"", "-64", "0x1g", "18446744073709551616"}) {
    const CliRun u = run_inprocess({"decode", zero, "--stored-at", bad_address});
    EXPECT_EQ(u.rc, 2) << bad_address << ": " << u.out;
  }
}

// ---------------------------------------------------------------- the built binary

TEST(Binary, EncodeExitsZeroWithHex) {
  const CliRun r = run_binary("encode " + kTiled);
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(is_hex256(lines[0])) << lines[0];
}

TEST(Binary, BadUsageExitsTwoWithAMessage) {
  CliRun r = run_binary("encode tiled --dtype bf17 --dims 16 --box 16");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--dtype"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("BFLOAT16"), std::string::npos) << r.err;
  r = run_binary("encode tiled --dtype u8 --dims 16 --box 16 --nope");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--nope"), std::string::npos) << r.err;
  r = run_binary("frobnicate");
  EXPECT_EQ(r.rc, 2);
  r = run_binary("");
  EXPECT_EQ(r.rc, 2);
}

TEST(Binary, RefusalExitsOneWithViolationsOnStderr) {
  const CliRun r = run_binary("encode " + kMisaligned);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(r.err.empty());
}

TEST(Binary, Jsonl) {
  const auto file = write_temp(
      "tmakit_cli.jsonl",
      R"({"kind":"tiled","dtype":9,"rank":2,"dims":[64,64],"strides":[128],"box":[64,64]})"
      "\n{broken\n"
      R"({"kind":"tiled","dtype":0,"rank":6,"dims":[1,2,3,4,5,6],"strides":[16,32,64,128,256],"box":[1,1,1,1,1,1]})"
      "\n");
  for (const CliRun& r : {run_binary("encode --jsonl '" + file.string() + "'"), run_binary_stdin("encode --jsonl -", file.string())}) {
    EXPECT_EQ(r.rc, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 3u);
    for (const auto& l : lines) {
      const json j = json::parse(l);
      EXPECT_TRUE(j.contains("result"));
      EXPECT_TRUE(j.contains("bytes"));
      EXPECT_TRUE(j.contains("errors"));
    }
    EXPECT_EQ(json::parse(lines[1])["errors"][0]["rule"], "input.json");
  }
  std::filesystem::remove(file);
  EXPECT_EQ(run_binary("encode --jsonl /nonexistent/tmakit.jsonl").rc, 2);
}

// ---------------------------------------------------------------- the contract, every command
// (docs/cli.md: exit 0 ok, 1 refused, 2 bad usage; errors on stderr once; --json: one object on
// stdout for every outcome, with "ok", "exit" and, when not ok, "error" {"rule","message",...}).

namespace {

const std::string kPlanA = "plan --gmem 'bf16 (4096,4096):(4096,1)' --smem 'Sw<3,4,3> o (128,64):(64,1)' --tile 'M=128,K=64'";
// The descriptor of kTiled, as encode prints it.
const std::string kHex = [] {
  std::istringstream in;
  std::ostringstream out, err;
  run_cli(split("encode " + kTiled), in, out, err);
  return out.str().substr(0, 256);
}();

// A map Blackwell's gather4 can use: box {64, 1} (`encode tiled --dtype bf16 --dims 4096,65536 --strides
// 8192 --box 64,1 --swizzle 128B --arch sm_100`).
const std::string kRowsHex =
    "0000000000000000106500000002000000000000000000000000000000000000ff0f0000ffff00000000000000000000000000000000003f"
    "0000000000000000800000000000000000040000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000";

struct Outcome {
  std::string args;  // pasted into the shell
  int rc;
};

// One ok, one refused and one bad-usage command line per command.
const std::vector<Outcome> kOutcomes = {
    {"encode " + kTiled, 0},
    {"encode " + kMisaligned, 1},
    {"encode tiled --dtype bf16 --dims 64 --box 64 --swizzle 96B", 2},
    {"check " + kTiled, 0},
    {"check " + kMisaligned, 1},
    {"check tiled --dims 64", 2},
    {"decode " + kHex, 0},
    {"decode 00ff", 2},
    {"diff " + kHex + " " + kHex, 0},
    {"diff " + kHex + " 12", 2},
    {"layout composition '(6,2):(8,2)' '(4,3):(3,1)'", 0},
    {"layout complement '(2,2):(4,4)'", 1},
    {"layout composition '(6,2' '(4,3):(3,1)'", 2},
    {kPlanA, 0},
    {"plan --gmem 'bf16 (4096,4096):(4096,1)' --smem 'Sw<3,4,3> o (128,64):(1,128)' --tile 'M=128,K=64'", 1},
    {kPlanA + " --cluster 2,1,1,1", 2},
    {"smem-store --src 'wgmma m64n128 f32->bf16' --dst 'kmajor sw128'", 0},
    {"smem-store --src 'wgmma m64n128 f32->bf16' --dst 'kmajor sw128' --base 3", 1},
    {"smem-store --src 'wgmma m64n128 f32->bf16' --dst 'kmajor sw128' --base -1", 2},
    {"check-plan --gmem 'fp32 (64,4096):(1,64)' --smem '(64,64):(1,64)' --tile d=64,seq=64 --armed-bytes 16384", 0},
    {"check-plan --gmem 'fp32 (64,4096):(1,64)' --smem '(64,64):(1,64)' --tile d=64,seq=64 --copies 64", 1},
    {"check-plan --gmem 'fp32 (64,4096):(1,64)' --smem '(64,64):(1,64)' --tile d=64,seq=64 --copies -1", 2},
    {"check-gather " + kRowsHex + " --op gather4 --arch sm_100a", 0},
    {"check-gather " + kRowsHex + " --op scatter4 --arch sm_120a", 1},
    {"check-gather " + kRowsHex + " --op scatter4 --arch sm_100a --dst cta", 2},
    {"frobnicate", 2},
};

}  // namespace

// Text: a refusal or usage error is on stderr, once, with nothing on stdout (check: its findings
// are its result, on stdout by design; so are check-plan's). smem-store once printed each refusal on stdout and stderr.
TEST(CliContract, ErrorsGoToStderrOnce) {
  for (const Outcome& o : kOutcomes) {
    SCOPED_TRACE(o.args);
    const CliRun r = run_binary(o.args);
    ASSERT_EQ(r.rc, o.rc) << r.err;
    if (o.rc == 0) {
      EXPECT_EQ(r.err, "");
      continue;
    }
    const bool check_refusal = (o.args.rfind("check ", 0) == 0 || o.args.rfind("check-plan ", 0) == 0 ||
                                o.args.rfind("check-gather ", 0) == 0) &&
                               o.rc == 1;
    const std::string& where = check_refusal ? r.out : r.err;
    ASSERT_FALSE(where.empty());
    EXPECT_EQ(check_refusal ? r.err : r.out, "");
    const std::string first = lines_of(where)[0];
    const std::string both = r.out + r.err;
    EXPECT_EQ(both.find(first), both.rfind(first)) << "printed twice: " << first;
  }
}

// --json: exactly one JSON object on stdout, nothing on stderr, whatever the outcome.
TEST(CliContract, JsonForEveryOutcome) {
  for (const Outcome& o : kOutcomes) {
    SCOPED_TRACE(o.args);
    const CliRun r = run_binary(o.args + " --json");
    ASSERT_EQ(r.rc, o.rc) << r.out << r.err;
    EXPECT_EQ(r.err, "");
    ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["exit"], o.rc);
    EXPECT_EQ(j["ok"], o.rc == 0);
    if (o.rc == 0) continue;
    ASSERT_TRUE(j.contains("error")) << r.out;
    EXPECT_TRUE(j["error"]["rule"].is_string());
    EXPECT_TRUE(j["error"]["message"].is_string());
    if (o.rc == 2) {
      const std::string rule = j["error"]["rule"];
      EXPECT_TRUE(rule.rfind("usage.", 0) == 0 || rule.rfind("layout.", 0) == 0) << rule;
    }
  }
  // diff's exit 1 ("they differ") is a result, not an error
  const std::string other = std::string(kHex).replace(18, 1, "7");
  const CliRun d = run_binary("diff " + kHex + " " + other + " --json");
  EXPECT_EQ(d.rc, 1);
  const json j = json::parse(d.out);
  EXPECT_EQ(j["exit"], 1);
  EXPECT_EQ(j["ok"], true);
  // the JSON usage error names the option it blames
  const json u = json::parse(run_binary("smem-store --src 'wgmma m64n128 f32' --dst 'kmajor sw128' --base '' --json").out);
  EXPECT_EQ(u["error"]["rule"], "usage.value");
  EXPECT_EQ(u["error"]["option"], "--base");
}

// One vocabulary of element types (tensor_map/names.hpp's parse_name) in every command.
TEST(CliContract, OneVocabularyOfElementTypes) {
  for (const char* t : {"fp8", "e4m3", "E5M2", "u8", "s8", "UINT8"}) {
    SCOPED_TRACE(t);
    const std::string ts = t;
    EXPECT_EQ(run_inprocess(split("encode tiled --dtype " + ts + " --dims 64 --box 64")).rc, 0);
    EXPECT_EQ(run_inprocess({"plan", "--gmem", ts + " (4096,4096):(4096,1)", "--smem", "Sw<3,4,3> o (128,128):(128,1)",
                             "--tile", "M=128,K=128"}).rc, 0);
    EXPECT_EQ(run_inprocess({"layout", "print", "Sw<3,4,3> o (8,128):(128,1)", "--dtype", ts}).rc, 0);
    EXPECT_EQ(run_inprocess({"smem-store", "--src", "wgmma m64n256 f32->" + ts, "--dst", "kmajor sw128"}).rc, 0);
  }
  // a packed type is named, never a number
  const CliRun p = run_inprocess({"plan", "--gmem", "u4_align16b (128,128):(128,1)", "--smem", "Sw<3,4,3> o (128,128):(128,1)",
                                  "--tile", "128,128", "--arch", "sm_90"});
  EXPECT_EQ(p.rc, 1);
  EXPECT_NE(p.err.find("16U4_ALIGN16B"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("element type 14"), std::string::npos) << p.err;
}

TEST(CliContract, EnumSpellingsInAnyCase) {
  EXPECT_EQ(run_inprocess(split(kPlanA.substr(0, 0) + "encode TILED --dtype BF16 --dims 64 --box 64 --swizzle none")).rc, 0);
  EXPECT_EQ(run_inprocess(split("encode Im2col_Wide --dtype f16 --dims 64,30,30,8 --strides 128,3840,115200 --lower -1 "
                                "--upper 1 --channels 64 --pixels 128 --mode w128")).rc, 0);
  std::vector<std::string> plan = {"plan", "--gmem", "bf16 (4096,4096):(4096,1)", "--smem", "Sw<3,4,3> o (128,64):(64,1)",
                                   "--tile", "M=128,K=64", "--cluster", "2", "--multicast-mode", "X"};
  EXPECT_EQ(run_inprocess(plan).rc, 0) << run_inprocess(plan).err;
  plan.resize(7);
  plan.insert(plan.end(), {"--reduce", "ADD"});
  EXPECT_EQ(run_inprocess(plan).rc, 0);
  EXPECT_EQ(run_inprocess({"layout", "Coalesce", "(2,4):(1,2)"}).out, "8:1\n");
  EXPECT_EQ(run_inprocess({"smem-store", "--src", "WGMMA M64N128 F32->BF16", "--dst", "KMAJOR SW128",
                           "--instruction", "STMATRIX.X4"}).rc, 0);
}

// Nothing the user typed is dropped: a repeated key or option, an option that depends on one not
// given, a picture of nothing, an empty file name.
TEST(CliContract, NoInputIsIgnored) {
  const std::string smem = "--smem 'Sw<3,4,3> o (128,64):(64,1)'";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan --gmem 'bf16 (4096,4096):(4096,1) align=16 align=32' " + smem + " --tile 'M=128,K=64'", "'align=' given twice"},
      {"plan --gmem 'bf16 (4096,4096):(4096,1)' " + smem + " --tile 'M=128,M=64'", "the name 'M' is already entry 0's"},
      {kPlanA + " --multicast-mode x", "--multicast-mode x needs --cluster"},
      {kPlanA + " --arch sm_90 --arch sm_100", "--arch"},
      {"layout max_common_vector 8:1 8:1 --svg /dev/null", "nothing to draw"},
      {"layout print 8:1 --svg ''", "--svg: an empty file name"},
      {"smem-store --src 'wgmma m64n128 f32->bf16' --dst 'kmajor sw128' --svg ''", "--svg: an empty file name"},
      {"smem-store --src 'wgmma m64n128 f32->bf16 f32->f16' --dst 'kmajor sw128'", "the conversion given twice"},
      {"smem-store --src 'tcgen05 32x32b.x4 n128 n64 f32->bf16' --dst 'kmajor sw128'", "nN given twice"},
      {"smem-store --src 'wgmma m64n128 f32->bf16' --dst 'kmajor sw128' --base 0 --base 1024", "--base"},
  };
  for (const auto& [args, words] : cases) {
    SCOPED_TRACE(args);
    const CliRun r = run_binary(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
}

// Numbers go through one checked parser: a sign, an overflow or nothing at all is bad usage.
TEST(CliContract, NumbersAreRangeChecked) {
  for (const char* base : {"-1", "18446744073709551616", "", " ", "1x", "0x"}) {
    SCOPED_TRACE(base);
    const CliRun r = run_inprocess({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", base});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("tmakit smem-store: --base: '"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is not an unsigned integer below 2^64"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run_inprocess({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", "0x400"}).rc, 0);
  for (const char* cluster : {"-2", "4294967298", "2,", "17", "1,1,1,1"}) {
    SCOPED_TRACE(cluster);
    EXPECT_EQ(run_binary(kPlanA + " --cluster '" + cluster + "'").rc, 2);
  }
}

// Each error names the option or argument that is wrong, in the same words everywhere.
TEST(CliContract, ErrorsBlameTheRightOption) {
  CliRun r = run_inprocess(split("encode tiled --dtype bf16 --dims , --strides 64 --box 8"));
  EXPECT_NE(r.err.find("--dims: empty value in list"), std::string::npos) << r.err;
  r = run_binary("encode tiled --dtype bf16 --dims '' --strides 64 --box 8");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--dims: empty list"), std::string::npos) << r.err;
  r = run_inprocess({"smem-store", "--src", "wgmma m64n0 f32->bf16", "--dst", "kmajor sw128"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("tmakit smem-store: --src: 'm64n0': N = 0 is an empty tile"), std::string::npos) << r.err;
  r = run_inprocess({"smem-store", "--src", "tcgen05 32x32b.x4 n0 f32->bf16", "--dst", "kmajor sw128"});
  EXPECT_EQ(r.rc, 2);  // once read as "n not given": a 128 x 4 tile
  EXPECT_NE(r.err.find("--src: 'n0': n = 0 is an empty tile"), std::string::npos) << r.err;
  const std::string dir = std::filesystem::temp_directory_path().string();
  const CliRun dec = run_inprocess({"decode", "@" + dir});
  const CliRun enc = run_inprocess({"encode", "--jsonl", dir});
  EXPECT_EQ(dec.rc, 2);
  EXPECT_EQ(enc.rc, 2);
  const std::string dir_words = "cannot read '" + dir + "': is a directory";
  EXPECT_NE(dec.err.find(dir_words), std::string::npos) << dec.err;
  EXPECT_NE(enc.err.find(dir_words), std::string::npos) << enc.err;
  r = run_binary(kPlanA + " --cluster 0,1 --multicast-mode x");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--cluster: '0,1': dimension x has 0 CTAs"), std::string::npos) << r.err;
  // a multicast plan's refusal names the dimension as --multicast-mode does (x), not "dimension 0"
  r = run_binary(kPlanA + " --cluster 2 --multicast-mode x --store");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("(multicast along x)"), std::string::npos) << r.err;
  // bytes of the user's text are escaped, never echoed raw
  r = run_inprocess({"decode", "ab\xff" "cd"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not a hex digit: '\\xff' at position 2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\xff'), std::string::npos);
}

// docs/cli.md's synopsis of each command names exactly the options its --help lists.
TEST(CliContract, HelpAndDocsNameTheSameOptions) {
  const std::string doc = read_file(std::filesystem::path(TMAKIT_SOURCE_DIR) / "docs" / "cli.md");
  const auto options_in = [](const std::string& text) {
    std::set<std::string> o;
    for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i + 2)) {
      std::size_t e = i + 2;
      while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '-')) ++e;
      if (e > i + 2) o.insert(text.substr(i, e - i));
    }
    o.erase("--help");
    o.erase("--help-all");
    return o;
  };
  // the ```sh synopsis block after each command's heading
  const auto synopsis = [&](const std::string& heading) {
    const std::size_t h = doc.find("\n## " + heading + "\n");
    EXPECT_NE(h, std::string::npos) << heading;
    const std::size_t a = doc.find("```sh\n", h), b = doc.find("```\n", a + 6);
    return doc.substr(a, b - a);
  };
  const std::vector<std::pair<std::string, std::string>> cmds = {
      {"plan", "plan"}, {"smem-store", "smem-store"}, {"encode", "encode tiled"}, {"decode, diff", "decode"},
      {"cluster-stage", "cluster-stage"}, {"capture", "capture"}, {"check-gather", "check-gather"}};
  for (const auto& [heading, cmd] : cmds) {
    SCOPED_TRACE(cmd);
    std::set<std::string> help = options_in(run_inprocess(split(cmd + " --help")).out);
    if (cmd == "encode tiled")  // the synopsis shows the three kinds
      for (const char* kind : {"encode im2col --help", "encode im2col-wide --help"})
        for (const std::string& o : options_in(run_inprocess(split(kind)).out)) help.insert(o);
    EXPECT_EQ(options_in(synopsis(heading)), help);
  }
}

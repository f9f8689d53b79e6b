// The CLI's contract at its edges: option words (an empty "--opt=", a value that is another option,
// a repeated flag, an unknown option and the nearest one), words that change nothing, the readers'
// bounds (devices, endless streams, huge lines), failed writes, terminal escapes in echoed input,
// help and version in JSON, and cluster shapes. Each case is bad usage (exit 2) or a refusal (exit 1)
// with its rule id, never a silent success.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli_run.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

using tmakit::cli::run_cli;
using tmakit_test::CliRun;
using tmakit_test::read_file;
using tmakit_test::run_binary;
using tmakit_test::run_inprocess;

namespace {

const std::vector<std::string> kTiled = {"encode", "tiled", "--dtype", "bf16", "--dims", "4096,4096",
                                         "--strides", "8192", "--box", "64,128"};
const std::vector<std::string> kStore = {"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128"};
const std::vector<std::string> kPlan = {"plan", "--gmem", "bf16 (4096,4096):(4096,1)", "--smem",
                                        "Sw<3,4,3> o (128,64):(64,1)", "--tile", "M=128,K=64"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// The rule id of a --json outcome.
std::string json_rule(const CliRun& r) {
  const nlohmann::json j = nlohmann::json::parse(r.out);
  return j["error"]["rule"].get<std::string>();
}

// A stream buffer that refuses every write (a full disk, a closed descriptor).
struct FailingBuf : std::streambuf {
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

}  // namespace

// "--dims=" took the next word ("--strides") as its value.
TEST(CliOptionWords, EmptyValueAfterEqualsIsBadUsage) {
  CliRun r = run_inprocess({"encode", "tiled", "--dtype", "bf16", "--dims=", "--strides", "8192", "--box", "64,128"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("tmakit encode tiled: --dims: an empty value after '='"), std::string::npos) << r.err;
  r = run_inprocess(with(kStore, {"--base=", "--json"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(json_rule(r), "usage.value");
}

// "--svg --json" wrote a file named "--json" and printed text.
TEST(CliOptionWords, AValueMayNotBeAnotherOption) {
  const std::string cwd_file = "--json";
  std::filesystem::remove(cwd_file);
  CliRun r = run_inprocess(with(kStore, {"--svg", "--json"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(json_rule(r), "usage.value");
  EXPECT_NE(r.out.find("--svg: expected a value, found the option '--json'"), std::string::npos) << r.out;
  r = run_inprocess({"layout", "print", "(4,8):(8,1)", "--svg", "--json"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(json_rule(r), "layout.usage");
  r = run_inprocess({"layout", "print", "(4,8):(8,1)", "--dtype", "--svg", "x.svg"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--dtype: expected a value, found the option '--svg'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(cwd_file));
}

TEST(CliOptionWords, EveryOptionAndFlagOnce) {
  for (const auto& args : {with(kTiled, {"--json", "--json"}), with(kStore, {"--no-stmatrix", "--no-stmatrix"}),
                           with(kPlan, {"--store", "--store"}), with(kTiled, {"--swizzle", "128B", "--swizzle=64B"}),
                           std::vector<std::string>{"layout", "size", "8:1", "--json", "--json"},
                           std::vector<std::string>{"layout", "size", "8:1", "--dtype", "bf16", "--dtype=f32"}}) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2) << args.back();
    EXPECT_NE((r.err + r.out).find("given more than once"), std::string::npos) << r.err << r.out;
  }
}

TEST(CliOptionWords, UnknownOptionsNameTheNearestOne) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"encode", "tiled", "--dtype", "bf16", "--dims", "4096,4096", "--stride", "8192", "--box", "64,128"},
       "unknown option '--stride'; did you mean --strides?"},
      {{"check", "tiled", "--dtype", "bf16", "--dim", "64", "--box", "64"}, "unknown option '--dim'; did you mean --dims?"},
      {with(kPlan, {"--multicast", "x"}), "unknown option '--multicast'; did you mean --multicast-mode?"},
      {{"layout", "size", "8:1", "--jsn"}, "unknown option '--jsn'; did you mean --json?"},
      {{"smem-strore"}, "unknown command 'smem-strore' (did you mean smem-store?)"},
      {with(kStore, {"--zzzzzzzz"}), "unknown option '--zzzzzzzz'\n"},
  };
  for (const auto& [args, words] : cases) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2) << words;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
}

// Words and options that would change nothing are bad usage, not ignored.
TEST(CliContractNoEffect, SourceWordsAndStoreOptions) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"smem-store", "--src", "wgmma m64n128 n64 f32->bf16", "--dst", "kmajor sw128"}, "the tile width nN given twice"},
      {{"smem-store", "--src", "mma m16n16 n64 f32->bf16", "--dst", "kmajor none"}, "the tile width nN given twice"},
      {{"smem-store", "--src", "wgmma m64n128 warps2 f32->bf16", "--dst", "kmajor sw128"}, "warpsK changes nothing"},
      {{"smem-store", "--src", "tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 n8 f32->bf16", "--dst", "(16,8):(8,1)"},
       "nN changes nothing"},
      {with(kStore, {"--elements"}), "--elements changes nothing"},
      {{"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "(64,128):(128,1)", "--elements"},
       "--elements changes nothing: the layout has no swizzle to convert"},
      {with(kStore, {"--any-swizzle"}), "--any-swizzle changes nothing"},
      {{"smem-store", "--src", "wgmma m64n128 f32", "--dst", "kmajor sw128", "--no-stmatrix"},
       "--no-stmatrix changes nothing: stmatrix stores 2-byte elements only, these are 4-byte"},
  };
  for (const auto& [args, words] : cases) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2) << words;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
  // m16n8 is the instruction: nN gives the tile width
  EXPECT_EQ(run_inprocess({"smem-store", "--src", "mma m16n8 n64 warps4 f32->bf16", "--dst", "kmajor none"}).rc, 0);
}

// A cluster of 256 CTAs was planned without a word.
TEST(CliContractNoEffect, ClustersHoldAtMost16Ctas) {
  CliRun r = run_inprocess(with(kPlan, {"--cluster", "16,16"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("16 x 16 x 1 = 256 CTAs; a cluster holds at most 16 in all"), std::string::npos) << r.err;
  EXPECT_EQ(run_inprocess(with(kPlan, {"--cluster", "4,4"})).rc, 0);
  r = run_inprocess(with(kPlan, {"--cluster", "4,2,4", "--json"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(json_rule(r), "usage.value");
}

// decode @/dev/zero and endless stdin read until memory ran out.
TEST(CliReaders, DescriptorFilesAndStdinAreBounded) {
  for (const char* arg : {"@/dev/zero", "@/dev/urandom"}) {
    const CliRun r = run_binary(std::string("decode ") + arg + " --json");
    EXPECT_EQ(r.rc, 2) << arg;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["error"]["rule"], "usage.input");
    EXPECT_NE(j["error"]["message"].get<std::string>().find("holds more than 65536 bytes"), std::string::npos);
  }
  CliRun r = run_binary("decode @- </dev/zero");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("stdin holds more than 65536 bytes"), std::string::npos) << r.err;
  // A descriptor with generous spacing is well inside the bound.
  const std::string hex = run_inprocess(kTiled).out;
  std::string spaced;
  for (char c : hex) spaced += std::string(1, c) + "   \n";
  r = run_inprocess({"decode", "@-"}, spaced);
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_inprocess({"diff", "@-", hex.substr(0, 256)}, std::string(70000, ' ') + hex);
  EXPECT_EQ(r.rc, 2);
}

// One JSON line of many megabytes took about 25 times its size in memory; /dev/zero never ended.
TEST(CliReaders, JsonLinesAreBounded) {
  const std::string good = R"({"kind":"tiled","dtype":9,"dims":[64],"box":[64]})";
  CliRun r = run_inprocess({"encode", "--jsonl", "-"}, good + "\n" + std::string(tmakit::jsonl::kMaxLineBytes + 1, 'x') +
                                                             "\n" + good + "\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "the line before the long one is encoded";
  EXPECT_NE(r.err.find("line 2 is longer than 65536 bytes"), std::string::npos) << r.err;
  r = run_inprocess({"encode", "--jsonl", "-"}, good + "\n" + std::string(tmakit::jsonl::kMaxLineBytes, ' ') + "\n");
  EXPECT_EQ(r.rc, 0) << "a line of exactly the bound is read";
  r = run_binary("encode --jsonl /dev/zero");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("line 1 is longer than"), std::string::npos) << r.err;
}

// A full disk or a closed stdout exited 0 with the output lost.
TEST(CliWrites, AFailedWriteIsNeverSuccess) {
  std::string args;
  for (const std::string& a : kTiled) args += "'" + a + "' ";
  for (const std::string redirect : {">/dev/full", ">&-"}) {
    const CliRun r = run_binary(args, redirect);
    EXPECT_EQ(r.rc, 2) << redirect;
    EXPECT_NE(r.err.find("cannot write to stdout"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run_binary("--version", ">/dev/full").rc, 2);
  EXPECT_EQ(run_binary("encode --jsonl - </dev/null", ">/dev/full").rc, 0) << "nothing to write, nothing lost";
  FailingBuf full;
  std::ostream out(&full);
  std::ostringstream err;
  std::istringstream in;
  EXPECT_EQ(run_cli(kTiled, in, out, err), 2);
  EXPECT_NE(err.str().find("cannot write to stdout"), std::string::npos);
  // --svg into a full disk
  CliRun r = run_inprocess(with(kStore, {"--svg", "/dev/full"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--svg: cannot write '/dev/full'"), std::string::npos) << r.err;
  r = run_inprocess({"layout", "print", "(4,8):(8,1)", "--svg", "/dev/full"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("'/dev/full'"), std::string::npos) << r.err;
}

// Bytes of the user's input reached the terminal raw: ESC [ 2 J cleared the screen.
TEST(CliWrites, ControlBytesAreEscaped) {
  const std::vector<std::vector<std::string>> cases = {
      {"layout", "size", "(4\x1b[2J,8)"},
      {"smem-store", "--src", "wgmma m64n128 f32->bf16 \x1b[2J", "--dst", "kmajor sw128"},
      {"encode", "tiled", "--dtype", "bf16", "--dims", "64", "--box", "64", "\x1b[31m"},  // CLI11's own message
      {"\x1b]0;title\x07"},
  };
  for (const auto& args : cases) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\\x1b"), std::string::npos) << r.err;
  }
  // JSON keeps its own escapes: a DEL byte inside a JSON string stays raw (as "\x7f" it would not parse)
  const CliRun j = run_inprocess({"layout", "cosize", "(2,2):(4,4\x7f" "4)", "--json"});
  EXPECT_EQ(j.rc, 2);
  EXPECT_FALSE(nlohmann::json::parse(j.out, nullptr, false).is_discarded()) << j.out;
  const CliRun c = run_inprocess({"layout", "cosize", "(2,2):(4,4\r4)", "--json"});
  EXPECT_FALSE(nlohmann::json::parse(c.out, nullptr, false).is_discarded()) << c.out;
  // a tab is text, and stays
  const CliRun r = run_inprocess({"layout", "size", "(4,\t8)x"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("(4,\t8)x"), std::string::npos) << r.err;
}

// The 8-bit forms: U+009B (UTF-8 C2 9B) is a one-character CSI to terminals that take C1 controls,
// and bytes that are no UTF-8 (a lone 0x9b, a sequence cut short) reached the terminal raw.
TEST(CliWrites, C1ControlsAndBrokenUtf8AreEscaped) {
  const CliRun c1 = run_inprocess({"layout", "size", "(4\xc2\x9b" "2J,8)"});
  EXPECT_EQ(c1.rc, 2);
  EXPECT_EQ(c1.err.find("\xc2\x9b"), std::string::npos) << c1.err;
  EXPECT_NE(c1.err.find("(4\\u009b2J,8)"), std::string::npos) << c1.err;
  for (const std::string& bad : {std::string("(4\x9b" "2J,8)"), std::string("(4\xc2"), std::string("(4\xe2\x82,8)"),
                                std::string("(4\xed\xa0\x80,8)") /* a UTF-16 surrogate */}) {
    const CliRun r = run_inprocess({"layout", "size", bad});
    EXPECT_EQ(r.rc, 2);
    for (const char byte : r.err) EXPECT_LT(static_cast<unsigned char>(byte), 0x80) << r.err;
    EXPECT_NE(r.err.find("\\x"), std::string::npos) << r.err;
  }
  // well-formed UTF-8 other than C1 passes as it is (U+00E9, U+2192)
  const CliRun utf8 = run_inprocess({"layout", "size", "(4\xc3\xa9,8\xe2\x86\x92)"});
  EXPECT_NE(utf8.err.find("(4\xc3\xa9,8\xe2\x86\x92)"), std::string::npos) << utf8.err;
  // in JSON, "\u009b" is the same character: the output parses and holds it
  const CliRun j = run_inprocess({"layout", "cosize", "(2,2):(4,4\xc2\x9b" "4)", "--json"});
  EXPECT_EQ(j.rc, 2);
  EXPECT_EQ(j.out.find("\xc2\x9b"), std::string::npos) << j.out;
  const nlohmann::json parsed = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << j.out;
  EXPECT_NE(parsed.dump().find("\xc2\x9b"), std::string::npos) << j.out;
}

TEST(CliHelp, HelpAndVersionHonourJson) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"help", "--json"}, {"--help", "--json"}, {"-h", "--json"}, with(kPlan, {"--help", "--json"}),
        {"encode", "tiled", "--help", "--json"}, {"layout", "--help", "--json"}, with(kStore, {"--json", "--help"})}) {
    const CliRun r = run_inprocess(args);
    EXPECT_EQ(r.rc, 0) << args[0];
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["exit"], 0);
    EXPECT_NE(j["help"].get<std::string>().find("--json"), std::string::npos);
  }
  CliRun r = run_inprocess({"encode", "tiled", "--help", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["command"], "tmakit encode tiled");
  r = run_inprocess({"version", "--json"});
  EXPECT_EQ(r.rc, 0);
  const std::string version = nlohmann::json::parse(r.out)["version"].get<std::string>();
  EXPECT_FALSE(version.empty());
  EXPECT_EQ(run_inprocess({"--version"}).out, "tmakit " + version + "\n");
  r = run_inprocess({"version", "extra"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("takes no arguments"), std::string::npos) << r.err;
}

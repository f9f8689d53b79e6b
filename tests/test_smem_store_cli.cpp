// tmakit smem-store, in-process through run_cli.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace {

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run(std::vector<std::string> args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code = tmakit::cli::run_cli(args, in, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST(SmemStoreCli, PlansTheWgmmaEpilogue) {
  const CliRun r = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conflict-free"), std::string::npos) << r.out;
}

TEST(SmemStoreCli, JsonAndSvg) {
  const std::string svg = ::testing::TempDir() + "smem_store_test.svg";
  const CliRun r = run({"smem-store", "--src", "tcgen05 32x32b.x4 n128 f32->bf16", "--dst", "kmajor sw128", "--json",
                     "--svg", svg});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["instruction"], "st.shared.v2.b32");
  EXPECT_EQ(j["bank_conflicts"], 4 * 64);
  EXPECT_EQ(j["fixes"][0]["rep"], 8);
  std::ifstream f(svg);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
  EXPECT_NE(ss.str().find("stroke=\"red\""), std::string::npos);  // the conflicting banks
  std::remove(svg.c_str());
}

TEST(SmemStoreCli, RefusalsAndUsage) {
  const CliRun r = run({"smem-store", "--src", "tcgen05 32x32b.x8 n128 f32->bf16", "--dst",
                     "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("smem_store.dest.swizzle_units"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Sw<3,4,3>"), std::string::npos) << r.err;
  const CliRun e = run({"smem-store", "--src", "tcgen05 32x32b.x8 n128 f32->bf16", "--dst",
                     "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))", "--elements"});
  EXPECT_EQ(e.code, 0) << e.err;
  const CliRun b = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", "511"});
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("smem_store.dest.base_alignment"), std::string::npos);
  EXPECT_EQ(run({"smem-store", "--src", "warp m64", "--dst", "kmajor sw128"}).code, 2);
  EXPECT_EQ(run({"smem-store", "--src", "wgmma m64n128"}).code, 2);
}

// --base is an unsigned 64-bit byte offset: the refusal names it as given (2^64 - 1 once printed as
// "base offset -1") and offers only aligned offsets inside shared memory (2^63 - 1 once got
// "... or -9223372036854775808", signed overflow; 4294967297 got "4294967296 or 4294968320", which
// dest.size refuses in turn).
TEST(SmemStoreCli, BaseOffsetFixesAreLegalOffsets) {
  for (const std::string base : {"9223372036854775807", "18446744073709551615", "4294967297"}) {
    SCOPED_TRACE(base);
    const CliRun r = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", base});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("error [smem_store.dest.base_alignment] base offset " + base + " is not a multiple of 2 bytes"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("i.e. base offset 0: " + base + " is beyond the 233472 bytes of shared memory"),
              std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("-9"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("4294967296"), std::string::npos) << r.err;
  }
  // aligned but beyond shared memory: dest.size names the base offset, not the layout's span
  const CliRun far = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", "4294967296"});
  EXPECT_EQ(far.code, 1);
  EXPECT_NE(far.err.find("error [smem_store.dest.size] base offset 4294967296 is at or beyond the 233472 bytes"),
            std::string::npos) << far.err;
  EXPECT_NE(far.err.find("fix: give the buffer's shared address (below 233472)"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("0 for a buffer aligned to 1024 bytes"), std::string::npos) << far.err;
  const CliRun one = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor sw128", "--base", "1"});
  EXPECT_NE(one.err.find("i.e. base offset 0 or 2\n"), std::string::npos) << one.err;
  // the destination (16384 bytes) must fit after the offered offset: 217088 + 16384 = 233472 does,
  // 217090 + 16384 does not; near the end of shared memory neither neighbour does
  const CliRun top = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor none", "--base", "217089"});
  EXPECT_NE(top.err.find("i.e. base offset 217088\n"), std::string::npos) << top.err;
  const CliRun end = run({"smem-store", "--src", "wgmma m64n128 f32->bf16", "--dst", "kmajor none", "--base", "233471"});
  EXPECT_NE(end.err.find("base offset 233471 is not a multiple of 2 bytes: every 2-byte element must be aligned"),
            std::string::npos) << end.err;
  EXPECT_NE(end.err.find("i.e. base offset 0 (at 233470 or 233472 the destination would reach past the 233472 bytes"),
            std::string::npos) << end.err;
}

// Numbers in --src far beyond any tile are usage errors that name the word: warps999999999 once
// overflowed 16 * warps (int32, UB) into "the K-major none operand layout of a -1179869200 x 8
// tile", .x999999999 into "64 x -589934600". Values the planner can judge are still its refusals.
TEST(SmemStoreCli, HugeSourceNumbersAreUsageErrors) {
  const std::vector<std::array<std::string, 3>> cases = {
      {"mma m16n8 warps999999999 f32->bf16", "warps999999999", "at most 1024 warps"},
      {"tcgen05 16x256b.x999999999 f32->bf16", "16x256b.x999999999", "at most 1048576"},
      {"wgmma m64n999999992 f32->bf16", "m64n999999992", "at most 1048576"},
      {"mma m16n8 n999999992 f32->bf16", "n999999992", "at most 1048576"},
      {"tv ((4,8),(2,2)):((32,1),(16,8)) 999999992x8 f32->bf16", "999999992x8", "at most 1048576"}};
  for (const auto& [src, word, limit] : cases) {
    SCOPED_TRACE(src);
    const CliRun r = run({"smem-store", "--src", src, "--dst", "kmajor none"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("tmakit smem-store: --src: '" + word + "': "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(limit), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("x -"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("a -"), std::string::npos) << r.err;
  }
  // within range: the planner's refusals, as before
  const CliRun w = run({"smem-store", "--src", "mma m16n8 warps33 f32->bf16", "--dst", "kmajor none"});
  EXPECT_EQ(w.code, 1);
  EXPECT_NE(w.err.find("smem_store.source.threads] 1056 threads"), std::string::npos) << w.err;
  const CliRun x = run({"smem-store", "--src", "tcgen05 16x256b.x256 f32->bf16", "--dst", "kmajor none"});
  EXPECT_EQ(x.code, 1);
  EXPECT_NE(x.err.find("smem_store.source.shape"), std::string::npos) << x.err;
}

// A refusal is printed once, on stderr (it was on stdout too).
TEST(SmemStoreCli, RefusalOnceOnStderr) {
  const CliRun r = run({"smem-store", "--src", "tcgen05 32x32b.x4 n128 f32->bf16", "--dst",
                        "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find("error ["), r.err.rfind("error [")) << r.err;
  EXPECT_NE(r.err.find("error [smem_store.dest.swizzle_mode] Sw<3,3,3> is none of the swizzles"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the 128B swizzle in units of 2-byte elements"), std::string::npos) << r.err;
  const CliRun own = run({"smem-store", "--src", "tcgen05 32x32b.x4 n128 f32->bf16", "--dst",
                          "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))", "--any-swizzle"});
  EXPECT_EQ(own.code, 0) << own.err;
}

// Columns 4..35 of a K-major SW128 bf16 operand: --base 8 places the sub-tile 8 bytes into the
// swizzle's repeat, and the report says how the addresses are formed.
TEST(SmemStoreCli, BaseInsideTheSwizzleRepeat) {
  const CliRun r = run({"smem-store", "--src", "tcgen05 32x32b.x32 n32 f32->bf16", "--dst",
                        "Sw<3,4,3> o ((8,16),32):((64,512),1)", "--base", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("starts 8 bytes into the swizzle's 1024-byte repeat: addresses are Sw<3,4,3>(8 + offset)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("plan         st.shared.v2.b32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("element (0,0) at byte 8;"), std::string::npos) << r.out;
}

// --instruction: the forced plan next to the best one.
TEST(SmemStoreCli, ForcedInstructionNextToTheBest) {
  const CliRun r = run({"smem-store", "--src", "wgmma m64n128 f32", "--dst", "kmajor sw128", "--instruction", "b32"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("plan         st.shared.v2.b32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("forced       st.shared.b32: 64 instructions per thread (best 32, 2x), 512 wavefronts in all "
                       "(best 512, 1x; ideal 256)"),
            std::string::npos) << r.out;
  const CliRun j = run({"smem-store", "--src", "wgmma m64n128 f32", "--dst", "kmajor sw128", "--instruction",
                        "st.shared.b32", "--json"});
  ASSERT_EQ(j.code, 0);
  const nlohmann::json p = nlohmann::json::parse(j.out);
  EXPECT_EQ(p["instruction"], "st.shared.v2.b32");
  EXPECT_EQ(p["forced"]["instruction"], "st.shared.b32");
  const CliRun bad = run({"smem-store", "--src", "wgmma m64n128 f32", "--dst", "kmajor sw128", "--instruction", "v4.b32"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("error [smem_store.forced_op] st.shared.v4.b32 cannot store this fragment"), std::string::npos)
      << bad.err;
  EXPECT_EQ(run({"smem-store", "--src", "wgmma m64n128 f32", "--dst", "kmajor sw128", "--instruction", "b64"}).code, 2);
}

// A tv source whose strides place slots outside the tile (far outside, or beyond 64 bits) is refused
// with its rule before any slot is evaluated: once read past the planner's tables (SIGSEGV).
TEST(SmemStoreCli, TvSlotsOutsideTheTileAreRefused) {
  for (const char* strides : {"(16,100000)", "(16,-100000)", "(16,4611686018427387904)",
                              "(4611686018427387904,4611686018427387904)", "(-4611686018427387904,16)"}) {
    const std::string src = std::string("tv ((4,8),(2,2)):((32,1),") + strides + ") 16x8 f32->bf16";
    SCOPED_TRACE(src);
    CliRun r = run({"smem-store", "--src", src, "--dst", "(16,8):(8,1)"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.rfind("error [smem_store.source.out_of_tile] ", 0), 0u) << r.err;
    r = run({"smem-store", "--src", src, "--dst", "(16,8):(8,1)", "--json"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["rule"], "smem_store.source.out_of_tile") << r.out;
  }
}

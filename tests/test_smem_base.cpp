// Where a copy's shared tile starts (tensor_map/smem_base.hpp): the 128-byte minimum of tensor
// copies and the swizzle's repeat, from a raw swizzle, from a plan (check_against_plan's smem_base)
// and through the CLI (check-plan --smem-base, decode --smem-base).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/smem_base.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace {

using namespace tmakit;

std::vector<std::string> rules(const std::vector<SmemBaseFinding>& f) {
  std::vector<std::string> out;
  for (const SmemBaseFinding& x : f) out.push_back(rule_id(x.rule));
  return out;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The alignment each mode needs is its repeat (the swizzle-mode table's smemAlignment), at least 128.
static_assert(check_smem_base(0, Swizzle::none).needed == 128 && check_smem_base(0, Swizzle::b32).needed == 256);
static_assert(check_smem_base(0, Swizzle::b64).needed == 512 && check_smem_base(0, Swizzle::b128).needed == 1024);
static_assert(check_smem_base(0x480, Swizzle::b128).past_repeat == 128 && check_smem_base(0x480, Swizzle::b128).past128 == 0);
static_assert(check_smem_base(0x400, Swizzle::b128).ok() && !check_smem_base(0x440, Swizzle::none).ok());

TEST(SmemBase, EveryModeAtEveryOffsetOfItsRepeat) {
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const auto s = static_cast<Swizzle>(v);
    const std::uint64_t repeat = s == Swizzle::none ? 0 : swizzle_mode_row(s).smem_alignment;
    for (std::uint64_t off = 0; off < 2048; off += 16) {
      SCOPED_TRACE(std::string(swizzle_name(s)) + " at +" + std::to_string(off));
      const std::uint64_t address = 0x10000 + off;  // a 64 KiB-aligned window
      const SmemBaseCheck c = check_smem_base(address, s);
      std::vector<std::string> expected;
      if (off % 128) expected.push_back("smem.base_align128");
      if (repeat && off % repeat) expected.push_back("smem.base_align");
      EXPECT_EQ(rules(explain_smem_base(c)), expected);
      EXPECT_EQ(c.ok(), expected.empty());
      EXPECT_EQ(c.needed, tma_smem_alignment(s));
    }
  }
}

TEST(SmemBase, WordsGiveTheAddressItsAlignmentTheNeedAndTheFix) {
  const std::vector<SmemBaseFinding> f = explain_smem_base(check_smem_base(0x7f80, Swizzle::b128));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, SmemBaseRule::swizzle_repeat);
  EXPECT_EQ(f[0].actual, "0x7f80 (128-byte aligned)");
  EXPECT_EQ(f[0].expected, "a multiple of 1024 B");
  // 0x7f80 is 896 bytes (seven 128-byte rows) into a repeat: row r takes the pattern of row r + 7.
  EXPECT_TRUE(has(f[0].effect, "896 bytes past a 1024-byte boundary")) << f[0].effect;
  EXPECT_TRUE(has(f[0].effect, "row (r + 7) % 8 of the pattern")) << f[0].effect;
  EXPECT_TRUE(has(f[0].effect, "bits 7-9 XORed into bits 4-6")) << f[0].effect;
  EXPECT_TRUE(has(f[0].fix, "__align__(1024)") && has(f[0].fix, "byte_alignment=1024")) << f[0].fix;
  EXPECT_EQ(f[0].message().rfind("error [smem.base_align] shared tile address: needed a multiple of 1024 B, got 0x7f80", 0), 0u)
      << f[0].message();

  // Off 128 bytes: the fault first, and the pattern words say it is not on a row at all.
  const std::vector<SmemBaseFinding> g = explain_smem_base(check_smem_base(0x440, Swizzle::b64));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(has(g[0].message(), "misaligned address")) << g[0].message();
  EXPECT_TRUE(has(g[0].fix, "__align__(512)")) << g[0].fix;
  EXPECT_TRUE(has(g[1].effect, "does not even start on one of the pattern's 128-byte rows")) << g[1].effect;
  EXPECT_TRUE(has(g[1].effect, "bits 7-8 XORed into bits 4-5")) << g[1].effect;
}

PlanResult plan_of(const char* gmem, const char* smem, const char* tile, PlanDirection d = PlanDirection::load) {
  PlanOptions o;
  o.direction = d;
  return plan_tile(parse_global_tensor(gmem).value, parse_swizzled_layout(smem).value, parse_tile_extents(tile).value, o);
}

TEST(SmemBase, AgainstAPlanTheSameRulesWithThePlansAlignment) {
  const PlanResult r = plan_of("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.plan.smem_alignment, 1024u);
  const TensorMapBytes m = encode(r.plan.params).map;
  PlanCheckOptions o;
  EXPECT_TRUE(check_against_plan(m, r.plan, o).ok());  // no address given: nothing checked
  o.smem_base = 0x400;
  EXPECT_TRUE(check_against_plan(m, r.plan, o).ok());
  o.smem_base = 0x480;  // 128-aligned, off the 1024-byte repeat
  const PlanCheck c = check_against_plan(m, r.plan, o);
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(c.findings.empty());  // the descriptor is the plan's
  EXPECT_EQ(rules(c.smem_base), std::vector<std::string>{"smem.base_align"});
  EXPECT_TRUE(has(c.smem_base[0].fix, "1024")) << c.smem_base[0].fix;

  // An unswizzled tile needs 128 bytes, and nothing more.
  const PlanResult u = plan_of("f32 (1000,96):(96,1)", "(128,32):(32,1)", "M=128,N=32", PlanDirection::reduce);
  ASSERT_TRUE(u.ok());
  PlanCheckOptions uo;
  uo.smem_base = 0x80;
  EXPECT_TRUE(check_against_plan(encode(u.plan.params).map, u.plan, uo).ok());
  uo.smem_base = 0x90;
  EXPECT_EQ(rules(check_against_plan(encode(u.plan.params).map, u.plan, uo).smem_base),
            std::vector<std::string>{"smem.base_align128"});
}

const char* kPlanArgs = "--gmem 'bf16 (4096,4096):(4096,1)' --smem 'Sw<3,4,3> o (128,64):(64,1)' --tile M=128,K=64";

TEST(SmemBaseCli, CheckPlanTakesTheTilesAddress) {
  const tmakit_test::CliRun ok = tmakit_test::run_binary(std::string("check-plan ") + kPlanArgs + " --smem-base 0x7f400");
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "ok\n");
  const tmakit_test::CliRun bad = tmakit_test::run_binary(std::string("check-plan ") + kPlanArgs + " --smem-base 0x7f480");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out.rfind("error [smem.base_align] shared tile address: needed a multiple of 1024 B, got 0x7f480 "
                          "(128-byte aligned)", 0), 0u) << bad.out;
  const tmakit_test::CliRun j = tmakit_test::run_binary(std::string("check-plan ") + kPlanArgs + " --smem-base 1088 --json");
  EXPECT_EQ(j.rc, 1);
  const nlohmann::json o = nlohmann::json::parse(j.out);
  ASSERT_EQ(o["errors"].size(), 2u) << j.out;
  EXPECT_EQ(o["errors"][0]["rule"], "smem.base_align128");
  EXPECT_EQ(o["errors"][1]["rule"], "smem.base_align");
  EXPECT_EQ(o["error"]["rule"], "smem.base_align128");
  const tmakit_test::CliRun usage = tmakit_test::run_binary(std::string("check-plan ") + kPlanArgs + " --smem-base -1");
  EXPECT_EQ(usage.rc, 2);
  EXPECT_TRUE(has(usage.err, "--smem-base")) << usage.err;
}

TEST(SmemBaseCli, DecodeChecksTheAddressAgainstTheDescriptorsSwizzle) {
  const PlanResult r = plan_of("bf16 (4096,4096):(4096,1)", "Sw<2,4,3> o (128,32):(32,1)", "M=128,K=32");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.plan.params.swizzle, Swizzle::b64);
  const std::string hex = jsonl::to_hex(encode(r.plan.params).map);
  const tmakit_test::CliRun ok = tmakit_test::run_binary("decode " + hex + " --smem-base 0x600");
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  const tmakit_test::CliRun bad = tmakit_test::run_binary("decode " + hex + " --smem-base 0x680");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_TRUE(has(bad.out, "swizzle                64B")) << bad.out;
  EXPECT_TRUE(has(bad.out, "error [smem.base_align] shared tile address: needed a multiple of 512 B, got 0x680")) << bad.out;
  const tmakit_test::CliRun j = tmakit_test::run_binary("decode " + hex + " --smem-base 0x680 --stored-at 0x20 --json");
  EXPECT_EQ(j.rc, 1);
  const nlohmann::json o = nlohmann::json::parse(j.out);
  EXPECT_EQ(o["smem_base"]["needed"], 512);
  EXPECT_EQ(o["smem_base"]["ok"], false);
  ASSERT_EQ(o["errors"].size(), 2u) << j.out;  // both checks' errors, storage first
  EXPECT_EQ(o["errors"][0]["rule"], "map.storage_align");
  EXPECT_EQ(o["errors"][1]["rule"], "smem.base_align");
}

}  // namespace

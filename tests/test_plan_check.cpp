// check_against_plan (plan/check_descriptor.hpp): a descriptor made elsewhere against the plan for
// the same tensor, shared layout and tile: every differing field with its check.* rule, the bytes
// one copy delivers against the plan's expect_tx, and the kernel's own count.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace {

using namespace tmakit;

TmaPlan gemm_plan() {
  const PlanResult r = plan_tile(parse_global_tensor("bf16 (4096,4096):(4096,1)").value,
                                 parse_swizzled_layout("Sw<3,4,3> o (128,64):(64,1)").value,
                                 parse_tile_extents("M=128,K=64").value);
  EXPECT_TRUE(r.ok());
  return r.plan;
}

TensorMapBytes descriptor(std::uint32_t box0, std::uint32_t box1, Swizzle sw, std::uint64_t address = 0) {
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.dims[0] = p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = box0;
  p.box[1] = box1;
  p.swizzle = sw;
  p.address = address;
  const EncodeResult e = encode(p);
  EXPECT_TRUE(e.ok());
  return e.map;
}

std::vector<std::string> rules(const PlanCheck& c) {
  std::vector<std::string> out;
  for (const PlanCheckFinding& f : c.findings) out.push_back(rule_id(f.rule));
  return out;
}

TEST(PlanCheck, TheSameDescriptorPassesWhateverItsAddress) {
  const TmaPlan plan = gemm_plan();
  const PlanCheck c = check_against_plan(descriptor(64, 128, Swizzle::b128, 0x7f0000000000), plan);
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(c.findings.empty());
  EXPECT_FALSE(c.hangs);
  EXPECT_FALSE(c.address_compared);  // the plan was made without an address
  EXPECT_EQ(c.copy_bytes, 16384u);
  EXPECT_EQ(c.stage_bytes, 16384u);
}

TEST(PlanCheck, AHalfBoxIsAHang) {
  const PlanCheck c = check_against_plan(descriptor(64, 64, Swizzle::b128), gemm_plan());
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(c.hangs);
  // boxBytes follows from boxDim[1]: reported once, as the box
  EXPECT_EQ(rules(c), (std::vector<std::string>{"check.box", "check.copy_bytes"}));
  EXPECT_EQ(c.findings[0].where, "boxDim[1]");
  EXPECT_EQ(c.findings[0].expected, "128");
  EXPECT_EQ(c.findings[0].actual, "64");
  EXPECT_EQ(c.findings[0].byte_offsets, std::vector<int>{56});
  EXPECT_NE(c.findings[1].effect.find("waits for 8192 bytes that never come"), std::string::npos) << c.findings[1].effect;
  EXPECT_EQ(c.findings[1].message().rfind("error [check.copy_bytes] transaction bytes: plan 16384 B per copy", 0), 0u)
      << c.findings[1].message();
}

// The derived fields (boxBytes, smemAlignment) follow the swizzle and the box: not reported again.
TEST(PlanCheck, ASwizzleChangeIsNamedOnce) {
  const PlanCheck c = check_against_plan(descriptor(32, 128, Swizzle::b64), gemm_plan());
  EXPECT_EQ(rules(c), (std::vector<std::string>{"check.swizzle", "check.box", "check.copy_bytes"}));
  EXPECT_EQ(c.findings[0].where, "swizzle");
  EXPECT_EQ(c.findings.back().where, "transaction bytes");
}

// A stored smemAlignment the map's own swizzle does not imply (the swizzle is the plan's): named
// as the derived field it is, not as a swizzle difference.
TEST(PlanCheck, AStoredAlignmentItsSwizzleDoesNotImplyIsCheckDerived) {
  TensorMapBytes m = descriptor(64, 128, Swizzle::b128);
  m.set_bits(72 * 8, 64, 512);  // smemAlignment: 1024 for 128B
  const PlanCheck c = check_against_plan(m, gemm_plan());
  ASSERT_EQ(rules(c), (std::vector<std::string>{"check.derived"}));
  EXPECT_EQ(c.findings[0].where, "smemAlignment");
  EXPECT_NE(c.findings[0].message().find("plan 1024 B, descriptor 512 B: the descriptor's own fields imply 1024 B"),
            std::string::npos) << c.findings[0].message();
}

TEST(PlanCheck, TheKernelsCountAndCopies) {
  const TmaPlan plan = gemm_plan();
  const TensorMapBytes same = descriptor(64, 128, Swizzle::b128);
  PlanCheckOptions armed_double;
  armed_double.armed_bytes = 32768;
  PlanCheck c = check_against_plan(same, plan, armed_double);
  EXPECT_EQ(rules(c), std::vector<std::string>{"check.armed_bytes"});
  EXPECT_TRUE(c.hangs);
  PlanCheckOptions armed_half;
  armed_half.armed_bytes = 8192;
  c = check_against_plan(same, plan, armed_half);
  EXPECT_EQ(rules(c), std::vector<std::string>{"check.armed_bytes"});
  EXPECT_FALSE(c.hangs);
  PlanCheckOptions twice;
  twice.copies = 2;
  c = check_against_plan(same, plan, twice);
  EXPECT_EQ(rules(c), std::vector<std::string>{"check.copies"});
  EXPECT_EQ(c.stage_bytes, 32768u);
  EXPECT_FALSE(c.hangs);
}

// The field's seed case: a rank-2 fp32 (d, seq) tile whose copy is partitioned without grouping
// the tile's modes, so that the stage issues 64 copies of the whole 16 KiB box.
TmaPlan fp32_tile_plan() {
  const PlanResult r = plan_tile(parse_global_tensor("fp32 (64,4096):(1,64)").value,
                                 parse_swizzled_layout("(64,64):(1,64)").value, parse_tile_extents("d=64,seq=64").value);
  EXPECT_TRUE(r.ok());
  return r.plan;
}

TEST(PlanCheck, AnUngroupedPartitionIsTheHangExplained) {
  const TmaPlan plan = fp32_tile_plan();
  ASSERT_EQ(plan.instructions, 1u);
  ASSERT_EQ(plan.expect_tx_bytes, 16384u);
  PlanCheckOptions o;
  o.armed_bytes = 16384;
  o.copies = 64;
  const PlanCheck c = check_against_plan(encode(plan.params).map, plan, o);
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(c.hangs);
  EXPECT_EQ(c.stage_bytes, 1048576u);
  EXPECT_EQ(c.armed_bytes, 16384u);
  ASSERT_EQ(rules(c), (std::vector<std::string>{"check.copies", "check.tx_limit"}));
  const std::string copies = c.findings[0].message();
  EXPECT_NE(copies.find("64 copies x 16,384 B deliver 1,048,576 bytes to a barrier armed for 16,384"),
            std::string::npos) << copies;
  EXPECT_NE(copies.find("the phase completes on the wrong bytes"), std::string::npos) << copies;
  EXPECT_NE(copies.find("cute.group_modes"), std::string::npos) << copies;
  const std::string limit = c.findings[1].message();
  EXPECT_NE(limit.find("exceed what an mbarrier's transaction count holds (2^20 - 1 = 1,048,575)"), std::string::npos)
      << limit;
  EXPECT_NE(limit.find("the next wait never completes (the hang)"), std::string::npos) << limit;
  EXPECT_NE(limit.find("1,048,576 B delivered, 16,384 B armed"), std::string::npos) << limit;
  EXPECT_NE(c.findings[1].fix.find("group_modes"), std::string::npos);
}

TEST(PlanCheck, OverAndUnderDeliveryAgainstTheArmedCount) {
  const TmaPlan plan = fp32_tile_plan();
  const TensorMapBytes same = encode(plan.params).map;
  PlanCheckOptions over;  // the box delivers twice what the kernel arms
  over.armed_bytes = 8192;
  PlanCheck c = check_against_plan(same, plan, over);
  ASSERT_EQ(rules(c), std::vector<std::string>{"check.armed_bytes"});
  EXPECT_NE(c.findings[0].effect.find("the phase completes on the wrong bytes"), std::string::npos) << c.findings[0].effect;
  PlanCheckOptions under;  // half the plan's copies: the barrier waits for bytes that never come
  under.copies = 1;
  TmaPlan two = plan;
  two.instructions = 2;
  two.expect_tx_bytes = 32768;
  c = check_against_plan(same, two, under);
  ASSERT_EQ(rules(c), std::vector<std::string>{"check.copies"});
  EXPECT_TRUE(c.hangs);
  EXPECT_NE(c.findings[0].effect.find("waits for 16384 bytes that never come"), std::string::npos) << c.findings[0].effect;
  PlanCheckOptions limit;  // a count armed past the mbarrier's range, whatever arrives
  limit.armed_bytes = 1u << 20;
  c = check_against_plan(same, plan, limit);
  EXPECT_EQ(rules(c), (std::vector<std::string>{"check.armed_bytes", "check.tx_limit"}));
  EXPECT_TRUE(c.hangs);
}

TEST(PlanCheck, L2PromotionIsANote) {
  TensorMapParams p = TensorMapParams{};
  const TmaPlan plan = gemm_plan();
  p = plan.params;
  p.l2 = L2Promotion::b256;
  const PlanCheck c = check_against_plan(encode(p).map, plan);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(rules(c), std::vector<std::string>{"check.l2promotion"});
  EXPECT_EQ(c.findings[0].message().rfind("note [check.l2promotion]", 0), 0u);
}

}  // namespace

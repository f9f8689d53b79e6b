// A kernel's own ctaMasks and armed bytes checked against a cluster stage's plan
// (cluster/stage_check.hpp): the rules multicast.mask_outside_cluster, multicast.mask_mismatch and
// expect.armed_mismatch, with the masks in binary and hex and the mistakes the numbers show.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_configs.hpp"
#include "tmakit/cluster/stage_check.hpp"

namespace {

using namespace tmakit;

MulticastPlan plan_of(ClusterShape cluster, int share_dim, MulticastMode mode = MulticastMode::sliced) {
  MulticastSpec s;
  s.cluster = cluster;
  s.share[share_dim] = true;
  s.mode = mode;
  s.box = test::box_16k();
  return plan_multicast(s);
}

std::vector<ClusterRule> rules_of(const std::vector<StageFinding>& fs) {
  std::vector<ClusterRule> r;
  for (const StageFinding& f : fs) r.push_back(f.rule);
  return r;
}

// A 2x2 GEMM cluster, A shared along y: CTAs 0 and 2 share one tile, 1 and 3 the other.
TEST(ClusterStageCheck, ThePlansMasksPass) {
  const MulticastPlan a = plan_of(ClusterShape{2, 2, 1}, 1);
  ASSERT_TRUE(a.ok());
  const KernelMask right[4] = {{0, 0b0101}, {1, 0b1010}, {2, 0b0101}, {3, 0b1010}};
  EXPECT_TRUE(check_kernel_masks(a, right, 4).empty());
  const KernelMask none[1] = {};
  EXPECT_TRUE(check_kernel_masks(a, none, 0).empty());
}

// One mask for every CTA, written as the CTAs of a cluster row: right for no CTA of a column.
TEST(ClusterStageCheck, AMaskOfTheWrongCtasNamesTheMissingAndTheExtra) {
  const MulticastPlan a = plan_of(ClusterShape{2, 2, 1}, 1);
  const KernelMask row[1] = {{-1, 0b0011}};
  const std::vector<StageFinding> fs = check_kernel_masks(a, row, 1);
  ASSERT_EQ(fs.size(), 4u);  // every issuing CTA's copy is wrong
  for (std::size_t i = 0; i < fs.size(); ++i) {
    EXPECT_EQ(fs[i].rule, ClusterRule::multicast_mask_mismatch);
    EXPECT_EQ(fs[i].cta, static_cast<std::int32_t>(i));
  }
  EXPECT_EQ(fs[0].message().rfind("error [multicast.mask_mismatch] CTA 0: ctaMask 0b0011 (0x3: CTAs 0, 1), the plan's "
                                  "0b0101 (0x5: CTAs 0, 2): missing CTA 2, which shares the tile: it never receives "
                                  "this copy",
                                  0),
            0u)
      << fs[0].message();
  EXPECT_NE(fs[0].message().find("; extra CTA 1, which does not share the tile: it receives bytes its barrier is not "
                                 "armed for"),
            std::string::npos);
  EXPECT_NE(fs[0].message().find("; fix: pass the plan's mask for each issuing CTA"), std::string::npos);
  // CTA 1's plan mask is 0b1010: CTA 3 missing, CTA 0 extra (CTA 1 itself is in both)
  EXPECT_NE(fs[1].detail.find("missing CTA 3"), std::string::npos) << fs[1].detail;
  EXPECT_NE(fs[1].detail.find("extra CTA 0,"), std::string::npos) << fs[1].detail;
}

TEST(ClusterStageCheck, AMaskPastTheClusterIsNamedOnceWithItsBits) {
  const MulticastPlan b = plan_of(ClusterShape{2, 1, 1}, 0);
  const KernelMask four[1] = {{-1, 0b1111}};  // written for a 4-CTA cluster
  const std::vector<StageFinding> fs = check_kernel_masks(b, four, 1);
  ASSERT_EQ(rules_of(fs), std::vector<ClusterRule>{ClusterRule::multicast_mask_outside_cluster});
  EXPECT_EQ(fs[0].cta, -1);
  EXPECT_EQ(fs[0].message(),
            "error [multicast.mask_outside_cluster] ctaMask 0b1111 (0xf: CTAs 0, 1, 2, 3) of every issuing CTA names "
            "CTAs 2, 3, past the last rank of the cluster's 2 CTAs (ranks 0..1): the copy is sent to the shared memory "
            "of CTAs that do not exist; fix: " + std::string(rule_fix(ClusterRule::multicast_mask_outside_cluster)));
  // per CTA: past the cluster and, within it, not the plan's
  const KernelMask one[1] = {{1, 0b0101}};
  EXPECT_EQ(rules_of(check_kernel_masks(b, one, 1)),
            (std::vector<ClusterRule>{ClusterRule::multicast_mask_outside_cluster, ClusterRule::multicast_mask_mismatch}));
  const KernelMask ghost[1] = {{5, 0b01}};  // a mask for a CTA the cluster does not have
  const std::vector<StageFinding> g = check_kernel_masks(b, ghost, 1);
  ASSERT_EQ(rules_of(g), std::vector<ClusterRule>{ClusterRule::multicast_mask_outside_cluster});
  EXPECT_NE(g[0].detail.find("a ctaMask given for CTA 5, past the last rank of the cluster's 2 CTAs"), std::string::npos);
}

// Leader broadcast: CTA 0 issues the whole tile to both; a copy from CTA 1 is one the plan does not make.
TEST(ClusterStageCheck, AMaskForACtaThatIssuesNothingIsAMismatch) {
  const MulticastPlan b = plan_of(ClusterShape{2, 1, 1}, 0, MulticastMode::leader_broadcast);
  const KernelMask leader[1] = {{-1, 0b11}};  // every issuing CTA: the leader alone
  EXPECT_TRUE(check_kernel_masks(b, leader, 1).empty());
  const KernelMask peer[1] = {{1, 0b11}};
  const std::vector<StageFinding> fs = check_kernel_masks(b, peer, 1);
  ASSERT_EQ(rules_of(fs), std::vector<ClusterRule>{ClusterRule::multicast_mask_mismatch});
  EXPECT_NE(fs[0].detail.find("CTA 1 issues no copy of this operand in the plan (its issuers: 0b01 (0x1: CTA 0))"),
            std::string::npos)
      << fs[0].detail;
}

TEST(ClusterStageCheck, MaskTextsParseOnceOrPerCta) {
  std::vector<KernelMask> m;
  std::string why;
  ASSERT_TRUE(parse_kernel_masks("[0, 2]", m, why)) << why;
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].cta, -1);
  EXPECT_EQ(m[0].mask, 0b101);
  m.clear();
  ASSERT_TRUE(parse_kernel_masks("0:0b0101, 1:[1,3], 3:0xa", m, why)) << why;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ((std::vector<int>{m[0].cta, m[1].cta, m[2].cta}), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ((std::vector<int>{m[0].mask, m[1].mask, m[2].mask}), (std::vector<int>{0b0101, 0b1010, 0b1010}));
  for (const char* bad : {"0:1,0:2", "1,2", "16:1", "x:1", "0:", "0:0b2", ""}) {
    std::vector<KernelMask> n;
    EXPECT_FALSE(parse_kernel_masks(bad, n, why)) << bad;
    EXPECT_TRUE(n.empty()) << bad;
  }
}

// The stage of CTA pairs: a 4x1 cluster, A per CTA and B sliced across all four, 32 KiB into each CTA.
ClusterStage pairs_stage(Arch arch = Arch::sm_100) {
  static const MulticastPlan plans[2] = {plan_of(ClusterShape{4, 1, 1}, 1), plan_of(ClusterShape{4, 1, 1}, 0)};
  return plan_cluster_stage(4, plans, 2, nullptr, 0, StageOptions{CtaGroup::two, arch});
}

TEST(ClusterStageCheck, ThePairsBytesPass) {
  const ClusterStage s = pairs_stage();
  ASSERT_TRUE(s.ok());
  const KernelArmed right[4] = {{0, 65536}, {1, 0}, {2, 65536}, {3, 0}};
  EXPECT_TRUE(check_kernel_armed(s, right, 4).empty());
}

// tilelang #2644's count: the bytes into one CTA times the cluster's size, on each pair's even CTA.
TEST(ClusterStageCheck, ClusterSizeTimesOneCtaIsNamedAsThePairsMistake) {
  const ClusterStage s = pairs_stage();
  const KernelArmed wrong[2] = {{0, 4 * 32768}, {2, 4 * 32768}};
  const std::vector<StageFinding> fs = check_kernel_armed(s, wrong, 2);
  ASSERT_EQ(rules_of(fs), (std::vector<ClusterRule>{ClusterRule::armed_mismatch, ClusterRule::armed_mismatch}));
  EXPECT_EQ(fs[1].cta, 2);
  EXPECT_EQ(fs[0].message().rfind("error [expect.armed_mismatch] CTA 0: armed 131072 B, the stage completes 65536 B on "
                                  "this barrier: 131072 B = 4 x 32768, the cluster's 4 CTAs x the TMA bytes into one "
                                  "CTA; with cta_group::2 a pair's even CTA counts the TMA bytes of its pair only: "
                                  "32768 into CTA 0 + 32768 into CTA 1 = 2 x 32768: the barrier waits for 65536 bytes "
                                  "that never come: it never completes (the hang); fix: ",
                                  0),
            0u)
      << fs[0].message();
  EXPECT_NE(fs[1].detail.find("32768 into CTA 2 + 32768 into CTA 3"), std::string::npos) << fs[1].detail;
}

TEST(ClusterStageCheck, OneCtasBytesOnTheEvenCtaOrTheOddCtasOwnAreNamed) {
  const ClusterStage s = pairs_stage();
  const KernelArmed one[2] = {{0, 32768}, {1, 32768}};
  const std::vector<StageFinding> fs = check_kernel_armed(s, one, 2);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_NE(fs[0].detail.find("32768 B counts the TMA bytes into CTA 0 alone; with cta_group::2 the 32768 TMA bytes "
                              "into CTA 1, its pair, complete on this barrier too: the phase completes after 32768 "
                              "bytes while 32768 more are still arriving"),
            std::string::npos)
      << fs[0].detail;
  EXPECT_NE(fs[1].detail.find("the stage completes 0 B on this barrier: 32768 B counts the 32768 TMA bytes into CTA 1, "
                              "which with cta_group::2 complete on CTA 0's barrier (its pair's even CTA), not on this "
                              "one: the barrier waits for 32768 bytes that never come"),
            std::string::npos)
      << fs[1].detail;
}

// Without pairs: each CTA counts what lands in it; the cluster's size times that is named too.
TEST(ClusterStageCheck, WithoutPairsClusterSizeTimesItsOwnIsNamed) {
  static const MulticastPlan b = plan_of(ClusterShape{2, 1, 1}, 0);
  const ClusterStage s = plan_cluster_stage(2, &b, 1, nullptr, 0);
  const KernelArmed armed[3] = {{0, 16384}, {1, 32768}, {2, 16384}};
  const std::vector<StageFinding> fs = check_kernel_armed(s, armed, 3);
  ASSERT_EQ(rules_of(fs), (std::vector<ClusterRule>{ClusterRule::armed_mismatch, ClusterRule::armed_mismatch}));
  EXPECT_NE(fs[0].detail.find("32768 B = 2 x 16384, the cluster's 2 CTAs x the bytes into this CTA"), std::string::npos)
      << fs[0].detail;
  EXPECT_EQ(fs[1].cta, -1);
  EXPECT_EQ(fs[1].detail, "armed 16384 B on CTA 2, past the last rank of the cluster's 2 CTAs");
  const KernelArmed odd[1] = {{0, 1000}};  // no mistake the numbers show: the difference alone
  EXPECT_EQ(check_kernel_armed(s, odd, 1)[0].detail,
            "armed 1000 B, the stage completes 16384 B on this barrier: the phase completes after 1000 bytes while "
            "15384 more are still arriving: the consumer can read the stage before it is there, and the late bytes "
            "count against the next phase");
}

}  // namespace

// plan_cluster_stage (cluster/stage.hpp): every copy that lands in one stage, summed per CTA.
#include <gtest/gtest.h>

#include <string>

#include "test_configs.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/stage.hpp"

namespace {

using namespace tmakit;

// A 2x1 cluster: B multicast to both CTAs, and a 16 KiB buffer from CTA 0 to CTA 1 by DSMEM.
TEST(ClusterStage, MulticastAndDsmemAddUpPerCta) {
  MulticastSpec b;
  b.cluster = ClusterShape{2, 1, 1};
  b.share[0] = true;
  b.box = test::box_16k();
  const MulticastPlan mb = plan_multicast(b);
  ASSERT_TRUE(mb.ok());
  StageDsmemCopy d;
  d.plan = plan_dsmem_copy(DsmemSpec{4, compact_region(4, 4096), compact_region(4, 4096), 128});
  ASSERT_EQ(d.plan.tx_bytes, 16384u);
  d.from = 0;
  d.to = 1;
  const ClusterStage s = plan_cluster_stage(2, &mb, 1, &d, 1);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.cta[0].expect_bytes, 16384u);
  EXPECT_EQ(s.cta[1].expect_bytes, 32768u);
  EXPECT_EQ(s.cta[1].tma_bytes, 16384u);
  EXPECT_EQ(s.cta[1].dsmem_bytes, 16384u);
  EXPECT_EQ(s.cta[1].senders & 1u, 1u);  // CTA 0's DSMEM copy lands in CTA 1
  EXPECT_TRUE(s.cta[0].issues);
  EXPECT_EQ(s.cta[0].receivers, 0b11);
  const std::string text = describe_cluster_stage(s);
  EXPECT_NE(text.find("CTA 1: arm 32768 bytes on its full barrier (TMA 16384 + DSMEM 16384)"), std::string::npos) << text;
  EXPECT_NE(text.find("0b11 (0x3: CTAs 0, 1)"), std::string::npos) << text;
}

TEST(ClusterStage, ASumPastTheTransactionCountIsRefused) {
  StageDsmemCopy d[2];
  for (StageDsmemCopy& x : d) {
    x.plan.tx_bytes = 600000;
    x.from = 0;
    x.to = 1;
  }
  const ClusterStage s = plan_cluster_stage(2, nullptr, 0, d, 2);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.cta[1].expect_bytes, 1200000u);
  d[1].to = 2;  // outside a 2-CTA cluster: blamed on the issuing CTA, with the cluster's size
  const ClusterStage out = plan_cluster_stage(2, nullptr, 0, d, 2);
  EXPECT_FALSE(out.ok());
  ASSERT_FALSE(out.diagnostics.ok());
  const ClusterViolation& v = out.diagnostics.items[0];
  EXPECT_EQ(v.rule, ClusterRule::mask_outside_cluster);
  EXPECT_EQ(v.cta, 0);
  EXPECT_EQ(v.value, 2);
  EXPECT_EQ(v.expected, 2);
}

TEST(ClusterStage, MasksReadAsBitsHexAndCtas) {
  EXPECT_EQ(cta_mask_text(0b10, 2), "0b10 (0x2: CTA 1)");
  EXPECT_EQ(cta_mask_text(0b1010, 4), "0b1010 (0xa: CTAs 1, 3)");
  EXPECT_EQ(cta_mask_text(0, 2), "0b00 (0x0: no CTA)");
  EXPECT_EQ(cta_mask_text(0b1111, 2), "0b1111 (0xf: CTAs 0, 1, 2, 3)");  // bits past the cluster are kept
  EXPECT_EQ(cta_list_text(0b1100), "CTAs 2, 3");
}

TEST(ClusterStage, MasksParseFromEveryFormAKernelAuthorWrites) {
  std::uint16_t m = 0;
  std::string why;
  for (const char* text : {"0b0101", "0x5", "5", "[0,2]", " [ 2 , 0 ] ", "0B101"}) {
    m = 0;
    EXPECT_TRUE(parse_cta_mask(text, m, why)) << text << ": " << why;
    EXPECT_EQ(m, 0b0101) << text;
  }
  EXPECT_TRUE(parse_cta_mask("[]", m, why));
  EXPECT_EQ(m, 0);
  EXPECT_TRUE(parse_cta_mask("0xffff", m, why));
  for (const char* text : {"", "0x10000", "65536", "0b12", "0b11111111111111111", "[0,16]", "[0,0]", "[0,]", "[0",
                           "-1", "x"})
    EXPECT_FALSE(parse_cta_mask(text, m, why)) << text;
  EXPECT_NE(why.find("ctaMask 'x'"), std::string::npos) << why;
}

// A 4x1 cluster of CTA pairs (cta_group::2): A loaded by each CTA alone (shared along y, of extent
// 1) and B sliced across all four. Each CTA receives 32 KiB; each pair's even CTA counts its pair's.
TEST(ClusterStage, CtaPairsCountTheirTmaBytesOnTheEvenCta) {
  MulticastSpec a, b;
  a.cluster = b.cluster = ClusterShape{4, 1, 1};
  a.share[1] = true;
  b.share[0] = true;
  b.mode = MulticastMode::sliced;
  a.box = b.box = test::box_16k();
  const MulticastPlan plans[2] = {plan_multicast(a), plan_multicast(b)};
  ASSERT_TRUE(plans[0].ok() && plans[1].ok());
  const ClusterStage one = plan_cluster_stage(4, plans, 2, nullptr, 0);
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(one.cta[r].expect_bytes, 32768u);
    EXPECT_EQ(one.cta[r].tma_barrier, r);
  }
  StageDsmemCopy d;  // a DSMEM copy into the odd CTA stays on its own barrier
  d.plan.tx_bytes = 4096;
  d.from = 0;
  d.to = 1;
  const ClusterStage two = plan_cluster_stage(4, plans, 2, &d, 1, StageOptions{CtaGroup::two, Arch::sm_100});
  EXPECT_TRUE(two.ok());
  const std::uint32_t expect[4] = {65536, 4096, 65536, 0}, barrier[4] = {0, 0, 2, 2};
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(two.cta[r].expect_bytes, expect[r]) << r;
    EXPECT_EQ(two.cta[r].tma_landed_bytes, 32768u) << r;
    EXPECT_EQ(two.cta[r].tma_barrier, barrier[r]) << r;
    EXPECT_EQ(two.cta[r].expect_bytes, two.cta[r].tma_bytes + two.cta[r].dsmem_bytes) << r;
  }
  const std::string text = describe_cluster_stage(two);
  EXPECT_NE(text.find("CTA 0: arm 65536 bytes on its full barrier (TMA 65536 + DSMEM 0); TMA: 32768 into CTA 0 + 32768 "
                      "into CTA 1, its pair (cta_group::2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CTA 1: arm 4096 bytes on its full barrier (TMA 0 + DSMEM 4096); TMA: 32768 into CTA 1, counted "
                      "on CTA 0's barrier (cta_group::2)"),
            std::string::npos)
      << text;
}

TEST(ClusterStage, CtaPairsNeedAnSm100TargetAndAnEvenCluster) {
  StageDsmemCopy d;
  d.plan.tx_bytes = 1024;
  d.to = 1;
  for (const Arch arch : {Arch::sm_90, Arch::sm_120}) {
    const ClusterStage s = plan_cluster_stage(2, nullptr, 0, &d, 1, StageOptions{CtaGroup::two, arch});
    ASSERT_EQ(s.diagnostics.count, 1);
    EXPECT_EQ(s.diagnostics.items[0].rule, ClusterRule::cta_group_arch);
    EXPECT_EQ(s.diagnostics.items[0].value, static_cast<std::int64_t>(arch));
    EXPECT_NE(explain(s.diagnostics.items[0]).find("cta_group::2 for target sm_" + std::to_string(static_cast<int>(arch))),
              std::string::npos);
  }
  EXPECT_TRUE(plan_cluster_stage(2, nullptr, 0, &d, 1, StageOptions{CtaGroup::one, Arch::sm_90}).ok());
  const ClusterStage odd = plan_cluster_stage(3, nullptr, 0, &d, 1, StageOptions{CtaGroup::two, Arch::sm_100});
  ASSERT_EQ(odd.diagnostics.count, 1);
  EXPECT_EQ(odd.diagnostics.items[0].rule, ClusterRule::cta_group_pair);
  EXPECT_EQ(explain(odd.diagnostics.items[0]).rfind("error [cta_group.pair] cta_group::2 in a cluster of 3 CTAs: CTA 2 "
                                                    "has no peer", 0),
            0u);
  EXPECT_EQ(odd.cta[2].tma_barrier, 2u);  // no peer: its own
}

}  // namespace

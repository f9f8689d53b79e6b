// plan_cluster_stage (cluster/stage.hpp): every copy that lands in one stage, summed per CTA.
#include <gtest/gtest.h>

#include <string>

#include "tmakit/cluster/stage.hpp"

namespace {

using namespace tmakit;

TensorMapParams box_16k() {  // bf16 64 x 128: 16 KiB per copy
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.dims[0] = p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = 64;
  p.box[1] = 128;
  p.swizzle = Swizzle::b128;
  return p;
}

// A 2x1 cluster: B multicast to both CTAs, and a 16 KiB buffer from CTA 0 to CTA 1 by DSMEM.
TEST(ClusterStage, MulticastAndDsmemAddUpPerCta) {
  MulticastSpec b;
  b.cluster = ClusterShape{2, 1, 1};
  b.share[0] = true;
  b.box = box_16k();
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
}

}  // namespace

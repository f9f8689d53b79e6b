// The DSMEM copy planner fed with CuTe layouts (tmakit/layout): parsed notation -> regions ->
// the same plans as the (shape, stride) byte regions of test_cluster_plan.cpp.
#include <gtest/gtest.h>

#include <string>

#include "tmakit/layout/notation.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/dsmem_layout.hpp"

using namespace tmakit;

namespace {
SwizzledLayout sl(const char* text) {
  const Parsed<SwizzledLayout> p = parse_swizzled_layout(text);
  EXPECT_TRUE(p.ok) << text;
  return p.value;
}
}  // namespace

TEST(DsmemLayout, PaddedRowsAreOneBulkPiecePerRow) {
  // 64 floats per row, 68-float (272 B) source pitch -> compact: 32 pieces of 256 B.
  const DsmemPlan p = plan_dsmem_copy(sl("(64,32):(1,68)"), sl("(64,32):(1,64)"), 4);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_multi);
  EXPECT_EQ(p.piece_count, 32u);
  EXPECT_EQ(p.pieces[1].src, 272u);
  EXPECT_EQ(p.pieces[1].dst, 256u);
  EXPECT_EQ(p.tx_bytes, 8192u);
}

TEST(DsmemLayout, CoalescingMakesHierarchicalLayoutsContiguous) {
  // ((2,32),(4,8)):((1,2),(64,256)) is a compact 2048-element range: one bulk copy.
  const RegionFromLayout r = region_from_layout(sl("((2,32),(4,8)):((1,2),(64,256))").layout, 2);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.modes, 1);
  const DsmemPlan p = plan_dsmem_copy(sl("((2,32),(4,8)):((1,2),(64,256))"), sl("2048:1"), 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_single);
  EXPECT_EQ(p.tx_bytes, 4096u);
}

TEST(DsmemLayout, SwizzledDestinationIsElementwise) {
  // bf16 (64,16) row-major into Sw<3,4,3> o (64,16):(1,64): 86 minimal pieces -> st.async 16 B.
  const DsmemPlan p = plan_dsmem_copy(sl("(64,16):(1,64)"), sl("Sw<3,4,3> o (64,16):(1,64)"), 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::st_async);
  EXPECT_EQ(p.min_pieces, 86u);
  EXPECT_EQ(p.unit_bytes, 16u);
}

TEST(DsmemLayout, TransposeIsElementwise) {
  const DsmemPlan p = plan_dsmem_copy(sl("(32,32):(1,32)"), sl("(32,32):(32,1)"), 4);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::st_async);
  EXPECT_EQ(p.unit_bytes, 4u);
}

TEST(DsmemLayout, TooManyModesIsRefusedWithTheRule) {
  // 5 non-mergeable modes.
  const DsmemPlan p = plan_dsmem_copy(sl("(2,2,2,2,2):(1,4,16,64,256)"), sl("32:1"), 4);
  EXPECT_FALSE(p.ok());
  ASSERT_TRUE(p.diagnostics.contains(ClusterRule::dsmem_rank));
  EXPECT_EQ(p.diagnostics.items[0].cta, 0);
  EXPECT_EQ(p.diagnostics.items[0].value, 5);
}

TEST(DsmemLayout, ElementLargerThanTheSwizzleChunkIsRefused) {
  // Sw<2,2,3> moves 4-byte chunks: an 8-byte element would be split (layout.swizzle.elem_bytes).
  const RegionFromLayout r = region_from_layout(sl("Sw<2,2,3> o (32,4):(1,32)"), 8);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostic.rule, LayoutRule::swizzle_elem_bytes);
  const DsmemPlan p = plan_dsmem_copy(sl("(32,4):(1,32)"), sl("Sw<2,2,3> o (32,4):(1,32)"), 8);
  EXPECT_FALSE(p.ok());
  ASSERT_EQ(p.diagnostics.count, 1);
  EXPECT_EQ(p.diagnostics.items[0].rule, ClusterRule::dsmem_swizzle_elem_bytes);
  EXPECT_EQ(p.diagnostics.items[0].cta, 1);  // the destination
  EXPECT_EQ(p.diagnostics.items[0].value, 8);
  EXPECT_EQ(p.diagnostics.items[0].expected, 4);
  EXPECT_NE(explain(p.diagnostics.items[0]).find("error [dsmem.swizzle_elem_bytes] CTA 1: element of 8 B under a "
                                                 "swizzle with 4 B chunks; fix: use elements no larger"),
            std::string::npos)
      << explain(p.diagnostics.items[0]);
  // 4-byte elements fit the 4-byte chunks.
  EXPECT_TRUE(plan_dsmem_copy(sl("(32,4):(1,32)"), sl("Sw<2,2,3> o (32,4):(1,32)"), 4).ok());
}

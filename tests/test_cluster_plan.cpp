// Multicast plans, DSMEM copy plans and handoff checks (host): masks, fan-in, expected bytes from
// transaction_bytes(), the straddle fallback, and every rule with its id.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/handoff.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/tensor_map/smem_model.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

using namespace tmakit;

namespace {

// bf16 tile of box (64, rows): 64 * 2 = 128 B rows, 128B swizzle.
constexpr TensorMapParams bf16_box(std::uint32_t rows, Swizzle sw = Swizzle::b128) {
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.dims[0] = 4096;
  p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = 64;
  p.box[1] = rows;
  p.swizzle = sw;
  return p;
}

constexpr MulticastSpec spec_1d(std::uint32_t n, MulticastMode mode, const TensorMapParams& box, std::uint16_t active = 0) {
  MulticastSpec s;
  s.cluster = ClusterShape{n, 1, 1};
  s.share[0] = true;
  s.mode = mode;
  s.box = box;
  s.active = active;
  return s;
}

// The worked 2x2 example of docs/cluster.md, checked at compile time.
constexpr GemmMulticastPlans kGemm2x2 =
    plan_gemm_multicast(ClusterShape{2, 2, 1}, bf16_box(128), bf16_box(128), MulticastMode::sliced);
static_assert(kGemm2x2.a.ok() && kGemm2x2.b.ok());
static_assert(kGemm2x2.a.tile_bytes == 16384 && kGemm2x2.a.cta[0].issue.bytes == 8192);
static_assert(kGemm2x2.a.cta[0].issue.mask == 0b0101 && kGemm2x2.a.cta[2].issue.mask == 0b0101);
static_assert(kGemm2x2.b.cta[0].issue.mask == 0b0011 && kGemm2x2.b.cta[3].issue.mask == 0b1100);
static_assert(kGemm2x2.a.cta[2].issue.coord_offset == 64 && kGemm2x2.a.cta[2].issue.smem_offset == 8192);
static_assert(kGemm2x2.a.cta[0].expect_bytes + kGemm2x2.b.cta[0].expect_bytes == 32768);

}  // namespace

TEST(ClusterPlan, Gemm2x2SlicedFanInFour) {
  const MulticastPlan plans[2] = {kGemm2x2.a, kGemm2x2.b};
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(plans[0].cta[r].fan_in, 2u) << r;
    EXPECT_EQ(plans[1].cta[r].fan_in, 2u) << r;
    EXPECT_EQ(stage_expect_bytes(plans, 2, r), 32768u) << r;
    EXPECT_TRUE(plans[0].cta[r].issues);
  }
  // A is shared along y: CTA 1 = (1,0) receives from itself and from CTA 3 = (1,1).
  EXPECT_EQ(plans[0].cta[1].senders, 0b1010);
  EXPECT_EQ(plans[1].cta[1].senders, 0b0011);
  EXPECT_EQ(plans[0].issue_params(1).box[1], 64u);
  // The hand-written "expect my own tile" bug: 16384 armed where 32768 land.
  const ClusterDiagnostics d = check_armed_bytes(plans, 2, 1, 16384);
  ASSERT_EQ(d.count, 1);
  EXPECT_EQ(d.items[0].rule, ClusterRule::fan_in);
  EXPECT_EQ(d.items[0].value, 16384);
  EXPECT_EQ(d.items[0].expected, 32768);
  EXPECT_NE(explain(d.items[0]).find("error [expect.fan_in] CTA 1: barrier expects 16384 B but the issues into it "
                                     "deliver 32768 B; fix: each receiver expects the SUM"),
            std::string::npos)
      << explain(d.items[0]);
  EXPECT_TRUE(check_armed_bytes(plans, 2, 1, 32768).ok());
}

TEST(ClusterPlan, LeaderBroadcastSizes) {
  for (std::uint32_t n : {2u, 4u, 8u, 16u}) {
    const MulticastPlan p = plan_multicast(spec_1d(n, MulticastMode::leader_broadcast, bf16_box(64)));
    ASSERT_TRUE(p.ok()) << n;
    EXPECT_EQ(p.decision, MulticastDecision::leader_broadcast);
    EXPECT_TRUE(p.cta[0].issues);
    EXPECT_EQ(p.cta[0].issue.mask, (ClusterShape{n, 1, 1}.full_mask()));
    for (std::uint32_t r = 1; r < n; ++r) EXPECT_FALSE(p.cta[r].issues);
    for (std::uint32_t r = 0; r < n; ++r) {
      EXPECT_EQ(p.cta[r].expect_bytes, 8192u);
      EXPECT_EQ(p.cta[r].fan_in, 1u);
    }
    EXPECT_EQ(p.diagnostics.contains(ClusterRule::cluster_nonportable), n > 8);
  }
}

TEST(ClusterPlan, SparseMaskSkipsCtas) {
  // Cluster 8, CTAs 0, 2, 5, 7 active; sliced 4 ways along the 64 rows.
  const MulticastPlan p = plan_multicast(spec_1d(8, MulticastMode::sliced, bf16_box(64), 0b10100101));
  ASSERT_TRUE(p.ok());
  for (std::uint32_t r : {0u, 2u, 5u, 7u}) {
    EXPECT_EQ(p.cta[r].issue.mask, 0b10100101);
    EXPECT_EQ(p.cta[r].issue.bytes, 2048u);
    EXPECT_EQ(p.cta[r].expect_bytes, 8192u);
    EXPECT_EQ(p.cta[r].fan_in, 4u);
  }
  EXPECT_EQ(p.cta[5].issue.slice, 2u);
  EXPECT_EQ(p.cta[5].issue.coord_offset, 32u);
  EXPECT_EQ(p.cta[5].issue.smem_offset, 4096u);
  for (std::uint32_t r : {1u, 3u, 4u, 6u}) {
    EXPECT_FALSE(p.cta[r].active);
    EXPECT_EQ(p.cta[r].expect_bytes, 0u);
  }
}

TEST(ClusterPlan, ThreeDClusterSharesAlongTwoDims) {
  MulticastSpec s;
  s.cluster = ClusterShape{2, 2, 2};
  s.share[1] = s.share[2] = true;  // CTAs with the same x share
  s.mode = MulticastMode::sliced;
  s.box = bf16_box(64);
  const MulticastPlan p = plan_multicast(s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.cta[0].issue.mask, 0b01010101);
  EXPECT_EQ(p.cta[3].issue.mask, 0b10101010);
  EXPECT_EQ(p.cta[7].issue.slice, 3u);
  EXPECT_EQ(p.cta[7].expect_bytes, 8192u);
}

TEST(ClusterPlan, StraddleFallsBackToUnicastEverywhere) {
  MulticastSpec s = spec_1d(4, MulticastMode::sliced, bf16_box(64));
  s.grouped = true;
  s.group_of[0] = s.group_of[1] = 7;
  s.group_of[2] = s.group_of[3] = 8;  // the cluster straddles groups 7 and 8
  const MulticastPlan p = plan_multicast(s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.decision, MulticastDecision::unicast_straddle);
  ASSERT_TRUE(p.diagnostics.contains(ClusterRule::straddle));
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_FALSE(p.cta[r].issue.multicast);
    EXPECT_EQ(p.cta[r].issue.mask, 1u << r);
    EXPECT_EQ(p.cta[r].expect_bytes, 8192u);
  }
  s.group_of[2] = s.group_of[3] = 7;
  EXPECT_EQ(plan_multicast(s).decision, MulticastDecision::sliced);
}

TEST(ClusterPlan, ElementStridesCountLikeTheHardware) {
  // box rows 64 with elementStrides[1] = 3: ceil(64/3) = 22 rows delivered, not floor = 21.
  TensorMapParams b = bf16_box(64, Swizzle::none);
  b.elem_strides[1] = 3;
  const MulticastPlan p = plan_multicast(spec_1d(2, MulticastMode::leader_broadcast, b));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.tile_bytes, 22u * 128u);
  EXPECT_EQ(p.cta[1].expect_bytes, transaction_bytes(b));
  // Sliced 2 ways: 32 rows per slice is not a multiple of 3.
  const MulticastPlan q = plan_multicast(spec_1d(2, MulticastMode::sliced, b));
  EXPECT_FALSE(q.ok());
  EXPECT_TRUE(q.diagnostics.contains(ClusterRule::slice_divisible));
}

// ClusterDiagnostics is core's ViolationList (one list type for every module), with notes that
// do not fail ok() and a fully initialized, constexpr-usable empty state.
static_assert(std::is_same_v<ViolationList<ClusterRule, 32, ClusterViolation>, ClusterDiagnostics>);
static_assert(ClusterDiagnostics{}.empty() && ClusterDiagnostics{}.ok() && ClusterDiagnostics::kCapacity == 32);
TEST(ClusterPlan, DiagnosticsKeepTheFirstCapacityAndFlagTheRest) {
  ClusterDiagnostics d;
  d.add(ClusterRule::straddle, -1, 3, 1);
  EXPECT_TRUE(d.ok());  // a note only
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.errors(), 0);
  for (int i = 1; i < ClusterDiagnostics::kCapacity + 2; ++i) d.add(ClusterRule::fan_in, i, 100 + i, 200 + i);
  EXPECT_EQ(d.count, ClusterDiagnostics::kCapacity);
  EXPECT_TRUE(d.truncated);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.errors(), ClusterDiagnostics::kCapacity - 1);
  EXPECT_TRUE(d.contains(ClusterRule::straddle) && d.contains(ClusterRule::fan_in));
  EXPECT_FALSE(d.contains(ClusterRule::tx_limit));
  EXPECT_EQ(d.items[5].cta, 5);
  EXPECT_EQ(d.items[5].value, 105);
  EXPECT_EQ(d.items[5].expected, 205);
  int seen = 0;
  for (const ClusterViolation& v : d) seen += v.rule == ClusterRule::fan_in;
  EXPECT_EQ(seen, ClusterDiagnostics::kCapacity - 1);
}

TEST(ClusterPlan, ValidationReportsEveryViolation) {
  MulticastPlan p = plan_multicast(spec_1d(4, MulticastMode::sliced, bf16_box(64)));
  ASSERT_TRUE(p.ok());
  p.cta[1].issue.mask = 0b100011;      // bit 5: outside the 4-CTA cluster
  p.cta[2].expect_bytes = 2048;        // fan-in 1 instead of 4
  p.cta[3].expect_bytes = 1u << 21;    // beyond the tx range
  const ClusterDiagnostics d = validate_multicast_plan(p);
  EXPECT_TRUE(d.contains(ClusterRule::mask_outside_cluster));
  EXPECT_TRUE(d.contains(ClusterRule::fan_in));
  int fan_in = 0;
  for (const auto& v : d) fan_in += v.rule == ClusterRule::fan_in;
  EXPECT_EQ(fan_in, 2);  // CTA 2 (2048 armed, 6144 delivered: CTA 1's slice no longer reaches it) and CTA 3
  EXPECT_TRUE(d.contains(ClusterRule::tx_limit));
  TensorMapParams huge = bf16_box(256, Swizzle::none);
  huge.rank = 3;
  huge.box[0] = 256;
  huge.box[2] = 16;  // 256 * 256 * 16 * 2 B = 2 MiB
  const MulticastPlan h = plan_multicast(spec_1d(2, MulticastMode::leader_broadcast, huge));
  EXPECT_FALSE(h.ok());
  EXPECT_TRUE(h.diagnostics.contains(ClusterRule::tx_limit));
}

TEST(ClusterPlan, EmptyAndInactiveMasks) {
  MulticastPlan p = plan_multicast(spec_1d(4, MulticastMode::leader_broadcast, bf16_box(64), 0b0111));
  ASSERT_TRUE(p.ok());
  p.cta[0].issue.mask = 0b1001;  // CTA 3 is not active
  ClusterDiagnostics d = validate_multicast_plan(p);
  EXPECT_TRUE(d.contains(ClusterRule::mask_inactive_cta));
  EXPECT_TRUE(d.contains(ClusterRule::fan_in));  // CTAs 1 and 2 no longer receive the tile
  p.cta[0].issue.mask = 0;
  d = validate_multicast_plan(p);
  EXPECT_TRUE(d.contains(ClusterRule::mask_empty));
  int fan_in = 0;
  for (const auto& v : d) fan_in += v.rule == ClusterRule::fan_in;
  EXPECT_EQ(fan_in, 3);
}

TEST(ClusterPlan, SliceRules) {
  // 8 rows of 128 B sliced 2 ways: slice 1 at 512 B, not a multiple of 1024 (128B swizzle).
  const MulticastPlan a = plan_multicast(spec_1d(2, MulticastMode::sliced, bf16_box(8)));
  EXPECT_FALSE(a.ok());
  EXPECT_TRUE(a.diagnostics.contains(ClusterRule::slice_alignment));
  EXPECT_TRUE(plan_multicast(spec_1d(2, MulticastMode::sliced, bf16_box(8, Swizzle::none))).ok());
  MulticastSpec s = spec_1d(2, MulticastMode::sliced, bf16_box(64));
  s.slice_dim = 0;  // inner dim: slices would interleave rows
  EXPECT_TRUE(plan_multicast(s).diagnostics.contains(ClusterRule::slice_outermost));
  MulticastSpec none = spec_1d(2, MulticastMode::sliced, bf16_box(64));
  none.share[0] = false;
  EXPECT_TRUE(plan_multicast(none).diagnostics.contains(ClusterRule::share_dims));
  EXPECT_TRUE(plan_multicast(spec_1d(17, MulticastMode::sliced, bf16_box(64))).diagnostics.contains(ClusterRule::cluster_size));
  EXPECT_TRUE(plan_multicast(spec_1d(4, MulticastMode::sliced, bf16_box(64), 0b110000)).diagnostics.contains(
      ClusterRule::mask_outside_cluster));
}

TEST(ClusterPlan, SlicesAreAlignedForTma) {
  // u32 box 16 x 24 (64 B rows, no swizzle) sliced 8 ways: 3 rows = 192 B per slice. 192 is a
  // multiple of the descriptor's 16 B but not of the 128 B a TMA destination needs (a 16-aligned
  // unswizzled destination faults on the H100): refused.
  TensorMapParams b;
  b.dtype = DataType::uint32;
  b.rank = 2;
  b.dims[0] = 16;
  b.dims[1] = 4096;
  b.strides[0] = 64;
  b.box[0] = 16;
  b.box[1] = 24;
  const MulticastPlan p = plan_multicast(spec_1d(8, MulticastMode::sliced, b));
  EXPECT_FALSE(p.ok());
  ASSERT_TRUE(p.diagnostics.contains(ClusterRule::slice_alignment));
  for (const ClusterViolation& v : p.diagnostics)
    if (v.rule == ClusterRule::slice_alignment) {
      EXPECT_EQ(v.value % 192, 0);
      EXPECT_EQ(v.expected, 128);
    }
  EXPECT_NE(explain(p.diagnostics.items[0]).find("needs a multiple of 128 B; fix: make each slice's shared-memory "
                                                 "offset (its share of the box's image"),
            std::string::npos)
      << explain(p.diagnostics.items[0]);
  // 4 ways: 6 rows = 384 B, a multiple of 128.
  const MulticastPlan q = plan_multicast(spec_1d(4, MulticastMode::sliced, b));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.cta[1].issue.smem_offset, 384u);
}

// Where the slices land: the shared image of the whole box (host TMA model, smem_model.hpp) must be
// the union of the slices' images, each at its smem_offset. Rows shorter than the swizzle span are
// padded to it (measured on the H200), so a slice's offset is its share of the padded image, not of
// the transaction bytes (which once put slice 1 of the box below at 2048, inside slice 0).
namespace {
std::vector<unsigned char> model_image(const TensorMapParams& p, const std::vector<unsigned char>& global,
                                       const std::int32_t* start) {
  std::vector<unsigned char> out;
  EXPECT_TRUE(smem_model_tiled_load(p, global, start, out, {}, 0xEE));
  return out;
}
// The box's own tensor: each dim just as large as the box reads, distinct bytes (never 0xEE).
TensorMapParams fit_tensor(const TensorMapParams& box, std::vector<unsigned char>& global) {
  TensorMapParams p = box;
  const std::uint64_t eb = smem_element_bits(p.dtype) / 8;
  std::uint64_t size = 1;
  for (std::uint32_t i = 0; i < p.rank; ++i) {
    p.dims[i] = p.box[i];
    if (i > 0) p.strides[i - 1] = i == 1 ? (p.dims[0] * eb + 15) / 16 * 16 : p.strides[i - 2] * p.dims[i - 1];
  }
  size = p.rank == 1 ? p.dims[0] * eb : p.strides[p.rank - 2] * p.dims[p.rank - 1];
  global.resize(size);
  for (std::uint64_t i = 0; i < size; ++i) global[i] = static_cast<unsigned char>(1 + (i * 37 + i / 251) % 200);
  p.address = 0;
  return p;
}
// Every slice image at its offset rebuilds the whole image; false (with a message) otherwise.
::testing::AssertionResult slices_rebuild_the_box(const MulticastPlan& m) {
  std::vector<unsigned char> global;
  const TensorMapParams whole_p = fit_tensor(m.spec.box, global);
  const std::int32_t zero[kMaxRank] = {};
  const std::vector<unsigned char> whole = model_image(whole_p, global, zero);
  if (m.buffer_bytes != whole.size())
    return ::testing::AssertionFailure() << "buffer_bytes " << m.buffer_bytes << " but the box image spans " << whole.size();
  std::vector<unsigned char> built(whole.size(), 0xEE);
  for (std::uint32_t r = 0; r < m.spec.cluster.size(); ++r) {
    if (!m.cta[r].issues) continue;
    TensorMapParams sp = m.issue_params(r);
    for (std::uint32_t i = 0; i < sp.rank; ++i) sp.dims[i] = whole_p.dims[i];
    for (std::uint32_t i = 0; i + 1 < sp.rank; ++i) sp.strides[i] = whole_p.strides[i];
    sp.address = 0;
    std::int32_t start[kMaxRank] = {};
    start[m.slice_dim] = static_cast<std::int32_t>(m.cta[r].issue.coord_offset);
    const std::vector<unsigned char> part = model_image(sp, global, start);
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i] == 0xEE) continue;
      const std::size_t at = m.cta[r].issue.smem_offset + i;
      if (at >= built.size()) return ::testing::AssertionFailure() << "CTA " << r << " writes byte " << at << " past the box image";
      if (built[at] != 0xEE) return ::testing::AssertionFailure() << "CTA " << r << " overwrites byte " << at;
      built[at] = part[i];
    }
  }
  for (std::size_t i = 0; i < whole.size(); ++i)
    if (built[i] != whole[i]) return ::testing::AssertionFailure() << "byte " << i << " differs from the whole box's";
  return ::testing::AssertionSuccess();
}
}  // namespace

TEST(ClusterPlan, SlicesLandWhereTheWholeBoxPutsThem) {
  // bf16 32 x 64 under 128B swizzle: 64 B rows, padded to 128 B. Two slices of 32 rows each
  // deliver 2048 B, but slice 1 starts 32 rows = 4096 B into the image.
  const MulticastPlan p = plan_multicast(spec_1d(2, MulticastMode::sliced, bf16_box(64, Swizzle::b128)));
  ASSERT_TRUE(p.ok());  // (bf16_box(64): 64 cols = 128 B rows, unpadded)
  EXPECT_EQ(p.cta[1].issue.smem_offset, 4096u);
  EXPECT_TRUE(slices_rebuild_the_box(p));
  TensorMapParams half = bf16_box(64, Swizzle::b128);
  half.box[0] = 32;
  const MulticastPlan q = plan_multicast(spec_1d(2, MulticastMode::sliced, half));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.cta[1].issue.bytes, 2048u);
  EXPECT_EQ(q.cta[1].expect_bytes, 4096u);
  EXPECT_EQ(q.cta[1].issue.smem_offset, 4096u);
  EXPECT_EQ(q.tile_bytes, 4096u);    // what each barrier expects
  EXPECT_EQ(q.buffer_bytes, 8192u);  // what each buffer must span: 64 rows padded to 128 B
  EXPECT_TRUE(slices_rebuild_the_box(q));
  // 16 B rows under 64B swizzle, 4 slices of 8 rows: 8 x 64 = 512 B apart (a whole repeat)
  TensorMapParams narrow = bf16_box(32, Swizzle::b64);
  narrow.box[0] = 8;
  const MulticastPlan n = plan_multicast(spec_1d(4, MulticastMode::sliced, narrow));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.cta[3].issue.smem_offset, 3u * 512u);
  EXPECT_TRUE(slices_rebuild_the_box(n));
  // Every sliced plan of a sweep (padded and unpadded rows, element strides, ranks 1..4).
  std::mt19937 rng(7);
  const DataType dts[] = {DataType::uint8, DataType::bfloat16, DataType::float32};
  const Swizzle sws[] = {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128};
  int sliced = 0, padded = 0;
  for (int it = 0; it < 3000; ++it) {
    TensorMapParams b;
    b.dtype = dts[rng() % 3];
    b.rank = 1 + rng() % 4;
    b.swizzle = sws[rng() % 4];
    const std::uint32_t eb = smem_element_bits(b.dtype) / 8;
    b.box[0] = (16u << (rng() % 4)) / eb;  // 16..128 B rows
    for (std::uint32_t i = 1; i < b.rank; ++i) {
      b.box[i] = 1u << (rng() % 5);
      b.elem_strides[i] = rng() % 4 == 0 ? 2 : 1;
    }
    const MulticastPlan m = plan_multicast(spec_1d(1u << (1 + rng() % 3), MulticastMode::sliced, b));
    if (m.decision != MulticastDecision::sliced || !m.ok()) continue;
    ++sliced;
    padded += smem_padded_row(b.swizzle, std::uint64_t{b.box[0]} * eb) != std::uint64_t{b.box[0]} * eb;
    ASSERT_TRUE(slices_rebuild_the_box(m)) << "iteration " << it;
  }
  EXPECT_GT(sliced, 300);
  EXPECT_GT(padded, 50);
}

TEST(ClusterPlan, InterleavedUntraversedDimIsNotSliced) {
  // fp16, 32B interleave, rank 3, box {8, 16, 1}: dim 1 (rank - 2) is not traversed, so the copy
  // delivers 8 chunks x 32 B = 256 B, and a slice of dim 1 would deliver the same 256 B.
  TensorMapParams b;
  b.dtype = DataType::float16;
  b.rank = 3;
  b.interleave = Interleave::b32;
  b.dims[0] = 64;
  b.dims[1] = 64;
  b.dims[2] = 4;
  b.strides[0] = 64 * 32;
  b.strides[1] = 64 * 64 * 32;
  b.box[0] = 8;
  b.box[1] = 16;
  b.box[2] = 1;
  ASSERT_EQ(transaction_bytes(b), 256u);
  MulticastSpec s = spec_1d(2, MulticastMode::sliced, b);
  // Auto: the outermost dim that delivers more than one unit is dim 0.
  const MulticastPlan a = plan_multicast(s);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.slice_dim, 0u);
  for (std::uint32_t r = 0; r < 2; ++r) EXPECT_EQ(a.cta[r].expect_bytes, 256u) << r;
  EXPECT_EQ(a.cta[1].issue.bytes, 128u);
  EXPECT_EQ(a.cta[1].issue.smem_offset, 128u);
  EXPECT_EQ(a.cta[1].issue.coord_offset, 4u);
  // Slicing the untraversed dim by hand: each slice would deliver the whole 256 B.
  s.slice_dim = 1;
  const MulticastPlan u = plan_multicast(s);
  EXPECT_FALSE(u.ok());
  EXPECT_TRUE(u.diagnostics.contains(ClusterRule::slice_divisible));
}

TEST(ClusterPlan, ShapeExtentsCannotOverflow) {
  static_assert(!ClusterShape{65536, 65536, 1}.valid());  // x * y wraps to 0
  static_assert(!ClusterShape{1u << 31, 2, 1}.valid());
  static_assert(!ClusterShape{17, 1, 1}.valid() && ClusterShape{16, 1, 1}.valid() && ClusterShape{2, 2, 4}.valid());
  MulticastSpec s = spec_1d(2, MulticastMode::leader_broadcast, bf16_box(64));
  s.cluster = ClusterShape{65536, 65536, 1};
  const MulticastPlan p = plan_multicast(s);
  EXPECT_FALSE(p.ok());
  ASSERT_TRUE(p.diagnostics.contains(ClusterRule::cluster_size));
}

// ----------------------------------------------------------------------------------------------
// DSMEM copy planner.

namespace {
constexpr DsmemSpec dsmem(SmemRegion src, SmemRegion dst, std::uint32_t e = 4) {
  DsmemSpec s;
  s.elem_bytes = e;
  s.src = src;
  s.dst = dst;
  return s;
}
constexpr SmemRegion strided2d(std::int64_t cols, std::int64_t rows, std::int64_t row_bytes, std::uint32_t e,
                               std::uint32_t base = 0) {
  SmemRegion r;
  r.rank = 2;
  r.shape[0] = cols;
  r.shape[1] = rows;
  r.stride[0] = e;
  r.stride[1] = row_bytes;
  r.base = base;
  return r;
}
static_assert(plan_dsmem_copy(dsmem(compact_region(4, 64, 8), compact_region(4, 512))).path == DsmemPath::bulk_single);
}  // namespace

TEST(DsmemPlan, ContiguousIsOneBulkCopy) {
  const DsmemPlan p = plan_dsmem_copy(dsmem(compact_region(4, 64, 32), compact_region(4, 64, 32, 1, 256)));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_single);
  EXPECT_EQ(p.reason, DsmemReason::contiguous);
  ASSERT_EQ(p.piece_count, 1u);
  EXPECT_EQ(p.pieces[0].src, 0u);
  EXPECT_EQ(p.pieces[0].dst, 256u);
  EXPECT_EQ(p.pieces[0].bytes, 8192u);
  EXPECT_EQ(p.tx_bytes, 8192u);
  EXPECT_EQ(p.issuing_threads, 1u);
  EXPECT_EQ(p.receiver_init_count(), 1u);
}

TEST(DsmemPlan, Strided2DIsOneBulkCopyPerRow) {
  // 32 rows of 64 floats (256 B) with a 272 B source pitch -> compact destination.
  const DsmemPlan p = plan_dsmem_copy(dsmem(strided2d(64, 32, 272, 4), compact_region(4, 64, 32)));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_multi);
  EXPECT_EQ(p.piece_count, 32u);
  EXPECT_EQ(p.min_pieces, 32u);
  EXPECT_EQ(p.pieces[5].src, 5u * 272u);
  EXPECT_EQ(p.pieces[5].dst, 5u * 256u);
  EXPECT_EQ(p.tx_bytes, 32u * 256u);
}

TEST(DsmemPlan, Strided3DMergesContiguousRows) {
  // (16 floats, 8 rows, 4 planes): rows contiguous within a plane (64 B rows), planes 1024 B apart
  // in the source (512 B of data each) -> 4 pieces of 512 B.
  SmemRegion src;
  src.rank = 3;
  src.shape[0] = 16;
  src.shape[1] = 8;
  src.shape[2] = 4;
  src.stride[0] = 4;
  src.stride[1] = 64;
  src.stride[2] = 1024;
  const DsmemPlan p = plan_dsmem_copy(dsmem(src, compact_region(4, 16, 8, 4)));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_multi);
  ASSERT_EQ(p.piece_count, 4u);
  EXPECT_EQ(p.pieces[3].src, 3072u);
  EXPECT_EQ(p.pieces[3].dst, 1536u);
  EXPECT_EQ(p.pieces[3].bytes, 512u);
}

TEST(DsmemPlan, ReshapeTransposeIsElementwise) {
  // Transpose 32x32 floats: every element its own piece -> st.async with 4 B units.
  SmemRegion dst = strided2d(32, 32, 4, 4);
  dst.stride[0] = 128;  // column-major destination of a row-major source
  const DsmemPlan p = plan_dsmem_copy(dsmem(compact_region(4, 32, 32), dst));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::st_async);
  EXPECT_EQ(p.reason, DsmemReason::bulk_misaligned);
  EXPECT_EQ(p.min_pieces, 1024u);
  EXPECT_EQ(p.unit_bytes, 4u);
  EXPECT_EQ(p.tx_bytes, 4096u);
  EXPECT_EQ(p.issuing_threads, 128u);
}

TEST(DsmemPlan, SwizzleChangeIsVectorizedElementwise) {
  // Rows of 64 bf16 (128 B): plain source, 128B-swizzled destination (chunk c of row r lands at
  // c ^ r). 4 rows: row 0 is one 128 B piece, row 1 (c ^ 1) and row 3 (c ^ 3) 8 pieces of 16 B,
  // row 2 (c ^ 2 keeps chunk pairs 0-1, 4-5 adjacent) 4 pieces of 32 B: 21 bulk-legal pieces.
  SmemRegion dst = compact_region(2, 64, 4);
  dst.swizzle = swizzle_for(Swizzle::b128);
  const DsmemPlan p = plan_dsmem_copy(dsmem(compact_region(2, 64, 4), dst, 2));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::bulk_multi);
  EXPECT_EQ(p.piece_count, 21u);
  // 16 rows: 2 x (1 + 8 + 4 + 8 + 2 + 8 + 4 + 8) = 86 pieces (row r: 8 / (lowest set bit of r)),
  // more than kMaxBulkPieces:
  // element-wise with 16 B units.
  SmemRegion dst16 = compact_region(2, 64, 16);
  dst16.swizzle = swizzle_for(Swizzle::b128);
  const DsmemPlan q = plan_dsmem_copy(dsmem(compact_region(2, 64, 16), dst16, 2));
  EXPECT_EQ(q.min_pieces, 86u);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.path, DsmemPath::st_async);
  EXPECT_EQ(q.reason, DsmemReason::too_many_pieces);
  EXPECT_EQ(q.unit_bytes, 16u);
}

TEST(DsmemPlan, NarrowUnitsUseStCluster) {
  // 2-byte elements at a 6-byte pitch: no two elements adjacent in the source.
  SmemRegion src = strided2d(1, 100, 6, 2);
  const DsmemPlan p = plan_dsmem_copy(dsmem(src, compact_region(2, 100), 2));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.path, DsmemPath::st_cluster);
  EXPECT_EQ(p.reason, DsmemReason::narrow_units);
  EXPECT_EQ(p.unit_bytes, 2u);
  EXPECT_EQ(p.remote_arrivals, 128u);
  EXPECT_EQ(p.receiver_init_count(), 129u);
  EXPECT_EQ(p.tx_bytes, 0u);
}

TEST(DsmemPlan, SpecErrors) {
  EXPECT_TRUE(plan_dsmem_copy(dsmem(compact_region(4, 64), compact_region(4, 65))).diagnostics.contains(
      ClusterRule::dsmem_element_count));
  EXPECT_TRUE(plan_dsmem_copy(dsmem(compact_region(3, 64), compact_region(3, 64), 3)).diagnostics.contains(
      ClusterRule::dsmem_elem_bytes));
  SmemRegion bcast = strided2d(8, 8, 0, 4);  // rows overlap: not injective
  EXPECT_TRUE(plan_dsmem_copy(dsmem(compact_region(4, 64), bcast)).diagnostics.contains(ClusterRule::dsmem_not_injective));
  EXPECT_TRUE(plan_dsmem_copy(dsmem(compact_region(4, 1 << 18, 2), compact_region(4, 1 << 18, 2)))
                  .diagnostics.contains(ClusterRule::dsmem_too_large));
}

// ----------------------------------------------------------------------------------------------
// Handoffs: the planted "CTA-scoped barrier used across CTAs" and "one issue per warp" bugs.

TEST(Handoff, CtaScopedBarrierAcrossCtasIsNamed) {
  const ClusterDiagnostics d = validate_handoff({HandoffWrite::remote_stores, HandoffSync::syncthreads, 0, 1, 1});
  ASSERT_EQ(d.count, 1);
  EXPECT_EQ(d.items[0].rule, ClusterRule::handoff_cta_scope);
  EXPECT_NE(explain(d.items[0]).find("error [handoff.cta_scope] CTA 1: CTA-scoped synchronization hands data to "
                                     "another CTA; fix: hand data to another CTA with cluster scope"),
            std::string::npos);
  EXPECT_TRUE(validate_handoff({HandoffWrite::local_stores, HandoffSync::mbarrier_arrive_cta, 2, 0, 1})
                  .contains(ClusterRule::handoff_cta_scope));
  EXPECT_TRUE(validate_handoff({HandoffWrite::remote_stores, HandoffSync::cluster_barrier_relaxed, 0, 1, 1})
                  .contains(ClusterRule::handoff_no_release));
  EXPECT_TRUE(validate_handoff({HandoffWrite::remote_stores, HandoffSync::cluster_barrier, 0, 1, 1}).ok());
  EXPECT_TRUE(validate_handoff({HandoffWrite::remote_stores, HandoffSync::mbarrier_arrive_cluster, 0, 1, 1}).ok());
  EXPECT_TRUE(validate_handoff({HandoffWrite::remote_stores, HandoffSync::syncthreads, 1, 1, 1}).ok());  // same CTA
}

TEST(Handoff, PlainStoresDoNotCompleteTx) {
  // Generic stores "handed over by complete_tx": nothing signals the consumer, nothing is released.
  for (HandoffWrite w : {HandoffWrite::remote_stores, HandoffWrite::local_stores}) {
    const ClusterDiagnostics d = validate_handoff({w, HandoffSync::mbarrier_complete_tx, 0, 1, 1});
    ASSERT_EQ(d.count, 1);
    EXPECT_EQ(d.items[0].rule, ClusterRule::handoff_no_release);
    EXPECT_NE(explain(d.items[0]).find("error [handoff.no_release] CTA 1: signal without cluster-scope release after "
                                       "the writes; fix: signal with release semantics"),
              std::string::npos)
        << explain(d.items[0]);
  }
  EXPECT_TRUE(validate_handoff({HandoffWrite::st_async, HandoffSync::mbarrier_complete_tx, 0, 1, 1}).ok());
}

TEST(Handoff, OneIssuePerWarpIsNamed) {
  const ClusterDiagnostics d = validate_handoff({HandoffWrite::bulk_copy, HandoffSync::mbarrier_complete_tx, 0, 1, 4});
  ASSERT_EQ(d.count, 1);
  EXPECT_EQ(d.items[0].rule, ClusterRule::handoff_issuers);
  EXPECT_NE(explain(d.items[0]).find("4 threads issue the same bulk copy (exactly 1)"), std::string::npos);
  EXPECT_TRUE(validate_handoff({HandoffWrite::bulk_copy, HandoffSync::mbarrier_complete_tx, 0, 1, 1}).ok());
}

// ----------------------------------------------------------------------------------------------
// Properties over random specs: every active CTA receives the whole tile exactly once (its
// expect_bytes is transaction_bytes of the box, whatever the mode, mask or shape), fan-in is the
// slice count, and re-validation of the returned plan finds nothing.

TEST(ClusterPlan, RandomSpecsDeliverEachTileOnce) {
  std::mt19937 rng_(5);
  auto rng = [&] { return static_cast<std::uint32_t>(rng_()); };
  int planned = 0, straddles = 0;
  for (int t = 0; t < 4000; ++t) {
    MulticastSpec s;
    do {
      s.cluster = ClusterShape{1u + rng() % 4, 1u + rng() % 4, 1u + rng() % 2};
    } while (s.cluster.size() > 16);
    for (bool& b : s.share) b = rng() % 2;
    if (!s.share[0] && !s.share[1] && !s.share[2]) s.share[rng() % 3] = true;
    s.mode = rng() % 2 ? MulticastMode::sliced : MulticastMode::leader_broadcast;
    s.box = bf16_box(8u << (rng() % 5), Swizzle::none);
    s.box.elem_strides[1] = 1 + rng() % 2;
    s.active = static_cast<std::uint16_t>(rng() & s.cluster.full_mask());
    if (s.active == 0) s.active = 1;
    s.grouped = rng() % 4 == 0;
    for (auto& g : s.group_of) g = rng() % 2;
    const MulticastPlan p = plan_multicast(s);
    if (!p.ok()) {
      ASSERT_TRUE(p.diagnostics.contains(ClusterRule::slice_divisible)) << t;  // the only expected refusal
      continue;
    }
    ++planned;
    straddles += p.decision == MulticastDecision::unicast_straddle;
    EXPECT_EQ(p.decision == MulticastDecision::unicast_straddle, cluster_straddles_groups(s)) << t;
    EXPECT_TRUE(validate_multicast_plan(p).ok()) << t;
    std::uint64_t delivered = 0;
    int active = 0;
    for (std::uint32_t r = 0; r < s.cluster.size(); ++r) {
      const MulticastCta& c = p.cta[r];
      if (c.issues) delivered += std::uint64_t{c.issue.bytes} * popcount16(c.issue.multicast ? c.issue.mask : 1u << r);
      if (!c.active) {
        EXPECT_EQ(c.expect_bytes, 0u) << t;
        continue;
      }
      ++active;
      EXPECT_EQ(c.expect_bytes, transaction_bytes(s.box)) << t << " cta " << r;
      const bool sliced = s.mode == MulticastMode::sliced && popcount16(c.sharers) > 1;
      EXPECT_EQ(c.fan_in, sliced ? static_cast<std::uint32_t>(popcount16(c.sharers)) : 1u) << t;
    }
    EXPECT_EQ(delivered, transaction_bytes(s.box) * active) << t;
  }
  EXPECT_GT(planned, 3000);
  EXPECT_GT(straddles, 100);
}

// The register -> shared-memory store planner: fragment models, destinations, plans (the GPU cases
// of tests/gpu/test_smem_store.cu and the docs' worked example), explanations and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tmakit/layout/linear_layout.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"

using namespace tmakit;

namespace {

TileCoord rc(int r, int c) { return {r, c}; }

StoreDestination operand(OperandMajor m, Swizzle sw, int e, int mn, int k) {
  const DestinationResult r = gmma_operand(m, sw, e, mn, k);
  EXPECT_TRUE(r.ok);
  return r.value;
}

Layout layout(const char* text) {
  const Parsed<Layout> p = parse_layout(text);
  EXPECT_TRUE(p.ok) << text;
  return p.value;
}

}  // namespace

// ---- fragment models

TEST(SmemStoreSource, WgmmaM64N8Entries) {
  const StoreSource s = wgmma_accumulator(8);
  EXPECT_EQ(s.threads(), 128);
  EXPECT_EQ(s.values(), 4);
  EXPECT_EQ(s.coord(0, 0), rc(0, 0));
  EXPECT_EQ(s.coord(0, 1), rc(0, 1));
  EXPECT_EQ(s.coord(0, 2), rc(8, 0));
  EXPECT_EQ(s.coord(0, 3), rc(8, 1));
  EXPECT_EQ(s.coord(5, 0), rc(1, 2));
  EXPECT_EQ(s.coord(31, 3), rc(15, 7));
  EXPECT_EQ(s.coord(37, 0), rc(17, 2));  // warp 1, lane 5
  EXPECT_EQ(s.coord(127, 3), rc(63, 7));
  EXPECT_EQ(wgmma_accumulator(16).coord(0, 4), rc(0, 8));
  EXPECT_EQ(wgmma_accumulator(128).coord(6, 63), rc(9, 125));
}

TEST(SmemStoreSource, MmaAndTcgen05Entries) {
  EXPECT_EQ(mma_m16n8_accumulator().coord(4, 2), rc(9, 0));
  EXPECT_EQ(mma_m16n8_accumulator().coord(3, 1), rc(0, 7));
  const StoreSource t = tcgen05_load(FragmentKind::tcgen05_32x32b, 4, 8);
  EXPECT_EQ(t.values(), 8);
  EXPECT_EQ(t.live_values(), 4);
  EXPECT_EQ(t.coord(33, 5), rc(33, 5));
  const StoreSource a = tcgen05_load(FragmentKind::tcgen05_16x64b, 1, 2, 1);
  EXPECT_EQ(a.coord(1, 0), rc(8, 0));
  EXPECT_EQ(a.coord(2, 0), rc(0, 1));
  const StoreSource b = tcgen05_load(FragmentKind::tcgen05_16x128b, 1, 4, 1);
  EXPECT_EQ(b.coord(5, 1), rc(9, 1));
  EXPECT_EQ(b.coord(5, 2), rc(1, 5));
  const StoreSource c = tcgen05_load(FragmentKind::tcgen05_16x256b, 2, 16, 2);
  EXPECT_EQ(c.coord(0, 2), rc(8, 0));
  EXPECT_EQ(c.coord(0, 4), rc(0, 8));
  EXPECT_EQ(c.coord(3, 1), rc(0, 7));
  EXPECT_EQ(c.coord(32 + 4, 5), rc(16 + 1, 9));  // warp 1 reads rows 16..31 here
}

TEST(SmemStoreSource, CuteTvLayoutEqualsTheMmaModel) {
  // CuTe's SM80 16x8 C layout: ((4,8),(2,2)):((32,1),(16,8)) over a 16 x 8 tile.
  const StoreSource tv = tv_source(layout("((4,8),(2,2)):((32,1),(16,8))"), 16, 8);
  const StoreSource mma = mma_m16n8_accumulator();
  ASSERT_EQ(tv.threads(), 32);
  ASSERT_EQ(tv.values(), 4);
  for (int t = 0; t < 32; ++t)
    for (int v = 0; v < 4; ++v) EXPECT_EQ(tv.coord(t, v), mma.coord(t, v)) << t << " " << v;
}

// ---- refusals

TEST(SmemStoreRefusal, NotInjectiveNamesBothSlots) {
  // thread mode stride 0: threads 0..3 all hold the same elements (a broadcast, not ownership)
  const StoreSource tv = tv_source(layout("((4,8),(2,2)):((0,1),(16,8))"), 16, 8);
  const SmemStorePlan p = plan_smem_store(tv, operand(OperandMajor::k, Swizzle::none, 2, 16, 8));
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::source_not_injective);
  EXPECT_EQ(p.refusal.a.thread, 0);
  EXPECT_EQ(p.refusal.a.value, 0);
  EXPECT_EQ(p.refusal.b.thread, 1);
  EXPECT_EQ(p.refusal.b.value, 0);
  EXPECT_NE(refusal_message(p, tv, {}).find("smem_store.source.not_injective"), std::string::npos);
}

TEST(SmemStoreRefusal, NotAThreadValueMap) {
  const StoreSource tv = tv_source(layout("(32,2,2):(1,32,64)"), 16, 8);
  const SmemStorePlan p = plan_smem_store(tv, operand(OperandMajor::k, Swizzle::none, 2, 16, 8));
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::source_not_tv_map);
  EXPECT_EQ(p.refusal.n0, 3);
}


// Strides that place slots outside the tile are refused from the layout's leaves, before any slot
// is evaluated or a table indexed (large strides read past the address tables; offsets beyond 64
// bits wrapped into the tile and were reported as a collision).
TEST(SmemStoreRefusal, SlotsOutsideTheTileAreRefusedFirst) {
  const StoreDestination dst = operand(OperandMajor::k, Swizzle::none, 2, 16, 8);
  struct Case {
    const char* tv;
    std::int64_t kind, index;  // refusal n2 (1: a slot named, 2: beyond 64 bits) and n3 (its tile index)
    int thread, value;
  };
  const Case cases[] = {
      {"((4,8),(2,2)):((32,1),(16,100000))", 1, 100000 + 16 + 3 * 32 + 7, 31, 3},
      {"((4,8),(2,2)):((32,1),(16,-100000))", 1, -100000, 0, 2},
      {"((4,8),(2,2)):((32,1),(16,9))", 1, 128, 31, 3},  // one past the last index
      {"((4,8),(2,2)):((32,1),(16,4611686018427387904))", 1, 4611686018427387904 + 16 + 3 * 32 + 7, 31, 3},
      {"((4,8),(2,2)):((32,1),(4611686018427387904,4611686018427387904))", 2, 0, -1, -1},
      {"((4,8),(2,2)):((32,1),(4611686018427387904,-4611686018427387904))", 1, -4611686018427387904, 0, 2},
  };
  for (const Case& c : cases) {
    const StoreSource tv = tv_source(layout(c.tv), 16, 8);
    const SmemStorePlan p = plan_smem_store(tv, dst);
    ASSERT_FALSE(p.ok) << c.tv;
    EXPECT_EQ(p.refusal.rule, SmemStoreRule::source_out_of_tile) << c.tv;
    EXPECT_EQ(p.refusal.n2, c.kind) << c.tv;
    EXPECT_EQ(p.refusal.n3, c.index) << c.tv;
    EXPECT_EQ(p.refusal.a.thread, c.thread) << c.tv;
    EXPECT_EQ(p.refusal.a.value, c.value) << c.tv;
    const std::string m = refusal_message(p, tv, dst);
    EXPECT_NE(m.find("[smem_store.source.out_of_tile]"), std::string::npos) << m;
    EXPECT_NE(m.find("16 x 8 tile"), std::string::npos) << m;
  }
}

TEST(SmemStoreRefusal, ThreadCountsBeyond32BitsAreNotTruncated) {
  // 2^32 + 32 threads: an int32 count would read 32
  const StoreSource tv = tv_source(layout("(4294967328,1):(1,0)"), 16, 8);
  const SmemStorePlan p = plan_smem_store(tv, operand(OperandMajor::k, Swizzle::none, 2, 16, 8));
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::source_threads);
  EXPECT_EQ(p.refusal.n0, 4294967328);
}
TEST(SmemStoreRefusal, ElementUnitSwizzleGivenAsBytes) {
  // P from tcgen05.ld 32x32b.x8: 16-byte runs per thread; Sw<3,3,3> is CuTe's element-unit SW128 for bf16.
  const StoreSource s = tcgen05_load(FragmentKind::tcgen05_32x32b, 8, 128);
  StoreDestination d = operand(OperandMajor::k, Swizzle::b128, 2, 128, 128);
  d.tile.swizzle = SwizzleParams{3, 3, 3, true, true};
  const SmemStorePlan p = plan_smem_store(s, d);
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::dest_swizzle_units);
  EXPECT_EQ(p.refusal.n0, 8);   // the chunk
  EXPECT_EQ(p.refusal.n1, 16);  // the runs
  EXPECT_NE(refusal_fix(p, s, d).find("Sw<3,4,3>"), std::string::npos);
  // converted (what --elements does), it plans as the canonical SW128 operand
  d.tile.swizzle.base = 4;
  EXPECT_TRUE(plan_smem_store(s, d).ok);
}

// A base offset inside the swizzle's repeat is planned: the swizzle acts on base + offset (the
// shared address), so 512 into a SW128 repeat swaps rows 0..3 with 4..7 of each 8-row group. Only an
// element that is not aligned to its size is refused.
TEST(SmemStoreRefusal, MisalignedBase) {
  StoreDestination d = operand(OperandMajor::k, Swizzle::b128, 2, 64, 128);
  d.base_offset = 512;
  EXPECT_EQ(d.byte_address(0, 0), 512u + 64);           // row 0 at 512 = bit 9, which the swizzle XORs into bit 6
  EXPECT_EQ(d.byte_address(0, 8), 512u + (16 ^ 64));    // chunk 1 of row 0 at chunk 1 ^ 4
  EXPECT_EQ(d.byte_address(4, 8), 1024u + 16);          // row 4 (byte 512 + 512 = 1024): chunk 1 unmoved
  const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), d);
  EXPECT_TRUE(p.ok) << rule_id(p.refusal.rule);
  d.base_offset = 513;
  const SmemStorePlan q = plan_smem_store(wgmma_accumulator(128), d);
  ASSERT_FALSE(q.ok);
  EXPECT_EQ(q.refusal.rule, SmemStoreRule::dest_base_alignment);
  EXPECT_EQ(q.refusal.n0, 513);
  EXPECT_EQ(q.refusal.n1, 2);
}

TEST(SmemStoreRefusal, TileMismatchAndBadShape) {
  const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), operand(OperandMajor::k, Swizzle::b128, 2, 64, 64));
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::tile_mismatch);
  EXPECT_EQ(p.refusal.n1, 128);
  EXPECT_EQ(p.refusal.n3, 64);
  const SmemStorePlan q = plan_smem_store(wgmma_accumulator(12), operand(OperandMajor::k, Swizzle::none, 2, 64, 16));
  EXPECT_EQ(q.refusal.rule, SmemStoreRule::source_shape);
}

TEST(SmemStoreRefusal, DestinationNotInjectiveNamesBothSlots) {
  const StoreSource s = wgmma_accumulator(128);
  // rows 64 elements apart in a 128-column tile: (r, c + 64) and (r + 1, c) share an address
  const StoreDestination d = smem_destination({SwizzleParams{}, layout("(64,128):(64,1)")}, 2);
  const SmemStorePlan p = plan_smem_store(s, d);
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::dest_not_injective);
  ASSERT_TRUE(p.refusal.a.valid());
  ASSERT_TRUE(p.refusal.b.valid());
  EXPECT_EQ(p.refusal.a.addr, p.refusal.b.addr);
  EXPECT_FALSE(p.refusal.a.elem == p.refusal.b.elem);
  EXPECT_EQ(d.byte_address(p.refusal.a.elem.row, p.refusal.a.elem.col),
            d.byte_address(p.refusal.b.elem.row, p.refusal.b.elem.col));
  EXPECT_NE(refusal_message(p, s, d).find("smem_store.dest.not_injective"), std::string::npos);
  // a broadcast row stride: every row on row 0
  const SmemStorePlan q = plan_smem_store(s, smem_destination({SwizzleParams{}, layout("(64,128):(0,1)")}, 2));
  ASSERT_FALSE(q.ok);
  EXPECT_EQ(q.refusal.rule, SmemStoreRule::dest_not_injective);
  EXPECT_EQ(q.refusal.a.elem.col, q.refusal.b.elem.col);
  // padded rows are injective (no left inverse needed)
  EXPECT_TRUE(plan_smem_store(s, smem_destination({SwizzleParams{}, layout("(64,128):(130,1)")}, 2)).ok);
  // the same for a tv source (the other fill path) and under a swizzle
  const StoreSource tv = tv_source(layout("((4,8),(2,2)):((32,1),(16,8))"), 16, 8);
  EXPECT_EQ(plan_smem_store(tv, smem_destination({SwizzleParams{}, layout("(16,8):(4,1)")}, 2)).refusal.rule,
            SmemStoreRule::dest_not_injective);
  EXPECT_EQ(plan_smem_store(s, smem_destination({SwizzleParams{3, 4, 3, true, true}, layout("(64,128):(64,1)")}, 2))
                .refusal.rule,
            SmemStoreRule::dest_not_injective);
}

TEST(SmemStoreRefusal, DestinationBeyondSharedMemory) {
  const StoreSource s = wgmma_accumulator(128);
  // a 2^30-element row stride: 32-bit addresses would wrap
  const StoreDestination d = smem_destination({SwizzleParams{}, layout("(64,128):(1073741824,1)")}, 4);
  const SmemStorePlan p = plan_smem_store(s, d);
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.refusal.rule, SmemStoreRule::dest_size);
  EXPECT_EQ(p.refusal.n2, static_cast<std::int64_t>(smem_limit_bytes(Arch::sm_90)));
  EXPECT_NE(refusal_message(p, s, d).find("smem_store.dest.size"), std::string::npos);
  // just past the limit (228 KiB = 233472 B): rows 912 f32 apart end at 63 * 3648 + 512 = 230336 B; with
  // rows 925 apart, 63 * 3700 + 512 = 233612 B
  const SmemStorePlan q = plan_smem_store(s, smem_destination({SwizzleParams{}, layout("(64,128):(925,1)")}, 4));
  ASSERT_FALSE(q.ok);
  EXPECT_EQ(q.refusal.rule, SmemStoreRule::dest_size);
  EXPECT_EQ(q.refusal.n1, 233612);
  EXPECT_TRUE(plan_smem_store(s, smem_destination({SwizzleParams{}, layout("(64,128):(912,1)")}, 4)).ok);
  // the base offset counts
  StoreDestination b = smem_destination({SwizzleParams{}, layout("(64,128):(912,1)")}, 4);
  b.base_offset = 4096;
  EXPECT_EQ(plan_smem_store(s, b).refusal.rule, SmemStoreRule::dest_size);
  // negative offsets lie before the buffer
  EXPECT_EQ(plan_smem_store(s, smem_destination({SwizzleParams{}, layout("(64,128):(-128,1)")}, 4)).refusal.rule,
            SmemStoreRule::dest_size);
}

// ---- plans: the GPU cases

TEST(SmemStorePlan, WgmmaToKMajorOperands) {
  for (Swizzle sw : {Swizzle::b128, Swizzle::b64, Swizzle::b32, Swizzle::none}) {
    const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), operand(OperandMajor::k, sw, 2, 64, 128));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.op, (StoreOp{StoreOpKind::stmatrix, 4, 4, false})) << static_cast<int>(sw);
    EXPECT_EQ(p.instructions, 8);
    EXPECT_EQ(p.wavefronts[0], 32);
    EXPECT_TRUE(p.conflict_free());
    // st.shared is limited to 4 bytes: the next bf16 belongs to the neighbouring lane
    EXPECT_EQ(p.widest_st_bytes, 4);
    EXPECT_EQ(p.width_limit.why, WidthLimit::other_thread);
    EXPECT_EQ(p.width_limit.a.thread, 0);
    EXPECT_EQ(p.width_limit.a.value, 1);
    EXPECT_EQ(p.width_limit.b.thread, 1);
    EXPECT_EQ(p.width_limit.b.value, 0);
  }
}

// WGMMA descriptor fields read off the canonical layouts (plan/gmma_descriptor.hpp): the values the
// GPU test's wgmmas ran with (K-major SW32: LBO 16, SBO 256, mode 3; SW128: 16, 1024, 1), SW64 by
// the same rule; forms never run through a wgmma here are refused, not guessed.
TEST(GmmaDescriptor, FieldsFollowTheCanonicalLayout) {
  struct Case {
    Swizzle sw;
    std::int32_t e, mn, k;
    std::uint32_t sbo, mode;
  };
  for (const Case c : {Case{Swizzle::b32, 2, 64, 16, 256, 3}, Case{Swizzle::b32, 2, 128, 16, 256, 3},
                       Case{Swizzle::b64, 2, 64, 32, 512, 2}, Case{Swizzle::b128, 2, 64, 64, 1024, 1},
                       Case{Swizzle::b128, 4, 64, 32, 1024, 1}, Case{Swizzle::b128, 2, 128, 128, 1024, 1}}) {
    const DestinationResult d = gmma_operand(OperandMajor::k, c.sw, c.e, c.mn, c.k);
    ASSERT_TRUE(d.ok);
    const WgmmaDescriptorFields f = wgmma_descriptor_fields(d.value);
    ASSERT_TRUE(f.ok) << static_cast<int>(c.sw);
    EXPECT_EQ(f.lbo_bytes, 16u);
    EXPECT_EQ(f.sbo_bytes, c.sbo) << static_cast<int>(c.sw) << " E=" << c.e;
    EXPECT_EQ(f.mode, c.mode);
    // SBO is where row 8 starts: the layout's own answer
    EXPECT_EQ(d.value.buffer_offset(8, 0), c.sbo);
  }
  EXPECT_EQ(wgmma_descriptor(0x12340, wgmma_descriptor_fields(gmma_operand(OperandMajor::k, Swizzle::b128, 2, 64, 64).value)),
            (std::uint64_t{0x12340} >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{64} << 32) | (std::uint64_t{1} << 62));
  // MN-major: LBO steps one w-element MN block, SBO eight K rows (8 W bytes); both read off the layout.
  for (const Case c : {Case{Swizzle::b32, 2, 64, 16, 256, 3}, Case{Swizzle::b64, 2, 128, 32, 512, 2},
                       Case{Swizzle::b128, 2, 128, 64, 1024, 1}, Case{Swizzle::b128, 2, 256, 64, 1024, 1}}) {
    const DestinationResult d = gmma_operand(OperandMajor::mn, c.sw, c.e, c.mn, c.k);
    ASSERT_TRUE(d.ok);
    const WgmmaDescriptorFields f = wgmma_descriptor_fields(d.value);
    ASSERT_TRUE(f.ok) << static_cast<int>(c.sw);
    const std::uint32_t w = swizzle_span_bytes(c.sw) / static_cast<std::uint32_t>(c.e);
    EXPECT_EQ(f.sbo_bytes, c.sbo);
    EXPECT_EQ(f.lbo_bytes, w * static_cast<std::uint32_t>(c.k * c.e));  // one MN block: w x K elements
    EXPECT_EQ(d.value.buffer_offset(0, 8), c.sbo);           // K row 8 starts where SBO says
    EXPECT_EQ(d.value.buffer_offset(static_cast<std::int32_t>(w), 0), f.lbo_bytes);  // the second MN block
    EXPECT_EQ(f.mode, c.mode);
  }
  // Start offsets of a warpgroup's share and of a k16 step, before the swizzle.
  const StoreDestination a_k = gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 64).value;
  const StoreDestination a_mn = gmma_operand(OperandMajor::mn, Swizzle::b128, 2, 128, 64).value;
  EXPECT_EQ(wgmma_start_offset(a_k, 64, 0), 8192u);
  EXPECT_EQ(wgmma_start_offset(a_k, 0, 16), 32u);
  EXPECT_EQ(wgmma_start_offset(a_mn, 64, 0), 8192u);
  EXPECT_EQ(wgmma_start_offset(a_mn, 0, 16), 2048u);
  EXPECT_FALSE(wgmma_descriptor_fields(gmma_operand(OperandMajor::mn, Swizzle::none, 2, 64, 64).value).ok);
  EXPECT_FALSE(wgmma_descriptor_fields(gmma_operand(OperandMajor::k, Swizzle::none, 2, 64, 64).value).ok);
  EXPECT_FALSE(wgmma_descriptor_fields(gmma_operand(OperandMajor::k, Swizzle::b128_atom_32b, 2, 64, 64).value).ok);
  EXPECT_FALSE(wgmma_descriptor_fields(smem_destination(gmma_operand(OperandMajor::k, Swizzle::b128, 2, 64, 64).value.tile, 2)).ok);
}

// A descriptor advanced by a byte offset is the descriptor of the advanced address, for every
// 16-byte step a CTA's shared memory allows (below 256 KiB), and the other fields stay as they were.
TEST(GmmaDescriptor, AdvanceIsTheDescriptorOfTheAdvancedAddress) {
  const WgmmaDescriptorFields f = wgmma_descriptor_fields(gmma_operand(OperandMajor::mn, Swizzle::b128, 2, 128, 64).value);
  ASSERT_TRUE(f.ok);
  int checked = 0;
  for (std::uint32_t base : {0u, 0x400u, 0x9c00u, 0x30000u})
    for (std::uint32_t bytes = 0; base + bytes < (1u << 18); bytes += 16 * 97) {
      ASSERT_EQ(wgmma_descriptor_advance(wgmma_descriptor(base, f), bytes), wgmma_descriptor(base + bytes, f))
          << "base " << base << " + " << bytes;
      ++checked;
    }
  EXPECT_GT(checked, 500);
  // The high word (stride byte offset, mode) is untouched, even by the largest advance.
  const std::uint64_t d = wgmma_descriptor(0, f);
  EXPECT_EQ(wgmma_descriptor_advance(d, (1u << 18) - 16) >> 32, d >> 32);
}

TEST(SmemStorePlan, WgmmaToMnMajorOperandsUseTrans) {
  for (Swizzle sw : {Swizzle::b128, Swizzle::b64, Swizzle::b32, Swizzle::none}) {
    const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), operand(OperandMajor::mn, sw, 2, 64, 128));
    ASSERT_TRUE(p.ok);
    EXPECT_EQ(p.op, (StoreOp{StoreOpKind::stmatrix, 4, 4, true})) << static_cast<int>(sw);
    EXPECT_TRUE(p.conflict_free());
  }
}

TEST(SmemStorePlan, WgmmaF32OutputsConflictOnSw128) {
  const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), operand(OperandMajor::k, Swizzle::b128, 4, 64, 128));
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.op, (StoreOp{StoreOpKind::st_shared, 8, 0, false}));
  EXPECT_EQ(p.instructions, 32);
  // per half warp, rows 0 and 1 (and 2, 3) land in the same 32 bytes of banks: 2 wavefronts, ideal 1
  EXPECT_EQ(p.wavefronts[0], 128);
  EXPECT_EQ(p.ideal_wavefronts, 64);
  ASSERT_TRUE(p.conflict.any());
  // lane 2 holds row 0, cols 4..5 (bytes 16..23, chunk 1); lane 4 row 1, cols 0..1 (chunk 0 ^ 1 = 1)
  EXPECT_EQ(p.conflict.lane_a, 2);
  EXPECT_EQ(p.conflict.lane_b, 4);
  EXPECT_EQ(p.conflict.a.addr, 16u);
  EXPECT_EQ(p.conflict.b.addr, 128u + 16u);
}

TEST(SmemStorePlan, RowMajorF32FourWayConflicts) {
  const StoreDestination d =
      smem_destination(SwizzledLayout{SwizzleParams{0, 4, 3, true, true}, layout("(64,128):(128,1)")}, 4);
  const SmemStorePlan p = plan_smem_store(wgmma_accumulator(128), d);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.op.bytes, 8);
  EXPECT_EQ(p.wavefronts[0], 256);
  EXPECT_EQ(p.ideal_wavefronts, 64);
  // rows 512 B apart: a 16-byte-chunk swizzle over bits 7..9 separates rows 0/1 but not 0/2
  EXPECT_FALSE(p.has_better_swizzle);
  SmemStoreOptions o;
  o.allow_stmatrix = false;
  const StoreDestination b =
      smem_destination(SwizzledLayout{SwizzleParams{0, 4, 3, true, true}, layout("(64,128):(128,1)")}, 2);
  const SmemStorePlan q = plan_smem_store(wgmma_accumulator(128), b, o);
  EXPECT_EQ(q.op.bytes, 4);
  EXPECT_EQ(q.instructions, 32);
  EXPECT_EQ(q.wavefronts[0], 8 * 32);  // 8 rows 256 B apart in one warp-wide store: 8 words per bank
}

// ---- the worked example: P from tcgen05.ld 32x32b into a 128 x 128 bf16 K-major SW128 A operand

TEST(SmemStorePlan, Tcgen05X4HalvesTheWidth) {
  const StoreDestination d = operand(OperandMajor::k, Swizzle::b128, 2, 128, 128);
  const SmemStorePlan x8 = plan_smem_store(tcgen05_load(FragmentKind::tcgen05_32x32b, 8, 128), d);
  ASSERT_TRUE(x8.ok);
  EXPECT_EQ(x8.op.bytes, 16);
  EXPECT_EQ(x8.instructions, 16);
  EXPECT_TRUE(x8.conflict_free());
  EXPECT_EQ(x8.wavefronts[0], 64);

  const StoreSource s4 = tcgen05_load(FragmentKind::tcgen05_32x32b, 4, 128);
  const SmemStorePlan x4 = plan_smem_store(s4, d);
  ASSERT_TRUE(x4.ok);
  EXPECT_EQ(x4.op.bytes, 8);
  EXPECT_EQ(x4.instructions, 32);
  EXPECT_EQ(x4.wavefronts[0], 128);
  EXPECT_EQ(x4.ideal_wavefronts, 64);
  EXPECT_EQ(x4.width_limit.why, WidthLimit::other_load);
  EXPECT_EQ(x4.width_limit.a.value, 3);
  EXPECT_EQ(x4.width_limit.b.value, 4);
  EXPECT_EQ(x4.width_limit.b.thread, x4.width_limit.a.thread);
  EXPECT_EQ(x4.better_rep, 8);
  EXPECT_EQ(x4.better_rep_bytes, 16);
  // lanes 0 and 8 of a half warp: rows 0 and 8 get the same swizzled chunk (row % 8 equal)
  EXPECT_EQ(x4.conflict.lane_a, 0);
  EXPECT_EQ(x4.conflict.lane_b, 8);
  EXPECT_EQ(x4.conflict.b.addr - x4.conflict.a.addr, 1024u);
  EXPECT_NE(width_reason(x4, s4, d).find("different tcgen05.ld 32x32b.x4 loads"), std::string::npos);
  EXPECT_NE(conflict_reason(x4, d).find("differ only in bits 10"), std::string::npos);
}

TEST(SmemStorePlan, StmatrixNeverJoinsTwoTcgen05Loads) {
  // 16x256b.x1: 4 registers per load; an stmatrix.x4 would take 8 (two loads, never live together)
  const StoreSource s = tcgen05_load(FragmentKind::tcgen05_16x256b, 1, 64);
  ASSERT_EQ(s.live_values(), 4);
  const SmemStorePlan p = plan_smem_store(s, operand(OperandMajor::k, Swizzle::b128, 2, 64, 64));
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.op.kind, StoreOpKind::stmatrix);
  EXPECT_LE(p.values_per_instruction, s.live_values());
  for (int i = 0; i < p.instructions; ++i)
    for (int j = 0; j < p.values_per_instruction; ++j)
      EXPECT_EQ(p.order[i * p.values_per_instruction + j] / 4, p.order[i * p.values_per_instruction] / 4);
  bool saw_x4 = false;
  for (int c = 0; c < p.num_candidates; ++c) {
    const StoreCandidate& k = p.candidates[c];
    if (k.op.kind != StoreOpKind::stmatrix || k.op.trans || k.op.matrices != 4) continue;  // (.trans: rows misfit)
    saw_x4 = true;
    EXPECT_FALSE(k.feasible);
    EXPECT_EQ(k.why_not.why, WidthLimit::other_load);
    EXPECT_EQ(k.why_not.a.value, 3);
    EXPECT_EQ(k.why_not.b.value, 4);
  }
  EXPECT_TRUE(saw_x4);
}

TEST(SmemStorePlan, PairCheckFollowsTheRowRule) {
  // pass 1's pair check (smem_store/plan.hpp) writes stmatrix_row_source inverted: lane l's va/vb lie
  // in row l/4 started by lane 4 (l/4)'s va (plain), rows 2 (l%4) and 2 (l%4) + 1 started by lane
  // l%4's va and vb (.trans)
  for (int l = 0; l < 32; ++l) {
    const StmatrixRow p = stmatrix_row_source(l / 4, false);
    EXPECT_EQ(p.lane, 4 * (l / 4));
    EXPECT_FALSE(p.second);
    const StmatrixRow a = stmatrix_row_source(2 * (l % 4), true), b = stmatrix_row_source(2 * (l % 4) + 1, true);
    EXPECT_EQ(a.lane, l % 4);
    EXPECT_FALSE(a.second);
    EXPECT_EQ(b.lane, l % 4);
    EXPECT_TRUE(b.second);
  }
}

// ---- spec parsing

TEST(SmemStoreSpec, ParsesSourcesAndDestinations) {
  const ParsedSource a = parse_store_source("wgmma m64n128 f32->bf16");
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_EQ(a.value.source.n, 128);
  EXPECT_EQ(a.value.elem_bytes, 2);
  const ParsedSource b = parse_store_source("tcgen05 32x32b.x4 n128 f32->bf16");
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(b.value.source.rep, 4);
  EXPECT_EQ(b.value.source.rows(), 128);
  EXPECT_FALSE(parse_store_source("wgmma m32n8").ok);
  EXPECT_FALSE(parse_store_source("foo").ok);
  const ParsedDestination d = parse_store_destination("kmajor sw128", 64, 128, 2);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.value.byte_address(1, 0), 128u + 16u);  // row 1: chunk 0 ^ 1
  const ParsedDestination e = parse_store_destination("Sw<3,3,3> o (64,128):(128,1)", 64, 128, 2, 0, true);
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.value.tile.swizzle.base, 4);
  EXPECT_FALSE(parse_store_destination("kmajor sw128", 64, 100, 2).ok);
}

TEST(SmemStoreSpec, TypeAndSwizzleNamesComeFromTheLibrary) {
  // element sizes: the tensor-map data types (any spelling parse_name reads) and the 1-byte extras
  const std::pair<const char*, int> types[] = {{"f32->bf16", 2}, {"f32->FLOAT16", 2}, {"f32->tf32", 4},
                                               {"f32->s32", 4},  {"f32->u8", 1},      {"f32->e4m3", 1},
                                               {"f32->i8", 1},   {"f64", 8},          {"f16->CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 2}};
  for (const auto& [conv, bytes] : types) {
    const ParsedSource p = parse_store_source(std::string("wgmma m64n128 ") + conv);
    ASSERT_TRUE(p.ok) << conv << ": " << p.error;
    EXPECT_EQ(p.value.elem_bytes, bytes) << conv;
  }
  const ParsedSource bad = parse_store_source("wgmma m64n128 f32->bf17");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("'bf17'"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("BFLOAT16"), std::string::npos) << bad.error;  // the accepted names are listed
  EXPECT_NE(bad.error.find("e4m3"), std::string::npos) << bad.error;
  EXPECT_FALSE(parse_store_source("wgmma m64n128 f32->16U4_ALIGN8B").ok);  // not whole bytes
  // operand swizzles: short spellings and the library's names; interleave is no swizzle mode
  for (const char* sw : {"sw128", "128B", "128b", "CU_TENSOR_MAP_SWIZZLE_128B"}) {
    const ParsedDestination d = parse_store_destination(std::string("kmajor ") + sw, 64, 128, 2);
    ASSERT_TRUE(d.ok) << sw << ": " << d.error;
    EXPECT_EQ(d.value.swizzle_mode, Swizzle::b128) << sw;
  }
  EXPECT_EQ(parse_store_destination("mnmajor sw128-atom32", 64, 128, 2).value.swizzle_mode, Swizzle::b128_atom_32b);
  EXPECT_EQ(parse_store_destination("kmajor none", 64, 128, 2).value.swizzle_mode, Swizzle::none);
  const ParsedDestination il = parse_store_destination("kmajor interleave", 64, 128, 2);
  ASSERT_FALSE(il.ok);
  EXPECT_NE(il.error.find("sw128-atom32"), std::string::npos) << il.error;
  EXPECT_FALSE(parse_store_destination("kmajor 128B_ATOM_64B", 64, 128, 2).ok);  // no operand layout
}

// The F2-layout module's bank analysis (tmakit/layout/linear_layout.hpp, shared_wavefronts with lane
// groups) is a wrapper over the planner's rule (core/smem_banks.hpp): its lane grouping and its count
// agree with the planner's group-by-group sum on random warps.
TEST(SmemStoreWavefronts, AgreesWithTheLinearLayoutBankModel) {
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (int bytes : {2, 4, 8, 16})
    for (int trial = 0; trial < 200; ++trial) {
      std::uint32_t a32[32];
      std::uint64_t a64[32];
      for (int l = 0; l < 32; ++l) {
        // few distinct 128-byte lines so that banks collide often
        a32[l] = ((next() % 4) * 128 + (next() % 128)) / static_cast<std::uint32_t>(bytes) * static_cast<std::uint32_t>(bytes);
        a64[l] = a32[l];
      }
      const int gl = lanes_per_wavefront_group(bytes);
      int mine = 0;
      for (int g = 0; g < 32; g += gl) mine += group_wavefronts(a32 + g, gl, bytes);
      EXPECT_EQ(mine, shared_wavefronts(a64, 32, bytes, true).wavefronts) << bytes << " " << trial;
    }
}

// ---- invariants the fast planner relies on

// The planner skips the ownership checks for the built-in models and computes their slots as a thread
// part plus a value part: both must hold for every shape validate() accepts.
TEST(SmemStoreSource, BuiltInModelsOwnEveryElementOnceAndAreSeparable) {
  std::vector<StoreSource> srcs;
  for (int n = 8; n <= 256; n += 8) srcs.push_back(wgmma_accumulator(n));
  for (int w : {1, 2, 4, 8})
    for (int n : {8, 16, 24, 64}) srcs.push_back(mma_m16n8_accumulator(n, w));
  for (FragmentKind k : {FragmentKind::tcgen05_32x32b, FragmentKind::tcgen05_16x64b, FragmentKind::tcgen05_16x128b,
                         FragmentKind::tcgen05_16x256b})
    for (int rep = 1; rep <= 128; rep *= 2)
      for (int mult : {1, 2, 4})
        for (int w : {1, 4}) {
          const StoreSource probe = tcgen05_load(k, rep, 1, w);
          const int n = probe.cols_per_load() * mult;
          const StoreSource s = tcgen05_load(k, rep, n, w);
          if (s.values() <= SmemStorePlan::kMaxValues && s.cols() <= 1024) srcs.push_back(s);
        }
  int checked = 0;
  for (const StoreSource& s : srcs) {
    const int T = s.threads(), V = s.values(), R = s.rows(), C = s.cols();
    std::vector<char> seen(static_cast<std::size_t>(R) * C, 0);
    const TileCoord o = s.coord(0, 0);
    ASSERT_EQ(o, rc(0, 0)) << fragment_kind_name(s.kind);
    for (int t = 0; t < T; ++t)
      for (int v = 0; v < V; ++v) {
        const TileCoord c = s.coord(t, v), a = s.coord(t, 0), b = s.coord(0, v);
        ASSERT_TRUE(c.row >= 0 && c.row < R && c.col >= 0 && c.col < C)
            << fragment_kind_name(s.kind) << " n" << s.n << " x" << s.rep << " t" << t << " v" << v;
        char& hit = seen[static_cast<std::size_t>(c.row) + static_cast<std::size_t>(R) * c.col];
        ASSERT_EQ(hit, 0) << fragment_kind_name(s.kind) << " n" << s.n << " x" << s.rep << " t" << t << " v" << v;
        hit = 1;
        ASSERT_EQ(c, rc(a.row + b.row, a.col + b.col)) << fragment_kind_name(s.kind) << " t" << t << " v" << v;
      }
    EXPECT_EQ(static_cast<std::int64_t>(T) * V, static_cast<std::int64_t>(R) * C) << fragment_kind_name(s.kind);
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// The wavefront count and the conflicting pair equal a plain per-bank word list (the definition).
TEST(SmemStoreWavefronts, FastGroupCountMatchesTheDefinition) {
  std::uint64_t state = 7;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  int conflicts = 0;
  for (int bytes : {1, 2, 4, 8, 16})
    for (int trial = 0; trial < 300; ++trial) {
      const int n = bytes == 16 ? 8 : bytes == 8 ? 16 : 32;
      std::uint32_t a[32];
      for (int i = 0; i < n; ++i)
        a[i] = ((next() % 3) * 128 + (next() % 128)) / static_cast<std::uint32_t>(bytes) * static_cast<std::uint32_t>(bytes);
      // reference: every bank's distinct words in order of first appearance
      std::vector<std::vector<std::uint32_t>> words(32);
      std::vector<std::vector<int>> owner(32);
      int worst = 0, ra = -1, rb = -1;
      for (int i = 0; i < n; ++i)
        for (std::uint32_t w = a[i] / 4; w <= (a[i] + static_cast<std::uint32_t>(bytes) - 1) / 4; ++w) {
          auto& list = words[w % 32];
          bool dup = false;
          for (std::uint32_t x : list) dup = dup || x == w;
          if (dup) continue;
          list.push_back(w);
          owner[w % 32].push_back(i);
          if (list.size() == 2 && ra < 0) {
            ra = owner[w % 32][0];
            rb = i;
          }
          worst = std::max(worst, static_cast<int>(list.size()));
        }
      int ca = 0, cb = 0;
      EXPECT_EQ(group_wavefronts(a, n, bytes, &ca, &cb), worst) << bytes << " " << trial;
      EXPECT_EQ(ca, ra) << bytes << " " << trial;
      EXPECT_EQ(cb, rb) << bytes << " " << trial;
      conflicts += ra >= 0;
    }
  EXPECT_GT(conflicts, 100);
}

// Plans with the default options (fix search and unit check on) evaluate at compile time (nvcc too:
// tests/gpu/test_smem_store.cu builds its plans this way).
namespace {
constexpr StoreSource kCtX4 = tcgen05_load(FragmentKind::tcgen05_32x32b, 4, 128);
constexpr SmemStorePlan kCtWorked = plan_smem_store(kCtX4, gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value);
constexpr SmemStorePlan kCtF32 =
    plan_smem_store(wgmma_accumulator(128), gmma_operand(OperandMajor::k, Swizzle::b128, 4, 64, 128).value);
}  // namespace
static_assert(kCtWorked.ok && kCtWorked.op.bytes == 8 && kCtWorked.total_wavefronts == 512 &&
              kCtWorked.total_ideal == 256 && kCtWorked.better_rep == 8 && kCtWorked.better_rep_bytes == 16);
static_assert(kCtF32.ok && kCtF32.op.bytes == 8 && kCtF32.has_better_swizzle && kCtF32.better_swizzle.bits == 1 &&
              kCtF32.better_swizzle_wavefronts == 64);

TEST(SmemStorePlan, CompileTimePlanEqualsTheRuntimePlan) {
  const SmemStorePlan rt = plan_smem_store(kCtX4, gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value);
  EXPECT_EQ(describe_plan(rt, kCtX4, gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value, "x4"),
            describe_plan(kCtWorked, kCtX4, gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value, "x4"));
}

// A tcgen05 load of columns 4..35 (not 0..31) into a K-major SW128 bf16 operand: the sub-tile's
// layout with base offset 8 (4 columns of 2 bytes) lands every element exactly where the whole
// 128 x 64 operand's swizzle model puts column c + 4, and the plan is the one of those addresses.
TEST(SmemStoreBase, SubTileInsideTheSwizzleRepeat) {
  const StoreDestination full = operand(OperandMajor::k, Swizzle::b128, 2, 128, 64);
  StoreDestination sub = smem_destination({swizzle_for(Swizzle::b128), layout("((8,16),32):((64,512),1)")}, 2, 128, 32, 8);
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 32; ++c) ASSERT_EQ(sub.byte_address(r, c), full.byte_address(r, c + 4)) << r << "," << c;
  const StoreSource s = tcgen05_load(FragmentKind::tcgen05_32x32b, 32, 32, 4);
  const SmemStorePlan p = plan_smem_store(s, sub);
  ASSERT_TRUE(p.ok) << rule_id(p.refusal.rule);
  // 8 bf16 of a thread (columns 4..11 = bytes 8..23) straddle two 16-byte chunks, which the swizzle
  // moves apart: 8-byte stores at most (at columns 0..31 the same load takes 16-byte stores)
  EXPECT_EQ(p.op.bytes, 8);
  EXPECT_EQ(p.width_limit.bytes, 16);
  sub.base_offset = 0;
  EXPECT_EQ(plan_smem_store(s, sub).op.bytes, 16);
}

// A byte swizzle that no copy or MMA applies is called out whatever the source: CuTe's Sw<3,3,3>
// (SW128 in 2-byte units) under a .x4 load (8-byte runs pass the chunk check) as under .x8.
TEST(SmemStoreRefusal, SwizzleThatNoHardwareApplies) {
  const StoreDestination d = smem_destination({SwizzleParams{3, 3, 3, true, true}, layout("((8,16),(64,2)):((64,512),(1,8192))")}, 2);
  for (int rep : {4, 8}) {
    SCOPED_TRACE(rep);
    const StoreSource s = tcgen05_load(FragmentKind::tcgen05_32x32b, rep, 128, 4);
    const SmemStorePlan p = plan_smem_store(s, d);
    ASSERT_FALSE(p.ok);
    EXPECT_EQ(p.refusal.rule, rep == 4 ? SmemStoreRule::dest_swizzle_mode : SmemStoreRule::dest_swizzle_units);
    EXPECT_NE(refusal_fix(p, s, d).find("Sw<3,4,3>"), std::string::npos) << refusal_fix(p, s, d);
  }
  // every TMA mode's byte swizzle passes; the check can be turned off for a swizzle of one's own
  const StoreSource s4 = tcgen05_load(FragmentKind::tcgen05_32x32b, 4, 128, 4);
  SmemStoreOptions own;
  own.check_units = false;
  EXPECT_TRUE(plan_smem_store(s4, d, own).ok);
  StoreDestination ok = d;
  ok.tile.swizzle = swizzle_for(Swizzle::b128);
  EXPECT_TRUE(plan_smem_store(s4, ok).ok);
}

// A forced instruction: an fp32 WGMMA accumulator into a K-major SW128 operand takes
// st.shared.v2.b32 (two adjacent floats per thread); the 32-bit form needs twice the instructions
// for the same wavefronts, and the 16-byte form is impossible (the next float belongs to another thread).
TEST(SmemStoreForce, ThirtyTwoBitFormCostsTwiceTheInstructions) {
  const StoreSource s = wgmma_accumulator(128);
  const StoreDestination d = operand(OperandMajor::k, Swizzle::b128, 4, 64, 128);
  const SmemStorePlan best = plan_smem_store(s, d);
  ASSERT_TRUE(best.ok);
  EXPECT_EQ(best.op.bytes, 8);
  SmemStoreOptions o;
  o.force = StoreOp{StoreOpKind::st_shared, 4, 0, false};
  const SmemStorePlan b32 = plan_smem_store(s, d, o);
  ASSERT_TRUE(b32.ok);
  EXPECT_EQ(b32.op, o.force);
  EXPECT_EQ(b32.instructions, 2 * best.instructions);
  EXPECT_EQ(b32.total_wavefronts, best.total_wavefronts);
  o.force = StoreOp{StoreOpKind::st_shared, 16, 0, false};
  const SmemStorePlan v4 = plan_smem_store(s, d, o);
  ASSERT_FALSE(v4.ok);
  EXPECT_EQ(v4.refusal.rule, SmemStoreRule::forced_op);
  EXPECT_EQ(v4.width_limit.why, WidthLimit::other_thread);
  o.force = StoreOp{StoreOpKind::stmatrix, 4, 4, false};  // 4-byte elements: no stmatrix candidate
  EXPECT_EQ(plan_smem_store(s, d, o).refusal.rule, SmemStoreRule::forced_op);
}

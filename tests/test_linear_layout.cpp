// F2 linear layouts: construction from CuTe layouts and swizzles, composition, inverses, vector
// width, shared-memory wavefronts.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tmakit/layout/linear_layout.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/swizzled_layout.hpp"

using namespace tmakit;

namespace {

Layout L(const char* s) {
  const auto p = parse_layout(s);
  EXPECT_TRUE(p.ok) << s;
  return p.value;
}

constexpr SwizzleParams kSw128{3, 4, 3, true, true};

// constexpr: a swizzle is its own inverse
constexpr LinearLayout kSwz = linear_from_swizzle(kSw128, 10).value;
static_assert(linear_from_swizzle(kSw128, 10).ok());
static_assert(invert(kSwz).ok());
static_assert(invert(kSwz).value == kSwz);
static_assert(kSwz.apply(0x80) == 0x90);

}  // namespace

TEST(LinearLayout, FromLayoutMatchesTheLayout) {
  const LinearLayoutResult r = linear_from_layout(L("(4,8):(8,1)"));
  ASSERT_TRUE(r.ok());
  const std::uint64_t expect[5] = {8, 16, 1, 2, 4};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(r.value.basis[k], expect[k]) << k;
  EXPECT_EQ(r.value.in_bits(), 5);
  EXPECT_EQ(r.value.out_bits(), 5);
  // random power-of-two layouts: wherever linear, apply == layout(i) on every index
  std::mt19937_64 rng(11);
  int linear = 0, refused = 0;
  for (int it = 0; it < 3000; ++it) {
    const int n = 1 + static_cast<int>(rng() % 4);
    Layout l{IntTuple::tuple(), IntTuple::tuple()};
    for (int m = 0; m < n; ++m) {
      l.shape.append(IntTuple(std::int64_t{1} << (rng() % 4)));
      l.stride.append(IntTuple(rng() % 5 == 0 ? 0 : std::int64_t{1} << (rng() % 8)));
    }
    const LinearLayoutResult f = linear_from_layout(l);
    if (!f.ok()) {
      EXPECT_EQ(f.diagnostic.rule, LayoutRule::not_linear) << to_string(l);
      ++refused;
      continue;
    }
    for (std::int64_t i = 0; i < l.size(); ++i)
      ASSERT_EQ(f.value.apply(static_cast<std::uint64_t>(i)), static_cast<std::uint64_t>(l(i))) << to_string(l);
    ++linear;
  }
  std::printf("[law] linear_from_layout(L)(i) == L(i): %d power-of-two layouts (%d refused as not F2-linear)\n", linear, refused);
  EXPECT_GE(linear, 1000);
  EXPECT_GE(refused, 100);
  // refusals
  EXPECT_EQ(linear_from_layout(L("(3,4):(1,3)")).diagnostic.rule, LayoutRule::not_power_of_two);
  EXPECT_EQ(linear_from_layout(L("(4,4):(1,2)")).diagnostic.rule, LayoutRule::not_linear);
  EXPECT_EQ(linear_from_layout(L("(4,4):(1,6)")).diagnostic.rule, LayoutRule::not_power_of_two);
}

TEST(LinearLayout, NamedDimensionsPerMode) {
  // 32 lanes x 8 registers; lane l, register r -> element l*8 + r
  const char* names[2] = {"lane", "register"};
  const LinearLayoutResult r = linear_from_layout(L("(32,8):(8,1)"), names, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value.n_in, 2);
  EXPECT_EQ(r.value.in_index("lane"), 0);
  EXPECT_EQ(r.value.in_index("register"), 1);
  EXPECT_EQ(r.value.in_index("warp"), -1);
  EXPECT_EQ(r.value.in[0].bits, 5);
  EXPECT_EQ(r.value.in[1].bits, 3);
  const std::uint64_t v[2] = {3, 5};
  EXPECT_EQ(r.value.apply_dims(v), 3u * 8 + 5);
  EXPECT_EQ(contiguous_elements(r.value, 1), 8);
  EXPECT_EQ(contiguous_elements(r.value, 0), 1);
  EXPECT_EQ(to_string(r.value), "lane[5]: 8,16,32,64,128; register[3]: 1,2,4 -> offset[8]");
}

TEST(LinearLayout, NamesMustMatchTheModes) {
  // one name for a rank-2 layout: refused (once the names were dropped silently)
  const char* names[2] = {"register", "lane"};
  const LinearLayoutResult one = linear_from_layout(L("(8,32):(2,128)"), names, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.diagnostic.rule, LayoutRule::dims_mismatch);
  EXPECT_EQ(one.diagnostic.a, 1);
  EXPECT_EQ(one.diagnostic.b, 2);
  EXPECT_NE(message(one.diagnostic).find("one input name per top-level mode"), std::string::npos);
  // a leaf layout has one mode: its one name is kept
  const LinearLayoutResult leaf = linear_from_layout(L("32:4"), names + 1, 1);
  ASSERT_TRUE(leaf.ok());
  EXPECT_EQ(leaf.value.in_index("lane"), 0);
  // an over-long name is refused (a LinearDim holds 11 characters; named() compares the full name)
  const char* long_names[2] = {"register_index", "lane"};
  const LinearLayoutResult lg = linear_from_layout(L("(8,32):(2,128)"), long_names, 2);
  ASSERT_FALSE(lg.ok());
  EXPECT_EQ(lg.diagnostic.rule, LayoutRule::capacity);
  EXPECT_EQ(lg.diagnostic.mode, 0);
  EXPECT_EQ(lg.diagnostic.a, LinearDim::kMaxName);
  const char* eleven[2] = {"register_ix", "lane"};  // exactly 11: accepted and found by name
  const LinearLayoutResult ok11 = linear_from_layout(L("(8,32):(2,128)"), eleven, 2);
  ASSERT_TRUE(ok11.ok());
  EXPECT_EQ(ok11.value.in_index("register_ix"), 0);
  EXPECT_EQ(ok11.value.in_index("register_ixx"), -1);
  EXPECT_EQ(linear_from_layout(L("8:1"), nullptr, 0, "offset_bytes_").diagnostic.rule, LayoutRule::capacity);
}

// linear_dim / identity_linear / linear_from_swizzle refuse a name that does not fit, as
// linear_from_layout does (they once truncated it silently: identity_linear("register_index", 3)
// was a dimension called "register_in" that in_index("register_index") did not find).
TEST(LinearLayout, EveryNamedConstructorRefusesAnOverLongName) {
  const LinearDimResult d = linear_dim("register_index", 3);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.diagnostic.rule, LayoutRule::capacity);
  EXPECT_EQ(d.diagnostic.a, LinearDim::kMaxName);
  EXPECT_EQ(d.value, LinearDim{});
  const LinearLayoutResult id = identity_linear("register_index", 3);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.diagnostic.rule, LayoutRule::capacity);
  EXPECT_EQ(id.diagnostic.a, LinearDim::kMaxName);
  EXPECT_NE(message(id.diagnostic).find("name characters"), std::string::npos);
  EXPECT_NE(fix(id.diagnostic).find("named in at most 11 characters"), std::string::npos) << fix(id.diagnostic);
  EXPECT_EQ(linear_from_swizzle(kSw128, 10, "offset_bytes_").diagnostic.rule, LayoutRule::capacity);
  // the same limits as linear_from_layout: exactly 11 characters fit and are found by the full name
  const LinearLayoutResult id11 = identity_linear("register_ix", 3);
  ASSERT_TRUE(id11.ok());
  EXPECT_EQ(id11.value.in_index("register_ix"), 0);
  EXPECT_EQ(id11.value.out_index("register_ix"), 0);
  EXPECT_EQ(id11.value.apply(5), 5u);
  const LinearDimResult d11 = linear_dim("register_ix", 3);
  ASSERT_TRUE(d11.ok());
  EXPECT_TRUE(d11.value.named("register_ix"));
  EXPECT_EQ(d11.value.bits, 3);
  // more bits than a map holds: refused, not clamped
  const LinearLayoutResult wide = identity_linear("offset", 65);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.diagnostic.rule, LayoutRule::capacity);
  EXPECT_EQ(wide.diagnostic.a, 64);
  EXPECT_EQ(wide.diagnostic.b, 65);
  EXPECT_TRUE(identity_linear("offset", 64).ok());
  static_assert(!identity_linear("register_index", 3).ok());
  static_assert(identity_linear("register_ix", 3).value.in_index("register_ix") == 0);
}

TEST(LinearLayout, RefusalsNameTheFlattenedLeaf) {
  const char* names[2] = {"a", "b"};
  // mode 1 = (3,2): leaf 0 of mode 1 is leaf 2 of the layout
  const LinearLayoutResult r = linear_from_layout(L("((2,2),(3,2)):((1,2),(4,16))"), names, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostic.rule, LayoutRule::not_power_of_two);
  EXPECT_EQ(r.diagnostic.mode, 2);
  EXPECT_EQ(r.diagnostic.a, 3);
  // mode 1's leaf 1 lands on offset bit 1, already used by mode 0: leaf 3
  const LinearLayoutResult c = linear_from_layout(L("((2,2),(4,2)):((1,2),(4,2))"), names, 2);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.diagnostic.rule, LayoutRule::not_linear);
  EXPECT_EQ(c.diagnostic.mode, 3);
}

TEST(LinearLayout, SwizzleComposeAndSwizzledLayoutAgree) {
  // Sw<3,4,3> o (64,64):(64,1) with bf16: byte offset = swizzle(2 * L(c)). As linear maps:
  // swizzle o (bytes of the layout).
  const auto sl = parse_swizzled_layout("Sw<3,4,3> o (64,64):(64,1)");
  ASSERT_TRUE(sl.ok);
  const LinearLayoutResult bytes = linear_from_layout(L("(64,64):(128,2)"));  // element strides * 2 bytes
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes.value.out_bits(), 13);
  const LinearLayout swz = linear_from_swizzle(kSw128, 13).value;
  const LinearLayoutResult comp = compose(swz, bytes.value);
  ASSERT_TRUE(comp.ok());
  for (std::int64_t i = 0; i < 64 * 64; ++i)
    ASSERT_EQ(comp.value.apply(static_cast<std::uint64_t>(i)), sl.value.byte_offset(i, 2)) << i;
  for (std::uint64_t o = 0; o < 8192; ++o) ASSERT_EQ(swz.apply(o), kSw128(o));
  // mismatched dimensions are refused
  EXPECT_EQ(compose(linear_from_swizzle(kSw128, 10).value, bytes.value).diagnostic.rule, LayoutRule::dims_mismatch);
}

TEST(LinearLayout, InversesOnRandomMaps) {
  std::mt19937_64 rng(12);
  int inverted = 0, right = 0, refused = 0;
  for (int it = 0; it < 5000; ++it) {
    const int in = 1 + static_cast<int>(rng() % 12);
    const int out = it % 2 ? in : 1 + static_cast<int>(rng() % 12);  // half square
    LinearLayout l;
    l.in[0] = linear_dim("in", in).value;
    l.out[0] = linear_dim("out", out).value;
    l.n_in = l.n_out = 1;
    for (int k = 0; k < in; ++k) l.basis[k] = rng() & low_mask(out);
    const LinearLayoutResult inv = invert(l);
    const int rank = rank_of(l);
    if (in == out && rank == out) {
      ASSERT_TRUE(inv.ok());
      for (std::uint64_t x = 0; x < (std::uint64_t{1} << in); ++x) {
        ASSERT_EQ(inv.value.apply(l.apply(x)), x);
        ASSERT_EQ(l.apply(inv.value.apply(x)), x);
      }
      ++inverted;
    } else {
      ASSERT_FALSE(inv.ok());
      ++refused;
    }
    const LinearLayoutResult ri = right_inverse(l);
    if (rank == out) {
      ASSERT_TRUE(ri.ok());
      for (std::uint64_t y = 0; y < (std::uint64_t{1} << out); ++y) ASSERT_EQ(l.apply(ri.value.apply(y)), y);
      ++right;
    } else {
      ASSERT_FALSE(ri.ok());
    }
  }
  std::printf("[law] F2 inverse: L^-1(L(x)) == x and L(L^-1(y)) == y on %d bijective maps (%d others refused); "
              "L(R(y)) == y on %d surjective maps\n", inverted, refused, right);
  EXPECT_GE(inverted, 800);  // ~29% of random square GF(2) matrices are invertible
  EXPECT_GE(right, 1000);
}

TEST(LinearLayout, SharedMemoryWavefronts) {
  std::uint64_t a[32] = {};
  // 4 B per lane, consecutive: one wavefront
  for (int i = 0; i < 32; ++i) a[i] = 4u * i;
  EXPECT_EQ(shared_wavefronts(a, 32, 4).wavefronts, 1);
  // 4 B per lane, 128 B apart: every lane in bank 0, 32 distinct words
  for (int i = 0; i < 32; ++i) a[i] = 128u * i;
  EXPECT_EQ(shared_wavefronts(a, 32, 4).wavefronts, 32);
  // all lanes on one word: broadcast, one wavefront
  for (int i = 0; i < 32; ++i) a[i] = 64;
  EXPECT_EQ(shared_wavefronts(a, 32, 4).wavefronts, 1);
  // 8 B per lane consecutive: 256 B, 2 wavefronts; 16 B: 4
  for (int i = 0; i < 32; ++i) a[i] = 8u * i;
  EXPECT_EQ(shared_wavefronts(a, 32, 8).wavefronts, 2);
  for (int i = 0; i < 32; ++i) a[i] = 16u * i;
  const BankAnalysis q = shared_wavefronts(a, 32, 16);
  EXPECT_EQ(q.wavefronts, 4);
  EXPECT_TRUE(q.conflict_free());
  // 16 B per lane, one 128 B row per lane, no swizzle: banks 0..3 only, 32 words each
  for (int i = 0; i < 32; ++i) a[i] = 128u * i;
  EXPECT_EQ(shared_wavefronts(a, 32, 16).wavefronts, 32);
  // ... the same rows under the 128B swizzle: lane i's chunk moves to i % 8: conflict-free
  for (int i = 0; i < 32; ++i) a[i] = kSw128(128u * i);
  EXPECT_EQ(shared_wavefronts(a, 32, 16).wavefronts, 4);
  // lane groups: quarter-warp q stores row q (16 B chunks 0..7: conflict-free). Move lane 1 to
  // chunk 0 of another row (quarter 0: banks 0..3 twice, 4..7 unused) and lane 8 to chunk 1 of
  // another row (quarter 1: banks 4..7 twice, 0..3 unused). Over the warp every bank still has 4
  // distinct words (4 wavefronts); served quarter by quarter it is 2 + 2 + 1 + 1 = 6: the default
  // (lane groups), what the H100 does.
  for (int i = 0; i < 32; ++i) a[i] = 1024u * (i / 8) + 16u * (i % 8);
  a[1] = 512;
  a[8] = 1024 + 512 + 16;
  EXPECT_EQ(shared_wavefronts(a, 32, 16).wavefronts, 6);
  EXPECT_EQ(shared_wavefronts(a, 32, 16, false).wavefronts, 4);
  // it is the store planner's rule (core/smem_banks.hpp): group by group
  {
    std::uint32_t a32[32] = {};
    for (int i = 0; i < 32; ++i) a32[i] = static_cast<std::uint32_t>(a[i]);
    int sum = 0, ideal = 0;
    for (int g = 0; g < 32; g += lanes_per_wavefront_group(16)) {
      sum += group_wavefronts(a32 + g, 8, 16);
      ideal += ideal_group_wavefronts(8, 16);
    }
    EXPECT_EQ(sum, 6);
    EXPECT_EQ(shared_wavefronts(a, 32, 16).ideal_wavefronts, ideal);
  }
  // nothing valid to count: 0 wavefronts, never conflict-free (no lanes; more than a warp; a width no
  // st.shared has). More than 32 lanes once hit a silent 512-word cap.
  EXPECT_EQ(shared_wavefronts(a, 0, 4).wavefronts, 0);
  EXPECT_FALSE(shared_wavefronts(a, 0, 4).conflict_free());
  std::uint64_t many[64] = {};
  for (int i = 0; i < 64; ++i) many[i] = 16u * i;
  EXPECT_EQ(shared_wavefronts(many, 64, 16).wavefronts, 0);
  EXPECT_FALSE(shared_wavefronts(many, 64, 16).conflict_free());
  EXPECT_FALSE(shared_wavefronts(many, 32, 32).conflict_free());
  EXPECT_FALSE(shared_wavefronts(many, 32, 12).conflict_free());
  EXPECT_TRUE(shared_wavefronts(many, 32, 16).conflict_free());
}

TEST(LinearLayout, WavefrontsOfAMissingLaneDimensionAreNotConflictFree) {
  const char* names[2] = {"register", "lane"};
  const LinearLayoutResult m = linear_from_layout(L("(8,32):(2,128)"), names, 2);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(shared_wavefronts(m.value, 2, 16).conflict_free());  // no input dimension 2
  EXPECT_FALSE(shared_wavefronts(m.value, 1, 16, 1).conflict_free());  // no output dimension 1
  EXPECT_EQ(shared_wavefronts(m.value, 1, 16).wavefronts, 32);
}

TEST(LinearLayout, WavefrontsFromALinearByteMap) {
  // lane l stores 16 B (8 bf16 registers) of row l of a 64-column bf16 tile: byte = l*128 + r*2
  const char* names[2] = {"register", "lane"};
  const LinearLayoutResult m = linear_from_layout(L("(8,32):(2,128)"), names, 2);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(shared_wavefronts(m.value, 1, 16).wavefronts, 32);
  EXPECT_EQ(contiguous_elements(m.value, 0), 1);  // register bits land on byte bits 1..3, not 0..2
  const LinearLayoutResult sw = compose(linear_from_swizzle(kSw128, m.value.out_bits()).value, m.value);
  ASSERT_TRUE(sw.ok());
  EXPECT_EQ(shared_wavefronts(sw.value, 1, 16).wavefronts, 4);
}

TEST(LinearLayout, ByteMapOfASwizzledTile) {
  // every element of the 128B-swizzled bf16 tile, and an f32 one, as one linear map
  for (const char* text : {"Sw<3,4,3> o (64,64):(64,1)", "Sw<2,4,3> o (16,32):(32,1)", "(8,8):(1,8)"}) {
    const auto sl = parse_swizzled_layout(text);
    ASSERT_TRUE(sl.ok);
    for (std::int64_t e : {2, 4}) {
      const LinearLayoutResult m = linear_byte_map(sl.value, e);
      ASSERT_TRUE(m.ok()) << text;
      for (std::int64_t i = 0; i < sl.value.size(); ++i)
        ASSERT_EQ(m.value.apply(static_cast<std::uint64_t>(i)), sl.value.byte_offset(i, static_cast<std::uint64_t>(e))) << text;
    }
  }
  EXPECT_EQ(linear_byte_map(parse_swizzled_layout("(8,8):(1,8)").value, 3).diagnostic.rule, LayoutRule::not_power_of_two);
}

#include "tmakit/layout/swizzle.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace tmakit;

namespace {
// CuTe's Swizzle<B,M,S>::apply, written as CuTe writes it (shift, then mask the zzz bits): the
// reference SwizzleParams is checked against.
constexpr std::uint64_t cute_swizzle(int B, int M, int S, std::uint64_t o) {
  return o ^ ((o >> S) & (((std::uint64_t{1} << B) - 1) << M));
}
constexpr SwizzleParams kSw128{3, 4, 3, true, true};
}  // namespace

static_assert(kSw128(0) == 0);
static_assert(kSw128(128) == 128 + 16);       // row 1: chunk 0 -> chunk 1
static_assert(kSw128(7 * 128 + 16) == 7 * 128 + 6 * 16);  // row 7: chunk 1 -> 1^7 = 6
static_assert(kSw128.base_alignment() == 1024);
static_assert(SwizzleParams{2, 4, 3, true, true}.base_alignment() == 512);
static_assert(SwizzleParams{1, 4, 3, true, true}.base_alignment() == 256);

TEST(Swizzle, ModesMatchCuTe) {
  EXPECT_EQ(swizzle_for(Swizzle::none)(12345), 12345u);
  const SwizzleParams s32 = swizzle_for(Swizzle::b32), s64 = swizzle_for(Swizzle::b64), s128 = swizzle_for(Swizzle::b128);
  for (std::uint64_t o = 0; o < 4096; ++o) {
    EXPECT_EQ(s32(o), cute_swizzle(1, 4, 3, o));
    EXPECT_EQ(s64(o), cute_swizzle(2, 4, 3, o));
    EXPECT_EQ(s128(o), cute_swizzle(3, 4, 3, o));
    // explicit bit formula
    EXPECT_EQ(s128(o), o ^ (((o >> 7) & 7) << 4));
    EXPECT_EQ(s64(o), o ^ (((o >> 7) & 3) << 4));
    EXPECT_EQ(s32(o), o ^ (((o >> 7) & 1) << 4));
  }
  EXPECT_EQ(s32.base_alignment(), smem_alignment(Swizzle::b32));
  EXPECT_EQ(s64.base_alignment(), smem_alignment(Swizzle::b64));
  EXPECT_EQ(s128.base_alignment(), smem_alignment(Swizzle::b128));
}

TEST(Swizzle, PermutationAndInvolutionWithinRepeat) {
  for (Swizzle m : {Swizzle::b32, Swizzle::b64, Swizzle::b128, Swizzle::b128_atom_32b, Swizzle::b128_atom_64b}) {
    const SwizzleParams s = swizzle_for(m);
    const std::uint64_t rep = s.base_alignment();
    std::set<std::uint64_t> seen;
    for (std::uint64_t o = 0; o < rep; ++o) {
      const std::uint64_t t = s(o);
      EXPECT_LT(t, rep);
      EXPECT_EQ(s(t), o);
      EXPECT_EQ(t & ((std::uint64_t{1} << s.base) - 1), o & ((std::uint64_t{1} << s.base) - 1));  // chunk kept
      seen.insert(t);
    }
    EXPECT_EQ(seen.size(), rep);
  }
}

TEST(Swizzle, ElementOffsets) {
  const SwizzleParams s = swizzle_for(Swizzle::b128);
  const SwizzleParams e2 = element_swizzle(s, 2).value, e4 = element_swizzle(s, 4).value;
  // bf16 (2 B): element 64 is byte 128 (row 1, chunk 0) -> byte 144 -> element 72.
  EXPECT_EQ(e2(64), 72u);
  EXPECT_EQ(e2(65), 73u);
  EXPECT_EQ(s(64 * 2) / 2, 72u);
  // f32: element 32*7 + 5 (row 7, chunk 1, word 1) -> chunk 6
  EXPECT_EQ(e4(7 * 32 + 5), 7u * 32 + 6 * 4 + 1);
}

TEST(Swizzle, ByteSwizzleInvertsElementSwizzle) {
  for (Swizzle m : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128, Swizzle::b128_atom_32b, Swizzle::b128_atom_64b})
    for (std::uint64_t e : {1u, 2u, 4u, 8u, 16u}) {
      const SwizzleParams s = swizzle_for(m);
      const ElementSwizzleResult es = element_swizzle(s, e);
      if (!es.ok()) continue;  // e does not divide the chunk
      const ElementSwizzleResult bs = byte_swizzle(es.value, e);
      ASSERT_TRUE(bs.ok());
      EXPECT_EQ(bs.value.bits, s.bits);
      EXPECT_EQ(bs.value.base, s.base);
      EXPECT_EQ(bs.value.shift, s.shift);
      for (std::uint64_t i = 0; i < 4096; ++i) {
        ASSERT_EQ(es.value(i) * e, s(i * e)) << i;  // the element swizzle is the byte swizzle in elements
        ASSERT_EQ(bs.value(i * e), s(i * e)) << i;
      }
    }
  // Sw<3,3,3> on bf16 elements is the 128B byte swizzle Sw<3,4,3>
  const ElementSwizzleResult b = byte_swizzle(SwizzleParams{3, 3, 3, true, true}, 2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value.base, 4);
  EXPECT_EQ(byte_swizzle(SwizzleParams{3, 3, 3, true, true}, 3).diagnostic.rule, LayoutRule::swizzle_elem_bytes);
  EXPECT_EQ(byte_swizzle(SwizzleParams{3, 3, 3, true, true}, 0).diagnostic.rule, LayoutRule::swizzle_elem_bytes);
}

TEST(Swizzle, Sm100ModesMarkedUnverified) {
  EXPECT_FALSE(swizzle_for(Swizzle::b128_atom_32b).verified);
  EXPECT_FALSE(swizzle_for(Swizzle::b128_atom_64b).verified);
  EXPECT_FALSE(swizzle_for(Swizzle::b128_atom_32b_flip_8b).supported);
  // 32 B atoms: row 1 (bit 7) moves 32 B chunk 0 to chunk 1.
  EXPECT_EQ(swizzle_for(Swizzle::b128_atom_32b)(128), 128u + 32);
  EXPECT_EQ(swizzle_for(Swizzle::b128_atom_64b)(128), 128u + 64);
}

// tma_swizzle_of is swizzle_for's inverse over the sm_90 modes, and refuses patterns TMA lacks.
TEST(Swizzle, TmaModeOfAByteSwizzle) {
  for (tmakit::Swizzle m : {tmakit::Swizzle::none, tmakit::Swizzle::b32, tmakit::Swizzle::b64, tmakit::Swizzle::b128}) {
    tmakit::Swizzle got{};
    ASSERT_TRUE(tmakit::tma_swizzle_of(tmakit::swizzle_for(m), got));
    EXPECT_EQ(got, m);
  }
  tmakit::Swizzle got{};
  EXPECT_FALSE(tmakit::tma_swizzle_of(tmakit::SwizzleParams{3, 3, 3}, got));  // element units for bf16
  EXPECT_FALSE(tmakit::tma_swizzle_of(tmakit::SwizzleParams{2, 5, 2}, got));  // sm_100 atom pattern
}

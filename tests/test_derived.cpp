// box_bytes and its fast paths against the plain formula: element bits x prod(floor(box / es)) / 8.
#include <gtest/gtest.h>

#include <random>

#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/smem_model.hpp"

using namespace tmakit;

namespace {

std::uint64_t plain_box_bytes(const TensorMapParams& p) {
  std::uint64_t bits = smem_element_bits(p.dtype);
  if (p.kind != MapKind::tiled) return bits * p.channels * p.pixels / 8;
  for (std::uint32_t i = 0; i < p.rank && i < kMaxRank; ++i) bits *= p.elem_strides[i] ? p.box[i] / p.elem_strides[i] : 0;
  return bits / 8;
}

TEST(Derived, SmallDivisionIsExactOnEveryValidPair) {
  for (std::uint64_t b = 0; b <= 256; ++b)
    for (std::uint32_t e = 1; e <= 8; ++e) ASSERT_EQ(div_box_small(b, e), b / e) << b << "/" << e;
}

TEST(Derived, BoxBytesMatchesThePlainFormulaForAnyInput) {
  std::mt19937_64 rng(3);
  for (int t = 0; t < 200000; ++t) {
    TensorMapParams p;
    p.dtype = static_cast<DataType>(rng() % kDataTypeCount);
    p.rank = 1 + rng() % 5;
    for (int i = 0; i < 5; ++i) {
      p.box[i] = rng() % 4 ? 1 + rng() % 256 : static_cast<std::uint32_t>(rng());  // some out of range
      p.elem_strides[i] = rng() % 4 ? 1 + rng() % 8 : static_cast<std::uint32_t>(rng() % 20);
    }
    ASSERT_EQ(box_bytes(p), plain_box_bytes(p)) << "trial " << t;
  }
}

TEST(Derived, TransactionBytesFollowTheHardwareNotTheStoredField) {
  // Cases measured on the H200 (u16, non-interleaved): bytes delivered vs the driver's stored field.
  struct M { std::uint32_t box0, box1, es0, es1; std::uint64_t stored, delivered; };
  const M cases[] = {{32, 8, 1, 2, 256, 256}, {32, 8, 1, 3, 128, 192}, {32, 4, 2, 1, 128, 256}, {32, 4, 2, 2, 64, 128}};
  for (const auto& c : cases) {
    TensorMapParams p;
    p.dtype = DataType::uint16;
    p.rank = 2;
    p.box[0] = c.box0, p.box[1] = c.box1;
    p.elem_strides[0] = c.es0, p.elem_strides[1] = c.es1;
    EXPECT_EQ(box_bytes(p), c.stored) << c.es0 << "," << c.es1;
    EXPECT_EQ(transaction_bytes(p), c.delivered) << c.es0 << "," << c.es1;
  }
}

TEST(Derived, SmemAlignmentFollowsTheSwizzle) {
  EXPECT_EQ(smem_alignment(Swizzle::none), 16u);
  EXPECT_EQ(smem_alignment(Swizzle::b32), 256u);
  EXPECT_EQ(smem_alignment(Swizzle::b64), 512u);
  EXPECT_EQ(smem_alignment(Swizzle::b128), 1024u);
  // What a tensor copy's shared buffer really needs: at least 128 B (the descriptor field says 16).
  EXPECT_EQ(tma_smem_alignment(Swizzle::none), 128u);
  EXPECT_EQ(tma_smem_alignment(Swizzle::b32), 256u);
  EXPECT_EQ(tma_smem_alignment(Swizzle::b128), 1024u);
}

}  // namespace

namespace {
// The host TMA model's footprint is the reference for the buffer size (smem_model.hpp).
TEST(Derived, BoxImageBytesIsTheModelsFootprint) {
  std::mt19937_64 rng(11);
  int padded = 0;
  for (int t = 0; t < 20000; ++t) {
    TensorMapParams p;
    const DataType types[] = {DataType::uint8, DataType::bfloat16, DataType::float32, DataType::float64};
    p.dtype = types[rng() % 4];
    p.rank = 1 + rng() % 5;
    p.swizzle = static_cast<Swizzle>(rng() % 4);
    p.interleave = p.rank >= 3 && rng() % 4 == 0 ? static_cast<Interleave>(1 + rng() % 2) : Interleave::none;
    const std::uint32_t eb = element_bits(p.dtype) / 8;
    for (std::uint32_t i = 0; i < p.rank; ++i) {
      p.box[i] = i == 0 ? (p.interleave == Interleave::none ? (16u << (rng() % 4)) / eb : 1 + rng() % 8) : 1 + rng() % 9;
      p.elem_strides[i] = rng() % 4 == 0 ? 1 + rng() % 3 : 1;
    }
    const std::uint64_t expected = smem_model_footprint(p);
    ASSERT_EQ(box_smem_image_bytes(p), expected) << "iteration " << t;
    ASSERT_GE(box_smem_image_bytes(p), transaction_bytes(p));
    padded += p.interleave == Interleave::none && smem_row_pitch(p) > std::uint64_t{p.box[0]} * eb;
  }
  EXPECT_GT(padded, 1000);
  static_assert(box_smem_image_bytes([] {
                  TensorMapParams p;
                  p.dtype = DataType::bfloat16, p.rank = 2, p.swizzle = Swizzle::b128;
                  p.box[0] = 32, p.box[1] = 64;  // 64 B rows padded to 128 B
                  return p;
                }()) == 8192);
}
}  // namespace

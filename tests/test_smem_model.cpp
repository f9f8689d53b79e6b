#include "tmakit/tensor_map/smem_model.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tmakit/tensor_map/validate.hpp"

using namespace tmakit;

namespace {
TensorMapParams u8_2d(std::uint64_t d0, std::uint64_t d1, std::uint64_t stride, std::uint32_t b0, std::uint32_t b1) {
  TensorMapParams p;
  p.dtype = DataType::uint8;
  p.rank = 2;
  p.dims[0] = d0;
  p.dims[1] = d1;
  p.strides[0] = stride;
  p.box[0] = b0;
  p.box[1] = b1;
  return p;
}
std::vector<unsigned char> iota_bytes(std::size_t n) {
  std::vector<unsigned char> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = static_cast<unsigned char>(i * 7 + 1);
  return g;
}
}  // namespace

TEST(SmemModel, InBoundsCopy) {
  auto p = u8_2d(32, 4, 32, 16, 2);
  ASSERT_TRUE(is_valid(p));
  auto g = iota_bytes(128);
  std::int32_t start[2] = {16, 1};
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  ASSERT_EQ(out.size(), box_bytes(p));
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(out[r * 16 + c], g[(1 + r) * 32 + 16 + c]);
}

TEST(SmemModel, OutOfBoundsZeroBothSides) {
  auto p = u8_2d(20, 3, 32, 16, 2);  // stride 32 > 20 bytes: padding bytes never read
  auto g = iota_bytes(96);
  std::int32_t start[2] = {-4, 2};  // row 2 in, row 3 out; columns -4..-1 out
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(out[c], c < 4 ? 0 : g[2 * 32 + c - 4]) << c;
    EXPECT_EQ(out[16 + c], 0) << c;
  }
  std::int32_t past[2] = {12, 0};  // columns 12..19 in, 20..27 out
  ASSERT_TRUE(smem_model_tiled_load(p, g, past, out));
  for (int c = 0; c < 16; ++c) EXPECT_EQ(out[c], c < 8 ? g[12 + c] : 0) << c;
}

TEST(SmemModel, NanFillFloat) {
  TensorMapParams p;
  p.dtype = DataType::float32;
  p.rank = 1;
  p.dims[0] = 4;
  p.box[0] = 8;
  p.oob = OobFill::nan_request_zero_fma;
  ASSERT_TRUE(is_valid(p));
  std::vector<unsigned char> g(16, 0x11), out;
  std::int32_t start[1] = {0};
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  ASSERT_EQ(out.size(), 32u);
  EXPECT_EQ(out[0], 0x11);
  // The hardware's fill (measured on the H200): 0x7ff7 repeated, so f32 0x7ff77ff7.
  EXPECT_EQ(out[16], 0xf7);
  EXPECT_EQ(out[17], 0x7f);
  EXPECT_EQ(out[18], 0xf7);
  EXPECT_EQ(out[19], 0x7f);
  p.dtype = DataType::bfloat16;
  p.box[0] = 8;
  std::vector<unsigned char> g2(8, 0x22);
  ASSERT_TRUE(smem_model_tiled_load(p, g2, start, out));
  ASSERT_EQ(out.size(), 16u);
  EXPECT_EQ(out[8], 0xf7);  // bf16 0x7ff7
  EXPECT_EQ(out[9], 0x7f);
  p.dtype = DataType::uint16;
  p.oob = OobFill::none;
  ASSERT_TRUE(smem_model_tiled_load(p, g2, start, out));
  EXPECT_EQ(out[8], 0);
}

TEST(SmemModel, Swizzle128Rows) {
  // 8 rows of 128 bytes (u8 box {128, 8}); row r chunk c lands in chunk c ^ r.
  auto p = u8_2d(128, 8, 128, 128, 8);
  p.swizzle = Swizzle::b128;
  ASSERT_TRUE(is_valid(p));
  auto g = iota_bytes(1024);
  std::int32_t start[2] = {0, 0};
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      for (int b = 0; b < 16; ++b) EXPECT_EQ(out[r * 128 + ((c ^ r) * 16) + b], g[r * 128 + c * 16 + b]);
}

TEST(SmemModel, Swizzle32ShortRowsArePaddedToTheSpan) {
  // Measured on the H200 (2026-11-22): a 16-byte row under the 32B swizzle takes a whole 32-byte
  // span row; then bit 7 of the byte offset flips bit 4 (Swizzle<1,4,3> in bytes).
  auto p = u8_2d(16, 16, 16, 16, 16);
  p.swizzle = Swizzle::b32;
  ASSERT_TRUE(is_valid(p));
  auto g = iota_bytes(256);
  std::int32_t start[2] = {0, 0};
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  ASSERT_EQ(out.size(), 512u);
  for (int r = 0; r < 16; ++r)
    for (int b = 0; b < 16; ++b) {
      const int o = r * 32 + b;
      EXPECT_EQ(out[o ^ (((o >> 7) & 1) << 4)], g[r * 16 + b]) << "row " << r << " byte " << b;
    }
  SmemModelOptions dense;
  dense.pad_rows_to_span = false;
  EXPECT_EQ(smem_model_bytes(p, dense), 256u);
}

TEST(SmemModel, ElementStridesCeilVsFloor) {
  auto p = u8_2d(16, 8, 16, 16, 7);
  p.elem_strides[1] = 2;
  ASSERT_TRUE(is_valid(p));
  SmemModelOptions ceil_o, floor_o;
  floor_o.ceil_counts = false;
  EXPECT_EQ(smem_model_bytes(p, ceil_o), 16u * 4);
  EXPECT_EQ(smem_model_bytes(p, floor_o), 16u * 3);
  EXPECT_EQ(box_bytes(p), 16u * 3);
  auto g = iota_bytes(128);
  std::int32_t start[2] = {0, 1};
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out, ceil_o));
  for (int r = 0; r < 4; ++r)  // rows 1, 3, 5, 7
    for (int c = 0; c < 16; ++c) EXPECT_EQ(out[r * 16 + c], g[(1 + 2 * r) * 16 + c]);
  // dim 0 stride ignored without interleave unless asked
  p.elem_strides[0] = 2;
  EXPECT_EQ(smem_model_bytes(p, ceil_o), 16u * 4);
  SmemModelOptions es0;
  es0.es0_without_interleave = true;
  EXPECT_EQ(smem_model_bytes(p, es0), 8u * 4);
}

TEST(SmemModel, Rank5AndStoreRoundTrip) {
  TensorMapParams p;
  p.dtype = DataType::uint16;
  p.rank = 5;
  const std::uint64_t d[5] = {8, 3, 2, 2, 3};
  for (int i = 0; i < 5; ++i) p.dims[i] = d[i];
  p.strides[0] = 16;
  p.strides[1] = 48;
  p.strides[2] = 96;
  p.strides[3] = 192;
  const std::uint32_t b[5] = {8, 2, 2, 2, 2};
  for (int i = 0; i < 5; ++i) p.box[i] = b[i];
  ASSERT_TRUE(is_valid(p));
  auto g = iota_bytes(576);
  std::int32_t start[5] = {0, 2, 1, -1, 2};
  std::vector<unsigned char> out;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out));
  ASSERT_EQ(out.size(), box_bytes(p));
  // element (k0, k1=0, k2=0, k3=1, k4=0): coords (k0, 2, 1, 0, 2)
  const std::size_t so = ((((0 * 2 + 1) * 2 + 0) * 2 + 0) * 8) * 2;
  EXPECT_EQ(out[so], g[2 * 16 + 1 * 48 + 0 * 96 + 2 * 192]);
  EXPECT_EQ(out[0], 0);  // k3 = 0 -> coord -1: OOB
  // storing the image back writes only the in-bounds elements, which match global
  std::vector<unsigned char> g2 = g;
  ASSERT_TRUE(smem_model_tiled_store(p, g2, start, out));
  EXPECT_EQ(g2, g);
}

TEST(SmemModel, ShortRowsUnder128BSwizzle) {
  // 32-byte rows with 128B swizzle, 7 rows. Each row takes a whole 128-byte span row (measured on
  // the H200), chunk c of row r lands at chunk c ^ r. The copy delivers 224 bytes (box_bytes: the
  // transaction count) spread over 7 span rows.
  auto p = u8_2d(32, 7, 32, 32, 7);
  p.swizzle = Swizzle::b128;
  ASSERT_TRUE(is_valid(p));
  EXPECT_EQ(box_bytes(p), 224u);
  EXPECT_EQ(smem_model_bytes(p), 7u * 128);
  auto g = iota_bytes(224);
  std::int32_t start[2] = {0, 0};
  std::vector<unsigned char> out, out2;
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out, {}, 0xA5));
  ASSERT_TRUE(smem_model_tiled_load(p, g, start, out2, {}, 0x5A));
  ASSERT_GE(out.size(), 7u * 128);
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < 2; ++c)
      for (int b = 0; b < 16; ++b) EXPECT_EQ(out[r * 128 + ((c ^ r) * 16) + b], g[r * 32 + c * 16 + b]);
  std::size_t written = 0;  // bytes that do not depend on the pad byte
  for (std::size_t i = 0; i < out.size(); ++i) written += out[i] == out2[i];
  EXPECT_EQ(written, 224u);
}

TEST(SmemModel, StorePastDim0EndWritesUpToTheNext16ByteBoundary) {
  // Measured on the H200: u8 dims {18}, a 16-element box stored at x = 16 writes bytes 16..31,
  // i.e. also 18..31, past globalDim[0], up to the 16-byte boundary; byte 32 stays.
  TensorMapParams p;
  p.dtype = DataType::uint8;
  p.rank = 1;
  p.dims[0] = 18;
  p.box[0] = 16;
  ASSERT_TRUE(is_valid(p));
  std::vector<unsigned char> g(64, 0xEE), img(16);
  for (int i = 0; i < 16; ++i) img[i] = static_cast<unsigned char>(0x40 + i);
  std::int32_t start[1] = {16};
  ASSERT_TRUE(smem_model_tiled_store(p, g, start, img));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(g[i], 0xEE) << i;
  for (int i = 16; i < 32; ++i) EXPECT_EQ(g[i], 0x40 + (i - 16)) << i;
  for (int i = 32; i < 64; ++i) EXPECT_EQ(g[i], 0xEE) << i;
}

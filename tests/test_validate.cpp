// validate(): one test per rule (rule id, field, index), several violations at once, no follow-up
// cascades, valid GEMM / attention / convolution maps, per-architecture behaviour, constexpr use.
// The sm_90 boundary values come from the driver sweep (H200, driver 580.159.04): each "driver:"
// comment names a decision the driver made.
#include <gtest/gtest.h>

#include "test_configs.hpp"

#include <cstdint>
#include <set>
#include <string>

#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace {

using namespace tmakit;

using test::kAddr;
using test::tiled_bf16;
using test::im2col_bf16;

constexpr TensorMapParams wide_bf16() {
  TensorMapParams p = im2col_bf16();
  p.kind = MapKind::im2col_wide;
  p.lower[0] = -1, p.lower[1] = 0;
  p.upper[0] = 1, p.upper[1] = 0;
  return p;
}

// 16U4_ALIGN16B on sm_100: dims[0] % 128, box[0] == 128, 32-byte alignment, swizzle 128B.
constexpr TensorMapParams packed_u4_sm100() {
  TensorMapParams p = tiled_bf16();
  p.arch = Arch::sm_100;
  p.dtype = DataType::u4x16_align16b;
  p.dims[0] = 256;
  p.strides[0] = 128, p.strides[1] = 12800;
  p.box[0] = 128;
  return p;
}

std::string ids(const Violations& v) {
  std::string s;
  for (const auto& x : v) s += std::string(rule_id(x.rule)) + " ";
  return s;
}

const Violation<Rule>* find(const Violations& v, const char* id) {
  for (const auto& x : v)
    if (std::string(rule_id(x.rule)) == id) return &x;
  return nullptr;
}

// `p` violates exactly one rule: `id`, on `field[index]`.
void expect_only(const TensorMapParams& p, const char* id, Field field, int index = -1) {
  const Violations v = validate(p);
  ASSERT_EQ(v.count, 1) << "violations: " << ids(v);
  EXPECT_STREQ(rule_id(v.items[0].rule), id);
  EXPECT_EQ(v.items[0].field, field) << id;
  EXPECT_EQ(v.items[0].index, index) << id;
}

// `p` violates `id` on `field[index]` (possibly among other rules).
void expect_has(const TensorMapParams& p, const char* id, Field field, int index = -1) {
  const Violations v = validate(p);
  const Violation<Rule>* x = find(v, id);
  ASSERT_NE(x, nullptr) << "missing " << id << "; got: " << ids(v);
  EXPECT_EQ(x->field, field) << id;
  EXPECT_EQ(x->index, index) << id;
}

void expect_ok(const TensorMapParams& p) {
  const Violations v = validate(p);
  EXPECT_TRUE(v.empty()) << "violations: " << ids(v);
}

// ---------------------------------------------------------------- baselines

TEST(Validate, BaselinesAreValid) {
  expect_ok(tiled_bf16());
  expect_ok(im2col_bf16());
  expect_ok(wide_bf16());  // driver: im2col_wide accepted on sm_90 although cuda.h says cc >= 10.0
  expect_ok(packed_u4_sm100());
}

TEST(Validate, RuleIdsAreUniqueAndEveryRuleHasWords) {
  std::set<std::string> seen;
  for (int r = 0; r < rule_count<Rule>; ++r) {
    const std::string id = rule_id(Rule(r));
    EXPECT_NE(id, "unknown") << r;
    EXPECT_TRUE(seen.insert(id).second) << "duplicate id " << id;
    EXPECT_NE(id.find('.'), std::string::npos) << id;
    EXPECT_STRNE(rule_text(Rule(r)), "unknown rule") << id;
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(rule_count<Rule>));
}

// ---------------------------------------------------------------- enum values and the target

TEST(Validate, ArchSupported) {
  TensorMapParams p = tiled_bf16();
  p.arch = Arch(80);
  expect_only(p, "arch.supported", Field::arch);
}

TEST(Validate, KindRange) {
  TensorMapParams p = tiled_bf16();
  p.kind = MapKind(3);
  expect_only(p, "kind.range", Field::kind);
}

TEST(Validate, DtypeRangeSkipsSizeDerivedChecks) {
  for (std::uint32_t t : {16u, 99u}) {
    TensorMapParams p = tiled_bf16();
    p.dtype = DataType(t);
    p.box[0] = 12;        // would break box.inner_bytes_multiple_of_16 and the swizzle span for any size
    p.box[2] = 256;       // and the shared-memory footprint
    p.oob = OobFill::nan_request_zero_fma;
    expect_only(p, "dtype.range", Field::tensorDataType);
    EXPECT_EQ(validate(p).items[0].value, static_cast<std::int64_t>(t));
  }
}

TEST(Validate, InterleaveRange) {
  TensorMapParams p = tiled_bf16();
  p.interleave = Interleave(3);
  expect_only(p, "interleave.range", Field::interleave);
}

TEST(Validate, SwizzleRange) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle(7);
  expect_only(p, "swizzle.range", Field::swizzle);
}

TEST(Validate, L2PromotionRange) {
  TensorMapParams p = tiled_bf16();
  p.l2 = L2Promotion(4);
  expect_only(p, "l2promotion.range", Field::l2Promotion);
}

TEST(Validate, OobFillRange) {
  TensorMapParams p = tiled_bf16();
  p.oob = OobFill(2);
  expect_only(p, "oobfill.range", Field::oobFill);
}

TEST(Validate, WideModeRange) {
  TensorMapParams p = wide_bf16();
  p.wide_mode = Im2colWideMode(2);
  expect_only(p, "mode.range", Field::mode);
  p.wide_mode = Im2colWideMode::w128;
  expect_ok(p);
}

// ---------------------------------------------------------------- rank

TEST(Validate, RankRangeSkipsPerDimensionChecks) {
  TensorMapParams p = tiled_bf16();
  p.rank = 0;
  expect_only(p, "rank.range", Field::tensorRank);
  p.rank = 6;  // driver: rank 6 refused
  p.dims[3] = 0;  // garbage past rank 3 must not be reported
  p.box[4] = 0;
  expect_only(p, "rank.range", Field::tensorRank);
  EXPECT_EQ(validate(p).items[0].value, 6);
}

TEST(Validate, RankIm2col) {
  TensorMapParams p = im2col_bf16();
  p.rank = 2;  // driver: im2col ranks 1 and 2 refused
  expect_only(p, "rank.im2col_range", Field::tensorRank);
  p.kind = MapKind::im2col_wide;
  expect_only(p, "rank.im2col_range", Field::tensorRank);
}

TEST(Validate, RankInterleaveMin3) {
  TensorMapParams p = tiled_bf16();
  p.rank = 2;
  p.interleave = Interleave::b16;
  expect_only(p, "rank.interleave_min3", Field::tensorRank);
  p.rank = 3;
  expect_ok(p);
}

// ---------------------------------------------------------------- address

TEST(Validate, AddressAlign16) {
  TensorMapParams p = tiled_bf16();
  p.address = kAddr + 8;
  expect_only(p, "address.align16", Field::globalAddress);
  EXPECT_EQ(validate(p).items[0].value, static_cast<std::int64_t>(kAddr + 8));
}

TEST(Validate, AddressAlign32WithInterleave32) {
  TensorMapParams p = tiled_bf16();
  p.interleave = Interleave::b32;
  p.swizzle = Swizzle::b32;
  p.box[0] = 16;
  p.address = kAddr + 16;
  expect_only(p, "address.align32", Field::globalAddress);
  p.address = kAddr + 8;  // not also reported as align32: one alignment diagnostic per address
  expect_only(p, "address.align16", Field::globalAddress);
}

TEST(Validate, AddressAlign32WithPackedType) {
  TensorMapParams p = packed_u4_sm100();
  p.address = kAddr + 16;
  expect_only(p, "address.align32", Field::globalAddress);
}

TEST(Validate, AddressBelow2To57) {
  TensorMapParams p = tiled_bf16();
  p.address = kAddr | (std::uint64_t{1} << 56);  // driver: accepted
  expect_ok(p);
  p.address = kAddr | (std::uint64_t{1} << 57);  // driver: refused (every bit 57..63)
  expect_only(p, "address.below_2_57", Field::globalAddress);
  p.address = 0;  // driver: a null address is accepted
  expect_ok(p);
}

// ---------------------------------------------------------------- globalDim

TEST(Validate, DimsRange) {
  TensorMapParams p = tiled_bf16();
  p.dims[1] = 0;
  expect_only(p, "dims.range", Field::globalDim, 1);
  p = tiled_bf16();
  p.dims[2] = (std::uint64_t{1} << 32) + 1;
  expect_only(p, "dims.range", Field::globalDim, 2);
  p.dims[2] = std::uint64_t{1} << 32;  // driver: 2^32 accepted
  expect_ok(p);
}

TEST(Validate, DimsPackedMultipleOf128) {
  TensorMapParams p = packed_u4_sm100();
  p.dims[0] = 200;
  expect_only(p, "dims.packed_multiple_of_128", Field::globalDim, 0);
}

TEST(Validate, DimsPackedMultipleOf2) {
  TensorMapParams p = tiled_bf16();
  p.arch = Arch::sm_100;
  p.dtype = DataType::u4x16_align8b;
  p.dims[0] = 255;
  p.box[0] = 128;  // 64 bytes
  expect_only(p, "dims.packed_multiple_of_2", Field::globalDim, 0);
  p.dims[0] = 256;
  expect_ok(p);
}

// ---------------------------------------------------------------- globalStrides

TEST(Validate, StridesAlign16) {
  TensorMapParams p = tiled_bf16();
  p.strides[0] = 2056;
  p.strides[1] = 2056 * 100 + 8;
  const Violations v = validate(p);
  ASSERT_EQ(v.count, 2) << ids(v);
  EXPECT_STREQ(rule_id(v.items[0].rule), "strides.align16");
  EXPECT_EQ(v.items[0].field, Field::globalStrides);
  EXPECT_EQ(v.items[0].index, 0);
  EXPECT_EQ(v.items[0].value, 2056);
  EXPECT_EQ(v.items[1].index, 1);
}

TEST(Validate, StridesAlign32) {
  TensorMapParams p = tiled_bf16();
  p.interleave = Interleave::b32;
  p.swizzle = Swizzle::b32;
  p.box[0] = 16;
  p.strides[1] = 12816;
  expect_only(p, "strides.align32", Field::globalStrides, 1);
}

TEST(Validate, StridesBelow2To40) {
  TensorMapParams p = tiled_bf16();
  p.strides[1] = std::uint64_t{1} << 40;
  expect_only(p, "strides.below_2_40", Field::globalStrides, 1);
  p.strides[1] = (std::uint64_t{1} << 40) - 16;  // driver: accepted
  expect_ok(p);
}

TEST(Validate, StridesNeedNotCoverTheRow) {
  // driver: a zero stride (broadcast) and strides smaller than the row are accepted; the cuda.h
  // pseudo-code's assert(globalStrides[i] >= globalDim[i]) is not a rule.
  TensorMapParams p = tiled_bf16();
  p.strides[0] = 0;
  p.strides[1] = 16;
  expect_ok(p);
}

// ---------------------------------------------------------------- boxDim

TEST(Validate, BoxRange) {
  TensorMapParams p = tiled_bf16();
  p.box[1] = 0;
  expect_only(p, "box.range", Field::boxDim, 1);
  p.box[1] = 257;
  expect_only(p, "box.range", Field::boxDim, 1);
}

TEST(Validate, BoxInnerBytesMultipleOf16) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle::none;
  p.box[0] = 12;  // 24 bytes
  expect_only(p, "box.inner_bytes_multiple_of_16", Field::boxDim, 0);
  // driver: enforced with interleave too (cuda.h states it for interleave NONE only)
  p.interleave = Interleave::b16;
  expect_only(p, "box.inner_bytes_multiple_of_16", Field::boxDim, 0);
  p.box[0] = 8;
  expect_ok(p);
}

TEST(Validate, BoxPackedInner128) {
  TensorMapParams p = packed_u4_sm100();
  p.box[0] = 64;
  expect_only(p, "box.packed_inner_128", Field::boxDim, 0);
}

TEST(Validate, BoxSmemFootprint) {
  TensorMapParams p = tiled_bf16();
  p.box[2] = 57;  // 128 B x 32 x 57 = 233472 bytes: driver accepted
  expect_ok(p);
  p.box[2] = 58;  // 237568 bytes: driver refused
  expect_only(p, "box.smem_footprint", Field::boxDim);
  EXPECT_EQ(validate(p).items[0].value, 237568);
  // The driver counts floor(boxDim / elementStrides) elements per dimension (dimension 0 included).
  p.elem_strides[2] = 2;  // floor(58 / 2) = 29
  expect_ok(p);
  p = tiled_bf16();
  p.swizzle = Swizzle::none;
  p.box[0] = 256, p.box[1] = 229, p.box[2] = 1;
  p.dtype = DataType::float64;  // 2048 B x 229 = 468992 bytes
  p.elem_strides[0] = 5, p.elem_strides[1] = 2;
  // 256 / 5 = 51 elements x 8 B x floor(229 / 2) = 114 -> 46512 bytes
  expect_ok(p);
}

TEST(Validate, SwizzleInnerBoxSpan) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle::b64;  // 64 bf16 = 128 bytes > 64
  expect_only(p, "swizzle.inner_box_span", Field::boxDim, 0);
  p.swizzle = Swizzle::b32;
  p.box[0] = 16;
  expect_ok(p);
  p.interleave = Interleave::b16;  // not applied with interleave
  p.box[0] = 64;
  expect_ok(p);
  TensorMapParams q = im2col_bf16();
  q.swizzle = Swizzle::b64;
  expect_only(q, "swizzle.inner_box_span", Field::channelsPerPixel);
}

// ---------------------------------------------------------------- elementStrides

TEST(Validate, ElemStridesRange) {
  TensorMapParams p = tiled_bf16();
  p.elem_strides[0] = 0;  // driver: checked although TMA ignores it without interleave
  expect_only(p, "elem_strides.range", Field::elementStrides, 0);
  p.elem_strides[0] = 1;
  p.elem_strides[2] = 9;
  expect_only(p, "elem_strides.range", Field::elementStrides, 2);
  p.elem_strides[2] = 8;
  expect_ok(p);
}

// ---------------------------------------------------------------- type / interleave / swizzle / fill

TEST(Validate, InterleaveU6RequiresNone) {
  TensorMapParams p = packed_u4_sm100();
  p.dtype = DataType::u6x16_align16b;
  p.interleave = Interleave::b16;
  expect_only(p, "interleave.u6_requires_none", Field::interleave);
}

TEST(Validate, Interleave32RequiresSwizzle32OnlyOnBlackwell) {
  TensorMapParams p = tiled_bf16();
  p.interleave = Interleave::b32;
  p.swizzle = Swizzle::b64;
  p.box[0] = 16;
  expect_ok(p);  // driver: sm_90 accepts interleave 32B with any swizzle (2155 accepted configs)
  p.arch = Arch::sm_100;
  expect_only(p, "swizzle.interleave32_requires_32b", Field::swizzle);
  p.swizzle = Swizzle::b32;
  expect_ok(p);
}

TEST(Validate, SwizzleU6Modes) {
  TensorMapParams p = packed_u4_sm100();
  p.dtype = DataType::u6x16_align16b;
  p.swizzle = Swizzle::b128_atom_32b_flip_8b;
  expect_only(p, "swizzle.u6_modes", Field::swizzle);
  p.swizzle = Swizzle::b128_atom_64b;
  expect_ok(p);
}

TEST(Validate, SwizzleU4Align16bModes) {
  TensorMapParams p = packed_u4_sm100();
  p.swizzle = Swizzle::b128_atom_64b;
  expect_only(p, "swizzle.u4_align16b_modes", Field::swizzle);
  p.swizzle = Swizzle::b128_atom_32b;
  expect_ok(p);
}

TEST(Validate, SwizzleIm2colWideModesOnlyOnBlackwell) {
  TensorMapParams p = wide_bf16();
  p.swizzle = Swizzle::none;
  expect_ok(p);  // driver: sm_90 accepts im2col_wide with swizzle NONE / 32B (2989 accepted configs)
  p.arch = Arch::sm_100;
  expect_only(p, "swizzle.im2col_wide_modes", Field::swizzle);
  p.swizzle = Swizzle::b128;
  expect_ok(p);
}

TEST(Validate, OobFillRequiresFloat) {
  TensorMapParams p = tiled_bf16();
  p.oob = OobFill::nan_request_zero_fma;
  expect_ok(p);
  p.dtype = DataType::uint16;
  expect_only(p, "oobfill.requires_float_type", Field::oobFill);
  TensorMapParams q = packed_u4_sm100();
  q.oob = OobFill::nan_request_zero_fma;
  expect_only(q, "oobfill.requires_float_type", Field::oobFill);
}

// ---------------------------------------------------------------- architecture gates

TEST(Validate, PackedTypesNeedSm100) {
  TensorMapParams p = packed_u4_sm100();
  expect_ok(p);
  p.arch = Arch::sm_120;
  expect_ok(p);
  p.arch = Arch::sm_90;  // driver: every packed type refused on sm_90
  expect_only(p, "dtype.packed_requires_sm100", Field::tensorDataType);
  // Its own constraints still hold on sm_100 ...
  p.arch = Arch::sm_100;
  p.box[0] = 64;
  p.address = kAddr + 16;
  const Violations v = validate(p);
  EXPECT_NE(find(v, "box.packed_inner_128"), nullptr) << ids(v);
  EXPECT_NE(find(v, "address.align32"), nullptr) << ids(v);
  EXPECT_EQ(find(v, "dtype.packed_requires_sm100"), nullptr) << ids(v);
}

TEST(Validate, AtomSwizzlesNeedSm100) {
  for (Swizzle s : {Swizzle::b128_atom_32b, Swizzle::b128_atom_32b_flip_8b, Swizzle::b128_atom_64b}) {
    TensorMapParams p = tiled_bf16();
    p.swizzle = s;  // driver: refused on sm_90
    expect_only(p, "swizzle.atom_requires_sm100", Field::swizzle);
    p.arch = Arch::sm_100;
    expect_ok(p);
  }
}

TEST(Validate, SharedMemoryLimitFollowsTheArchitecture) {
  TensorMapParams p = tiled_bf16();
  p.box[2] = 32;  // 128 KiB
  expect_ok(p);
  p.arch = Arch::sm_100;
  expect_ok(p);
  p.arch = Arch::sm_120;  // 100 KiB of shared memory per SM (unverified)
  expect_only(p, "box.smem_footprint", Field::boxDim);
}

// ---------------------------------------------------------------- im2col / im2col_wide

TEST(Validate, Im2colLowerCornerRange) {
  TensorMapParams p = im2col_bf16();
  p.lower[1] = 128;  // rank 4: [-128, 127]
  expect_only(p, "im2col.lower_corner_range", Field::pixelBoxLowerCorner, 1);
  p.lower[1] = -128;
  expect_ok(p);
}

TEST(Validate, Im2colUpperCornerRange) {
  TensorMapParams p = im2col_bf16();
  p.rank = 5;
  p.dims[4] = 4;
  p.strides[3] = 921600;
  p.lower[2] = 0;
  p.upper[2] = -17;  // rank 5: [-16, 15]
  expect_only(p, "im2col.upper_corner_range", Field::pixelBoxUpperCorner, 2);
  p.rank = 3;  // rank 3: [-32768, 32767]
  p.lower[0] = -32768;
  p.upper[0] = 32767;
  expect_ok(p);
  p.lower[0] = -32769;
  expect_only(p, "im2col.lower_corner_range", Field::pixelBoxLowerCorner, 0);
}

TEST(Validate, Im2colBoxNonEmpty) {
  TensorMapParams p = im2col_bf16();
  p.lower[0] = 30;  // globalDim[1] + upper - lower = 30 + 1 - 30 = 1: driver accepted
  expect_ok(p);
  p.lower[0] = 31;  // 0: driver refused
  expect_only(p, "im2col.box_nonempty", Field::pixelBoxLowerCorner, 0);
  // Corner i goes with globalDim[i + 1]; with interleave, with globalDim[i].
  p = im2col_bf16();
  p.dims[1] = 5;
  p.lower[0] = 3, p.upper[0] = -2;  // 5 - 2 - 3 = 0
  expect_only(p, "im2col.box_nonempty", Field::pixelBoxLowerCorner, 0);
  p.interleave = Interleave::b16;  // now against globalDim[0] = 64
  expect_ok(p);
  // An out-of-range corner is not also reported as an empty box.
  p = im2col_bf16();
  p.lower[0] = 127;
  p.upper[0] = -129;
  expect_only(p, "im2col.upper_corner_range", Field::pixelBoxUpperCorner, 0);
}

TEST(Validate, Im2colBoxNonEmptyIn32BitArithmetic) {
  TensorMapParams p = im2col_bf16();
  p.rank = 3;
  p.dims[1] = std::uint64_t{1} << 31;
  p.dims[2] = 8;
  p.lower[0] = -4, p.upper[0] = 1;  // driver: refused (2^31 + 1 wraps negative)
  expect_only(p, "im2col.box_nonempty", Field::pixelBoxLowerCorner, 0);
  p.lower[0] = -3, p.upper[0] = -2;  // driver: accepted (2^31 - 2 stays positive)
  expect_ok(p);
  p.dims[1] = std::uint64_t{1} << 32;  // wraps to 0: needs upper > lower
  p.lower[0] = 0, p.upper[0] = 0;
  expect_only(p, "im2col.box_nonempty", Field::pixelBoxLowerCorner, 0);
  p.upper[0] = 1;
  expect_ok(p);
}

TEST(Validate, Im2colWideCornersAndSpatialDims) {
  TensorMapParams p = wide_bf16();
  p.lower[0] = 130;  // rank 4: the sm_90 driver limits wide corners to [-128, 127] (cuda.h: 16 bit)
  expect_has(p, "im2col.lower_corner_range", Field::pixelBoxLowerCorner, 0);
  p = wide_bf16();
  p.lower[0] = 31;  // W = globalDim[1] = 30
  expect_only(p, "im2col.box_nonempty", Field::pixelBoxLowerCorner, 0);
  p = wide_bf16();
  p.dims[2] = std::uint64_t{1} << 31;  // H of a wide map: driver refused
  expect_only(p, "im2col_wide.spatial_dim_below_2_31", Field::globalDim, 2);
  p.dims[2] = (std::uint64_t{1} << 31) - 1;
  expect_ok(p);
}

TEST(Validate, Im2colChannelsRange) {
  TensorMapParams p = im2col_bf16();
  p.channels = 0;
  expect_only(p, "im2col.channels_range", Field::channelsPerPixel);
  p.channels = 257;
  p.swizzle = Swizzle::none;
  expect_only(p, "im2col.channels_range", Field::channelsPerPixel);
}

TEST(Validate, Im2colChannelsBytesMultipleOf16) {
  TensorMapParams p = im2col_bf16();
  p.channels = 12;  // 24 bytes; driver: refused for every channel count not a multiple of 8 bf16
  expect_only(p, "im2col.channels_bytes_multiple_of_16", Field::channelsPerPixel);
  p.channels = 8;
  expect_ok(p);
}

TEST(Validate, Im2colChannelsPacked128) {
  TensorMapParams p = im2col_bf16();
  p.arch = Arch::sm_100;
  p.dtype = DataType::u4x16_align16b;
  p.dims[0] = 128;
  p.channels = 64;
  expect_only(p, "im2col.channels_packed_128", Field::channelsPerPixel);
  p.channels = 128;
  expect_ok(p);
}

TEST(Validate, Im2colPixelsRange) {
  TensorMapParams p = im2col_bf16();
  p.pixels = 0;
  expect_only(p, "im2col.pixels_range", Field::pixelsPerColumn);
  p.pixels = 1025;
  expect_only(p, "im2col.pixels_range", Field::pixelsPerColumn);
  p = wide_bf16();
  p.wide_mode = Im2colWideMode::w128;
  p.pixels = 2048;  // driver: checked in W128 mode too, although cuda.h says it is ignored there
  expect_only(p, "im2col.pixels_range", Field::pixelsPerColumn);
}

TEST(Validate, Im2colSmemFootprint) {
  TensorMapParams p = im2col_bf16();
  p.swizzle = Swizzle::none;
  p.channels = 256;  // 512 bytes per pixel
  p.pixels = 456;    // 233472 bytes
  expect_ok(p);
  p.pixels = 457;
  expect_only(p, "im2col.smem_footprint", Field::pixelsPerColumn);
  EXPECT_EQ(validate(p).items[0].value, 233984);
}

// ---------------------------------------------------------------- several at once, no cascades

TEST(Validate, ReportsEveryViolationAtOnce) {
  TensorMapParams p = tiled_bf16();
  p.address = kAddr + 4;
  p.strides[0] = 136;
  p.box[1] = 0;
  p.swizzle = Swizzle::b32;  // 128-byte inner box > 32
  p.elem_strides[2] = 9;
  p.l2 = L2Promotion(9);
  p.dtype = DataType::int32;
  p.box[0] = 32;
  p.oob = OobFill::nan_request_zero_fma;
  const Violations v = validate(p);
  EXPECT_EQ(v.count, 7) << ids(v);
  EXPECT_FALSE(v.truncated);
  for (const char* id : {"address.align16", "strides.align16", "box.range", "swizzle.inner_box_span",
                         "elem_strides.range", "l2promotion.range", "oobfill.requires_float_type"})
    EXPECT_NE(find(v, id), nullptr) << id << " missing; got " << ids(v);
}

TEST(Validate, ReportsEveryBadIndex) {
  TensorMapParams p = tiled_bf16();
  p.rank = 5;
  for (int i = 0; i < 5; ++i) p.dims[i] = 0, p.box[i] = 300;
  const Violations v = validate(p);
  int dims = 0, boxes = 0;
  for (const auto& x : v) {
    dims += x.rule == Rule::dims_range;
    boxes += x.rule == Rule::box_range;
  }
  EXPECT_EQ(dims, 5);
  EXPECT_EQ(boxes, 5);
  EXPECT_EQ(find(v, "box.smem_footprint"), nullptr) << "no footprint follow-up for out-of-range boxes";
}

TEST(Validate, TruncatesBeyondCapacity) {
  TensorMapParams p = test::everything_wrong();
  for (int i = 0; i < 3; ++i) p.lower[i] = 100, p.upper[i] = -100;
  const Violations v = validate(p);
  EXPECT_EQ(v.count, 24);
  EXPECT_TRUE(v.truncated);
  EXPECT_FALSE(v.empty());
}

// ---------------------------------------------------------------- valid maps from real kernels

TEST(Validate, CommonGemmAndAttentionTiles) {
  struct Tile {
    DataType t;
    std::uint32_t box0, box1;
    Swizzle s;
  };
  for (const Tile& c : {Tile{DataType::bfloat16, 64, 128, Swizzle::b128}, Tile{DataType::float16, 64, 256, Swizzle::b128},
                        Tile{DataType::uint8, 128, 128, Swizzle::b128}, Tile{DataType::float32, 32, 64, Swizzle::b128},
                        Tile{DataType::tfloat32, 32, 128, Swizzle::b128}, Tile{DataType::bfloat16, 32, 64, Swizzle::b64},
                        Tile{DataType::float16, 16, 64, Swizzle::b32}, Tile{DataType::bfloat16, 256, 8, Swizzle::none}}) {
    for (Arch a : {Arch::sm_90, Arch::sm_100, Arch::sm_120}) {
      TensorMapParams p;  // row-major 4096 x 4096 operand
      p.arch = a;
      p.dtype = c.t;
      p.rank = 2;
      p.address = kAddr;
      p.dims[0] = 4096, p.dims[1] = 4096;
      p.strides[0] = 4096 * element_bits(c.t) / 8;
      p.box[0] = c.box0, p.box[1] = c.box1;
      p.swizzle = c.s;
      p.l2 = L2Promotion::b256;
      expect_ok(p);
    }
  }
  // Attention Q/K/V: [batch 8][heads 32][seq 4096][head_dim 128] bf16, box {64, 128, 1, 1}.
  TensorMapParams q;
  q.dtype = DataType::bfloat16;
  q.rank = 4;
  q.address = kAddr;
  q.dims[0] = 128, q.dims[1] = 4096, q.dims[2] = 32, q.dims[3] = 8;
  q.strides[0] = 256, q.strides[1] = 256 * 4096, q.strides[2] = std::uint64_t{256} * 4096 * 32;
  q.box[0] = 64, q.box[1] = 128, q.box[2] = 1, q.box[3] = 1;
  q.swizzle = Swizzle::b128;
  expect_ok(q);
  // Paged KV cache with a ragged tail: boxes may exceed the tensor (out-of-bounds elements are filled).
  q.dims[1] = 77;
  q.oob = OobFill::nan_request_zero_fma;
  expect_ok(q);
}

TEST(Validate, ConvolutionIm2col) {
  // NHWC fp16 [32][56][56][256], 3x3 filter, padding 1: corners (-1, -1) / (-1, -1).
  TensorMapParams p;
  p.kind = MapKind::im2col;
  p.dtype = DataType::float16;
  p.rank = 4;
  p.address = kAddr;
  p.dims[0] = 256, p.dims[1] = 56, p.dims[2] = 56, p.dims[3] = 32;
  p.strides[0] = 512, p.strides[1] = 512 * 56, p.strides[2] = 512 * 56 * 56;
  p.lower[0] = -1, p.lower[1] = -1;
  p.upper[0] = -1, p.upper[1] = -1;
  p.channels = 64;
  p.pixels = 128;
  p.swizzle = Swizzle::b128;
  expect_ok(p);
}

// ---------------------------------------------------------------- constexpr

constexpr TensorMapParams kMisalignedRows = [] {
  TensorMapParams p = tiled_bf16();
  p.strides[0] = 2056;
  p.strides[1] = 2064 * 100;
  return p;
}();

static_assert(validate(tiled_bf16()).empty(), "the baseline is valid at compile time");
static_assert(validate(im2col_bf16()).empty());
static_assert(validate(kMisalignedRows).count == 1);
static_assert(validate(kMisalignedRows).items[0].rule == Rule::strides_align16);
static_assert(validate(kMisalignedRows).items[0].field == Field::globalStrides);
static_assert(validate(kMisalignedRows).items[0].value == 2056);

TEST(Validate, Constexpr) {
  constexpr Violations v = validate(kMisalignedRows);
  EXPECT_EQ(v.count, 1);
  EXPECT_STREQ(rule_id(v.items[0].rule), "strides.align16");
}

}  // namespace

// One corner rule: validate's range is the range of the descriptor's corner fields (layout.hpp).
TEST(Validate, CornerLimitComesFromTheCornerFieldWidth) {
  static_assert(tmap_fields::corner_limit(3) == 32768);
  static_assert(tmap_fields::corner_limit(4) == 128);
  static_assert(tmap_fields::corner_limit(5) == 16);
  SUCCEED();
}

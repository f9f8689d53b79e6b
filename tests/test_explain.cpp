// explain(): words and concrete fixes computed from the actual values.
#include <gtest/gtest.h>

#include "test_configs.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tmakit/tensor_map/explain.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace {

using namespace tmakit;

using test::kAddr;
using test::tiled_bf16;
using test::im2col_bf16;

// The single diagnostic of `p` (fails the test when there is not exactly one).
Diagnostic one(const TensorMapParams& p) {
  const std::vector<Diagnostic> d = explain(p, validate(p));
  if (d.size() != 1) {
    std::string all;
    for (const Diagnostic& x : d) all += x.message() + "\n";
    ADD_FAILURE() << "expected one diagnostic, got " << d.size() << ":\n" << all;
  }
  return d.empty() ? Diagnostic{} : d[0];
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Explain, RowPitchMessageMatchesTheDocumentedForm) {
  TensorMapParams p = tiled_bf16();
  p.dims[0] = 1028;  // 2056 bytes of bf16
  p.strides[0] = 2056;
  p.strides[1] = 2064 * 100;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "strides.align16");
  EXPECT_EQ(d.where, "globalStrides[0]");
  EXPECT_EQ(d.value, "2056");
  EXPECT_EQ(d.message(),
            "error [strides.align16] globalStrides[0] = 2056: must be a multiple of 16 bytes; fix: pad the row "
            "pitch to 2064 bytes");
}

TEST(Explain, StrideFixOffersTheSmallerMultipleOnlyWhenTheRowFits) {
  TensorMapParams p = tiled_bf16();  // rows of 128 bytes
  p.strides[0] = 136;
  const Diagnostic d = one(p);
  EXPECT_TRUE(has(d.fix, "pad the row pitch to 144 bytes (or 128)")) << d.fix;
  p.strides[0] = 128;
  p.strides[1] = 12808;
  const Diagnostic e = one(p);
  EXPECT_EQ(e.where, "globalStrides[1]");
  EXPECT_TRUE(has(e.fix, "pad globalStrides[1] to 12816 bytes (or 12800)")) << e.fix;
  p.strides[1] = (std::uint64_t{1} << 40) - 8;  // rounding up would break strides.below_2_40
  const Diagnostic f = one(p);
  EXPECT_TRUE(has(f.fix, "use 1099511627760 bytes for globalStrides[1]")) << f.fix;
}

TEST(Explain, SwizzleSpanNamesTheSwizzleOrTheLargestBox) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle::b64;  // 64 bf16 = 128 bytes
  Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "swizzle.inner_box_span");
  EXPECT_EQ(d.where, "boxDim[0]");
  EXPECT_TRUE(has(d.fix, "use swizzle 128B or a box of at most 32 bf16 elements")) << d.fix;
  EXPECT_TRUE(has(d.rule, "128 bytes")) << d.rule;
  p.swizzle = Swizzle::b128;
  p.box[0] = 128;  // 256 bytes: no swizzle holds it
  d = one(p);
  EXPECT_TRUE(has(d.fix, "boxDim[0] <= 64 bf16 elements with swizzle 128B (2 copies per row)")) << d.fix;
  TensorMapParams q = im2col_bf16();
  q.swizzle = Swizzle::b32;
  q.dtype = DataType::float32;
  q.channels = 16;  // 64 bytes
  q.strides[0] = 256, q.strides[1] = 7680, q.strides[2] = 230400;
  d = one(q);
  EXPECT_EQ(d.where, "channelsPerPixel");
  EXPECT_TRUE(has(d.fix, "use swizzle 64B or a box of at most 8 f32 elements (channelsPerPixel <= 8)")) << d.fix;
}

TEST(Explain, BoxInnerBytesGivesTheNearestMultiples) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle::none;
  p.box[0] = 12;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "box.inner_bytes_multiple_of_16");
  EXPECT_TRUE(has(d.value, "24 bytes")) << d.value;
  EXPECT_TRUE(has(d.fix, "use boxDim[0] = 16 (or 8)")) << d.fix;
  EXPECT_TRUE(has(d.fix, "multiple of 8 bf16 elements")) << d.fix;
}

TEST(Explain, SmemFootprintGivesTheLargestLegalBox) {
  TensorMapParams p = tiled_bf16();
  p.box[2] = 58;
  Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "box.smem_footprint");
  EXPECT_EQ(d.where, "boxDim");
  EXPECT_TRUE(has(d.value, "{64, 32, 58}")) << d.value;
  EXPECT_TRUE(has(d.value, "237568 bytes")) << d.value;
  EXPECT_TRUE(has(d.rule, "233472 bytes")) << d.rule;
  EXPECT_TRUE(has(d.fix, "reduce boxDim[2] from 58 to at most 57")) << d.fix;
  p.arch = Arch::sm_120;
  p.box[2] = 32;
  d = one(p);
  EXPECT_TRUE(has(d.rule, "102400 bytes")) << d.rule;
  EXPECT_TRUE(has(d.fix, "to at most 25")) << d.fix;
}

TEST(Explain, Im2colFootprintGivesPixelsAndChannels) {
  TensorMapParams p = im2col_bf16();
  p.swizzle = Swizzle::none;
  p.channels = 256;
  p.pixels = 457;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "im2col.smem_footprint");
  EXPECT_TRUE(has(d.value, "233984 bytes")) << d.value;
  EXPECT_TRUE(has(d.fix, "pixelsPerColumn to at most 456")) << d.fix;
  EXPECT_TRUE(has(d.fix, "channelsPerPixel to at most 248")) << d.fix;
}

TEST(Explain, PackedTypeOnSm90NeedsSm100) {
  TensorMapParams p = tiled_bf16();
  p.dtype = DataType::u4x16_align8b;
  p.dims[0] = 256;
  p.box[0] = 128;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "dtype.packed_requires_sm100");
  EXPECT_EQ(d.value, "16U4_ALIGN8B");
  EXPECT_TRUE(has(d.fix, "this type needs --arch sm_100 or later")) << d.fix;
  EXPECT_TRUE(has(d.fix, "globalDim[0] = 128 bytes")) << d.fix;
}

TEST(Explain, AtomSwizzleOnSm90) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle::b128_atom_32b;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.value, "128B_ATOM_32B");
  EXPECT_TRUE(has(d.fix, "needs --arch sm_100 or later")) << d.fix;
  EXPECT_TRUE(has(d.fix, "use swizzle 128B")) << d.fix;
}

TEST(Explain, AddressFixesAreAlignedNeighbours) {
  TensorMapParams p = tiled_bf16();
  p.address = kAddr + 8;
  Diagnostic d = one(p);
  EXPECT_EQ(d.value, "0x7f0000000008");
  EXPECT_TRUE(has(d.fix, "0x7f0000000000 (8 bytes lower) or 0x7f0000000010")) << d.fix;
  p.address = kAddr | (std::uint64_t{1} << 60);
  d = one(p);
  EXPECT_EQ(d.rule_id, "address.below_2_57");
  EXPECT_TRUE(has(d.fix, "0x7f0000000000")) << d.fix;
}

TEST(Explain, EmptyPixelBoxGivesBothCorners) {
  TensorMapParams p = im2col_bf16();
  p.lower[0] = 31;
  Diagnostic d = one(p);
  EXPECT_EQ(d.rule_id, "im2col.box_nonempty");
  EXPECT_EQ(d.where, "pixelBoxLowerCorner[0]");
  EXPECT_TRUE(has(d.rule, "globalDim[1]")) << d.rule;
  EXPECT_TRUE(has(d.fix, "raise pixelBoxUpperCorner[0] to at least 2 or lower pixelBoxLowerCorner[0] to at most 30"))
      << d.fix;
  p = im2col_bf16();
  p.dims[1] = std::uint64_t{1} << 31;
  p.lower[0] = -4;
  d = one(p);
  EXPECT_TRUE(has(d.fix, "globalDim[1] + pixelBoxUpperCorner[0] = 2147483649 wraps to -2147483647")) << d.fix;
}

TEST(Explain, CornerRangeClamps) {
  TensorMapParams p = im2col_bf16();
  p.upper[1] = 300;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.where, "pixelBoxUpperCorner[1]");
  EXPECT_TRUE(has(d.rule, "[-128, 127] for a rank-4 im2col map")) << d.rule;
  EXPECT_TRUE(has(d.fix, "pixelBoxUpperCorner[1] = 127")) << d.fix;
}

TEST(Explain, OversizedDimensionIsSplit) {
  TensorMapParams p = tiled_bf16();
  p.dims[2] = std::uint64_t{1} << 33;
  const Diagnostic d = one(p);
  EXPECT_EQ(d.where, "globalDim[2]");
  EXPECT_TRUE(has(d.fix, "{4294967296, 2}")) << d.fix;
}

// The diagnostic of `p` with rule `id` (fails the test when there is none).
Diagnostic with_rule(const TensorMapParams& p, const std::string& id) {
  for (const Diagnostic& d : explain(p, validate(p)))
    if (d.rule_id == id) return d;
  ADD_FAILURE() << "no " << id << " diagnostic";
  return Diagnostic{};
}

// Values near 2^64: the fixes are computed without wrapping around (a dimension of 2^64 - 1 once
// divided by zero in the split search and crashed `tmakit check`).
TEST(Explain, ValuesNear2To64GiveFixesWithoutWrapping) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  TensorMapParams p = tiled_bf16();
  p.dims[0] = kMax;
  const Diagnostic dims = with_rule(p, "dims.range");
  EXPECT_EQ(dims.where, "globalDim[0]");
  EXPECT_EQ(dims.value, "18446744073709551615");  // not -1
  EXPECT_TRUE(has(dims.fix, "use 4294967296 tensor maps of at most 4294967296 elements each along dimension 0")) << dims.fix;

  p = tiled_bf16();
  p.address = kMax - 7;
  const Diagnostic address = with_rule(p, "address.align16");
  EXPECT_TRUE(has(address.fix, "move the base to 0xfffffffffffffff0 (8 bytes lower) and offset")) << address.fix;

  p = tiled_bf16();
  p.strides[0] = kMax - 7;
  const Diagnostic stride = with_rule(p, "strides.align16");
  EXPECT_TRUE(has(stride.fix, "use a multiple of 16 bytes below 2^40 for the row pitch")) << stride.fix;
  p.strides[0] = (std::uint64_t{1} << 40) - 8;  // the next multiple of 16 would reach 2^40
  EXPECT_TRUE(has(one(p).fix, "use 1099511627760 bytes for the row pitch (1099511627776 would reach 2^40)")) << one(p).fix;
}

// The UINT8 byte count the fix offers is computed without wrapping (2^62 4-bit values once gave
// "globalDim[0] = 0 bytes", 2^62 + 2 "= 1 bytes") and offered only when it is a legal dimension.
TEST(Explain, PackedTypeOnSm90ByteCountDoesNotWrap) {
  TensorMapParams p = tiled_bf16();
  p.dtype = DataType::u4x16_align8b;
  p.box[0] = 128;
  for (const std::uint64_t dim : {std::uint64_t{1} << 62, (std::uint64_t{1} << 62) + 2, ~std::uint64_t{0} - 1}) {
    SCOPED_TRACE(dim);
    p.dims[0] = dim;
    const Diagnostic d = with_rule(p, "dtype.packed_requires_sm100");
    EXPECT_TRUE(has(d.fix, "describe the packed bytes as UINT8 and unpack")) << d.fix;
    EXPECT_FALSE(has(d.fix, "globalDim[0] =")) << d.fix;
  }
  p.dims[0] = std::uint64_t{1} << 33;  // 2^32 bytes: still a legal dimension
  EXPECT_TRUE(has(with_rule(p, "dtype.packed_requires_sm100").fix, "(globalDim[0] = 4294967296 bytes)"));
  p.dtype = DataType::u6x16_align16b;  // 6-bit: 4 values are 3 bytes
  p.dims[0] = 4096;
  EXPECT_TRUE(has(with_rule(p, "dtype.packed_requires_sm100").fix, "(globalDim[0] = 3072 bytes)"));
}

// explain() takes any violation list: a packed-dimension violation for a dimension near 2^64 (not
// one validate() reports: it checks dims.range first) once got "pad globalDim[0] to
// 18446744073709551615", the saturated round_up, which is no legal dimension.
TEST(Explain, PackedDimensionFixIsALegalDimension) {
  TensorMapParams p = tiled_bf16();
  p.arch = Arch::sm_100;
  p.dtype = DataType::u4x16_align8b;
  p.dims[0] = ~std::uint64_t{0};
  for (const Rule r : {Rule::dims_packed_multiple_of_128, Rule::dims_packed_multiple_of_2}) {
    Violations v;
    v.add(r, Field::globalDim, 0, static_cast<std::int64_t>(p.dims[0]));
    const std::vector<Diagnostic> ds = explain(p, v);
    ASSERT_EQ(ds.size(), 1u);
    const Diagnostic& d = ds[0];
    EXPECT_EQ(d.value, "18446744073709551615");
    EXPECT_FALSE(has(d.fix, "pad globalDim[0] to")) << d.fix;
    EXPECT_TRUE(has(d.fix, "above 2^32")) << d.fix;
  }
  // a legal dimension is still padded to the next multiple
  p.dims[0] = 4294967295;
  Violations v;
  v.add(Rule::dims_packed_multiple_of_128, Field::globalDim, 0, static_cast<std::int64_t>(p.dims[0]));
  EXPECT_TRUE(has(explain(p, v)[0].fix, "pad globalDim[0] to 4294967296")) << explain(p, v)[0].fix;
}

TEST(Explain, EnumValuesAreNamed) {
  TensorMapParams p = tiled_bf16();
  p.swizzle = Swizzle(9);
  Diagnostic d = one(p);
  EXPECT_EQ(d.value, "9");
  EXPECT_TRUE(has(d.fix, "128B_ATOM_64B (6)")) << d.fix;
  p = tiled_bf16();
  p.dtype = DataType::int32;
  p.box[0] = 32;
  p.oob = OobFill::nan_request_zero_fma;
  d = one(p);
  EXPECT_EQ(d.value, "NAN_REQUEST_ZERO_FMA");
  EXPECT_TRUE(has(d.fix, "oobFill NONE (zero fill) with INT32")) << d.fix;
}

TEST(Explain, Im2colRankFixAddsASingletonSpatialDimension) {
  TensorMapParams p = im2col_bf16();
  p.rank = 2;
  p.dims[1] = 8;
  const Diagnostic d = one(p);
  EXPECT_TRUE(has(d.fix, "globalDim = {64, 1, 8}")) << d.fix;
}

TEST(Explain, TruncationIsSaid) {
  TensorMapParams p = test::everything_wrong();
  const Violations v = validate(p);
  ASSERT_TRUE(v.truncated);
  const std::vector<Diagnostic> d = explain(p, v);
  ASSERT_EQ(d.size(), 25u);
  EXPECT_EQ(d.back().rule_id, "violations.truncated");
}

// Every rule, reached by a deterministic sweep over all fields, explains itself with a fix.
TEST(Explain, EveryRuleHasWordsAndAFix) {
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  auto rnd = [&s](std::uint64_t n) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return n ? s % n : 0;
  };
  const std::uint64_t pick_dim[] = {0, 1, 7, 64, 100, 128, 255, 4096, std::uint64_t{1} << 31, std::uint64_t{1} << 32,
                                    (std::uint64_t{1} << 32) + 1, ~std::uint64_t{0}, ~std::uint64_t{0} - 100};
  const std::uint64_t pick_stride[] = {0, 16, 24, 48, 128, 2056, 12800, std::uint64_t{1} << 40, (std::uint64_t{1} << 40) - 16,
                                       ~std::uint64_t{0}, ~std::uint64_t{0} - 7};
  std::set<std::string> seen;
  for (int n = 0; n < 200000; ++n) {
    TensorMapParams p;
    p.arch = rnd(50) == 0 ? Arch(80) : (rnd(3) == 0 ? Arch::sm_90 : rnd(2) ? Arch::sm_100 : Arch::sm_120);
    p.kind = MapKind(rnd(100) == 0 ? 3 : rnd(3));
    p.dtype = DataType(rnd(17));
    p.rank = static_cast<std::uint32_t>(rnd(7));
    p.address = rnd(4) ? kAddr + 16 * rnd(2) : (rnd(2) ? kAddr + 8 : (rnd(2) ? kAddr | (std::uint64_t{1} << 58) : ~std::uint64_t{0} - 7));
    for (int i = 0; i < 5; ++i) {
      p.dims[i] = rnd(3) ? 64 + 64 * rnd(4) : pick_dim[rnd(13)];
      p.box[i] = static_cast<std::uint32_t>(rnd(4) ? 8 << rnd(5) : rnd(300));
      p.elem_strides[i] = static_cast<std::uint32_t>(rnd(5) ? 1 : rnd(10));
    }
    for (int i = 0; i < 4; ++i) p.strides[i] = rnd(3) ? 4096 << rnd(8) : pick_stride[rnd(11)];
    for (int i = 0; i < 3; ++i) {
      p.lower[i] = static_cast<std::int32_t>(rnd(40)) - 20;
      p.upper[i] = static_cast<std::int32_t>(rnd(40)) - 20;
    }
    p.interleave = Interleave(rnd(4));
    p.swizzle = Swizzle(rnd(8));
    p.l2 = L2Promotion(rnd(5));
    p.oob = OobFill(rnd(3));
    p.channels = static_cast<std::uint32_t>(rnd(2) ? 8 << rnd(5) : rnd(300));
    p.pixels = static_cast<std::uint32_t>(rnd(1100));
    p.wide_mode = Im2colWideMode(rnd(3));
    const Violations v = validate(p);
    const std::vector<Diagnostic> d = explain(p, v);
    ASSERT_EQ(d.size(), static_cast<std::size_t>(v.count) + (v.truncated ? 1 : 0));
    for (int k = 0; k < v.count; ++k) {
      const Diagnostic& x = d[static_cast<std::size_t>(k)];
      ASSERT_EQ(x.rule_id, rule_id(v.items[k].rule));
      ASSERT_FALSE(x.where.empty()) << x.rule_id;
      ASSERT_FALSE(x.value.empty()) << x.rule_id;
      ASSERT_FALSE(x.rule.empty()) << x.rule_id;
      ASSERT_FALSE(x.fix.empty()) << x.rule_id;
      ASSERT_EQ(x.message().rfind("error [" + x.rule_id + "] " + x.where + " = ", 0), 0u) << x.message();
      seen.insert(x.rule_id);
    }
  }
  for (int r = 0; r < rule_count<Rule>; ++r) EXPECT_TRUE(seen.count(rule_id(Rule(r)))) << rule_id(Rule(r));
}

}  // namespace

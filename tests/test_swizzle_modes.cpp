// The swizzle-mode table (tensor_map/swizzle_modes.hpp) walked row by row: every accessor, the
// names, the encoder, the decoder and the operand descriptors agree with the row.
#include <gtest/gtest.h>

#include <string>

#include "tmakit/smem_store/destination.hpp"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

using namespace tmakit;

namespace {

// A valid tiled fp16 map whose inner box fills the mode's span (64 elements without swizzle).
TensorMapParams map_with(Swizzle s) {
  TensorMapParams p;
  p.arch = is_atom_swizzle(s) ? Arch::sm_100 : Arch::sm_90;
  p.dtype = DataType::float16;
  p.rank = 2;
  p.address = 0x10000;
  p.dims[0] = 256;
  p.dims[1] = 64;
  p.strides[0] = 512;
  const std::uint32_t span = swizzle_span_bytes(s);
  p.box[0] = (span ? span : 128) / 2;
  p.box[1] = 8;
  p.swizzle = s;
  return p;
}

std::string describe_field(const TensorMapBytes& m, const char* name) {
  for (const DescribedField& f : describe_fields(m, decode(m)))
    if (f.name == name) return f.value;
  return "(missing)";
}

}  // namespace

TEST(SwizzleModes, EveryRowAgreesWithItsReaders) {
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const auto s = static_cast<Swizzle>(v);
    const SwizzleMode r = swizzle_mode_row(s);
    SCOPED_TRACE(r.name);
    EXPECT_EQ(r.mode, s);

    // names: printed and parsed, with and without the cuda.h prefix
    EXPECT_STREQ(name_of(s), r.name);
    EXPECT_STREQ(swizzle_name(s), r.name);
    Swizzle parsed{};
    ASSERT_TRUE(parse_name(r.name, parsed));
    EXPECT_EQ(parsed, s);
    ASSERT_TRUE(parse_name(r.cuda_name, parsed));
    EXPECT_EQ(parsed, s);
    EXPECT_EQ(std::string(cuda_prefix(NameSet::swizzle)) + r.name, r.cuda_name);

    // the packed columns read what the row says
    EXPECT_EQ(tmap_fields::hw_swizzle_mode(s), r.hw_mode);
    EXPECT_EQ(tmap_fields::hw_swizzle_atomicity(s), r.hw_atomicity);
    EXPECT_EQ(swizzle_span_bytes(s), r.span_bytes);
    EXPECT_EQ(smem_alignment(s), r.smem_alignment);
    EXPECT_EQ(tma_smem_alignment(s), r.smem_alignment < 128 ? 128u : r.smem_alignment);
    EXPECT_EQ(is_atom_swizzle(s), r.hw_atomicity != 0);
    const SwizzleParams b = swizzle_for(s);
    EXPECT_EQ(b.bits, r.bytes.bits);
    EXPECT_EQ(b.base, r.bytes.base);
    EXPECT_EQ(b.shift, r.bytes.shift);
    EXPECT_EQ(b.supported, r.bytes.supported);
    EXPECT_EQ(b.verified, r.bytes.verified);
    Swizzle from_hw{};
    ASSERT_TRUE(swizzle_from_hw(r.hw_mode, r.hw_atomicity, from_hw));
    EXPECT_EQ(from_hw, s);

    // the byte pattern keeps every byte in its row of the span and repeats every base_alignment()
    if (r.span_bytes) {
      for (std::uint64_t o = 0; o < 4 * b.base_alignment(); ++o) {
        EXPECT_EQ(b(o) / r.span_bytes, o / r.span_bytes) << o;
        EXPECT_EQ(b(o + b.base_alignment()), b(o) + b.base_alignment()) << o;
      }
    }
    // the sm_90 modes are exactly the patterns tma_swizzle_of() maps back
    Swizzle back{};
    EXPECT_EQ(tma_swizzle_of(r.bytes, back), r.hw_atomicity == 0);
    if (r.hw_atomicity == 0) {
      EXPECT_EQ(back, s);
    }

    // operand descriptors
    EXPECT_EQ(wgmma_swizzle_mode(s), r.wgmma_layout == kNoOperandLayout ? ~0u : r.wgmma_layout);
    EXPECT_EQ(umma_swizzle_mode(s), r.umma_layout == kNoOperandLayout ? ~0u : r.umma_layout);
    const bool operand = r.wgmma_layout != kNoOperandLayout || r.umma_layout != kNoOperandLayout;
    EXPECT_EQ(operand_row_bytes(s), !operand ? 0 : r.span_bytes ? static_cast<std::int32_t>(r.span_bytes) : 16);

    // the map: the encoder writes the row's bits and alignment; decode and describe read them back
    const TensorMapParams p = map_with(s);
    const EncodeResult e = encode(p);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e.map.bits(tmap_fields::kSwizzle.lo, tmap_fields::kSwizzle.width), r.hw_mode);
    EXPECT_EQ(e.map.bits(tmap_fields::kSwizzleAtomicity.lo, tmap_fields::kSwizzleAtomicity.width), r.hw_atomicity);
    EXPECT_EQ(e.map.bits(tmap_fields::kSmemAlignment.lo, tmap_fields::kSmemAlignment.width), r.smem_alignment);
    const DecodedTensorMap d = decode(e.map);
    EXPECT_TRUE(d.swizzle_known);
    EXPECT_EQ(d.params.swizzle, s);
    EXPECT_EQ(describe_field(e.map, "swizzle"), r.name);
    EXPECT_EQ(describe_field(e.map, "swizzleAtomicity"), r.atomicity_name);
  }
}

TEST(SwizzleModes, ValuesOutsideTheEnum) {
  for (std::uint32_t v : {kSwizzleCount, kSwizzleCount + 1, 99u, ~0u}) {
    const auto s = static_cast<Swizzle>(v);
    EXPECT_EQ(swizzle_mode_row(s).name, nullptr);
    EXPECT_EQ(swizzle_name(s), nullptr);
    EXPECT_EQ(name_of(s), nullptr);
    EXPECT_EQ(swizzle_span_bytes(s), 0u);
    EXPECT_EQ(smem_alignment(s), 1024u);
    EXPECT_FALSE(swizzle_for(s).supported);
    EXPECT_EQ(swizzle_for(s).bits, 0);
    EXPECT_EQ(wgmma_swizzle_mode(s), ~0u);
    EXPECT_EQ(umma_swizzle_mode(s), ~0u);
  }
  // map bits no row holds
  Swizzle s{};
  EXPECT_FALSE(swizzle_from_hw(2, 1, s));
  EXPECT_FALSE(swizzle_from_hw(3, 4, s));
  EXPECT_FALSE(swizzle_from_hw(4, 0, s));
}

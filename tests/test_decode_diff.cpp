// decode and diff: round trips, unexplained bits reported (never dropped), every differing byte
// attributed to a field or named reserved, and the constexpr path.
#include <gtest/gtest.h>

#include "test_configs.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

using namespace tmakit;

namespace {

// The driver's bytes for: bf16, dims {64,100,7}, strides {128,12800}, box {64,32,2}, 128B swizzle,
// L2 128B, address 0x7f0000000000 (H200, driver 580.159.04).
constexpr const char* kDriverHex =
    "00000000007f00002065040008000000200300000000000000000000000000003f000000630000000600000000000000"
    "000000000000003f1f010000000000000020000000000000000400000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000";

// The configuration kDriverHex was encoded from.
constexpr TensorMapParams base_params() { return test::tiled_bf16(); }

TensorMapBytes driver_bytes() {
  TensorMapBytes m;
  std::string err;
  EXPECT_TRUE(parse_hex(kDriverHex, m, &err)) << err;
  return m;
}

TEST(Decode, ReadsEveryFieldOfADriverDescriptor) {
  const auto d = decode(driver_bytes());
  EXPECT_EQ(d.params.kind, MapKind::tiled);
  EXPECT_EQ(d.params.dtype, DataType::bfloat16);
  EXPECT_EQ(d.params.rank, 3u);
  EXPECT_EQ(d.params.address, 0x7f0000000000u);
  EXPECT_EQ(d.params.dims[1], 100u);
  EXPECT_EQ(d.params.strides[1], 12800u);
  EXPECT_EQ(d.params.box[0], 64u);
  EXPECT_EQ(d.params.swizzle, Swizzle::b128);
  EXPECT_EQ(d.params.l2, L2Promotion::b128);
  EXPECT_EQ(d.stored_box_bytes, 64u * 32 * 2 * 2);
  EXPECT_EQ(d.stored_smem_alignment, 1024u);
  EXPECT_TRUE(d.round_trips());
  EXPECT_EQ(encode_unchecked(d.params), driver_bytes());
}

TEST(Decode, EncodeMatchesTheDriverBytes) { EXPECT_EQ(encode_unchecked(base_params()), driver_bytes()); }

TEST(Decode, ReportsEveryUnexplainedBitAndNeverDropsIt) {
  auto m = driver_bytes();
  m.set_bits(100 * 8 + 3, 1, 1);  // byte 100: reserved
  m.set_bits(58 * 8, 8, 0x11);    // byte 58: boxDim[3], past rank 3
  const auto d = decode(m);
  EXPECT_TRUE(d.has_unexplained_bits());
  EXPECT_FALSE(d.round_trips());
  EXPECT_EQ(d.unexplained.byte(100), 0x08);
  EXPECT_EQ(d.unexplained.byte(58), 0x11);
  EXPECT_EQ(d.unexplained.byte(57), 0x00);  // boxDim[2] is a field of this map
  const std::string text = decode_text(m);
  EXPECT_NE(text.find("unexplained bits"), std::string::npos);
  EXPECT_NE(text.find("58"), std::string::npos);
  EXPECT_NE(text.find("100"), std::string::npos);
}

TEST(Decode, FlagsDerivedFieldsThatDisagreeWithTheParameters) {
  auto m = driver_bytes();
  m.set_bits(512, 64, 4096);  // boxBytes should be 8192
  const auto d = decode(m);
  EXPECT_FALSE(d.derived_consistent);
  EXPECT_FALSE(d.round_trips());
}

TEST(Decode, Im2colCornersAreSignedAndRankDependent) {
  TensorMapParams p;
  p.kind = MapKind::im2col;
  p.dtype = DataType::float16;
  p.rank = 5;
  for (int i = 0; i < 5; ++i) p.dims[i] = 16 + i;
  p.strides[0] = 64, p.strides[1] = 64 * 17, p.strides[2] = 64 * 17 * 18, p.strides[3] = 64 * 17 * 18 * 19;
  p.lower[0] = -16, p.lower[1] = -3, p.lower[2] = 15;
  p.upper[0] = 1, p.upper[1] = -1, p.upper[2] = 0;
  p.channels = 32, p.pixels = 1024;
  const auto d = decode(encode_unchecked(p));
  EXPECT_EQ(d.params.kind, MapKind::im2col);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(d.params.lower[i], p.lower[i]) << i;
    EXPECT_EQ(d.params.upper[i], p.upper[i]) << i;
  }
  EXPECT_EQ(d.params.pixels, 1024u);
  EXPECT_EQ(d.stored_box_bytes, 32u * 1024 * 2);
}

TEST(Decode, UnknownElementTypeCodeIsReportedNotGuessed) {
  auto m = driver_bytes();
  m.set_bits(71, 4, 15);  // no type has code 15
  const auto d = decode(m);
  EXPECT_FALSE(d.dtype_known);
  EXPECT_EQ(d.elem_code, 15u);
  EXPECT_FALSE(d.round_trips());
}

TEST(Decode, SaysWhatACopyDelivers) {
  auto p = base_params();
  EXPECT_NE(decode_text(encode_unchecked(p)).find("a copy delivers 8192 B"), std::string::npos);
  p.elem_strides[1] = 3;  // 32 rows at stride 3: 11 rows delivered, the stored field says 10
  const std::string text = decode_text(encode_unchecked(p));
  EXPECT_NE(text.find("a copy delivers " + std::to_string(64 * 2 * 11 * 2) + " B"), std::string::npos) << text;
  EXPECT_NE(text.find("not the boxBytes field (" + std::to_string(64 * 2 * 10 * 2) + " B): elementStrides[1] = 3 does "
                      "not divide boxDim[1] = 32"), std::string::npos) << text;
}

// A packed type's boxBytes counted at its global width (as an encoder that forgets the 8-byte gaps
// of 16U4_ALIGN16B writes it): the note names the type's width, not the element strides.
TEST(Decode, BoxBytesOfAPackedTypeCountedPackedBlamesTheType) {
  TensorMapParams p = base_params();
  p.dtype = DataType::u4x16_align16b;
  p.arch = Arch::sm_100;
  p.swizzle = Swizzle::none;
  p.box[0] = 128;
  p.dims[0] = 256;
  TensorMapBytes m = encode_unchecked(p);
  const std::uint64_t driver = box_bytes(p);
  m.set_bits(64 * 8, 64, driver / 2);  // the stored boxBytes field, at 4 bits per value
  const std::string text = decode_text(m);
  EXPECT_NE(text.find("not the boxBytes field (" + std::to_string(driver / 2) + " B): the driver stores " +
                      std::to_string(driver) + " B for these fields; " + std::to_string(driver / 2) +
                      " B is the box counted at 4 bits per value"), std::string::npos) << text;
  const std::size_t note = text.find("a copy delivers");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_EQ(text.substr(note, text.find('\n', note) - note).find("elementStrides"), std::string::npos) << text;
}

TEST(Decode, InterleaveThreeIsReportedNotNamed) {
  // Found by fuzz/fuzz_decode.cpp: interleave bits = 3 (no CUtensorMapInterleave) must not abort decode_text.
  auto m = driver_bytes();
  m.set_bits(75, 2, 3);
  const auto d = decode(m);
  EXPECT_FALSE(d.interleave_known);
  EXPECT_FALSE(d.round_trips());
  const std::string text = decode_text(m);
  EXPECT_NE(text.find("unknown value 3"), std::string::npos) << text;
  EXPECT_NE(text.find("encode(decode(x)) == x: no"), std::string::npos) << text;
  EXPECT_FALSE(diff(driver_bytes(), m).empty());
}

TEST(Decode, BlackwellOnlyFieldsDecodeAndAreMarkedUnverified) {
  auto p = base_params();
  p.arch = Arch::sm_100;
  p.swizzle = Swizzle::b128_atom_64b;
  p.dtype = DataType::u4x16_align16b;
  const auto m = encode_unchecked(p);
  const auto d = decode(m);
  EXPECT_EQ(d.params.swizzle, Swizzle::b128_atom_64b);
  EXPECT_EQ(d.params.dtype, DataType::u4x16_align16b);
  EXPECT_EQ(d.params.arch, Arch::sm_100);
  bool marked = false;
  for (const auto& f : describe_fields(m, d))
    if (f.name == "swizzleAtomicity") marked = f.unverified;
  EXPECT_TRUE(marked);
}

// decode --json's "params" is the encode --jsonl schema, arch included: an sm_100 map (packed type,
// 128B_ATOM swizzle) re-encodes to the same bytes.
TEST(Decode, JsonParamsOfAnSm100MapReEncode) {
  auto p = base_params();
  p.arch = Arch::sm_100;
  p.swizzle = Swizzle::b128_atom_32b;
  p.dtype = DataType::u4x16_align8b;
  p.dims[0] = 128;
  p.strides[0] = 128;
  p.strides[1] = 12800;
  p.box[0] = 128;
  const EncodeResult r = encode(p);
  ASSERT_TRUE(r.ok());
  const nlohmann::json j = decode_json(r.map);
  EXPECT_EQ(j["params"]["arch"], "sm_100") << j["params"].dump();
  std::string line;
  EXPECT_TRUE(jsonl::process_line(j["params"].dump(), line)) << j["params"].dump() << "\n" << line;
  const nlohmann::json out = nlohmann::json::parse(line);
  EXPECT_EQ(out["bytes"], jsonl::to_hex(r.map)) << line;
}

// The JSON keys come in a fixed order (what the CLI prints; other tools read it): written as the
// ordered_json they are built in, not re-sorted (nlohmann::json would sort them).
TEST(DecodeJson, KeysKeepTheirOrder) {
  const auto a = driver_bytes();
  const std::string d = json_text(decode_json(a));
  EXPECT_EQ(d.rfind("{\"kind\":\"tiled\",\"rank\":", 0), 0u) << d.substr(0, 80);
  EXPECT_LT(d.find("\"globalAddress\""), d.find("\"globalDim\"")) << "fields in descriptor order";
  auto b = a;
  b.set_bits(77, 2, 2);  // swizzle 64B
  const std::string x = json_text(diff_json(a, b));
  EXPECT_EQ(x.rfind("{\"identical\":false,\"differences\":[{\"field\":", 0), 0u) << x.substr(0, 80);
}

TEST(Diff, AttributesEveryDifferingByte) {
  const auto a = driver_bytes();
  auto b = a;
  b.set_bits(77, 2, 2);      // swizzle 64B
  b.set_bits(288, 32, 199);  // globalDim[1] = 200
  b.set_byte(100, 0x07);     // reserved
  const auto d = diff(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name, "swizzle");
  EXPECT_EQ(d[0].a, "128B");
  EXPECT_EQ(d[0].b, "64B");
  EXPECT_EQ(d[1].name, "globalDim[1]");
  EXPECT_EQ(d[1].a, "100");
  EXPECT_EQ(d[1].b, "200");
  EXPECT_EQ(d[2].name, "reserved");
  EXPECT_EQ(d[2].byte_offsets, std::vector<int>{100});
  EXPECT_TRUE(diff(a, a).empty());
  EXPECT_EQ(diff_text(a, a), "identical\n");
}

TEST(Diff, EveryDifferingByteIsAccountedFor) {
  // Random flips: the union of attributed byte offsets is exactly the set of differing bytes.
  const auto a = driver_bytes();
  std::uint64_t s = 12345;
  for (int t = 0; t < 500; ++t) {
    auto b = a;
    for (int k = 0; k < 4; ++k) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      b.set_bits(int((s >> 33) % 1024), 1, ~b.bits(int((s >> 33) % 1024), 1));
    }
    std::set<int> want, got;
    for (int i = 0; i < 128; ++i)
      if (a.byte(i) != b.byte(i)) want.insert(i);
    for (const auto& f : diff(a, b)) got.insert(f.byte_offsets.begin(), f.byte_offsets.end());
    ASSERT_EQ(want, got) << "trial " << t;
  }
}

TEST(Codec, WorksAtCompileTime) {
  constexpr auto m = encode_unchecked(base_params());
  static_assert(decode(m).params.box[1] == 32);
  static_assert(decode(m).round_trips());
  static_assert(m.words[8] == 8192);
  SUCCEED();
}

TEST(ParseHex, AcceptsSeparatorsAndRefusesWrongLengths) {
  TensorMapBytes m;
  std::string err;
  EXPECT_TRUE(parse_hex(std::string("0x") + kDriverHex, m, &err));
  EXPECT_FALSE(parse_hex("abcd", m, &err));
  EXPECT_NE(err.find("256 hex digits"), std::string::npos);
  EXPECT_FALSE(parse_hex(std::string(kDriverHex).replace(5, 1, "g"), m, &err));
  // The separators the README lists (whitespace, ':', '-') are ignored; others, such as ',', are not.
  std::string sep;
  for (int i = 0; i < 128; ++i) sep += std::string(i % 2 ? ":" : "- ") + std::string(kDriverHex).substr(2 * i, 2);
  EXPECT_TRUE(parse_hex(sep, m, &err)) << err;
  EXPECT_EQ(m, driver_bytes());
  EXPECT_FALSE(parse_hex(std::string(kDriverHex).insert(2, ","), m, &err));
  EXPECT_NE(err.find("hex digit"), std::string::npos) << err;
}

}  // namespace

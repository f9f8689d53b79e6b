// Names of the tensor-map enums: every name and alias parses, canonical names round-trip, unknown
// names are refused with the valid names listed.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "tmakit/tensor_map/names.hpp"

using namespace tmakit;

namespace {

constexpr NameSet kAllSets[] = {NameSet::data_type, NameSet::interleave, NameSet::swizzle, NameSet::l2_promotion,
                                NameSet::oob_fill,  NameSet::wide_mode,  NameSet::arch,    NameSet::map_kind};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Each canonical name of every set that has a cuda.h prefix, spelled as `spell(prefix, name)`,
// parses to its value (and, `lower_too`, in lower case as well).
template <class Spell>
void expect_every_canonical_parses(Spell spell, bool lower_too) {
  for (NameSet set : kAllSets) {
    const std::string prefix = cuda_prefix(set);
    if (prefix.empty()) continue;
    for (const NameEntry& e : name_entries(set)) {
      if (!e.canonical) continue;
      const std::string text = spell(prefix, std::string(e.name));
      for (const std::string& t : lower_too ? std::vector<std::string>{text, lower(text)} : std::vector<std::string>{text}) {
        std::uint32_t v = 999;
        EXPECT_TRUE(parse_name(set, t, v)) << t;
        EXPECT_EQ(v, e.value) << t;
      }
    }
  }
}

}  // namespace

TEST(Names, EveryEntryParsesInAnyCase) {
  for (NameSet set : kAllSets) {
    ASSERT_FALSE(name_entries(set).empty());
    for (const NameEntry& e : name_entries(set)) {
      for (const std::string& text : {std::string(e.name), upper(e.name), lower(e.name)}) {
        std::uint32_t v = 12345;
        EXPECT_TRUE(parse_name(set, text, v)) << set_description(set) << " " << text;
        EXPECT_EQ(v, e.value) << text;
      }
    }
  }
}

TEST(Names, CanonicalNamesRoundTripAndAreUnique) {
  for (NameSet set : kAllSets) {
    std::set<std::uint32_t> values;
    for (const NameEntry& e : name_entries(set)) {
      if (!e.canonical) continue;
      EXPECT_TRUE(values.insert(e.value).second) << "two canonical names for " << e.value;
      ASSERT_NE(canonical_name(set, e.value), nullptr);
      EXPECT_STREQ(canonical_name(set, e.value), e.name);
    }
    // Every alias names a value that has a canonical name.
    for (const NameEntry& e : name_entries(set)) EXPECT_TRUE(values.count(e.value)) << e.name;
  }
}

TEST(Names, FullCudaSpellingsAccepted) {
  expect_every_canonical_parses([](const std::string& prefix, const std::string& name) { return prefix + name; }, true);
  DataType t{};
  EXPECT_TRUE(parse_name("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", t));
  EXPECT_EQ(t, DataType::bfloat16);
  L2Promotion l{};
  EXPECT_TRUE(parse_name("CU_TENSOR_MAP_L2_PROMOTION_L2_256B", l));
  EXPECT_EQ(l, L2Promotion::b256);
  OobFill o{};
  EXPECT_TRUE(parse_name("CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA", o));
  EXPECT_EQ(o, OobFill::nan_request_zero_fma);
  Im2colWideMode m{};
  EXPECT_TRUE(parse_name("CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128", m));
  EXPECT_EQ(m, Im2colWideMode::w128);
}

// cuda.core's enum members: the cuda.h names without CU_TENSOR_MAP_ (TensorMapSwizzle.SWIZZLE_128B,
// TensorMapInterleave.INTERLEAVE_16B), or the cuda.h suffix where the rest is the suffix itself.
TEST(Names, CudaCoreMemberNamesAccepted) {
  expect_every_canonical_parses(
      [](const std::string& prefix, const std::string& name) {
        return prefix.substr(std::string("CU_TENSOR_MAP_").size()) + name;
      },
      false);
  Swizzle s{};
  EXPECT_TRUE(parse_name("SWIZZLE_128B", s));
  EXPECT_EQ(s, Swizzle::b128);
  Interleave i{};
  EXPECT_TRUE(parse_name("interleave_16b", i));
  EXPECT_EQ(i, Interleave::b16);
  EXPECT_FALSE(parse_name("SWIZZLE_", s));
  std::string error;
  EXPECT_FALSE(parse_name("SWIZZLE_96B", s, &error));
  EXPECT_NE(error.find("the CU_TENSOR_MAP_SWIZZLE_ or SWIZZLE_ prefix is optional"), std::string::npos) << error;
}

TEST(Names, DataTypeCanonicalNamesMatchCudaH) {
  const char* expected[] = {"UINT8",       "UINT16",   "UINT32",       "INT32",        "UINT64",        "INT64",
                            "FLOAT16",     "FLOAT32",  "FLOAT64",      "BFLOAT16",     "FLOAT32_FTZ",   "TFLOAT32",
                            "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};
  ASSERT_EQ(std::size(expected), kDataTypeCount);
  for (std::uint32_t i = 0; i < kDataTypeCount; ++i) {
    EXPECT_STREQ(name_of(static_cast<DataType>(i)), expected[i]);
    DataType t{};
    ASSERT_TRUE(parse_name(expected[i], t));
    EXPECT_EQ(static_cast<std::uint32_t>(t), i);
  }
}

TEST(Names, DataTypeAliases) {
  const std::pair<const char*, DataType> cases[] = {
      {"u8", DataType::uint8},        {"u16", DataType::uint16},          {"u32", DataType::uint32},
      {"s32", DataType::int32},       {"i32", DataType::int32},           {"u64", DataType::uint64},
      {"s64", DataType::int64},       {"i64", DataType::int64},           {"f16", DataType::float16},
      {"fp16", DataType::float16},    {"half", DataType::float16},        {"f32", DataType::float32},
      {"fp32", DataType::float32},    {"float", DataType::float32},       {"f64", DataType::float64},
      {"fp64", DataType::float64},    {"double", DataType::float64},      {"bf16", DataType::bfloat16},
      {"BF16", DataType::bfloat16},   {"f32_ftz", DataType::float32_ftz}, {"f32-ftz", DataType::float32_ftz},
      {"tf32", DataType::tfloat32},   {"tf32_ftz", DataType::tfloat32_ftz},
      {"u4_align8b", DataType::u4x16_align8b},   {"u4x16_align8b", DataType::u4x16_align8b},
      {"u4_align16b", DataType::u4x16_align16b}, {"u6_align16b", DataType::u6x16_align16b},
      {"16u4_align8b", DataType::u4x16_align8b}, {" bf16 ", DataType::bfloat16},
      // what users call the sub-byte floats, where one TMA type fits; PyTorch's FP8 names
      {"nvfp4", DataType::u4x16_align8b},         {"NVFP4", DataType::u4x16_align8b},
      {"fp6", DataType::u6x16_align16b},          {"e3m2", DataType::u6x16_align16b},
      {"e2m3", DataType::u6x16_align16b},         {"mxfp6", DataType::u6x16_align16b},
      {"float8_e4m3fn", DataType::uint8},         {"float8_e5m2", DataType::uint8},
      {"float8_e8m0fnu", DataType::uint8},
  };
  for (const auto& [text, want] : cases) {
    DataType t{};
    EXPECT_TRUE(parse_name(text, t)) << text;
    EXPECT_EQ(t, want) << text;
  }
}

// core/dtype.hpp short_name is the one table of short names: each parses back to its type, and
// short_dtype_name prints it (the cuda.h name for the types without one).
TEST(Names, ShortNamesParseBack) {
  int with_short = 0;
  for (std::uint32_t v = 0; v < kDataTypeCount; ++v) {
    const auto t = static_cast<DataType>(v);
    DataType back{};
    if (const char* s = short_name(t)) {
      ++with_short;
      EXPECT_TRUE(parse_name(s, back)) << s;
      EXPECT_EQ(back, t) << s;
      EXPECT_EQ(short_dtype_name(t), s);
    } else {
      EXPECT_EQ(short_dtype_name(t), to_name(t));
    }
    EXPECT_TRUE(parse_name(short_dtype_name(t), back)) << short_dtype_name(t);
    EXPECT_EQ(back, t) << short_dtype_name(t);
  }
  EXPECT_EQ(with_short, 13);
  EXPECT_EQ(short_dtype_name(DataType::float32), "f32");
}

TEST(Names, OtherEnums) {
  Interleave il{};
  EXPECT_TRUE(parse_name("32b", il));
  EXPECT_EQ(il, Interleave::b32);
  Swizzle sw{};
  EXPECT_TRUE(parse_name("128B_ATOM_32B_FLIP_8B", sw));
  EXPECT_EQ(sw, Swizzle::b128_atom_32b_flip_8b);
  EXPECT_TRUE(parse_name("128b-atom-64b", sw));
  EXPECT_EQ(sw, Swizzle::b128_atom_64b);
  L2Promotion l2{};
  EXPECT_TRUE(parse_name("128B", l2));
  EXPECT_EQ(l2, L2Promotion::b128);
  EXPECT_TRUE(parse_name("l2_64b", l2));
  EXPECT_EQ(l2, L2Promotion::b64);
  OobFill oob{};
  EXPECT_TRUE(parse_name("nan", oob));
  EXPECT_EQ(oob, OobFill::nan_request_zero_fma);
  Im2colWideMode m{};
  EXPECT_TRUE(parse_name("w128", m));
  EXPECT_EQ(m, Im2colWideMode::w128);
  Arch a{};
  for (const char* s : {"sm_90", "sm_90a", "90", "SM_90A"}) {
    EXPECT_TRUE(parse_name(s, a)) << s;
    EXPECT_EQ(a, Arch::sm_90);
  }
  for (const char* s : {"sm_100", "sm_100a", "100"}) {
    EXPECT_TRUE(parse_name(s, a)) << s;
    EXPECT_EQ(a, Arch::sm_100);
  }
  for (const char* s : {"sm_120", "sm_120a", "120"}) {
    EXPECT_TRUE(parse_name(s, a)) << s;
    EXPECT_EQ(a, Arch::sm_120);
  }
  MapKind k{};
  EXPECT_TRUE(parse_name("im2col-wide", k));
  EXPECT_EQ(k, MapKind::im2col_wide);
  EXPECT_TRUE(parse_name("TILED", k));
  EXPECT_EQ(k, MapKind::tiled);
}

TEST(Names, PrintingGivesTheCudaSuffix) {
  EXPECT_STREQ(name_of(DataType::bfloat16), "BFLOAT16");
  EXPECT_STREQ(name_of(Interleave::b16), "16B");
  EXPECT_STREQ(name_of(Swizzle::b128_atom_32b), "128B_ATOM_32B");
  EXPECT_STREQ(name_of(L2Promotion::b256), "L2_256B");
  EXPECT_STREQ(name_of(OobFill::nan_request_zero_fma), "NAN_REQUEST_ZERO_FMA");
  EXPECT_STREQ(name_of(Im2colWideMode::w), "W");
  EXPECT_STREQ(name_of(Arch::sm_100), "sm_100");
  EXPECT_STREQ(name_of(MapKind::im2col_wide), "im2col_wide");
}

TEST(Names, OutOfRangeValuesPrintAsIntegers) {
  EXPECT_EQ(name_of(static_cast<DataType>(99)), nullptr);
  EXPECT_EQ(to_name(static_cast<DataType>(99)), "99");
  EXPECT_EQ(to_name(static_cast<Swizzle>(7)), "7");
  EXPECT_EQ(to_name(Swizzle::b64), "64B");
  EXPECT_EQ(name_of(static_cast<Arch>(80)), nullptr);
}

TEST(Names, UnknownNamesRefusedWithTheValidNames) {
  std::string why;
  DataType t = DataType::float32;
  EXPECT_FALSE(parse_name("bf17", t, &why));
  EXPECT_EQ(t, DataType::float32) << "a refused parse leaves the output alone";
  EXPECT_NE(why.find("'bf17'"), std::string::npos) << why;
  EXPECT_NE(why.find("BFLOAT16"), std::string::npos) << why;
  EXPECT_NE(why.find("bf16"), std::string::npos) << why;

  Swizzle sw{};
  EXPECT_FALSE(parse_name("256B", sw, &why));
  EXPECT_NE(why.find("128B_ATOM_64B"), std::string::npos) << why;
  EXPECT_NE(why.find("swizzle"), std::string::npos) << why;

  for (NameSet set : kAllSets) {
    std::uint32_t v = 0;
    EXPECT_FALSE(parse_name(set, "", v));
    EXPECT_FALSE(parse_name(set, "nonsense", v));
    EXPECT_FALSE(parse_name(set, std::string(cuda_prefix(set)), v));
    EXPECT_FALSE(parse_name(set, std::string("x\0y", 3), v, &why));
  }
  // Names of one set are not accepted in another, and integers are not names.
  Interleave il{};
  EXPECT_FALSE(parse_name("128B", il));
  EXPECT_FALSE(parse_name("1", il));
  Arch a{};
  EXPECT_FALSE(parse_name("sm_80", a, &why));
  EXPECT_NE(why.find("sm_120"), std::string::npos) << why;
}

// The 4-bit float names that fit both 4-bit TMA types are refused with both, never guessed.
TEST(Names, AmbiguousFp4NamesAreRefusedWithBothChoices) {
  for (const char* text : {"fp4", "E2M1", "mxfp4", "float4_e2m1fn_x2", "f4e2m1"}) {
    std::string why;
    DataType t = DataType::float32;
    EXPECT_FALSE(parse_name(text, t, &why)) << text;
    EXPECT_EQ(t, DataType::float32) << text;
    EXPECT_EQ(why.rfind("ambiguous data type '" + std::string(text) + "': 4-bit e2m1", 0), 0u) << why;
    EXPECT_NE(why.find("16U4_ALIGN8B (packed in shared memory"), std::string::npos) << why;
    EXPECT_NE(why.find("16U4_ALIGN16B (each 8 bytes followed by 8 bytes of gap"), std::string::npos) << why;
    EXPECT_NE(why.find("name one: 16U4_ALIGN8B or 16U4_ALIGN16B"), std::string::npos) << why;
  }
}

TEST(Names, ErrorMessagesAreSafeForControlCharacters) {
  std::string why;
  DataType t{};
  EXPECT_FALSE(parse_name("\x1b[31mred", t, &why));
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  EXPECT_FALSE(parse_name(std::string(1000, 'a'), t, &why));
  EXPECT_LT(why.size(), 1000u);
}

// Names of the tensor-map enums (see tmakit/tensor_map/names.hpp).
#include "tmakit/tensor_map/names.hpp"

#include <cstdio>
#include <array>
#include <cctype>
#include <limits>
#include <utility>

#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {

// The alias row of a type's short name.
constexpr NameEntry short_alias(DataType t) { return {short_name(t), static_cast<std::uint32_t>(t), false}; }

constexpr NameEntry kDataType[] = {
    {"UINT8", 0, true},
    {"UINT16", 1, true},
    {"UINT32", 2, true},
    {"INT32", 3, true},
    {"UINT64", 4, true},
    {"INT64", 5, true},
    {"FLOAT16", 6, true},
    {"FLOAT32", 7, true},
    {"FLOAT64", 8, true},
    {"BFLOAT16", 9, true},
    {"FLOAT32_FTZ", 10, true},
    {"TFLOAT32", 11, true},
    {"TFLOAT32_FTZ", 12, true},
    {"16U4_ALIGN8B", 13, true},
    {"16U4_ALIGN16B", 14, true},
    {"16U6_ALIGN16B", 15, true},
    // The short names (core/dtype.hpp short_name), then the other aliases.
    short_alias(DataType::uint8),
    short_alias(DataType::uint16),
    short_alias(DataType::uint32),
    short_alias(DataType::int32),
    {"i32", 3, false},
    short_alias(DataType::uint64),
    short_alias(DataType::int64),
    {"i64", 5, false},
    short_alias(DataType::float16),
    {"fp16", 6, false},
    {"half", 6, false},
    short_alias(DataType::float32),
    {"fp32", 7, false},
    {"float", 7, false},
    short_alias(DataType::float64),
    {"fp64", 8, false},
    {"double", 8, false},
    short_alias(DataType::bfloat16),
    short_alias(DataType::float32_ftz),
    {"fp32_ftz", 10, false},
    short_alias(DataType::tfloat32),
    short_alias(DataType::tfloat32_ftz),
    // 1-byte types TMA copies as UINT8 (it has no FP8 or signed 8-bit type; the bytes are moved as they are)
    {"fp8", 0, false},
    {"e4m3", 0, false},
    {"e5m2", 0, false},
    {"f8e4m3", 0, false},
    {"f8e5m2", 0, false},
    {"s8", 0, false},
    {"i8", 0, false},
    {"int8", 0, false},
    {"u4_align8b", 13, false},
    {"u4x16_align8b", 13, false},
    {"u4_align16b", 14, false},
    {"u4x16_align16b", 14, false},
    {"u6_align16b", 15, false},
    {"u6x16_align16b", 15, false},
    // PyTorch's 1-byte float types, moved as UINT8 like the FP8 names above
    {"float8_e4m3fn", 0, false},
    {"float8_e5m2", 0, false},
    {"float8_e4m3fnuz", 0, false},
    {"float8_e5m2fnuz", 0, false},
    {"float8_e8m0fnu", 0, false},
    // The names users give the packed sub-byte floats where one TMA type fits each (cuda.h,
    // cuTensorMapEncodeTiled): NVFP4 is read packed (16U4_ALIGN8B: no gaps in shared memory), as
    // tcgen05.mma kind::mxf4nvf4 takes it (PTX ISA; Blackwell, not run here); every 6-bit float is
    // 16U6_ALIGN16B, the only 6-bit type.
    // The ambiguous 4-bit names (fp4, e2m1, mxfp4, float4_e2m1fn_x2) are refused with both choices
    // (kAmbiguousDataTypes below).
    {"nvfp4", 13, false},
    {"fp6", 15, false},
    {"e3m2", 15, false},
    {"e2m3", 15, false},
    {"mxfp6", 15, false},
};

// 4-bit float names that fit two TMA types: which one depends on how the MMA reads shared memory.
constexpr const char* kAmbiguousDataTypes[] = {"fp4", "e2m1", "mxfp4", "float4_e2m1fn_x2", "f4e2m1"};
constexpr const char* kAmbiguousFp4Why =
    "4-bit e2m1, which TMA copies as 16U4_ALIGN8B (packed in shared memory, as tcgen05.mma kind::mxf4 and "
    "kind::mxf4nvf4 read it) or as 16U4_ALIGN16B (each 8 bytes followed by 8 bytes of gap, as kind::f8f6f4 and "
    "kind::mxf8f6f4 read it beside 6- and 8-bit operands); the global tensor is packed either way";

constexpr NameEntry kInterleave[] = {
    {"NONE", 0, true},
    {"16B", 1, true},
    {"32B", 2, true},
};

// The swizzle-mode table's names (tensor_map/swizzle_modes.hpp), in value order; no aliases.
template <std::size_t... V>
constexpr std::array<NameEntry, sizeof...(V)> swizzle_names(std::index_sequence<V...>) {
  return {NameEntry{swizzle_mode_row(static_cast<Swizzle>(V)).name, static_cast<std::uint32_t>(V), true}...};
}
constexpr auto kSwizzle = swizzle_names(std::make_index_sequence<kSwizzleCount>{});

constexpr NameEntry kL2[] = {
    {"NONE", 0, true},
    {"L2_64B", 1, true},
    {"L2_128B", 2, true},
    {"L2_256B", 3, true},
    {"64B", 1, false},
    {"128B", 2, false},
    {"256B", 3, false},
};

constexpr NameEntry kOob[] = {
    {"NONE", 0, true},
    {"NAN_REQUEST_ZERO_FMA", 1, true},
    {"nan", 1, false},
};

constexpr NameEntry kWideMode[] = {
    {"W", 0, true},
    {"W128", 1, true},
};

constexpr NameEntry kArch[] = {
    {"sm_90", 90, true},
    {"sm_100", 100, true},
    {"sm_120", 120, true},
    {"sm_90a", 90, false},
    {"90", 90, false},
    {"90a", 90, false},
    {"sm_100a", 100, false},
    {"100", 100, false},
    {"100a", 100, false},
    {"sm_120a", 120, false},
    {"120", 120, false},
    {"120a", 120, false},
};

constexpr NameEntry kMapKind[] = {
    {"tiled", 0, true},
    {"im2col", 1, true},
    {"im2col_wide", 2, true},
};

// Same spelling up to case, with '-' taken as '_'.
bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto norm = [](char c) {
      if (c == '-') return '_';
      return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    };
    if (norm(a[i]) != norm(b[i])) return false;
  }
  return true;
}

template <class E>
bool parse_enum(NameSet set, std::string_view text, E& out, std::string* error) {
  std::uint32_t v = 0;
  if (!parse_name(set, text, v, error)) return false;
  out = static_cast<E>(v);
  return true;
}

}  // namespace

namespace {

bool parse_magnitude(std::string_view t, std::uint64_t& out) {
  if (t.empty()) return false;
  unsigned base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  std::uint64_t v = 0;
  for (char c : t) {
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return false;
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / base) return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

}  // namespace

bool parse_u64(std::string_view text, std::uint64_t& out) { return parse_magnitude(trim_space(text), out); }

bool parse_i64(std::string_view text, std::int64_t& out) {
  std::string_view t = trim_space(text);
  const bool neg = !t.empty() && t[0] == '-';
  if (neg) t.remove_prefix(1);
  std::uint64_t m = 0;
  if (!parse_magnitude(t, m)) return false;
  constexpr std::uint64_t kMaxPos = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (neg) {
    if (m > kMaxPos + 1) return false;
    out = m == kMaxPos + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(m);
  } else {
    if (m > kMaxPos) return false;
    out = static_cast<std::int64_t>(m);
  }
  return true;
}

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string hex_text(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string quote_user_text(std::string_view s) {
  std::string out = "'";
  const std::size_t cap = 64;
  for (std::size_t i = 0; i < s.size() && i < cap; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f) {  // control characters and every non-ASCII byte
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > cap) out += "...";
  out += "'";
  return out;
}

std::string indexed_name(std::string_view name, int index) {
  std::string f(name);
  if (index >= 0) f += "[" + std::to_string(index) + "]";
  return f;
}

std::span<const NameEntry> name_entries(NameSet set) noexcept {
  switch (set) {
    case NameSet::data_type: return kDataType;
    case NameSet::interleave: return kInterleave;
    case NameSet::swizzle: return kSwizzle;
    case NameSet::l2_promotion: return kL2;
    case NameSet::oob_fill: return kOob;
    case NameSet::wide_mode: return kWideMode;
    case NameSet::arch: return kArch;
    case NameSet::map_kind: return kMapKind;
  }
  return {};
}

// What every cuda_prefix() starts with.
constexpr std::string_view kCudaEnumPrefix = "CU_TENSOR_MAP_";

const char* cuda_prefix(NameSet set) noexcept {
  switch (set) {
    case NameSet::data_type: return "CU_TENSOR_MAP_DATA_TYPE_";
    case NameSet::interleave: return "CU_TENSOR_MAP_INTERLEAVE_";
    case NameSet::swizzle: return "CU_TENSOR_MAP_SWIZZLE_";
    case NameSet::l2_promotion: return "CU_TENSOR_MAP_L2_PROMOTION_";
    case NameSet::oob_fill: return "CU_TENSOR_MAP_FLOAT_OOB_FILL_";
    case NameSet::wide_mode: return "CU_TENSOR_MAP_IM2COL_WIDE_MODE_";
    case NameSet::arch: return "";
    case NameSet::map_kind: return "";
  }
  return "";
}

const char* set_description(NameSet set) noexcept {
  switch (set) {
    case NameSet::data_type: return "data type";
    case NameSet::interleave: return "interleave";
    case NameSet::swizzle: return "swizzle";
    case NameSet::l2_promotion: return "L2 promotion";
    case NameSet::oob_fill: return "OOB fill";
    case NameSet::wide_mode: return "im2col-wide mode";
    case NameSet::arch: return "architecture";
    case NameSet::map_kind: return "map kind";
  }
  return "?";
}

std::string valid_names(NameSet set) {
  std::string canon, alias;
  for (const NameEntry& e : name_entries(set)) {
    std::string& dst = e.canonical ? canon : alias;
    if (!dst.empty()) dst += ", ";
    dst += e.name;
  }
  std::string out = "valid: " + canon;
  if (!alias.empty()) out += "; aliases: " + alias;
  const std::string_view prefix = cuda_prefix(set);
  if (!prefix.empty()) {
    out += " (case-insensitive; the ";
    out += prefix;
    out += " or ";
    out += prefix.substr(kCudaEnumPrefix.size());
    out += " prefix is optional)";
  } else {
    out += " (case-insensitive)";
  }
  return out;
}

bool parse_name(NameSet set, std::string_view text, std::uint32_t& value, std::string* error) {
  std::string_view t = trim_space(text);
  const std::string_view prefix = cuda_prefix(set);
  if (!prefix.empty() && t.size() > prefix.size() && same_name(t.substr(0, prefix.size()), prefix)) {
    t.remove_prefix(prefix.size());
  } else if (!prefix.empty()) {
    // The cuda.h name without CU_TENSOR_MAP_, as cuda.core's enums spell some members
    // (TensorMapSwizzle.SWIZZLE_128B, TensorMapInterleave.INTERLEAVE_16B).
    const std::string_view short_prefix = prefix.substr(kCudaEnumPrefix.size());
    if (t.size() > short_prefix.size() && same_name(t.substr(0, short_prefix.size()), short_prefix))
      t.remove_prefix(short_prefix.size());
  }
  if (!t.empty()) {
    for (const NameEntry& e : name_entries(set)) {
      if (same_name(t, e.name)) {
        value = e.value;
        return true;
      }
    }
  }
  if (error) {
    *error = std::string("unknown ") + set_description(set) + " " + quote_user_text(text) + "; " + valid_names(set);
    if (set == NameSet::data_type)
      for (const char* a : kAmbiguousDataTypes)
        if (same_name(t, a))
          *error = std::string("ambiguous ") + set_description(set) + " " + quote_user_text(text) + ": " + kAmbiguousFp4Why +
                   "; name one: 16U4_ALIGN8B or 16U4_ALIGN16B (nvfp4 is 16U4_ALIGN8B)";
  }
  return false;
}

bool parse_name(std::string_view t, DataType& o, std::string* e) { return parse_enum(NameSet::data_type, t, o, e); }
bool parse_name(std::string_view t, Interleave& o, std::string* e) { return parse_enum(NameSet::interleave, t, o, e); }
bool parse_name(std::string_view t, Swizzle& o, std::string* e) { return parse_enum(NameSet::swizzle, t, o, e); }
bool parse_name(std::string_view t, L2Promotion& o, std::string* e) { return parse_enum(NameSet::l2_promotion, t, o, e); }
bool parse_name(std::string_view t, OobFill& o, std::string* e) { return parse_enum(NameSet::oob_fill, t, o, e); }
bool parse_name(std::string_view t, Im2colWideMode& o, std::string* e) { return parse_enum(NameSet::wide_mode, t, o, e); }
bool parse_name(std::string_view t, Arch& o, std::string* e) { return parse_enum(NameSet::arch, t, o, e); }
bool parse_name(std::string_view t, MapKind& o, std::string* e) { return parse_enum(NameSet::map_kind, t, o, e); }

const char* canonical_name(NameSet set, std::uint32_t value) noexcept {
  for (const NameEntry& e : name_entries(set))
    if (e.canonical && e.value == value) return e.name;
  return nullptr;
}

const char* name_of(DataType v) noexcept { return canonical_name(NameSet::data_type, static_cast<std::uint32_t>(v)); }
const char* name_of(Interleave v) noexcept { return canonical_name(NameSet::interleave, static_cast<std::uint32_t>(v)); }
const char* name_of(Swizzle v) noexcept { return canonical_name(NameSet::swizzle, static_cast<std::uint32_t>(v)); }
const char* name_of(L2Promotion v) noexcept { return canonical_name(NameSet::l2_promotion, static_cast<std::uint32_t>(v)); }
const char* name_of(OobFill v) noexcept { return canonical_name(NameSet::oob_fill, static_cast<std::uint32_t>(v)); }
const char* name_of(Im2colWideMode v) noexcept { return canonical_name(NameSet::wide_mode, static_cast<std::uint32_t>(v)); }
const char* name_of(Arch v) noexcept { return canonical_name(NameSet::arch, static_cast<std::uint32_t>(v)); }
const char* name_of(MapKind v) noexcept { return canonical_name(NameSet::map_kind, static_cast<std::uint32_t>(v)); }

std::string short_dtype_name(DataType t) {
  const char* s = short_name(t);
  return s ? s : to_name(t);
}

}  // namespace tmakit

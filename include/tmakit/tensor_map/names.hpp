// Names of every tensor-map enum: parsing (CLI options, JSONL strings) and printing (host only).
//
// Parsing is case-insensitive, treats '-' like '_', and accepts the full cuda.h spelling
// (CU_TENSOR_MAP_SWIZZLE_128B), that spelling without CU_TENSOR_MAP_ (SWIZZLE_128B, as cuda.core's
// enum members are named), the cuda.h suffix (128B) and a few documented aliases (bf16, nan,
// 64B for L2_64B, ...). Printing gives the canonical name: the cuda.h suffix for the CUtensorMap*
// enums ("BFLOAT16", "128B_ATOM_32B", "L2_64B", "NAN_REQUEST_ZERO_FMA", "W128"), "sm_90" for Arch
// and "tiled" / "im2col" / "im2col_wide" for MapKind.
//
// Accepted spellings (besides the canonical names and the cuda.h spellings):
//   DataType    u8 uint8 fp8 e4m3 e5m2 f8e4m3 f8e5m2 s8 i8 int8 (TMA moves every 1-byte type as UINT8) |
//               u16 uint16 | u32 uint32 | s32 i32 int32 | u64 uint64 | s64 i64 int64 |
//               f16 fp16 half float16 | f32 fp32 float float32 | f64 fp64 double float64 |
//               bf16 bfloat16 | f32_ftz fp32_ftz float32_ftz | tf32 tfloat32 | tf32_ftz tfloat32_ftz |
//               u4_align8b u4x16_align8b nvfp4 | u4_align16b u4x16_align16b |
//               u6_align16b u6x16_align16b fp6 e3m2 e2m3 mxfp6 | PyTorch's float8_* (as u8);
//               fp4, e2m1, mxfp4 and float4_e2m1fn_x2 fit both 4-bit types: refused, naming both
//   Interleave  NONE 16B 32B
//   Swizzle     NONE 32B 64B 128B 128B_ATOM_32B 128B_ATOM_32B_FLIP_8B 128B_ATOM_64B
//   L2Promotion NONE, L2_64B 64B, L2_128B 128B, L2_256B 256B
//   OobFill     NONE, NAN_REQUEST_ZERO_FMA nan
//   Im2colWideMode W W128
//   Arch        sm_90 sm_90a 90 90a | sm_100 sm_100a 100 100a | sm_120 sm_120a 120 120a
//   MapKind     tiled | im2col | im2col_wide (im2col-wide)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

// The enums that have names.
enum class NameSet : std::uint32_t {
  data_type,
  interleave,
  swizzle,
  l2_promotion,
  oob_fill,
  wide_mode,
  arch,
  map_kind,
};

// One accepted spelling. `canonical` marks the one spelling printed for `value`.
struct NameEntry {
  const char* name;
  std::uint32_t value;
  bool canonical;
};

// Every accepted spelling of a set (canonical names first, in value order; then the aliases).
// The cuda.h-prefixed spellings are not listed: they are the canonical name plus `cuda_prefix(set)`.
std::span<const NameEntry> name_entries(NameSet set) noexcept;

// "CU_TENSOR_MAP_DATA_TYPE_", ... ("" for Arch and MapKind, which have no cuda.h enum).
const char* cuda_prefix(NameSet set) noexcept;

// What the set is called in messages ("data type", "swizzle", ...).
const char* set_description(NameSet set) noexcept;

// "valid: UINT8, UINT16, ...; aliases: u8, ..." for error messages.
std::string valid_names(NameSet set);

// Parses `text` in `set`. On failure returns false and, when `error` is not null, stores a message
// that names the text and lists the valid names.
bool parse_name(NameSet set, std::string_view text, std::uint32_t& value, std::string* error = nullptr);

bool parse_name(std::string_view text, DataType& out, std::string* error = nullptr);
bool parse_name(std::string_view text, Interleave& out, std::string* error = nullptr);
bool parse_name(std::string_view text, Swizzle& out, std::string* error = nullptr);
bool parse_name(std::string_view text, L2Promotion& out, std::string* error = nullptr);
bool parse_name(std::string_view text, OobFill& out, std::string* error = nullptr);
bool parse_name(std::string_view text, Im2colWideMode& out, std::string* error = nullptr);
bool parse_name(std::string_view text, Arch& out, std::string* error = nullptr);
bool parse_name(std::string_view text, MapKind& out, std::string* error = nullptr);

// The canonical name of `value` in `set`, or nullptr when the value is outside the enum.
const char* canonical_name(NameSet set, std::uint32_t value) noexcept;

// Canonical name, or nullptr for a value outside the enum (e.g. DataType(99)).
const char* name_of(DataType v) noexcept;
const char* name_of(Interleave v) noexcept;
const char* name_of(Swizzle v) noexcept;
const char* name_of(L2Promotion v) noexcept;
const char* name_of(OobFill v) noexcept;
const char* name_of(Im2colWideMode v) noexcept;
const char* name_of(Arch v) noexcept;
const char* name_of(MapKind v) noexcept;

// Canonical name, or the decimal value for a value outside the enum ("99").
template <class E>
std::string to_name(E v) {
  const char* n = name_of(v);
  return n ? std::string(n) : std::to_string(static_cast<std::uint32_t>(v));
}

// The short name kernel authors write (core/dtype.hpp short_name: "bf16", "f32", "u8"), or
// to_name's cuda.h spelling for the types without one ("16U4_ALIGN8B"). parse_name reads both.
std::string short_dtype_name(DataType t);

// "globalDim[1]" for index >= 0, "swizzle" for index < 0: a field name as messages print it.
std::string indexed_name(std::string_view name, int index);

// Helpers for messages about user-supplied text (parse_name's, the CLI's):
// `s` without leading and trailing whitespace;
std::string_view trim_space(std::string_view s);
// `s` in single quotes, control characters and non-ASCII bytes escaped (\xNN: a terminal never gets
// a raw byte of the user's text), cut after 64 characters ("...").
std::string quote_user_text(std::string_view s);

// An address or bit pattern as the messages print it: 0x followed by lowercase hex digits.
std::string hex_text(std::uint64_t v);

// Number parsing for user text (the CLI, the plan notation): decimal or 0x/0X hex, no sign for
// unsigned, optional '-' for signed; the whole text must be consumed and the value must fit.
// Leading/trailing spaces are ignored.
bool parse_u64(std::string_view text, std::uint64_t& out);
bool parse_i64(std::string_view text, std::int64_t& out);

}  // namespace tmakit

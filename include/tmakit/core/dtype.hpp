// Element types a tensor map can describe: the values of CUDA 13.0's CUtensorMapDataType.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// Values equal the cuda.h integers. Out-of-range values can be held (inputs are checked by validate).
enum class DataType : std::uint32_t {
  uint8 = 0,
  uint16 = 1,
  uint32 = 2,
  int32 = 3,
  uint64 = 4,
  int64 = 5,
  float16 = 6,
  float32 = 7,
  float64 = 8,
  bfloat16 = 9,
  float32_ftz = 10,
  tfloat32 = 11,
  tfloat32_ftz = 12,
  u4x16_align8b = 13,   // CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B: 16 x 4-bit values packed in 8 bytes
  u4x16_align16b = 14,  // CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B: 16 x 4-bit values in 16 bytes (8 B gaps)
  u6x16_align16b = 15,  // CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B: 16 x 6-bit values in 16 bytes (4 B gaps)
};

inline constexpr std::uint32_t kDataTypeCount = 16;

TMAKIT_HD constexpr bool is_valid(DataType t) { return static_cast<std::uint32_t>(t) < kDataTypeCount; }

// Bits one element occupies in global memory (4 and 6 for the packed sub-byte types); 0 when invalid.
TMAKIT_HD constexpr std::uint32_t element_bits(DataType t) {
  switch (t) {
    case DataType::uint8: return 8;
    case DataType::uint16: case DataType::float16: case DataType::bfloat16: return 16;
    case DataType::uint32: case DataType::int32: case DataType::float32: case DataType::float32_ftz:
    case DataType::tfloat32: case DataType::tfloat32_ftz: return 32;
    case DataType::uint64: case DataType::int64: case DataType::float64: return 64;
    case DataType::u4x16_align8b: case DataType::u4x16_align16b: return 4;
    case DataType::u6x16_align16b: return 6;
  }
  return 0;
}

// True for the packed 16-value sub-byte types (the driver refuses them on sm_90).
TMAKIT_HD constexpr bool is_packed(DataType t) {
  return t == DataType::u4x16_align8b || t == DataType::u4x16_align16b || t == DataType::u6x16_align16b;
}

// The short name of a type as kernel authors write it (u8, s32, bf16, tf32, ...), a string literal
// usable in device code (the watchdog's ledger) and in the plan notation; nullptr for the packed
// types, which have no short name (names.hpp's to_name gives the cuda.h spelling of every type).
TMAKIT_HD constexpr const char* short_name(DataType t) {
  switch (t) {
    case DataType::uint8: return "u8";
    case DataType::uint16: return "u16";
    case DataType::uint32: return "u32";
    case DataType::int32: return "s32";
    case DataType::uint64: return "u64";
    case DataType::int64: return "s64";
    case DataType::float16: return "f16";
    case DataType::float32: return "f32";
    case DataType::float64: return "f64";
    case DataType::bfloat16: return "bf16";
    case DataType::float32_ftz: return "f32_ftz";
    case DataType::tfloat32: return "tf32";
    case DataType::tfloat32_ftz: return "tf32_ftz";
    default: return nullptr;
  }
}

// True for the types CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA may be used with.
TMAKIT_HD constexpr bool is_floating_point(DataType t) {
  switch (t) {
    case DataType::float16: case DataType::float32: case DataType::float64: case DataType::bfloat16:
    case DataType::float32_ftz: case DataType::tfloat32: case DataType::tfloat32_ftz: return true;
    default: return false;
  }
}

}  // namespace tmakit

// Every argument of cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col / cuTensorMapEncodeIm2colWide,
// plus the target architecture. Enum values equal the cuda.h integers; out-of-range values can be
// held so that validate() can report them.
#pragma once

#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"

namespace tmakit {

inline constexpr std::uint32_t kMaxRank = 5;

enum class MapKind : std::uint32_t { tiled = 0, im2col = 1, im2col_wide = 2 };
inline constexpr std::uint32_t kMapKindCount = 3;

enum class Interleave : std::uint32_t { none = 0, b16 = 1, b32 = 2 };
inline constexpr std::uint32_t kInterleaveCount = 3;

// The facts about each swizzle mode (names, map bits, span, byte pattern, alignment): the table in
// swizzle_modes.hpp.
enum class Swizzle : std::uint32_t {
  none = 0,
  b32 = 1,                // CU_TENSOR_MAP_SWIZZLE_32B: 16 B chunks within a 32 B span
  b64 = 2,                // CU_TENSOR_MAP_SWIZZLE_64B
  b128 = 3,               // CU_TENSOR_MAP_SWIZZLE_128B
  b128_atom_32b = 4,      // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B: 32 B chunks within 128 B
  b128_atom_32b_flip_8b = 5,  // ..._128B_ATOM_32B_FLIP_8B
  b128_atom_64b = 6,      // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B
};
inline constexpr std::uint32_t kSwizzleCount = 7;

enum class L2Promotion : std::uint32_t { none = 0, b64 = 1, b128 = 2, b256 = 3 };
inline constexpr std::uint32_t kL2PromotionCount = 4;

enum class OobFill : std::uint32_t { none = 0, nan_request_zero_fma = 1 };
inline constexpr std::uint32_t kOobFillCount = 2;

enum class Im2colWideMode : std::uint32_t { w = 0, w128 = 1 };
inline constexpr std::uint32_t kIm2colWideModeCount = 2;

// The parameters of one tensor map. Arrays hold `rank` meaningful entries (strides: rank - 1,
// in bytes, for dims 1..rank-1, exactly as the driver takes them). For im2col, lower/upper hold
// rank - 2 spatial offsets ({D, H, W} order as in cuda.h); for im2col_wide, only lower[0]/upper[0]
// (the W offsets). `box` is used by tiled maps only; channels/pixels by im2col kinds only.
// Aligned to 64 bytes: the 192 bytes are exactly three cache lines, which encode_many reads with
// three 64-byte loads (arrays of parameters not so aligned encode measurably slower:
// docs/lab/encode_2026-11-22.md, 2026-11-22 12:43).
struct alignas(64) TensorMapParams {
  MapKind kind = MapKind::tiled;
  Arch arch = Arch::sm_90;
  DataType dtype = DataType::uint8;
  std::uint32_t rank = 1;
  std::uint64_t address = 0;
  std::uint64_t dims[kMaxRank] = {};
  std::uint64_t strides[kMaxRank - 1] = {};
  std::uint32_t box[kMaxRank] = {};
  std::uint32_t elem_strides[kMaxRank] = {1, 1, 1, 1, 1};
  Interleave interleave = Interleave::none;
  Swizzle swizzle = Swizzle::none;
  L2Promotion l2 = L2Promotion::none;
  OobFill oob = OobFill::none;
  // im2col / im2col_wide
  std::int32_t lower[kMaxRank - 2] = {};
  std::int32_t upper[kMaxRank - 2] = {};
  std::uint32_t channels = 0;
  std::uint32_t pixels = 0;
  Im2colWideMode wide_mode = Im2colWideMode::w;
};
static_assert(sizeof(TensorMapParams) == 192, "three cache lines");

}  // namespace tmakit

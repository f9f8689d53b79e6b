// Where each field lives in the 1024-bit tensor map: the one table encode, decode and diff share.
//
// Read off the CUDA driver's output on sm_90 (H200, driver 580.159.04): the model below reproduces
// every byte of ~125,000 accepted driver encodings (tiled, im2col, im2col-wide); see
// docs/tensor_map_format.md. Bit 0 is bit 0 of byte 0; words are little-endian.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::tmap_fields {

struct BitRange {
  int lo;
  int width;
};

// Word 0: the global address, all 64 bits as given.
inline constexpr BitRange kAddress{0, 64};
// Word 1, bits 0..31: the mode word.
inline constexpr BitRange kIm2colFlag{64, 1};   // 1 for im2col and im2col-wide maps
inline constexpr BitRange kRankMinus1{68, 3};
inline constexpr BitRange kElemTypeCode{71, 4};  // hardware element-type code (see hw_elem_code)
inline constexpr BitRange kInterleave{75, 2};
inline constexpr BitRange kSwizzle{77, 2};       // the mode (hw_swizzle_mode)
inline constexpr BitRange kOobNan{79, 1};        // OOB fill with NaN-request-zero-FMA
inline constexpr BitRange kTf32Round{80, 1};     // the f32 types round to tf32
inline constexpr BitRange kL2Promotion{81, 2};
// Swizzle atomicity of the 128B_ATOM_* modes (sm_100+; hw_swizzle_atomicity) and the third
// swizzle-mode bit (PTX swizzle_mode 4, "96B", which cuda.h has no value for). Read off the SASS
// that ptxas emits for tensormap.replace.swizzle_atomicity / .swizzle_mode on sm_100a (a masked
// read-modify-write of word 1); no Blackwell driver output confirms them here.
inline constexpr BitRange kSwizzleAtomicity{83, 3};
inline constexpr BitRange kSwizzleMode96B{86, 1};
// Word 1 bits 32..63 and words 2..3: global strides in 16-byte units, 36 bits each: bits 0..31 at
// 96 + 32*i, bits 32..35 at 224 + 4*i (i = 0..3, for dims 1..4).
TMAKIT_HD constexpr BitRange stride_lo(int i) { return {96 + 32 * i, 32}; }
TMAKIT_HD constexpr BitRange stride_hi(int i) { return {224 + 4 * i, 4}; }
// Words 4..6: global dims minus one, 32 bits each.
TMAKIT_HD constexpr BitRange dim_minus1(int i) { return {256 + 32 * i, 32}; }
// Word 6 bits 32..46: element strides minus one, 3 bits each.
TMAKIT_HD constexpr BitRange elem_stride_minus1(int i) { return {416 + 3 * i, 3}; }
// Tiled: box dims minus one, 8 bits each, from word 6 byte 7.
TMAKIT_HD constexpr BitRange box_minus1(int i) { return {440 + 8 * i, 8}; }
// Im2col: channels per pixel minus one (where box[0] sits for tiled maps), the pixel box corners
// as two's-complement fields whose width depends on the rank (rank 3: one 16-bit, rank 4: two
// 8-bit, rank 5: three 5-bit offsets), lower corner from bit 448, upper corner from bit 464, and
// pixels per column minus one.
inline constexpr BitRange kChannelsMinus1{440, 8};
TMAKIT_HD constexpr int corner_bits(std::uint32_t rank) { return rank == 3 ? 16 : rank == 4 ? 8 : 5; }
// The corner range those fields hold, [-corner_limit, corner_limit - 1] (validate's im2col corner rule).
TMAKIT_HD constexpr std::int32_t corner_limit(std::uint32_t rank) { return std::int32_t{1} << (corner_bits(rank) - 1); }
inline constexpr BitRange kLowerCorners{448, 16};  // the lower-corner block, every rank
inline constexpr BitRange kUpperCorners{464, 16};  // the upper-corner block
TMAKIT_HD constexpr BitRange lower_corner(std::uint32_t rank, int i) {
  return {kLowerCorners.lo + corner_bits(rank) * i, corner_bits(rank)};
}
TMAKIT_HD constexpr BitRange upper_corner(std::uint32_t rank, int i) {
  return {kUpperCorners.lo + corner_bits(rank) * i, corner_bits(rank)};
}
inline constexpr BitRange kPixelsMinus1{480, 10};
// Derived fields the driver fills after byte 63.
inline constexpr BitRange kBoxBytes{512, 64};        // box bytes as the driver counts them (derived.hpp)
inline constexpr BitRange kSmemAlignment{576, 64};   // shared-memory alignment the swizzle needs

// The hardware element-type code in kElemTypeCode, and whether kTf32Round is set. Codes 0..10 and
// the tf32 bit were read off the driver, and tensormap.replace.elemtype on an H200 writes the same
// (PTX tf32 = 11 -> code 7 + tf32 bit). The packed sub-byte types (sm_100+) take codes 11..13: read
// off the SASS of tensormap.replace.elemtype 13/14/15 for sm_100a; no Blackwell driver output
// confirms them here.
TMAKIT_HD constexpr std::uint32_t hw_elem_code(DataType t) {
  switch (t) {
    case DataType::uint8: return 0;
    case DataType::uint16: return 1;
    case DataType::uint32: return 2;
    case DataType::int32: return 3;
    case DataType::uint64: return 4;
    case DataType::int64: return 5;
    case DataType::float16: return 6;
    case DataType::float32: return 7;
    case DataType::float32_ftz: return 8;
    case DataType::float64: return 9;
    case DataType::bfloat16: return 10;
    case DataType::tfloat32: return 7;      // float32 + tf32 rounding
    case DataType::tfloat32_ftz: return 8;  // float32_ftz + tf32 rounding
    case DataType::u4x16_align8b: return 11;
    case DataType::u4x16_align16b: return 12;
    case DataType::u6x16_align16b: return 13;
  }
  return 0;
}
TMAKIT_HD constexpr bool hw_tf32_round(DataType t) {
  return t == DataType::tfloat32 || t == DataType::tfloat32_ftz;
}
// Inverse of the two above; returns false for a code no type produces.
TMAKIT_HD constexpr bool data_type_from_hw(std::uint32_t code, bool tf32, DataType& out) {
  for (std::uint32_t v = 0; v < kDataTypeCount; ++v) {
    const auto t = static_cast<DataType>(v);
    if (hw_elem_code(t) == code && hw_tf32_round(t) == tf32) {
      out = t;
      return true;
    }
  }
  return false;
}

// The values kSwizzle and kSwizzleAtomicity hold for a swizzle mode (the swizzle-mode table's
// hw_mode and hw_atomicity; swizzle_from_hw() is the inverse).
TMAKIT_HD constexpr std::uint32_t hw_swizzle_mode(Swizzle s) { return swizzle_column<SwizzleColumn::hw_mode>(s); }
TMAKIT_HD constexpr std::uint32_t hw_swizzle_atomicity(Swizzle s) {
  return swizzle_column<SwizzleColumn::hw_atomicity>(s);
}

// Every named field, for decode's "unexplained bits" and diff's attribution. `field`/`index` say
// which input parameter a range belongs to (index -1: scalar); `name` is the field's name in the
// descriptor (for parameters, the cuda.h parameter name).
struct NamedRange {
  const char* name;
  Field field;
  int index;
  BitRange bits;
};

inline constexpr int kMaxNamedRanges = 48;

// The ranges that carry meaning in a descriptor of this kind (im2col or tiled) and rank (1..5),
// written to out[0..n); returns n. Bits outside all of them are reserved (always zero in driver
// output).
TMAKIT_HD constexpr int named_ranges(bool im2col, std::uint32_t rank, NamedRange* out) {
  int n = 0;
  if (rank < 1) rank = 1;
  if (rank > 5) rank = 5;
  out[n++] = {"globalAddress", Field::globalAddress, -1, kAddress};
  out[n++] = {"im2col", Field::kind, -1, kIm2colFlag};
  out[n++] = {"tensorRank", Field::tensorRank, -1, kRankMinus1};
  out[n++] = {"tensorDataType", Field::tensorDataType, -1, kElemTypeCode};
  out[n++] = {"interleave", Field::interleave, -1, kInterleave};
  out[n++] = {"swizzle", Field::swizzle, -1, kSwizzle};
  out[n++] = {"oobFill", Field::oobFill, -1, kOobNan};
  out[n++] = {"tf32Rounding", Field::tensorDataType, -1, kTf32Round};
  out[n++] = {"l2Promotion", Field::l2Promotion, -1, kL2Promotion};
  out[n++] = {"swizzleAtomicity", Field::swizzle, -1, kSwizzleAtomicity};
  out[n++] = {"swizzleMode96B", Field::swizzle, -1, kSwizzleMode96B};
  for (int i = 0; i + 1 < int(rank); ++i) {
    out[n++] = {"globalStrides", Field::globalStrides, i, stride_lo(i)};
    out[n++] = {"globalStrides", Field::globalStrides, i, stride_hi(i)};
  }
  for (int i = 0; i < int(rank); ++i) out[n++] = {"globalDim", Field::globalDim, i, dim_minus1(i)};
  for (int i = 0; i < int(rank); ++i) out[n++] = {"elementStrides", Field::elementStrides, i, elem_stride_minus1(i)};
  if (!im2col) {
    for (int i = 0; i < int(rank); ++i) out[n++] = {"boxDim", Field::boxDim, i, box_minus1(i)};
  } else {
    out[n++] = {"channelsPerPixel", Field::channelsPerPixel, -1, kChannelsMinus1};
    for (int i = 0; i + 2 < int(rank); ++i)
      out[n++] = {"pixelBoxLowerCorner", Field::pixelBoxLowerCorner, i, lower_corner(rank, i)};
    for (int i = 0; i + 2 < int(rank); ++i)
      out[n++] = {"pixelBoxUpperCorner", Field::pixelBoxUpperCorner, i, upper_corner(rank, i)};
    out[n++] = {"pixelsPerColumn", Field::pixelsPerColumn, -1, kPixelsMinus1};
  }
  out[n++] = {"boxBytes", Field::none, -1, kBoxBytes};
  out[n++] = {"smemAlignment", Field::none, -1, kSmemAlignment};
  return n;
}

}  // namespace tmakit::tmap_fields

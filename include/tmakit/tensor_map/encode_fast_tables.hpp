// The fast path's tables and bit positions, shared by its forms: encode_fast_portable
// (encode_fast.hpp) and the host library's SIMD forms (src/tensor_map/: encode_fast_sse2,
// encode_fast_avx512 and its block form). Every entry is computed at compile time from the
// functions validate() and encode_unchecked() use (dtype.hpp, bit_fields.hpp, derived.hpp, rules.hpp);
// every bit position comes from tmap_fields. constexpr, host and device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace tmakit {

namespace fast_detail {

namespace L = tmap_fields;

// Called where a compile-time table or position would be wrong: not constexpr, so constant
// evaluation stops there with a compile error naming it.
inline void table_is_wrong() {}

// Position of a field inside its 64-bit word; a compile error if it lies elsewhere.
constexpr int shift_in(L::BitRange r, int word) {
  if (r.lo / 64 != word || r.lo % 64 + r.width > 64) table_is_wrong();
  return r.lo % 64;
}

// Where the hand-packed words put each field (a compile error if bit_fields.hpp ever moves one).
inline constexpr int kRankShift = shift_in(L::kRankMinus1, 1);
inline constexpr int kTypeShift = shift_in(L::kElemTypeCode, 1);
inline constexpr int kTf32Shift = shift_in(L::kTf32Round, 1);
inline constexpr int kOobShift = shift_in(L::kOobNan, 1);
inline constexpr int kL2Shift = shift_in(L::kL2Promotion, 1);
inline constexpr int kSwizzleShift = shift_in(L::kSwizzle, 1);
inline constexpr int kAtomicityShift = shift_in(L::kSwizzleAtomicity, 1);
static_assert(L::kIm2colFlag.lo == 64 && L::kInterleave.lo / 64 == 1 && L::kSwizzleMode96B.lo / 64 == 1,
              "the other mode bits (zero in the domain) are in word 1 too");
static_assert(L::kL2Promotion.lo + L::kL2Promotion.width <= 96, "mode bits: word 1 low half");
static_assert(L::stride_lo(0).lo == 96 && L::stride_lo(1).lo == 128 && L::stride_lo(2).lo == 160 &&
                  L::stride_lo(3).lo == 192 && L::stride_lo(0).width == 32,
              "stride low bits: word 1 high half, word 2, word 3 low half");
static_assert(L::stride_hi(0).lo == 224 && L::stride_hi(1).lo == 228 && L::stride_hi(3).lo == 236 &&
                  L::stride_hi(0).width == 4,
              "stride high nibbles: word 3 bits 32..47");
static_assert(L::dim_minus1(0).lo == 256 && L::dim_minus1(4).lo == 384 && L::dim_minus1(0).width == 32,
              "dims: words 4..6, 32 bits each");
static_assert(shift_in(L::elem_stride_minus1(0), 6) == 32 && shift_in(L::elem_stride_minus1(4), 6) == 44,
              "element strides - 1 (0 in the domain): word 6");
inline constexpr int kBox0Shift = shift_in(L::box_minus1(0), 6);
static_assert(kBox0Shift == 56 && shift_in(L::box_minus1(1), 7) == 0 && L::box_minus1(4).lo == L::box_minus1(1).lo + 24,
              "box 0: word 6 top byte; boxes 1..4: word 7 bytes 0..3");
static_assert(L::kBoxBytes.lo == 8 * 64 && L::kSmemAlignment.lo == 9 * 64 && L::kPixelsMinus1.lo < 512,
              "derived fields: words 8 and 9; words 10..15 zero");

inline constexpr std::uint64_t kReject = std::uint64_t{1} << 63;  // table entries: not encodable here

// The tables are indexed by (value & mask); a value with bits outside its mask is out of range
// (out_of_index_range; the SSE2 form tests the same masks four at a time).
inline constexpr std::uint32_t kTypeMask = 15, kSwizzleMask = 7, kRankMask = 7, kArchOffsetMask = 31;
inline constexpr std::uint32_t kL2Mask = kL2PromotionCount - 1, kOobMask = kOobFillCount - 1;
static_assert(kDataTypeCount <= kTypeMask + 1 && kSwizzleCount <= kSwizzleMask + 1 && kMaxRank <= kRankMask &&
              (kL2PromotionCount & kL2Mask) == 0 && (kOobFillCount & kOobMask) == 0);
inline constexpr std::uint64_t kLow32 = 0xffffffffu;
// A 32-bit vector lane holding the bits outside an index mask (the SSE2 and AVX-512 forms test them).
constexpr int outside(std::uint32_t mask) { return static_cast<int>(~mask); }

// Per (oobFill & 1, dataType & 15): the bits of descriptor word 1 (element code, tf32 rounding,
// NaN fill) in bits 0..31, the element bytes in bits 32..35, kReject for the packed types and for a
// NaN fill of a non-float type.
TMAKIT_HD constexpr std::uint64_t type_entry(std::uint32_t oob, std::uint32_t t) {
  const auto type = static_cast<DataType>(t);
  if (!is_valid(type) || is_packed(type) || (oob && !is_floating_point(type))) return kReject;
  return std::uint64_t{L::hw_elem_code(type)} << kTypeShift | std::uint64_t{L::hw_tf32_round(type)} << kTf32Shift |
         std::uint64_t{oob} << kOobShift | std::uint64_t{element_bits(type) / 8} << 32;
}

// Architectures as table rows: sm_90, sm_100, sm_120, 3 for anything else (rejected).
inline constexpr std::uint32_t kArchRows = 4;
TMAKIT_HD constexpr std::uint32_t arch_row(std::uint32_t arch) {
  switch (static_cast<Arch>(arch)) {
    case Arch::sm_90: return 0;
    case Arch::sm_100: return 1;
    case Arch::sm_120: return 2;
  }
  return 3;
}
TMAKIT_HD constexpr Arch row_arch(std::uint32_t row) {
  return row == 0 ? Arch::sm_90 : row == 1 ? Arch::sm_100 : Arch::sm_120;
}
static_assert(arch_row(90) == 0 && arch_row(100) == 1 && arch_row(120) == 2 && row_arch(arch_row(120)) == Arch::sm_120);

// Per (arch row, swizzle & 7): the swizzle's bits of descriptor word 1 (mode, atomicity) and
// kReject (no such architecture, swizzle value 7, a 128B_ATOM swizzle on sm_90); the row a box may
// fill (bytes; none: no limit), the descriptor's alignment field, the architecture's shared memory.
struct SwizzleEntry {
  std::uint64_t word1;
  std::uint32_t smem_limit;
  std::uint16_t max_row_bytes;
  std::uint16_t alignment;
};
TMAKIT_HD constexpr SwizzleEntry swizzle_entry(std::uint32_t row, std::uint32_t s) {
  if (row >= kArchRows - 1 || s >= kSwizzleCount) return {kReject, 0, 0, 0};
  const auto sw = static_cast<Swizzle>(s);
  const auto arch = row_arch(row);
  const bool allowed = !(arch == Arch::sm_90 && L::hw_swizzle_atomicity(sw) != 0);  // validate(): atom needs sm_100
  return {std::uint64_t{L::hw_swizzle_mode(sw)} << kSwizzleShift |
              std::uint64_t{L::hw_swizzle_atomicity(sw)} << kAtomicityShift | (allowed ? 0 : kReject),
          static_cast<std::uint32_t>(smem_limit_bytes(arch)),
          static_cast<std::uint16_t>(sw == Swizzle::none ? 0xffffu : swizzle_span_bytes(sw)),
          static_cast<std::uint16_t>(smem_alignment(sw))};
}

// Per rank & 7: which entries the rank uses (all ones) and ignores (zero). dims[i] and
// strides[i - 1] share mask dim[i]; box and elementStrides use the 32-bit lanes (lane 4 is the low
// half of dim[4]). word1: the rank's bits of descriptor word 1, kReject for ranks 0, 6 and 7.
struct alignas(64) RankEntry {
  std::uint64_t dim[kMaxRank];
  std::uint64_t word1;
  std::uint32_t lane[4];
};
TMAKIT_HD constexpr RankEntry rank_entry(std::uint32_t rank) {
  RankEntry e{};
  for (std::uint32_t i = 0; i < kMaxRank; ++i) e.dim[i] = i < rank ? ~std::uint64_t{0} : 0;
  for (std::uint32_t i = 0; i < 4; ++i) e.lane[i] = i < rank ? ~std::uint32_t{0} : 0;
  e.word1 = rank >= 1 && rank <= kMaxRank ? std::uint64_t{rank - 1} << kRankShift : kReject;
  return e;
}

// Host code reads the entries from tables (one load each); device code computes them.
struct Tables {
  std::uint64_t type[kOobMask + 1][kTypeMask + 1];
  SwizzleEntry swizzle[kArchRows][kSwizzleMask + 1];
  RankEntry rank[kRankMask + 1];
  std::uint8_t arch_row[kArchOffsetMask + 1];  // by (arch - 90) & kArchOffsetMask
};
constexpr Tables make_tables() {
  Tables t{};
  for (std::uint32_t o = 0; o <= kOobMask; ++o)
    for (std::uint32_t d = 0; d <= kTypeMask; ++d) t.type[o][d] = type_entry(o, d);
  for (std::uint32_t r = 0; r < kArchRows; ++r)
    for (std::uint32_t s = 0; s <= kSwizzleMask; ++s) t.swizzle[r][s] = swizzle_entry(r, s);
  for (std::uint32_t r = 0; r <= kRankMask; ++r) t.rank[r] = rank_entry(r);
  for (std::uint32_t a = 0; a <= kArchOffsetMask; ++a) t.arch_row[a] = static_cast<std::uint8_t>(arch_row(90 + a));
  return t;
}
alignas(64) inline constexpr Tables kTables = make_tables();

TMAKIT_HD constexpr std::uint64_t type_of(std::uint32_t oob, std::uint32_t dtype) {
#if defined(__CUDA_ARCH__)
  return type_entry(oob & kOobMask, dtype & kTypeMask);
#else
  return kTables.type[oob & kOobMask][dtype & kTypeMask];
#endif
}
// arch_offset = arch - 90 (mod 2^32); offsets above kArchOffsetMask are rejected by the caller.
TMAKIT_HD constexpr SwizzleEntry swizzle_of(std::uint32_t arch_offset, std::uint32_t swizzle) {
#if defined(__CUDA_ARCH__)
  return swizzle_entry(arch_row(90 + (arch_offset & kArchOffsetMask)), swizzle & kSwizzleMask);
#else
  return kTables.swizzle[kTables.arch_row[arch_offset & kArchOffsetMask]][swizzle & kSwizzleMask];
#endif
}
TMAKIT_HD constexpr RankEntry rank_of(std::uint32_t rank) {
#if defined(__CUDA_ARCH__)
  return rank_entry(rank & kRankMask);
#else
  return kTables.rank[rank & kRankMask];
#endif
}

inline constexpr std::uint64_t kStrideBadBits = ~((std::uint64_t{1} << 40) - 1) | 15;   // >= 2^40 or % 16
// Its two 32-bit halves, for the vector forms' 32-bit lanes.
inline constexpr int kStrideBadLo = static_cast<int>(kStrideBadBits & kLow32);
inline constexpr int kStrideBadHi = static_cast<int>(kStrideBadBits >> 32);
inline constexpr std::uint64_t kAddressBadBits = ~((std::uint64_t{1} << 57) - 1) | 15;  // >= 2^57 or % 16

// Values the table indices drop: kind and interleave (must be 0), and every bit of dataType,
// rank, swizzle, l2Promotion and oobFill outside its mask (arch: arch_out_of_range).
TMAKIT_HD constexpr std::uint64_t out_of_index_range(const TensorMapParams& p) {
  return static_cast<std::uint32_t>(p.kind) | static_cast<std::uint32_t>(p.interleave) |
         (static_cast<std::uint32_t>(p.dtype) & ~kTypeMask) | (p.rank & ~kRankMask) |
         (static_cast<std::uint32_t>(p.swizzle) & ~kSwizzleMask) | (static_cast<std::uint32_t>(p.l2) & ~kL2Mask) |
         (static_cast<std::uint32_t>(p.oob) & ~kOobMask);
}
TMAKIT_HD constexpr std::uint32_t arch_out_of_range(std::uint32_t arch_offset) { return arch_offset & ~kArchOffsetMask; }

}  // namespace fast_detail

}  // namespace tmakit

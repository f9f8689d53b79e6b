// The fast path 16 descriptors at a time (host x86-64 with AVX-512 VBMI; encode_many() uses it).
//
// encode_fast_avx512 spends about two thirds of its time on the rules that need table lookups or
// products (element type, swizzle per architecture, rank, the row and the shared-memory
// footprint), one map at a time. Here those rules run once per block, in 16 lanes:
//   pass 1, per map: the range rules of encode_fast_avx512 (three vectors, one test), words 0..7
//     with one byte permutation (mode bits and stride nibbles left zero), and a 16-byte summary
//     of the fields the other rules need (arch, dataType, rank, box - 1, swizzle, l2, oobFill,
//     the strides' high bytes), gathered into four vectors;
//   pass 2, per block: a 16 x 16 byte transpose of the summaries into one vector per field, the
//     table rules as 32-entry lookups, the row and footprint rules, the mode bits, the nibbles;
//   pass 3, per map: mode bits, nibbles, footprint and alignment written; refused maps zeroed.
// Same decisions and bytes as encode_fast_portable on every input (tests/test_encode_fast.cpp,
// EncodeMany tests).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tmakit/tensor_map/encode_fast.hpp"

#if TMAKIT_ENCODE_FAST_USES_AVX512

namespace tmakit {
namespace fast_block_detail {

namespace F = fast_detail;
namespace L = tmap_layout;

// Pass 2's tables: 32 entries of 32 bits, indexed by (oobFill & 1) << 4 | dataType & 15 and by
// arch row << 3 | swizzle & 7 (the entries of encode_fast.hpp's type_entry and swizzle_entry).
inline constexpr std::uint32_t kRejectBit = 1u << 31;
inline constexpr int kLog2BytesShift = 24;                   // type: log2(element bytes) in bits 24..25
inline constexpr std::uint32_t kModeBits = (1u << 23) - 1;   // descriptor bits 64..86
static_assert(L::kSwizzleMode96B.lo + 1 - 64 <= 23 && L::kSwizzleAtomicity.lo + L::kSwizzleAtomicity.width - 64 <= 23,
              "every mode bit of word 1 below bit 23 of its low half");
static_assert(smem_limit_bytes(Arch::sm_90) <= (1u << 24) && smem_limit_bytes(Arch::sm_100) <= (1u << 24) &&
                  smem_limit_bytes(Arch::sm_120) <= (1u << 24),
              "the footprint rule multiplies in floats, exact up to 2^24");

constexpr std::uint32_t log2_of(std::uint32_t v) {
  std::uint32_t r = 0;
  while (v > 1) v >>= 1, ++r;
  return r;
}

struct alignas(64) BlockTables {
  std::uint32_t type[32];       // word-1 bits, log2(element bytes) << 24, kRejectBit
  std::uint32_t swizzle[32];    // word-1 bits, kRejectBit
  float smem_limit[32];
  std::uint32_t max_row[32];    // 0xffff: no limit
  std::uint32_t alignment[32];
  std::uint32_t arch_row[32];   // by (arch - 90) & 31
};
constexpr BlockTables make_block_tables() {
  BlockTables t{};
  for (std::uint32_t o = 0; o < 2; ++o)
    for (std::uint32_t d = 0; d < 16; ++d) {
      const std::uint64_t e = F::type_entry(o, d);
      t.type[o << 4 | d] = (e & F::kReject) ? kRejectBit
                                           : static_cast<std::uint32_t>(e & F::kLow32) |
                                                 log2_of(static_cast<std::uint32_t>(e >> 32) & 15) << kLog2BytesShift;
    }
  for (std::uint32_t r = 0; r < F::kArchRows; ++r)
    for (std::uint32_t s = 0; s <= F::kSwizzleMask; ++s) {
      const F::SwizzleEntry e = F::swizzle_entry(r, s);
      const std::uint32_t i = r << 3 | s;
      t.swizzle[i] = (e.word1 & F::kReject) ? kRejectBit : static_cast<std::uint32_t>(e.word1 & F::kLow32);
      t.smem_limit[i] = static_cast<float>(e.smem_limit);
      t.max_row[i] = e.max_row_bytes;
      t.alignment[i] = e.alignment;
    }
  for (std::uint32_t a = 0; a <= F::kArchOffsetMask; ++a) t.arch_row[a] = F::arch_row(90 + a);
  return t;
}
static_assert(F::kArchRows * (F::kSwizzleMask + 1) == 32 && 2 * (F::kTypeMask + 1) == 32 && F::kArchOffsetMask == 31);
alignas(64) inline constexpr BlockTables kBlockTables = make_block_tables();

// Per rank & 7, the lanes of the three parameter vectors that the rank uses (all ones) or ignores
// (zero): a = bytes 0..63 (kind arch dtype rank address dims), b = 64..127 (strides, box,
// elementStrides 0..2), d = 88..151 (strides[3], box, elementStrides, interleave swizzle l2 oob).
// elementStrides are checked in d, strides in b.
struct alignas(64) RankLanes {
  std::uint64_t a[8];
  std::uint32_t b[16];
  std::uint32_t d[16];
};
constexpr RankLanes rank_lanes(std::uint32_t rank) {
  RankLanes m{};
  for (std::uint32_t i = 0; i < 8; ++i) m.a[i] = i < 3 || i - 3 < rank ? ~std::uint64_t{0} : 0;  // dims[i - 3]
  for (std::uint32_t i = 0; i < 8; ++i) m.b[i] = i / 2 + 1 < rank ? ~0u : 0;                     // strides[i / 2]
  for (std::uint32_t i = 8; i < 13; ++i) m.b[i] = i - 8 < rank ? ~0u : 0;                        // box
  for (std::uint32_t i = 7; i < 12; ++i) m.d[i] = i - 7 < rank ? ~0u : 0;                        // elementStrides
  for (std::uint32_t i = 12; i < 16; ++i) m.d[i] = ~0u;                                          // interleave .. oob
  return m;
}
struct RankLaneTable {
  RankLanes rank[8];
};
constexpr RankLaneTable make_rank_lanes() {
  RankLaneTable t{};
  for (std::uint32_t r = 0; r < 8; ++r) t.rank[r] = rank_lanes(r);
  return t;
}
alignas(64) inline constexpr RankLaneTable kRankLanes = make_rank_lanes();

// The summary: which byte of (checked, units2) each field's low byte is, in pass 1's terms.
enum SummaryField : int {
  kArchOffset, kType, kRank, kBox0Minus1, kSwizzle = kBox0Minus1 + 5, kL2, kOob, kStrideByte4, kFieldCount = kStrideByte4 + 4
};
inline constexpr char kSummarySource[kFieldCount] = {4,   8,   12,  96, 100, 104, 108, 112,   // arch - 90, dtype, rank, box - 1
                                                     116, 120, 124,                           // swizzle, l2, oob
                                                     68,  76,  84,  92};                      // strides[i] >> 4, byte 4
static_assert(kFieldCount <= 16);

struct alignas(64) ByteTables {
  char words[64];           // words 0..7 from (checked, units); mode bits and nibbles zero
  char summary[4][64];      // the summary into bytes 16q..16q+15
  std::uint32_t quarter[4][16];  // all ones in bytes 16q..16q+15
  std::uint32_t swizzle_l2_oob[16];  // all ones in the lanes of swizzle, l2 and oob (13..15)
  char transpose_lo[64], transpose_hi[64];  // pass 2, stage 1: fields 0..7 / 8..15 of 8 maps
  char field[8][64];        // pass 2, stage 2: one field of 16 maps into the low bytes of 16 lanes
  std::uint32_t words89[4][16];  // pass 2: footprint and alignment of maps 4q..4q+3 into words 8, 9
};
constexpr ByteTables make_byte_tables() {
  ByteTables t{};
  for (int i = 0; i < 64; ++i) t.words[i] = F::kWordBytes[i];
  for (int i = 28; i < 32; ++i) t.words[i] = F::kZeroByte;  // word 3's nibbles: pass 3
  for (int i = 8; i < 12; ++i) t.words[i] = F::kZeroByte;   // word 1's mode bits: pass 3
  for (int q = 0; q < 4; ++q) {
    for (int f = 0; f < 16; ++f) t.summary[q][16 * q + f] = f < kFieldCount ? kSummarySource[f] : F::kZeroByte;
    for (int i = 0; i < 4; ++i) t.quarter[q][4 * q + i] = ~0u;
  }
  for (int i = 13; i < 16; ++i) t.swizzle_l2_oob[i] = ~0u;
  for (int f = 0; f < 8; ++f)
    for (int m = 0; m < 8; ++m) {
      t.transpose_lo[f * 8 + m] = static_cast<char>(m * 16 + f);
      t.transpose_hi[f * 8 + m] = static_cast<char>(m * 16 + f + 8);
    }
  for (int f = 0; f < 8; ++f)
    for (int m = 0; m < 16; ++m) t.field[f][4 * m] = static_cast<char>((m < 8 ? 0 : 64) + f * 8 + m % 8);
  for (std::uint32_t q = 0; q < 4; ++q)
    for (std::uint32_t k = 0; k < 4; ++k) t.words89[q][4 * k] = 4 * q + k, t.words89[q][4 * k + 2] = 16 + 4 * q + k;
  return t;
}
alignas(64) inline constexpr ByteTables kByteTables = make_byte_tables();

// The unmasked forms of several intrinsics start from _mm512_undefined_*(), which g++ 12 reports
// as uninitialized under -Werror: the code uses their all-lanes maskz forms (same instruction).
#define TMAKIT_FAST_BLOCK_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,avx512vbmi,avx512dq")))

TMAKIT_FAST_BLOCK_TARGET inline __m512i lookup(const std::uint32_t* table, __m512i index) {
  return _mm512_permutex2var_epi32(_mm512_load_si512(table), index, _mm512_load_si512(table + 16));
}
TMAKIT_FAST_BLOCK_TARGET inline __m512i load(const void* a) { return _mm512_load_si512(a); }
TMAKIT_FAST_BLOCK_TARGET inline __m512i plus_one(__m512i v) { return _mm512_add_epi32(v, _mm512_set1_epi32(1)); }

// The per-map loops are unrolled (g++, clang) so that j / 4 and j % 4 are constants. nvcc's front
// end does not know the pragma: there the loops stay loops (same results).
#if defined(__CUDACC__)
#define TMAKIT_FAST_BLOCK_UNROLL(n)
#else
#define TMAKIT_FAST_BLOCK_UNROLL_STR(x) #x
#define TMAKIT_FAST_BLOCK_UNROLL(n) _Pragma(TMAKIT_FAST_BLOCK_UNROLL_STR(GCC unroll n))
#endif
TMAKIT_FAST_BLOCK_TARGET inline __m512i loadu(const void* a) { return _mm512_loadu_si512(a); }

}  // namespace fast_block_detail

// Encodes p[0..n) (n <= 16) where encode_fast would and returns the bit mask of those it wrote
// (bit i: out[i]); writes zeros to the others, which the caller gives to the general path.
// Needs AVX-512 F/VL/BW/VBMI/DQ (fast_detail::kCpuRunsAvx512Form).
TMAKIT_FAST_BLOCK_TARGET inline std::uint32_t encode_fast_block16(const TensorMapParams* p, TensorMapBytes* out,
                                                                  int n) {
  namespace F = fast_detail;
  namespace B = fast_block_detail;
  static_assert(sizeof(TensorMapParams) >= 152 && offsetof(TensorMapParams, oob) == 148 &&
                    offsetof(TensorMapParams, strides) == 64 && offsetof(TensorMapParams, box) == 96 &&
                    offsetof(TensorMapParams, elem_strides) == 116 && offsetof(TensorMapParams, interleave) == 136,
                "the parameters load as a = bytes 0..63, b = 64..127, d = 88..151 (see encode_fast_avx512)");
  static_assert(alignof(TensorMapBytes) >= 64, "maps are written with aligned 64-byte stores");
  std::uint32_t refused = n >= 16 ? 0u : ~((1u << n) - 1) & 0xffffu;
  __m512i summaries[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512()};
TMAKIT_FAST_BLOCK_UNROLL(16)
  for (int j = 0; j < 16; ++j) {  // pass 1
    if (j >= n) break;
    const auto* bytes = reinterpret_cast<const char*>(p + j);
    const B::RankLanes& lanes = B::kRankLanes.rank[p[j].rank & F::kRankMask];
    const __m512i a = B::loadu(bytes), b = B::loadu(bytes + 64), d = B::loadu(bytes + 88);
    // arch - 90 (qword 0's high half), dims - 1, box - 1, elementStrides - 1; unused lanes zeroed.
    const __m512i checked =
        _mm512_and_si512(_mm512_sub_epi64(a, _mm512_setr_epi64(90ll << 32, 0, 0, 1, 1, 1, 1, 1)), B::load(lanes.a));
    const __m512i boxes = _mm512_and_si512(
        _mm512_sub_epi32(b, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0)), B::load(lanes.b));
    const __m512i tail = _mm512_and_si512(
        _mm512_sub_epi32(d, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0)), B::load(lanes.d));
    // The bits that must be zero, as in encode_fast_avx512 (plus arch - 90 below 32): one test.
    const __m512i bad_a = _mm512_and_si512(
        checked, _mm512_setr_epi64(static_cast<long long>(~std::uint64_t{F::kArchOffsetMask} << 32 | F::kLow32),
                                   static_cast<long long>(std::uint64_t{~F::kRankMask} << 32 | std::uint32_t{~F::kTypeMask}),
                                   static_cast<long long>(F::kAddressBadBits), static_cast<long long>(~F::kLow32),
                                   static_cast<long long>(~F::kLow32), static_cast<long long>(~F::kLow32),
                                   static_cast<long long>(~F::kLow32), static_cast<long long>(~F::kLow32)));
    const __m512i bad_ab = _mm512_ternarylogic_epi32(  // bad_a | boxes & mask
        bad_a, boxes,
        _mm512_setr_epi32(F::kStrideBadLo, F::kStrideBadHi, F::kStrideBadLo, F::kStrideBadHi, F::kStrideBadLo,
                          F::kStrideBadHi, F::kStrideBadLo, F::kStrideBadHi, ~0xff, ~0xff, ~0xff, ~0xff, ~0xff, 0, 0, 0),
        0xf8);
    const __m512i bad = _mm512_ternarylogic_epi32(  // bad_ab | tail & mask
        bad_ab, tail,
        _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, F::outside(F::kSwizzleMask),
                          F::outside(F::kL2Mask), F::outside(F::kOobMask)),
        0xf8);
    if (_mm512_test_epi64_mask(bad, bad)) refused |= 1u << j;
    // strides >> 4 (qwords 0..3), box - 1 (dwords 8..12); swizzle, l2, oob from d in dwords 13..15.
    const __m512i units = _mm512_maskz_srlv_epi64(0xff, boxes, _mm512_setr_epi64(4, 4, 4, 4, 0, 0, 0, 0));
    const __m512i units2 = _mm512_ternarylogic_epi32(units, d, B::load(B::kByteTables.swizzle_l2_oob), 0xd8);  // C ? B : A
    _mm512_store_si512(&out[j].words[0], _mm512_permutex2var_epi8(checked, B::load(B::kByteTables.words), units));
    const __m512i summary = _mm512_permutex2var_epi8(checked, B::load(B::kByteTables.summary[j % 4]), units2);
    summaries[j / 4] = j % 4 == 0 ? summary
                                  : _mm512_ternarylogic_epi32(summaries[j / 4], summary,
                                                              B::load(B::kByteTables.quarter[j % 4]), 0xd8);
  }

  // Pass 2. Stage 1: fields 0..7 (t) and 8..15 (u) of maps 0..7 (from summaries 0, 1) and 8..15;
  // stage 2: field f of all 16 maps, one per 32-bit lane.
  const __m512i t01 = _mm512_permutex2var_epi8(summaries[0], B::load(B::kByteTables.transpose_lo), summaries[1]);
  const __m512i t23 = _mm512_permutex2var_epi8(summaries[2], B::load(B::kByteTables.transpose_lo), summaries[3]);
  const __m512i u01 = _mm512_permutex2var_epi8(summaries[0], B::load(B::kByteTables.transpose_hi), summaries[1]);
  const __m512i u23 = _mm512_permutex2var_epi8(summaries[2], B::load(B::kByteTables.transpose_hi), summaries[3]);
  constexpr __mmask64 kLowBytes = 0x1111111111111111ull;
  __m512i field[B::kFieldCount];
TMAKIT_FAST_BLOCK_UNROLL(16)
  for (int f = 0; f < B::kFieldCount; ++f)
    field[f] = f < 8 ? _mm512_maskz_permutex2var_epi8(kLowBytes, t01, B::load(B::kByteTables.field[f]), t23)
                     : _mm512_maskz_permutex2var_epi8(kLowBytes, u01, B::load(B::kByteTables.field[f - 8]), u23);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i arch_row = B::lookup(B::kBlockTables.arch_row, field[B::kArchOffset]);
  const __m512i type = B::lookup(B::kBlockTables.type, _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, field[B::kOob], 4), field[B::kType]));
  const __m512i swizzle_index = _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, arch_row, 3), field[B::kSwizzle]);
  const __m512i swizzle = B::lookup(B::kBlockTables.swizzle, swizzle_index);
  const __m512 smem_limit = _mm512_permutex2var_ps(_mm512_load_ps(B::kBlockTables.smem_limit), swizzle_index,
                                                   _mm512_load_ps(B::kBlockTables.smem_limit + 16));
  const __m512i max_row = B::lookup(B::kBlockTables.max_row, swizzle_index);
  const __m512i alignment = B::lookup(B::kBlockTables.alignment, swizzle_index);
  const __m512i rank_minus1 = _mm512_sub_epi32(field[B::kRank], one);
  const __m512i log2_bytes = _mm512_and_si512(_mm512_maskz_srli_epi32(0xffff, type, B::kLog2BytesShift), _mm512_set1_epi32(3));
  const __m512i box[5] = {B::plus_one(field[B::kBox0Minus1]), B::plus_one(field[B::kBox0Minus1 + 1]),
                         B::plus_one(field[B::kBox0Minus1 + 2]), B::plus_one(field[B::kBox0Minus1 + 3]),
                         B::plus_one(field[B::kBox0Minus1 + 4])};
  const __m512i row = _mm512_maskz_sllv_epi32(0xffff, box[0], log2_bytes);
  // Footprint: box 0..4 (1 past the rank) times the element bytes, in floats: exact while the
  // product is at most 2^24, and above every limit when it is not.
  const __m512 footprint_f = _mm512_mul_ps(
      _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, box[0]), _mm512_maskz_cvtepi32_ps(0xffff, box[1])),
                    _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, box[2]), _mm512_maskz_cvtepi32_ps(0xffff, box[3]))),
      _mm512_maskz_cvtepi32_ps(0xffff, _mm512_maskz_sllv_epi32(0xffff, box[4], log2_bytes)));
  const __m512i footprint = _mm512_maskz_cvttps_epi32(0xffff, footprint_f);
  const __m512i reject_bits = _mm512_and_si512(_mm512_or_si512(type, swizzle), _mm512_set1_epi32(static_cast<int>(B::kRejectBit)));
  __mmask16 reject = _mm512_test_epi32_mask(_mm512_ternarylogic_epi32(reject_bits, row, _mm512_set1_epi32(15), 0xf8),
                                            _mm512_set1_epi32(-1));  // table rejects | row % 16
  reject |= _mm512_cmpgt_epu32_mask(rank_minus1, _mm512_set1_epi32(kMaxRank - 1));
  reject |= _mm512_cmpgt_epu32_mask(row, max_row);
  reject |= _mm512_cmp_ps_mask(footprint_f, smem_limit, _CMP_GT_OQ);
  const __m512i mode = _mm512_or_si512(
      _mm512_ternarylogic_epi32(type, swizzle, _mm512_set1_epi32(B::kModeBits), 0xa8),  // (A | B) & C
      _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, rank_minus1, F::kRankShift), _mm512_maskz_slli_epi32(0xffff, field[B::kL2], F::kL2Shift)));
  // Stride bits 36..39 are the low nibble of byte 4 of strides >> 4: h0 | h1 << 4 | h2 << 8 | h3 << 12.
  const __m512i nibbles = _mm512_or_si512(
      _mm512_or_si512(field[B::kStrideByte4], _mm512_maskz_slli_epi32(0xffff, field[B::kStrideByte4 + 1], 4)),
      _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, field[B::kStrideByte4 + 2], 8), _mm512_maskz_slli_epi32(0xffff, field[B::kStrideByte4 + 3], 12)));
  alignas(64) std::uint32_t modes[16], nibble_words[16];
  alignas(64) std::uint64_t words89[16][2];  // footprint, alignment
  _mm512_store_si512(modes, mode);
  _mm512_store_si512(nibble_words, nibbles);
  // Words 8 and 9 of map j: (footprint, 0, alignment, 0) as 32-bit lanes, four maps per vector.
TMAKIT_FAST_BLOCK_UNROLL(4)
  for (int q = 0; q < 4; ++q)
    _mm512_store_si512(&words89[4 * q][0], _mm512_maskz_permutex2var_epi32(0x5555, footprint, B::load(B::kByteTables.words89[q]), alignment));
  refused |= reject;
  // Pass 3 reads these from memory: kept in registers, g++ extracted each lane with shuffles.
  asm volatile("" : : "r"(modes), "r"(nibble_words), "r"(words89) : "memory");
TMAKIT_FAST_BLOCK_UNROLL(16)
  for (int j = 0; j < 16; ++j) {  // pass 3
    if (j >= n) break;
    if (refused >> j & 1) {
      _mm512_store_si512(&out[j].words[0], _mm512_setzero_si512());
      _mm512_store_si512(&out[j].words[8], _mm512_setzero_si512());
      continue;
    }
    out[j].words[1] |= modes[j];
    out[j].words[3] |= std::uint64_t{nibble_words[j]} << 32;
    _mm512_store_si512(&out[j].words[8], _mm512_zextsi128_si512(_mm_load_si128(reinterpret_cast<const __m128i*>(words89[j]))));
  }
  return ~refused & ((1u << n) - 1);
}

}  // namespace tmakit

#endif  // TMAKIT_ENCODE_FAST_USES_AVX512

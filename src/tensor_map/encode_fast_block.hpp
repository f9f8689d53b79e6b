// The fast path 16 descriptors at a time (x86-64 CPUs that run the AVX-512 form; encode_many()
// uses it through encode_many_avx512). Host library code (a private header of tmakit::host).
//
// encode_fast_avx512 checks the rules that need table lookups or products (element type, swizzle
// per architecture, the row and the shared-memory footprint) one map at a time, in scalar code.
// Here those rules run once per block, in 16 lanes:
//   pass 1, per map: the range rules as encode_fast_avx512 checks them (encode_fast_avx512.hpp: the
//     parameters' three cache lines as three vectors; the bits that must be zero ORed into one
//     vector, here for the whole block, tested once) and words 0..7 with one byte permutation,
//     kept in a register. The bytes pass 3 writes (word 1's mode
//     bits, word 3's stride nibbles, word 6's bytes 4..6) carry the fields pass 2 needs
//     meanwhile, so that four 32-bit words (those and the box) are all pass 2 reads: one dword
//     permutation per map gathers them;
//   pass 2, per block: two 4 x 4 transposes give each field in 16 lanes; the table rules as
//     32-entry lookups, the row and footprint rules, the mode bits, the nibbles;
//   pass 3, per map: mode bits, nibbles and word 6 put into words 0..7 with one permutation, the
//     map stored as two 64-byte stores; refused maps zeroed.
// Same decisions and bytes as encode_fast_portable on every input (tests/test_encode_fast.cpp,
// EncodeMany tests).
#pragma once

#include <cstddef>
#include <cstdint>

#include "encode_fast_avx512.hpp"

#if TMAKIT_ENCODE_FAST_USES_AVX512

namespace tmakit {
namespace fast_block_detail {

namespace F = fast_detail;
namespace L = tmap_fields;

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
  std::uint32_t arch_row8[32];  // arch row << 3, by (arch - 90) & 31
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
  for (std::uint32_t a = 0; a <= F::kArchOffsetMask; ++a) t.arch_row8[a] = F::arch_row(90 + a) << 3;
  return t;
}
static_assert(F::kArchRows * (F::kSwizzleMask + 1) == 32 && 2 * (F::kTypeMask + 1) == 32 && F::kArchOffsetMask == 31);
alignas(64) inline constexpr BlockTables kBlockTables = make_block_tables();
constexpr bool no_entry_below_bit_4() {
  for (int i = 0; i < 32; ++i)
    if ((kBlockTables.type[i] | kBlockTables.swizzle[i]) & 15) return false;
  return true;
}
static_assert(no_entry_below_bit_4(), "pass 2 tests a table reject and row % 16 as one mask: no entry may have bits 0..3");

// Pass 1 permutes a and `units` (fast_detail::ParamVectors, encode_fast_avx512.hpp), where units
// also carries swizzle, l2Promotion and oobFill (c's dwords 3..5) in dwords 13..15. Descriptor
// words 0..7 come from the same bytes as encode_fast_avx512's (fast_detail::kWordBytes), except the
// bytes pass 3 writes, which carry pass 2's fields meanwhile: word 1's mode bits (dtype, swizzle,
// rank - 1, arch - 90) and word 6's bytes 4..5 (l2, oob).
// The 32-bit words of words 0..7 that pass 2 reads (mode, nibbles, word 6 high, box 1..4).
inline constexpr int kCarrierDword[4] = {2, 7, 13, 14};
constexpr int word_source(int i) {
  constexpr int mode[4] = {8, F::kUnits + 52, 12, 4};  // dword 2: dtype, swizzle, rank - 1, arch - 90
  if (i / 4 == kCarrierDword[0]) return mode[i % 4];
  if (i == 4 * kCarrierDword[2]) return F::kUnits + 56;      // l2
  if (i == 4 * kCarrierDword[2] + 1) return F::kUnits + 60;  // oob
  return F::kWordBytes[i];
}
static_assert(F::kWordBytes[4 * kCarrierDword[2] + 3] == F::kUnits + 32 && F::kWordBytes[4 * kCarrierDword[3]] == F::kUnits + 36 &&
                  F::kWordBytes[4 * kCarrierDword[1]] == F::kUnits + 4 && F::kWordBytes[4 * kCarrierDword[2] + 2] == F::kZeroByte,
              "the carried dwords: box[0] - 1 in the top byte of dword 13 (bytes 0..2 zero in encode_fast_avx512's "
              "words), box[1..4] - 1 in dword 14, the strides' byte 4 in dword 7");

// Per rank & 7: pass 1's byte permutation (sources the rank does not use, and kZeroByte, replaced
// by fast_detail::kZeroSource).
struct alignas(64) BlockWords {
  char words[8][64];
};
constexpr BlockWords make_block_words() {
  BlockWords t{};
  for (std::uint32_t r = 0; r < 8; ++r)
    for (int i = 0; i < 64; ++i) {
      const int source = word_source(i);
      t.words[r][i] = static_cast<char>(source == F::kZeroByte || r < F::min_rank(source) ? F::kZeroSource : source);
    }
  return t;
}
alignas(64) inline constexpr BlockWords kBlockWords = make_block_words();

// Pass 1 puts map 4k + q in carriers[q], lanes 4k..4k + 3, so that pass 2's transposes leave
// map j in lane j: pass 2's reject mask is already in map order. (Maps in carriers[j / 4] gave
// lane 4k + q to map 4q + k, which took a table and three more instructions to turn the mask back,
// and with 8 maps four merges in a row into one carrier instead of two; 0.91-1.0 of that form's
// time with 8 maps, docs/lab/encode_2026-11-26.md, 2026-11-26 01:07.)
struct alignas(64) LaneTables {
  std::uint32_t carriers[16];       // pass 1: dword kCarrierDword[i % 4] of a map into lane i
  std::uint32_t words89[4][16];     // maps 4q..4q+3: (footprint, 0, alignment, 0) each
  std::uint32_t mode_nibbles[4][16];  // maps 4q + k: mode and nibbles into lanes 4k, 4k + 1
  std::uint32_t word6[4][16];       // ... and word 6's high half into lane 4k + 2
  std::uint32_t written[4][16];     // pass 3, map 4q + k: dwords 2, 7, 13 from lanes 4k..4k + 2
};
inline constexpr __mmask16 kWord6Lanes = 0x4444;
constexpr LaneTables make_lane_tables() {
  LaneTables t{};
  for (int i = 0; i < 16; ++i) t.carriers[i] = kCarrierDword[i % 4];
  for (int q = 0; q < 4; ++q)
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t lane = 4 * q + k;  // map 4q + k's lane
      t.words89[q][4 * k] = lane;
      t.words89[q][4 * k + 2] = 16 + lane;
      t.mode_nibbles[q][4 * k] = lane;
      t.mode_nibbles[q][4 * k + 1] = 16 + lane;
      t.word6[q][4 * k + 2] = lane;
    }
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 16; ++i) {
      t.written[k][i] = i;  // the map's own dword
      for (int c = 0; c < 3; ++c)
        if (i == kCarrierDword[c]) t.written[k][i] = 16 + 4 * k + c;
    }
  return t;
}
alignas(64) inline constexpr LaneTables kLaneTables = make_lane_tables();

using F::load;
using F::loadu;
TMAKIT_ENCODE_AVX512_TARGET inline __m512i lookup(const std::uint32_t* table, __m512i index) {
  return _mm512_permutex2var_epi32(_mm512_load_si512(table), index, _mm512_load_si512(table + 16));
}
// Pass 2's constants as 64-byte vectors in memory. encode_block16 reads them through the pointer it
// is given: kSplats itself, and g++ treats them as values (in a loop of blocks it builds them once,
// before the loop); or opaque_splats(), a pointer g++ cannot see into, and each is a memory operand
// of the instruction that uses it (for a single block: as values, g++ built each with a move and a
// broadcast, two instructions).
struct alignas(64) Splats {
  std::uint32_t v[11][16];
};
enum SplatIndex { kSeven, kFifteen, kThree, kOne, kByte, kRejectOrRow, kModeMask, kRankBits, kL2Bits, kHighByte, kNibbleWeights };
constexpr Splats make_splats() {
  const std::uint32_t values[11] = {7, 15, 3, 1, 0xff, kRejectBit | 15, kModeBits, F::kRankMask << F::kRankShift,
                                    F::kL2Mask << F::kL2Shift, 0xff000000u, 1 | 256 << 16};
  Splats t{};
  for (int i = 0; i < 11; ++i)
    for (int l = 0; l < 16; ++l) t.v[i][l] = values[i];
  return t;
}
alignas(64) inline constexpr Splats kSplats = make_splats();
inline const Splats* opaque_splats() {
  const Splats* splats = &kSplats;
  asm("" : "+r"(splats));
  return splats;
}
TMAKIT_ENCODE_AVX512_TARGET inline __m512i splat(const Splats* splats, SplatIndex i) { return load(splats->v[i]); }
TMAKIT_ENCODE_AVX512_TARGET inline __m512i srli(__m512i v, unsigned n) { return _mm512_maskz_srli_epi32(0xffff, v, n); }
TMAKIT_ENCODE_AVX512_TARGET inline __m512 to_float(__m512i v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }

// Which of p[0..n) the range rules refuse, map by map (for blocks where some map fails them).
TMAKIT_ENCODE_AVX512_TARGET inline std::uint32_t range_refusals(const TensorMapParams* p, int n) {
  std::uint32_t refused = 0;
  for (int j = 0; j < n; ++j) {
    const __m512i bad = F::or_bad_bits(_mm512_setzero_si512(), F::param_vectors(p[j]), p[j].rank & F::kRankMask);
    if (_mm512_test_epi64_mask(bad, bad)) refused |= 1u << j;
  }
  return refused;
}

// The per-map loops are unrolled (g++, clang) so that j / 4 and j % 4 are constants.
#define TMAKIT_FAST_BLOCK_UNROLL_STR(x) #x
#define TMAKIT_FAST_BLOCK_UNROLL(n) _Pragma(TMAKIT_FAST_BLOCK_UNROLL_STR(GCC unroll n))

// encode_fast_block16's body, always inlined: g++ kept it a call in encode_many's loop, which took
// 4-11% longer with 8 maps (docs/lab/encode_2026-11-22.md, 2026-11-22 12:43).
TMAKIT_ENCODE_AVX512_TARGET inline __attribute__((always_inline)) std::uint32_t encode_block16(const TensorMapParams* p,
                                                                                           TensorMapBytes* out, int n,
                                                                                           const Splats* splats) {
  std::uint32_t refused = n >= 16 ? 0u : ~((1u << n) - 1) & 0xffffu;
  __m512i bad = _mm512_setzero_si512();
  __m512i carriers[4] = {bad, bad, bad, bad};  // maps q, q+4, q+8, q+12: dwords 2, 7, 13, 14 of words 0..7
  const __m512i carrier_index = load(kLaneTables.carriers);
  // Words 0..7 stay in registers until pass 3 completes them, so each half of a map is stored
  // once: storing them in pass 1 and fixing three dwords in pass 3 took 1.5-2x the time past the
  // copy floor (docs/lab/encode_2026-11-22.md, 2026-11-22 11:44). Zeroed: g++ cannot see that maps past n are
  // never read.
  __m512i words[16] = {};
TMAKIT_FAST_BLOCK_UNROLL(16)
  for (int j = 0; j < 16; ++j) {  // pass 1
    if (j >= n) break;
    const std::uint32_t r = p[j].rank & F::kRankMask;
    const F::ParamVectors v = F::param_vectors(p[j]);
    bad = F::or_bad_bits(bad, v, r);
    // units, with swizzle, l2, oob (c's dwords 3..5, rotated by 6) in dwords 13..15.
    const __m512i units = _mm512_mask_alignr_epi32(F::stride_units(v.b), 0xe000, v.c, v.c, 6);
    words[j] = _mm512_permutex2var_epi8(v.a, load(kBlockWords.words[r]), units);
    carriers[j % 4] = j / 4 == 0 ? _mm512_maskz_permutexvar_epi32(0xffff, carrier_index, words[j])
                                 : _mm512_mask_permutexvar_epi32(carriers[j % 4], static_cast<__mmask16>(0xf << 4 * (j / 4)),
                                                                 carrier_index, words[j]);
  }
  if (_mm512_test_epi64_mask(bad, bad)) refused |= range_refusals(p, n);  // rare: find which

  // Pass 2. Each carried dword of the 16 maps in one vector (lane j: map j):
  //   mode_in  = dtype | swizzle << 8 | (rank - 1) << 16 | (arch - 90) << 24
  //   nibble_in = bytes 4 of strides[0..3] >> 4; word6_in = l2 | oob << 8 | (box[0] - 1) << 24;
  //   box_in = box[1..4] - 1, one per byte.
  const __m512i lo01 = _mm512_maskz_unpacklo_epi32(0xffff, carriers[0], carriers[1]);
  const __m512i hi01 = _mm512_maskz_unpackhi_epi32(0xffff, carriers[0], carriers[1]);
  const __m512i lo23 = _mm512_maskz_unpacklo_epi32(0xffff, carriers[2], carriers[3]);
  const __m512i hi23 = _mm512_maskz_unpackhi_epi32(0xffff, carriers[2], carriers[3]);
  const __m512i mode_in = _mm512_maskz_unpacklo_epi64(0xff, lo01, lo23), nibble_in = _mm512_maskz_unpackhi_epi64(0xff, lo01, lo23);
  const __m512i word6_in = _mm512_maskz_unpacklo_epi64(0xff, hi01, hi23), box_in = _mm512_maskz_unpackhi_epi64(0xff, hi01, hi23);

  const __m512i arch_row8 = lookup(kBlockTables.arch_row8, srli(mode_in, 24));
  const __m512i swizzle_index = _mm512_ternarylogic_epi32(arch_row8, srli(mode_in, 8), splat(splats, kSeven), 0xd8);  // C ? B : A
  const __m512i type_index = _mm512_ternarylogic_epi32(srli(word6_in, 4), mode_in, splat(splats, kFifteen), 0xd8);    // oob << 4 | dtype
  const __m512i type = lookup(kBlockTables.type, type_index);
  const __m512i swizzle = lookup(kBlockTables.swizzle, swizzle_index);
  const __m512 smem_limit = _mm512_permutex2var_ps(_mm512_load_ps(kBlockTables.smem_limit), swizzle_index,
                                                   _mm512_load_ps(kBlockTables.smem_limit + 16));
  const __m512i max_row = lookup(kBlockTables.max_row, swizzle_index);
  const __m512i alignment = lookup(kBlockTables.alignment, swizzle_index);
  const __m512i log2_bytes = _mm512_and_si512(srli(type, kLog2BytesShift), splat(splats, kThree));
  const __m512i one = splat(splats, kOne), byte = splat(splats, kByte);
  const __m512i row = _mm512_maskz_sllv_epi32(0xffff, _mm512_add_epi32(srli(word6_in, 24), one), log2_bytes);
  const __m512i box1 = _mm512_add_epi32(_mm512_and_si512(box_in, byte), one);
  const __m512i box2 = _mm512_add_epi32(_mm512_and_si512(srli(box_in, 8), byte), one);
  const __m512i box3 = _mm512_add_epi32(_mm512_and_si512(srli(box_in, 16), byte), one);
  const __m512i box4 = _mm512_add_epi32(srli(box_in, 24), one);
  // Footprint: the row times box 1..4 (1 past the rank), in floats: exact while the product is at
  // most 2^24, and above every limit when it is not.
  const __m512 footprint_f =
      _mm512_mul_ps(_mm512_mul_ps(to_float(row), to_float(box1)),
                    _mm512_mul_ps(to_float(box2), _mm512_mul_ps(to_float(box3), to_float(box4))));
  const __m512i footprint = _mm512_maskz_cvttps_epi32(0xffff, footprint_f);
  // A table reject, or row % 16: (type | swizzle | row) & (kRejectBit | 15) (no table entry has
  // bits 0..3, no row bit 31).
  __mmask16 reject = _mm512_test_epi32_mask(_mm512_ternarylogic_epi32(type, swizzle, row, 0xfe), splat(splats, kRejectOrRow));
  reject |= _mm512_cmpgt_epu32_mask(row, max_row);
  reject |= _mm512_cmp_ps_mask(footprint_f, smem_limit, _CMP_GT_OQ);
  refused |= reject;
  __m512i mode = _mm512_ternarylogic_epi32(type, swizzle, splat(splats, kModeMask), 0xa8);  // (A | B) & C
  mode = _mm512_ternarylogic_epi32(mode, srli(mode_in, 16 - F::kRankShift), splat(splats, kRankBits), 0xf8);
  mode = _mm512_ternarylogic_epi32(mode, _mm512_maskz_slli_epi32(0xffff, word6_in, F::kL2Shift), splat(splats, kL2Bits), 0xf8);
  // Stride bits 36..39 (byte 4 of strides >> 4, each below 16 when valid): h0 | h1 << 4 | h2 << 8 | h3 << 12.
  const __m512i nibbles = _mm512_madd_epi16(_mm512_maddubs_epi16(nibble_in, _mm512_set1_epi16(1 | 16 << 8)), splat(splats, kNibbleWeights));
  // Per 4 maps: mode, nibbles and word 6's high half (box[0] - 1 alone) of map 4q + k in lanes
  // 4k..4k + 2, for pass 3's one permutation per map.
  const __m512i word6 = _mm512_and_si512(word6_in, splat(splats, kHighByte));
  __m512i written[4];
TMAKIT_FAST_BLOCK_UNROLL(4)
  for (int q = 0; q < 4; ++q)
    written[q] = _mm512_mask_permutexvar_epi32(_mm512_permutex2var_epi32(mode, load(kLaneTables.mode_nibbles[q]), nibbles),
                                               kWord6Lanes, load(kLaneTables.word6[q]), word6);
  alignas(64) std::uint64_t words89[16][2];  // footprint, alignment
TMAKIT_FAST_BLOCK_UNROLL(4)
  for (int q = 0; q < 4; ++q)
    _mm512_store_si512(&words89[4 * q][0], _mm512_maskz_permutex2var_epi32(0x5555, footprint, load(kLaneTables.words89[q]), alignment));
  // Pass 3 reads words89 from memory: kept in registers, g++ extracted each lane with shuffles.
  asm volatile("" : : "r"(words89) : "memory");
TMAKIT_FAST_BLOCK_UNROLL(16)
  for (int j = 0; j < 16; ++j) {  // pass 3
    if (j >= n) break;
    if (refused >> j & 1) {
      _mm512_store_si512(&out[j].words[0], _mm512_setzero_si512());
      _mm512_store_si512(&out[j].words[8], _mm512_setzero_si512());
      continue;
    }
    _mm512_store_si512(&out[j].words[0], _mm512_permutex2var_epi32(words[j], load(kLaneTables.written[j % 4]), written[j / 4]));
    _mm512_store_si512(&out[j].words[8], _mm512_zextsi128_si512(_mm_load_si128(reinterpret_cast<const __m128i*>(words89[j]))));
  }
  return ~refused & ((1u << n) - 1);
}

}  // namespace fast_block_detail

// Encodes p[0..n) (n <= 16) where encode_fast_portable would and returns the bit mask of those it
// wrote (bit i: out[i]); writes zeros to the others, which the caller gives to the general path.
// Needs AVX-512 F/VL/BW/VBMI/DQ (fast_detail::kCpuRunsAvx512Form).
TMAKIT_ENCODE_AVX512_TARGET inline std::uint32_t encode_fast_block16(const TensorMapParams* p, TensorMapBytes* out,
                                                                  int n) {
  return fast_block_detail::encode_block16(p, out, n, fast_block_detail::opaque_splats());
}

namespace many_detail {
// encode_many() on CPUs that run the AVX-512 forms (encode_fast_block.cpp).
std::size_t encode_many_avx512(const TensorMapParams* params, TensorMapBytes* out, bool* ok, std::size_t n);
}  // namespace many_detail

}  // namespace tmakit

#endif  // TMAKIT_ENCODE_FAST_USES_AVX512

// The fast path's AVX-512 form (x86-64 CPUs with AVX-512 F, VL, BW, VBMI and DQ: Ice Lake and
// later Xeons, Zen 4 and later; encode_host.cpp picks it once per process), and what it shares
// with the block form (encode_fast_block.hpp): the parameters as three vectors, the range rules as
// per-rank masks of the bits that must be zero, descriptor words 0..7 as one byte permutation.
// Host library code (a private header of tmakit::host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "encode_fast_forms.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_fast_tables.hpp"
#include "tmakit/tensor_map/params.hpp"

#if TMAKIT_ENCODE_FAST_USES_AVX512

// The unmasked forms of several intrinsics start from _mm512_undefined_*(), which g++ 12 reports
// as uninitialized under -Werror: the AVX-512 code uses their all-lanes maskz forms (same
// instruction).

namespace tmakit {
namespace fast_detail {

// Whether this CPU runs the AVX-512 forms (encode_fast_avx512.cpp): read once when the program
// loads. Read before that (from another static initializer), it is false and the SSE2 form runs:
// same result. Hidden, so that the library's position-independent code tests it with one
// instruction, not a load of its address first.
extern const bool kCpuRunsAvx512Form __attribute__((visibility("hidden")));

static_assert(std::is_standard_layout_v<TensorMapParams> && sizeof(TensorMapParams) == 192 &&
                  offsetof(TensorMapParams, kind) == 0 && offsetof(TensorMapParams, arch) == 4 &&
                  offsetof(TensorMapParams, dtype) == 8 && offsetof(TensorMapParams, rank) == 12 &&
                  offsetof(TensorMapParams, address) == 16 && offsetof(TensorMapParams, dims) == 24 &&
                  offsetof(TensorMapParams, strides) == 64 && offsetof(TensorMapParams, box) == 96 &&
                  offsetof(TensorMapParams, elem_strides) == 116 && offsetof(TensorMapParams, interleave) == 136 &&
                  offsetof(TensorMapParams, swizzle) == 140 && offsetof(TensorMapParams, l2) == 144 &&
                  offsetof(TensorMapParams, oob) == 148,
              "the parameters load as bytes 0..63, 64..127 and 128..191 (ParamVectors)");
static_assert(alignof(TensorMapBytes) >= 64, "maps are written with aligned 64-byte stores");

TMAKIT_ENCODE_AVX512_TARGET inline __m512i load(const void* a) { return _mm512_load_si512(a); }
TMAKIT_ENCODE_AVX512_TARGET inline __m512i loadu(const void* a) { return _mm512_loadu_si512(a); }

// A map's parameters as three vectors, loads of 64 bytes at offsets 0, 64 and 128 (one cache line
// each: TensorMapParams is 64-byte aligned):
//   a = bytes 0..63 less (90 << 32, 1 << 32, 0, 1, 1, 1, 1, 1) as 64-bit lanes: kind, arch - 90,
//       dataType, rank - 1, address, dims - 1;
//   b = bytes 64..127 less 1 in the 32-bit lanes of box and elementStrides[0..2]: strides, box - 1,
//       elementStrides - 1;
//   c = bytes 128..191 less 1 in the lanes of elementStrides[3..4]: those, interleave, swizzle,
//       l2Promotion, oobFill (bytes 152..191, the im2col fields, take no part in a tiled map).
// A block form that loaded bytes 88..151 (across a line) and bytes 140..151 again took 3-18% more
// time per map (docs/lab/encode_2026-11-22.md, 2026-11-22 12:43).
struct ParamVectors {
  __m512i a, b, c;
};
TMAKIT_ENCODE_AVX512_TARGET inline ParamVectors param_vectors(const TensorMapParams& p) {
  const auto* bytes = reinterpret_cast<const char*>(&p);
  return {_mm512_sub_epi64(loadu(bytes), _mm512_setr_epi64(90ll << 32, 1ll << 32, 0, 1, 1, 1, 1, 1)),
          _mm512_sub_epi32(loadu(bytes + 64), _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)),
          _mm512_sub_epi32(loadu(bytes + 128), _mm512_setr_epi32(1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))};
}

// Descriptor words 0..7 are one byte permutation (vpermt2b) of a (indices 0..63) and `units`
// (64..127: b with strides >> 4, so bytes 64..95 are strides in 16-byte units and 96..115 box - 1).
// kWordBytes says where each byte comes from. Word 1's low half (the mode bits) and word 3's
// bytes 4..5 (the strides' high nibbles, packed from the bytes 68, 76, 84, 92 placed there) are
// written after the permutation. kZeroByte stands for bytes that are zero in every map: any byte
// that is zero whenever the parameters are valid will do (kZeroSource, the kind's low byte).
inline constexpr int kUnits = 64;
inline constexpr char kZeroByte = -1;
inline constexpr int kZeroSource = 0;
inline constexpr char kWordBytes[64] = {
    16, 17, 18, 19, 20, 21, 22, 23,                          // word 0: address
    0, 1, 2, 3, 64, 65, 66, 67,                              // word 1: (mode bits), strides[0] >> 4
    72, 73, 74, 75, 80, 81, 82, 83,                          // word 2: strides[1] >> 4, strides[2] >> 4
    88, 89, 90, 91, 68, 76, 84, 92,                          // word 3: strides[3] >> 4, high nibbles (packed after)
    24, 25, 26, 27, 32, 33, 34, 35,                          // word 4: dims[0] - 1, dims[1] - 1
    40, 41, 42, 43, 48, 49, 50, 51,                          // word 5: dims[2] - 1, dims[3] - 1
    56, 57, 58, 59, kZeroByte, kZeroByte, kZeroByte, 96,     // word 6: dims[4] - 1, elementStrides - 1, box[0] - 1
    100, 104, 108, 112, kZeroByte, kZeroByte, kZeroByte, kZeroByte};  // word 7: box[1..4] - 1
// The least rank that uses a source byte: dims[k] - 1 rank k + 1, strides[k] rank k + 2, box[k] - 1
// rank k + 1; the address and every other byte every rank.
constexpr std::uint32_t min_rank(int source) {
  if (source >= 24 && source < 64) return static_cast<std::uint32_t>((source - 24) / 8 + 1);
  if (source >= kUnits && source < kUnits + 32) return static_cast<std::uint32_t>((source - kUnits) / 8 + 2);
  if (source >= kUnits + 32 && source < kUnits + 52) return static_cast<std::uint32_t>((source - kUnits - 32) / 4 + 1);
  return 0;
}

// Per rank & 7: the bits of (a, b, c) that must be zero, the byte permutation of one map
// (kWordBytes, sources the rank does not use replaced by kZeroSource) and the lanes of box[1..4]
// in use (bit i: box[i + 1]). Ranks 0, 6 and 7 make rank - 1 itself a bit that must be zero.
//   a: kind; arch - 90 and dataType beyond their index masks; rank - 1 beyond its mask; the
//      address's low 4 bits and bits 57..63; dims - 1 beyond 32 bits;
//   b: strides' low 4 bits and bits 40..63; box - 1 beyond 8 bits; elementStrides - 1;
//   c: elementStrides - 1, interleave; swizzle, l2Promotion, oobFill beyond their index masks.
struct alignas(64) RangeTables {
  std::uint64_t bad_a[8][8];
  std::uint32_t bad_b[8][16];
  std::uint32_t bad_c[8][16];
  char words[8][64];
  std::uint8_t box_lanes[8];
};
constexpr RangeTables make_range_tables() {
  RangeTables t{};
  for (std::uint32_t r = 0; r < 8; ++r) {
    const bool valid = r >= 1 && r <= kMaxRank;
    t.bad_a[r][0] = ~std::uint64_t{kArchOffsetMask} << 32 | kLow32;                       // kind, arch - 90
    t.bad_a[r][1] = (valid ? std::uint64_t{~kRankMask} : kLow32) << 32 | std::uint32_t{~kTypeMask};
    t.bad_a[r][2] = kAddressBadBits;
    for (std::uint32_t i = 0; i < kMaxRank; ++i) t.bad_a[r][3 + i] = i < r ? ~kLow32 : 0;  // dims - 1
    for (std::uint32_t i = 0; i + 1 < kMaxRank; ++i) {                                     // strides
      t.bad_b[r][2 * i] = i + 1 < r ? static_cast<std::uint32_t>(kStrideBadLo) : 0;
      t.bad_b[r][2 * i + 1] = i + 1 < r ? static_cast<std::uint32_t>(kStrideBadHi) : 0;
    }
    for (std::uint32_t i = 0; i < kMaxRank; ++i) {
      t.bad_b[r][8 + i] = i < r ? ~0xffu : 0;                                // box - 1
      (i < 3 ? t.bad_b[r][13 + i] : t.bad_c[r][i - 3]) = i < r ? ~0u : 0;  // elementStrides - 1
    }
    t.bad_c[r][2] = ~0u;  // interleave
    t.bad_c[r][3] = ~kSwizzleMask;
    t.bad_c[r][4] = ~kL2Mask;
    t.bad_c[r][5] = ~kOobMask;
    for (int i = 0; i < 64; ++i) {
      const int source = kWordBytes[i];
      t.words[r][i] = static_cast<char>(source == kZeroByte || r < min_rank(source) ? kZeroSource : source);
    }
    for (std::uint32_t i = 1; i < kMaxRank; ++i)
      if (i < r) t.box_lanes[r] |= static_cast<std::uint8_t>(1u << (i - 1));
  }
  return t;
}
alignas(64) inline constexpr RangeTables kRangeTables = make_range_tables();

// bad | the bits of v that must be zero, for rank & 7 == r.
TMAKIT_ENCODE_AVX512_TARGET inline __m512i or_bad_bits(__m512i bad, const ParamVectors& v, std::uint32_t r) {
  const RangeTables& t = kRangeTables;
  bad = _mm512_ternarylogic_epi32(bad, v.c, load(t.bad_c[r]), 0xf8);  // A | B & C
  bad = _mm512_ternarylogic_epi32(bad, v.b, load(t.bad_b[r]), 0xf8);
  return _mm512_ternarylogic_epi32(bad, v.a, load(t.bad_a[r]), 0xf8);
}
// b with strides >> 4 (qwords 0..3): the `units` the permutation reads.
TMAKIT_ENCODE_AVX512_TARGET inline __m512i stride_units(__m512i b) {
  return _mm512_maskz_srlv_epi64(0xff, b, _mm512_setr_epi64(4, 4, 4, 4, 0, 0, 0, 0));
}
// The strides' high nibbles h0..h3 (bytes 28..31 of words 0..7, from bytes 68, 76, 84, 92) packed
// into h0 | h1 << 4 | h2 << 8 | h3 << 12 in dword 7: (h0 + 16 h1) + 256 (h2 + 16 h3) by two
// multiply-adds; the other dwords as they were.
TMAKIT_ENCODE_AVX512_TARGET inline __m512i with_packed_nibbles(__m512i words) {
  return _mm512_mask_madd_epi16(words, 1 << 7, _mm512_maddubs_epi16(words, _mm512_set1_epi16(1 | 16 << 8)),
                                _mm512_set1_epi32(1 | 256 << 16));
}

}  // namespace fast_detail

// The fast path with AVX-512: the range rules are three masked ORs into one vector and one test
// (per-rank tables, no branch on the rank); the table rules (element type, swizzle per
// architecture), the row and the shared-memory footprint are scalar; words 0..7 are one byte
// permutation. Equal to encode_fast_portable on every input (tests/test_encode_fast.cpp).
TMAKIT_ENCODE_AVX512_TARGET inline bool encode_fast_avx512(const TensorMapParams& p, TensorMapBytes& out) {
  namespace F = fast_detail;
  const std::uint32_t r = p.rank & F::kRankMask;
  const F::ParamVectors v = F::param_vectors(p);
  const __m512i bad = F::or_bad_bits(_mm512_setzero_si512(), v, r);

  const auto arch_offset = static_cast<std::uint32_t>(p.arch) - 90u;  // beyond kArchOffsetMask: in `bad`
  const std::uint64_t te = F::kTables.type[static_cast<std::uint32_t>(p.oob) & F::kOobMask]
                                          [static_cast<std::uint32_t>(p.dtype) & F::kTypeMask];
  const F::SwizzleEntry& se = F::kTables.swizzle[F::kTables.arch_row[arch_offset & F::kArchOffsetMask]]
                                                [static_cast<std::uint32_t>(p.swizzle) & F::kSwizzleMask];
  const std::uint64_t flags = te | se.word1;
  // box[1..4], 1 past the rank (a masked load, not a branch on the rank); their product.
  const __m128i box1234 =
      _mm_mask_loadu_epi32(_mm_set1_epi32(1), static_cast<__mmask8>(F::kRangeTables.box_lanes[r]), &p.box[1]);
  const __m128i pairs = _mm_mul_epu32(box1234, _mm_srli_epi64(box1234, 32));  // box1 box2, box3 box4
  const __m128i quad = _mm_mul_epu32(pairs, _mm_unpackhi_epi64(pairs, pairs));
  const std::uint64_t ebytes = (te >> 32) & 15;
  const std::uint64_t row = std::uint64_t{p.box[0]} * ebytes;
  const std::uint64_t footprint = static_cast<std::uint64_t>(_mm_cvtsi128_si64(quad)) * row;
  // kReject is bit 63, and a row or footprint over its limit makes the difference negative (both
  // are below 2^44 when the range rules hold, and when they do not `bad` refuses anyway): one sign
  // test instead of two compares.
  static_assert(F::kReject == std::uint64_t{1} << 63);
  const std::uint64_t over = flags | (se.max_row_bytes - row) | (se.smem_limit - footprint);
  if ((over >> 63) | (row & 15) | _mm512_test_epi64_mask(bad, bad)) return false;

  const auto mode = static_cast<int>((flags & F::kLow32) | static_cast<std::uint32_t>(p.l2) << F::kL2Shift |
                                     (r - 1) << F::kRankShift);
  const __m512i words = _mm512_permutex2var_epi8(v.a, F::load(F::kRangeTables.words[r]), F::stride_units(v.b));
  // Word 1's low half (the mode bits) goes into the vector before its one store. A scalar store over
  // the vector's saved a move and a mask register (0.98-0.99 of a loop's time), but a caller that
  // reads the map right after (encode_host() returning it, a copy into kernel arguments) then loads
  // bytes of two stores at once, which the CPU cannot forward: encode_host() took 1.18-1.39 times
  // encode_into_host()'s time instead of 1.08-1.16 (docs/lab/encode_2026-11-26.md, 2026-11-26 02:58).
  _mm512_store_si512(&out.words[0], _mm512_mask_set1_epi32(F::with_packed_nibbles(words), 1 << 2, mode));
  _mm512_store_si512(&out.words[8], _mm512_zextsi128_si512(_mm_insert_epi64(_mm_cvtsi64_si128(static_cast<long long>(footprint)),
                                                                             static_cast<long long>(se.alignment), 1)));
  return true;
}

namespace fast_detail {
// encode_into_host() on CPUs that run the AVX-512 form (encode_fast_avx512.cpp): the form
// inlined, then the general path.
bool encode_into_avx512(const TensorMapParams& p, TensorMapBytes& out);
}  // namespace fast_detail

}  // namespace tmakit

#endif  // TMAKIT_ENCODE_FAST_USES_AVX512

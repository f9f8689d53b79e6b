// The fast path of encode for the common case: a tiled map without interleave, of a non-packed
// type, with every elementStride 1 (every GEMM / attention operand). encode_fast() writes the
// descriptor and returns true only when the parameters are valid; on false (invalid, or outside
// that domain) it writes nothing and the caller takes the general path (validate() /
// encode_unchecked()), which then decides. encode() and encode_into() do exactly that.
//
// How it stays equal to the general codec: every table below is computed at compile time from the
// functions validate() and encode_unchecked() use (dtype.hpp, layout.hpp, derived.hpp, rules.hpp),
// every bit position comes from tmap_layout (static_asserts pin the words they live in), and
// tests/test_encode_fast.cpp checks, on every committed driver vector and on a million random and
// boundary parameter sets, that encoded => is_valid() and the bytes equal encode_unchecked()'s,
// and that every valid set of the domain is encoded.
//
// The rules of validate() that can fail inside the domain, each checked here (ORed into one
// reject word, no early exit): arch; rank 1..5; address % 16 and < 2^57; dims 1..2^32; strides
// % 16 and < 2^40; box 1..256; inner box bytes % 16 and within the swizzle span; shared-memory
// footprint; swizzle value, 128B_ATOM swizzles only on sm_100/sm_120; L2 promotion and OOB fill
// values, NaN fill only for float types. Entries past the rank are ignored, as validate() and
// encode_unchecked() ignore them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/layout.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"

// Host code on x86-64 uses the AVX-512 form on CPUs with AVX-512 VBMI (chosen when the program
// loads; g++ and clang) and the SSE2 form on the others (TMAKIT_ENCODE_FAST_USES_SSE2 / _AVX512 say
// which are compiled in, encode_fast_host_form() which one runs). Define TMAKIT_ENCODE_FAST_AVX512
// as 0 before including to leave the AVX-512 form out, TMAKIT_ENCODE_FAST_SSE2 as 0 to use the
// portable form there too. Every form gives the same results.
#if !defined(TMAKIT_ENCODE_FAST_SSE2)
#define TMAKIT_ENCODE_FAST_SSE2 1
#endif
#if TMAKIT_ENCODE_FAST_SSE2 && !defined(__CUDA_ARCH__) && (defined(__SSE2__) || defined(_M_X64))
#define TMAKIT_ENCODE_FAST_USES_SSE2 1
#include <emmintrin.h>
#else
#define TMAKIT_ENCODE_FAST_USES_SSE2 0
#endif
#if !defined(TMAKIT_ENCODE_FAST_AVX512)
#define TMAKIT_ENCODE_FAST_AVX512 1
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2 && TMAKIT_ENCODE_FAST_AVX512 && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__x86_64__)
#define TMAKIT_ENCODE_FAST_USES_AVX512 1
#include <immintrin.h>
#else
#define TMAKIT_ENCODE_FAST_USES_AVX512 0
#endif

namespace tmakit {

namespace fast_detail {

namespace L = tmap_layout;

// Called where a compile-time table or position would be wrong: not constexpr, so constant
// evaluation stops there with a compile error naming it.
inline void table_is_wrong() {}

// Position of a field inside its 64-bit word; a compile error if it lies elsewhere.
constexpr int shift_in(L::BitRange r, int word) {
  if (r.lo / 64 != word || r.lo % 64 + r.width > 64) table_is_wrong();
  return r.lo % 64;
}

// Where the hand-packed words put each field (a compile error if layout.hpp ever moves one).
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

// The portable form (device code, constant evaluation, hosts without SSE2).
TMAKIT_HD constexpr bool encode_fast_portable(const TensorMapParams& p, TensorMapBytes& out) {
  namespace F = fast_detail;
  const auto arch_offset = static_cast<std::uint32_t>(p.arch) - 90u;
  const std::uint64_t te = F::type_of(static_cast<std::uint32_t>(p.oob), static_cast<std::uint32_t>(p.dtype));
  const F::SwizzleEntry se = F::swizzle_of(arch_offset, static_cast<std::uint32_t>(p.swizzle));
  const F::RankEntry re = F::rank_of(p.rank);
  const std::uint64_t flags = te | se.word1 | re.word1;
  std::uint64_t reject = (flags & F::kReject) | F::out_of_index_range(p) | F::arch_out_of_range(arch_offset);

  std::uint64_t d[kMaxRank], b[kMaxRank], s[kMaxRank - 1];
  std::uint64_t prod = 1;
  for (std::uint32_t i = 0; i < kMaxRank; ++i) {
    const std::uint64_t on = re.dim[i];
    d[i] = (p.dims[i] - 1) & on;                                 // 0 .. 2^32 - 1 when valid
    b[i] = (std::uint64_t{p.box[i]} - 1) & on;                   // 0 .. 255
    reject |= (d[i] >> 32) | (b[i] >> 8) | ((std::uint64_t{p.elem_strides[i]} ^ 1) & on);
    prod *= b[i] + 1;                                            // 1 past the rank
    if (i >= 1) {
      s[i - 1] = p.strides[i - 1] & on;
      reject |= s[i - 1] & F::kStrideBadBits;
    }
  }
  const std::uint64_t ebytes = (te >> 32) & 15;
  const std::uint64_t row = (b[0] + 1) * ebytes, footprint = prod * ebytes;
  reject |= (p.address & F::kAddressBadBits) | (row & 15) | (row > se.max_row_bytes) | (footprint > se.smem_limit);
  if (reject) return false;

  out.words[0] = p.address;
  out.words[1] = (flags & F::kLow32) | std::uint64_t{static_cast<std::uint32_t>(p.l2)} << F::kL2Shift | s[0] << 28;
  out.words[2] = ((s[1] >> 4) & F::kLow32) | s[2] << 28;  // s << 28: bits 4..35 of s to 32..63 (s % 16 == 0)
  out.words[3] = ((s[3] >> 4) & F::kLow32) | (s[0] >> 36) << 32 | (s[1] >> 36) << 36 | (s[2] >> 36) << 40 |
                 (s[3] >> 36) << 44;
  out.words[4] = d[0] | d[1] << 32;
  out.words[5] = d[2] | d[3] << 32;
  out.words[6] = d[4] | b[0] << F::kBox0Shift;
  out.words[7] = b[1] | b[2] << 8 | b[3] << 16 | b[4] << 24;
  out.words[8] = footprint;
  out.words[9] = se.alignment;
  for (int i = 10; i < 16; ++i) out.words[i] = 0;
  return true;
}

#if TMAKIT_ENCODE_FAST_USES_SSE2
// The same function for x86-64 hosts with SSE2 (every x86-64 CPU): dims, strides, box and element
// strides checked and packed two or four at a time. Equal to encode_fast_portable on every input
// (tests/test_encode_fast.cpp).
inline bool encode_fast_sse2(const TensorMapParams& p, TensorMapBytes& out) {
  namespace F = fast_detail;
  static_assert(std::is_standard_layout_v<TensorMapParams> && alignof(TensorMapBytes) >= 16);
  static_assert(offsetof(TensorMapParams, kind) == 0 && offsetof(TensorMapParams, arch) == 4 &&
                    offsetof(TensorMapParams, dtype) == 8 && offsetof(TensorMapParams, rank) == 12 &&
                    offsetof(TensorMapParams, interleave) == 136 && offsetof(TensorMapParams, swizzle) == 140 &&
                    offsetof(TensorMapParams, l2) == 144 && offsetof(TensorMapParams, oob) == 148,
                "the scalar fields load as [kind arch dtype rank] and [interleave swizzle l2 oob]");
  auto load = [](const void* a) { return _mm_loadu_si128(static_cast<const __m128i*>(a)); };
  const auto arch_offset = static_cast<std::uint32_t>(p.arch) - 90u;
  const auto l2 = static_cast<std::uint32_t>(p.l2);
  const std::uint64_t te = F::type_of(static_cast<std::uint32_t>(p.oob), static_cast<std::uint32_t>(p.dtype));
  const F::SwizzleEntry& se =
      F::kTables.swizzle[F::kTables.arch_row[arch_offset & F::kArchOffsetMask]][static_cast<std::uint32_t>(p.swizzle) & F::kSwizzleMask];
  const F::RankEntry& re = F::kTables.rank[p.rank & F::kRankMask];  // by reference: 64 bytes
  const std::uint64_t flags = te | se.word1 | re.word1;
  const __m128i ones = _mm_set1_epi32(-1);

  // Index ranges of the scalar fields (fast_detail::out_of_index_range), four at a time.
  __m128i bad = _mm_or_si128(
      _mm_and_si128(load(&p.kind), _mm_setr_epi32(-1, 0, F::outside(F::kTypeMask), F::outside(F::kRankMask))),
      _mm_and_si128(load(&p.interleave), _mm_setr_epi32(-1, F::outside(F::kSwizzleMask), F::outside(F::kL2Mask), F::outside(F::kOobMask))));
  // dims - 1, strides, box - 1 and elementStrides ^ 1, entries past the rank zeroed.
  const __m128i d01 = _mm_and_si128(_mm_add_epi64(load(&p.dims[0]), ones), load(&re.dim[0]));
  const __m128i d23 = _mm_and_si128(_mm_add_epi64(load(&p.dims[2]), ones), load(&re.dim[2]));
  const __m128i s01 = _mm_and_si128(load(&p.strides[0]), load(&re.dim[1]));
  const __m128i s23 = _mm_and_si128(load(&p.strides[2]), load(&re.dim[3]));
  const __m128i lanes = load(&re.lane[0]);
  const __m128i b = _mm_and_si128(_mm_add_epi32(load(&p.box[0]), ones), lanes);
  bad = _mm_or_si128(bad, _mm_and_si128(_mm_xor_si128(load(&p.elem_strides[0]), _mm_set1_epi32(1)), lanes));
  bad = _mm_or_si128(bad, _mm_srli_epi64(_mm_or_si128(d01, d23), 32));
  bad = _mm_or_si128(bad, _mm_and_si128(_mm_or_si128(s01, s23), _mm_set1_epi64x(static_cast<std::int64_t>(F::kStrideBadBits))));
  bad = _mm_or_si128(bad, _mm_and_si128(b, _mm_set1_epi32(~0xff)));
  const auto lane4 = static_cast<std::uint32_t>(re.dim[4]);
  const std::uint64_t d4 = (p.dims[4] - 1) & re.dim[4];
  const std::uint32_t b4 = (p.box[4] - 1) & lane4;

  // Box bytes b0..b3 (valid lanes are 0..255), the row and the footprint.
  const __m128i b16 = _mm_packs_epi32(b, b);
  const auto box0123 = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(b16, b16)));
  const __m128i box = _mm_sub_epi32(b, ones);                                 // box, 1 past the rank
  const __m128i prod2 = _mm_mul_epu32(box, _mm_srli_epi64(box, 32));          // box0 box1, box2 box3
  const __m128i prod4 = _mm_mul_epu32(prod2, _mm_unpackhi_epi64(prod2, prod2));
  const std::uint64_t ebytes = (te >> 32) & 15;
  const std::uint64_t row = ((box0123 & 0xff) + 1) * ebytes;
  const std::uint64_t footprint = static_cast<std::uint64_t>(_mm_cvtsi128_si64(prod4)) * (b4 + 1) * ebytes;

  const std::uint64_t reject = (flags & F::kReject) | F::arch_out_of_range(arch_offset) | (p.address & F::kAddressBadBits) |
                               (d4 >> 32) | (b4 >> 8) | ((p.elem_strides[4] ^ 1u) & lane4) | (row & 15) |
                               (row > se.max_row_bytes) | (footprint > se.smem_limit);
  if (reject | (_mm_movemask_epi8(_mm_cmpeq_epi32(bad, _mm_setzero_si128())) ^ 0xffff)) return false;

  // Strides in 16-byte units: low halves [u0 u1 u2 u3]; high nibbles h0 | h1 << 4 | h2 << 8 | h3 << 12.
  const __m128i ulo = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(_mm_srli_epi64(s01, 4)),
                                                      _mm_castsi128_ps(_mm_srli_epi64(s23, 4)), _MM_SHUFFLE(2, 0, 2, 0)));
  const __m128i h = _mm_or_si128(_mm_srli_epi64(s01, 36), _mm_slli_epi64(_mm_srli_epi64(s23, 36), 8));
  const __m128i nibbles = _mm_or_si128(h, _mm_slli_epi64(_mm_srli_si128(h, 8), 4));
  const auto u0 = static_cast<std::uint32_t>(_mm_cvtsi128_si32(ulo));
  auto store = [&](int word, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i*>(&out.words[word]), v); };
  out.words[0] = p.address;
  out.words[1] = (flags & F::kLow32) | std::uint64_t{l2} << F::kL2Shift | std::uint64_t{u0} << 32;
  store(2, _mm_or_si128(_mm_srli_si128(ulo, 4), _mm_slli_si128(nibbles, 12)));  // u1 u2 u3 nibbles
  store(4, _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(d01), _mm_castsi128_ps(d23), _MM_SHUFFLE(2, 0, 2, 0))));
  out.words[6] = d4 | std::uint64_t{box0123} << F::kBox0Shift;
  out.words[7] = (box0123 >> 8) | b4 << 24;
  out.words[8] = footprint;
  out.words[9] = se.alignment;
  const __m128i zero = _mm_setzero_si128();
  store(10, zero);
  store(12, zero);
  store(14, zero);
  return true;
}
#endif

#if TMAKIT_ENCODE_FAST_USES_AVX512
namespace fast_detail {
// Whether this CPU runs the AVX-512 form: read once when the program loads. Read before that (from
// another static initializer), it is false and the SSE2 form runs: same result.
inline bool cpu_runs_avx512_form() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512dq");  // DQ: encode_fast_block16 (every CPU with VBMI has it)
}
inline const bool kCpuRunsAvx512Form = cpu_runs_avx512_form();

// Where each byte of descriptor words 0..7 comes from, for vpermt2b over (checked, units):
// 0..63 index `checked` (the first 64 parameter bytes, word 1's low half put in bytes 0..3), 64..127
// index `units` (parameter bytes 64..127: strides >> 4, box - 1). kZeroByte is a byte that is zero
// whenever the parameters are valid: the high half of dims[0] - 1.
inline constexpr char kZeroByte = 28;
inline constexpr char kWordBytes[64] = {
    16, 17, 18, 19, 20, 21, 22, 23,                          // word 0: address
    0, 1, 2, 3, 64, 65, 66, 67,                              // word 1: mode bits, strides[0] >> 4
    72, 73, 74, 75, 80, 81, 82, 83,                          // word 2: strides[1] >> 4, strides[2] >> 4
    88, 89, 90, 91, 68, 76, 84, 92,                          // word 3: strides[3] >> 4, high nibbles (packed below)
    24, 25, 26, 27, 32, 33, 34, 35,                          // word 4: dims[0] - 1, dims[1] - 1
    40, 41, 42, 43, 48, 49, 50, 51,                          // word 5: dims[2] - 1, dims[3] - 1
    56, 57, 58, 59, kZeroByte, kZeroByte, kZeroByte, 96,     // word 6: dims[4] - 1, elementStrides - 1, box[0] - 1
    100, 104, 108, 112, kZeroByte, kZeroByte, kZeroByte, kZeroByte};  // word 7: box[1..4] - 1
}  // namespace fast_detail

// The same function with AVX-512 (F, VL, BW, VBMI), chosen at run time on CPUs that have it
// (Ice Lake and later Xeons, Zen 4 and later): the parameters load as three vectors; every range
// rule on dims, strides, box, elementStrides, the address and the enum fields is one masked
// subtract and one test per vector, the lanes past the rank masked off by one compare each; words
// 0..7 are one byte permutation. Equal to encode_fast_portable on every input
// (tests/test_encode_fast.cpp).
__attribute__((target("avx512f,avx512vl,avx512bw,avx512vbmi"))) inline bool encode_fast_avx512(
    const TensorMapParams& p, TensorMapBytes& out) {
  namespace F = fast_detail;
  static_assert(std::is_standard_layout_v<TensorMapParams> && sizeof(TensorMapParams) >= 160 &&
                    alignof(TensorMapBytes) >= 64);
  static_assert(offsetof(TensorMapParams, kind) == 0 && offsetof(TensorMapParams, dtype) == 8 &&
                    offsetof(TensorMapParams, rank) == 12 && offsetof(TensorMapParams, address) == 16 &&
                    offsetof(TensorMapParams, dims) == 24 && offsetof(TensorMapParams, strides) == 64 &&
                    offsetof(TensorMapParams, box) == 96 && offsetof(TensorMapParams, elem_strides) == 116 &&
                    offsetof(TensorMapParams, interleave) == 136 && offsetof(TensorMapParams, swizzle) == 140 &&
                    offsetof(TensorMapParams, l2) == 144 && offsetof(TensorMapParams, oob) == 148,
                "the parameters load as [kind arch dtype rank address dims], [strides box elem_strides 0..2], "
                "[elem_strides 3..4 interleave swizzle l2 oob ..]");
  const auto* bytes = reinterpret_cast<const char*>(&p);
  const __m512i a = _mm512_loadu_si512(bytes);
  const __m512i b = _mm512_loadu_si512(bytes + 64);
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 128));

  // The lanes in use: lane i is in use when rank >= its threshold (0: always). Qword lanes compare
  // rank * (2^32 + 1) with threshold * (2^32 + 1).
  const __m512i rank = _mm512_set1_epi32(static_cast<int>(p.rank));
  constexpr long long k = (1ll << 32) + 1;
  const __mmask8 use_a = _mm512_cmple_epu64_mask(_mm512_setr_epi64(0, 0, 0, k, 2 * k, 3 * k, 4 * k, 5 * k), rank);
  const __mmask16 use_b =
      _mm512_cmple_epu32_mask(_mm512_setr_epi32(2, 2, 3, 3, 4, 4, 5, 5, 1, 2, 3, 4, 5, 1, 2, 3), rank);
  const __mmask8 use_c = _mm256_cmple_epu32_mask(_mm256_setr_epi32(4, 5, 0, 0, 0, 0, -1, -1), _mm256_set1_epi32(static_cast<int>(p.rank)));
  // Subtract 1 from dims, box and elementStrides (lanes not in use become 0), then test the bits
  // that must be zero: kind; dtype and rank beyond their index masks; the address's low 4 bits and
  // bits 57..63; dims - 1 beyond 32 bits; strides' low 4 bits and bits 40..63; box - 1 beyond 8
  // bits; elementStrides - 1 and interleave entirely; swizzle, l2 and oob beyond their index masks.
  const __m512i checked = _mm512_maskz_sub_epi64(use_a, a, _mm512_setr_epi64(0, 0, 0, 1, 1, 1, 1, 1));
  const __m512i boxes = _mm512_maskz_sub_epi32(use_b, b, _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
  const __m256i tail = _mm256_maskz_sub_epi32(use_c, c, _mm256_setr_epi32(1, 1, 0, 0, 0, 0, 0, 0));
  const __mmask8 bad_a = _mm512_test_epi64_mask(
      checked, _mm512_setr_epi64(static_cast<long long>(F::kLow32),
                                 static_cast<long long>(std::uint64_t{~F::kRankMask} << 32 | std::uint32_t{~F::kTypeMask}),
                                 static_cast<long long>(F::kAddressBadBits), static_cast<long long>(~F::kLow32),
                                 static_cast<long long>(~F::kLow32), static_cast<long long>(~F::kLow32),
                                 static_cast<long long>(~F::kLow32), static_cast<long long>(~F::kLow32)));
  const __mmask16 bad_b = _mm512_test_epi32_mask(
      boxes, _mm512_setr_epi32(F::kStrideBadLo, F::kStrideBadHi, F::kStrideBadLo, F::kStrideBadHi, F::kStrideBadLo,
                               F::kStrideBadHi, F::kStrideBadLo, F::kStrideBadHi, ~0xff, ~0xff, ~0xff, ~0xff, ~0xff, -1, -1, -1));
  const __mmask8 bad_c = _mm256_test_epi32_mask(
      tail, _mm256_setr_epi32(-1, -1, -1, F::outside(F::kSwizzleMask), F::outside(F::kL2Mask), F::outside(F::kOobMask), 0, 0));

  // The table rules, the row and the shared-memory footprint (box values, 1 past the rank).
  const auto arch_offset = static_cast<std::uint32_t>(p.arch) - 90u;
  const std::uint64_t te = F::type_of(static_cast<std::uint32_t>(p.oob), static_cast<std::uint32_t>(p.dtype));
  const F::SwizzleEntry& se = F::kTables.swizzle[F::kTables.arch_row[arch_offset & F::kArchOffsetMask]]
                                                [static_cast<std::uint32_t>(p.swizzle) & F::kSwizzleMask];
  const std::uint64_t flags = te | se.word1 | F::kTables.rank[p.rank & F::kRankMask].word1;
  const __m128i box0123 = _mm_mask_loadu_epi32(_mm_set1_epi32(1), static_cast<__mmask8>(use_b >> 8), &p.box[0]);
  const __m128i pairs = _mm_mul_epu32(box0123, _mm_srli_epi64(box0123, 32));  // box0 box1, box2 box3
  const __m128i quad = _mm_mul_epu32(pairs, _mm_unpackhi_epi64(pairs, pairs));
  const auto box4 = static_cast<std::uint32_t>(  // a masked load, not a branch on the rank
      _mm_cvtsi128_si32(_mm_mask_loadu_epi32(_mm_set1_epi32(1), static_cast<__mmask8>((use_b >> 12) & 1), &p.box[4])));
  const std::uint64_t ebytes = (te >> 32) & 15;
  const std::uint64_t row = std::uint64_t{p.box[0]} * ebytes;
  const std::uint64_t footprint = static_cast<std::uint64_t>(_mm_cvtsi128_si64(quad)) * std::uint64_t{box4} * ebytes;
  const std::uint64_t reject = (flags & F::kReject) | F::arch_out_of_range(arch_offset) | (row & 15) |
                               (row > se.max_row_bytes) | (footprint > se.smem_limit);
  if (reject | bad_a | bad_b | bad_c) return false;

  // Words 0..7: one byte permutation of (checked with word 1's mode bits in bytes 0..3, strides in
  // 16-byte units and box - 1); then the strides' high nibbles h0..h3 (bytes 28..31) packed into
  // h0 | h1 << 4 | h2 << 8 | h3 << 12: (h0 + 16 h1) + 256 (h2 + 16 h3) by two multiply-adds.
  const auto mode = static_cast<int>((flags & F::kLow32) | static_cast<std::uint32_t>(p.l2) << F::kL2Shift);
  const __m512i units = _mm512_maskz_srlv_epi64(0xff, boxes, _mm512_setr_epi64(4, 4, 4, 4, 0, 0, 0, 0));
  const __m512i words = _mm512_permutex2var_epi8(_mm512_mask_set1_epi32(checked, 1, mode),
                                                 _mm512_loadu_si512(F::kWordBytes), units);
  const __m512i nibbles = _mm512_madd_epi16(_mm512_maddubs_epi16(words, _mm512_set1_epi16(1 | 16 << 8)),
                                            _mm512_set1_epi32(1 | 256 << 16));
  _mm512_store_si512(&out.words[0], _mm512_mask_mov_epi32(words, 1 << 7, nibbles));
  _mm512_store_si512(&out.words[8], _mm512_zextsi128_si512(_mm_insert_epi64(_mm_cvtsi64_si128(static_cast<long long>(footprint)),
                                                                             static_cast<long long>(se.alignment), 1)));
  return true;
}
#endif

// Which form encode_fast runs in host code on this CPU: "AVX-512", "SSE2" or "portable".
inline const char* encode_fast_host_form() {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (fast_detail::kCpuRunsAvx512Form) return "AVX-512";
#endif
  return TMAKIT_ENCODE_FAST_USES_SSE2 ? "SSE2" : "portable";
}

// The fast path: SSE2 on x86-64 hosts; the portable form in device code, at compile time and on
// other hosts. Same result either way.
TMAKIT_HD constexpr bool encode_fast(const TensorMapParams& p, TensorMapBytes& out) {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (!std::is_constant_evaluated() && fast_detail::kCpuRunsAvx512Form) return encode_fast_avx512(p, out);
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2
  if (!std::is_constant_evaluated()) return encode_fast_sse2(p, out);
#endif
  return encode_fast_portable(p, out);
}

}  // namespace tmakit

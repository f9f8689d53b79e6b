// The fast path's SSE2 form (see encode_fast_sse2.hpp).
#include "encode_fast_sse2.hpp"

#if TMAKIT_ENCODE_FAST_USES_SSE2

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tmakit/tensor_map/encode_fast_tables.hpp"

namespace tmakit {
namespace {

inline bool encode_fast_sse2_inline(const TensorMapParams& p, TensorMapBytes& out) {
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

}  // namespace

bool encode_fast_sse2(const TensorMapParams& p, TensorMapBytes& out) { return encode_fast_sse2_inline(p, out); }

bool fast_detail::encode_into_sse2(const TensorMapParams& p, TensorMapBytes& out) {
  return encode_fast_sse2_inline(p, out) || encode_detail::encode_into_general(p, out);
}

}  // namespace tmakit

#endif  // TMAKIT_ENCODE_FAST_USES_SSE2

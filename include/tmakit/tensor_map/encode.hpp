// encode(): parameters -> the 128 bytes the CUDA driver writes. constexpr, no allocation, no driver,
// host and device; no SIMD and no CPU dispatch (encode_host.hpp has the host library's forms of
// encode() and encode_into(), which run the fast path's SIMD forms, and encode_many()).
#pragma once

#include <type_traits>
#include <utility>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/encode_fast.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {

namespace encode_detail {

// Calls f(std::integral_constant<int, I>{}) for I = 0..N-1: each field position folds to a constant.
template <class F, int... I>
TMAKIT_HD constexpr void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
TMAKIT_HD constexpr void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// The words being built, in registers; fields are ORed into zeroed words. Every field lies below
// bit 640 (static_assert below); words 10..15 stay zero.
inline constexpr int kFieldWords = 10;
static_assert(tmap_fields::kSmemAlignment.lo + tmap_fields::kSmemAlignment.width <= 64 * kFieldWords);
struct Words {
  std::uint64_t w[kFieldWords] = {};
  TMAKIT_HD constexpr void put(tmap_fields::BitRange r, std::uint64_t v) {
    if (r.width < 64) v &= (std::uint64_t{1} << r.width) - 1;
    const int i = r.lo / 64, s = r.lo % 64;
    w[i] |= v << s;
    if (s + r.width > 64) w[i + 1] |= v >> (64 - s);
  }
};

}  // namespace encode_detail

// Writes all 128 bytes. Precondition: validate(p) is empty (otherwise the bytes mean nothing).
TMAKIT_HD constexpr TensorMapBytes encode_unchecked(const TensorMapParams& p) {
  namespace L = tmap_fields;
  encode_detail::Words m;
  const std::uint32_t rank = p.rank < 1 ? 1 : (p.rank > kMaxRank ? kMaxRank : p.rank);
  const bool im2col = p.kind != MapKind::tiled;

  m.put(L::kAddress, p.address);
  m.put(L::kIm2colFlag, im2col ? 1 : 0);
  m.put(L::kRankMinus1, rank - 1);
  m.put(L::kElemTypeCode, L::hw_elem_code(p.dtype));
  m.put(L::kInterleave, static_cast<std::uint32_t>(p.interleave));
  m.put(L::kSwizzle, L::hw_swizzle_mode(p.swizzle));
  m.put(L::kSwizzleAtomicity, L::hw_swizzle_atomicity(p.swizzle));
  m.put(L::kOobNan, p.oob == OobFill::nan_request_zero_fma ? 1 : 0);
  m.put(L::kTf32Round, L::hw_tf32_round(p.dtype) ? 1 : 0);
  m.put(L::kL2Promotion, static_cast<std::uint32_t>(p.l2));
  // Entries past the rank contribute zero, whatever the arrays hold there.
  encode_detail::static_for<kMaxRank - 1>([&](auto i) {
    const std::uint64_t units = i + 1u < rank ? p.strides[i] >> 4 : 0;
    m.put(L::stride_lo(i), units);
    m.put(L::stride_hi(i), units >> 32);
  });
  encode_detail::static_for<kMaxRank>([&](auto i) {
    const bool in = std::uint32_t{i} < rank;
    m.put(L::dim_minus1(i), in ? p.dims[i] - 1 : 0);
    m.put(L::elem_stride_minus1(i), in ? p.elem_strides[i] - 1 : 0);
    if (!im2col) m.put(L::box_minus1(i), in ? p.box[i] - 1 : 0);
  });
  if (im2col) {
    m.put(L::kChannelsMinus1, p.channels - 1);
    // im2col-wide keeps its W offsets in corner slot 0 (rank-dependent width), like an im2col
    // map whose other offsets are zero.
    const std::uint32_t spatial = rank >= 3 ? rank - 2 : 0;
    const std::uint32_t n = p.kind == MapKind::im2col_wide ? (spatial ? 1 : 0) : spatial;
    // Corners packed within their blocks first, so that every write below has a fixed position.
    std::uint64_t lower = 0, upper = 0;
    const int bits = L::corner_bits(rank);
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    for (std::uint32_t i = 0; i < n; ++i) {
      lower |= (static_cast<std::uint32_t>(p.lower[i]) & mask) << (L::lower_corner(rank, int(i)).lo - L::kLowerCorners.lo);
      upper |= (static_cast<std::uint32_t>(p.upper[i]) & mask) << (L::upper_corner(rank, int(i)).lo - L::kUpperCorners.lo);
    }
    m.put(L::kLowerCorners, lower);
    m.put(L::kUpperCorners, upper);
    m.put(L::kPixelsMinus1, p.pixels - 1);
  }
  m.put(L::kBoxBytes, box_bytes_checked_ranges(p));
  m.put(L::kSmemAlignment, smem_alignment(p.swizzle));
  TensorMapBytes out;
  for (int i = 0; i < 16; ++i) out.words[i] = i < encode_detail::kFieldWords ? m.w[i] : 0;
  return out;
}

namespace encode_detail {
// The general path for one map (the fast path declined it): writes encode_unchecked()'s map when
// the parameters are valid, all zeros otherwise; returns is_valid(). encode(), encode_host() and
// encode_many() take it.
TMAKIT_HD constexpr bool encode_general(const TensorMapParams& p, TensorMapBytes& out) {
  const bool valid = is_valid(p);
  out = valid ? encode_unchecked(p) : TensorMapBytes{};
  return valid;
}
// encode_into's general path: writes `out` only when the parameters are valid. Out of line on the
// host: inlined, its registers made every call that took the fast path save and restore six of
// them, a measurable cost (docs/lab/encode_2026-11-22.md, 2026-11-22 15:24).
TMAKIT_HD TMAKIT_HOST_NOINLINE constexpr bool encode_into_general(const TensorMapParams& p, TensorMapBytes& out) {
  if (!is_valid(p)) return false;
  out = encode_unchecked(p);
  return true;
}
}  // namespace encode_detail

struct EncodeResult {
  TensorMapBytes map{};
  Violations violations{};
  TMAKIT_HD constexpr bool ok() const { return violations.empty(); }
};

namespace encode_detail {
// encode()'s path when the fast path declines: the general path's map, and on a refusal every
// violated rule. Out of line on the host: its frame (validate()'s list) would otherwise be set up
// on every call that takes the fast path.
TMAKIT_HD TMAKIT_HOST_NOINLINE constexpr void encode_declined(const TensorMapParams& p, EncodeResult& r) {
  if (!encode_general(p, r.map)) r.violations = validate(p);
}
}  // namespace encode_detail

// Validates, then encodes. On refusal `map` is all zero and `violations` lists every violated rule.
// Tiled, non-interleaved maps of non-packed types take the fast path (encode_fast.hpp), which
// decides and writes exactly what the general path would. Host code that encodes at run time can
// call encode_host() instead: the same result, with the fast path's SIMD form for the CPU.
TMAKIT_HD constexpr EncodeResult encode(const TensorMapParams& p) {
  EncodeResult r{TensorMapBytes(TensorMapBytes::Unwritten{}), {}};  // every path below writes r.map whole
  if (!encode_fast_portable(p, r.map)) encode_detail::encode_declined(p, r);
  return r;
}

// The lean form for hot paths (device code, constant evaluation): writes `out` and returns true
// when the parameters are valid; returns false and leaves `out` untouched otherwise (call
// validate() for the reasons). Its host library form, encode_into_host() (encode_host.hpp), is the
// one for host code that encodes many maps at run time (a JIT); encode_many() for arrays of them.
TMAKIT_HD constexpr bool encode_into(const TensorMapParams& p, TensorMapBytes& out) {
  return encode_fast_portable(p, out) || encode_detail::encode_into_general(p, out);
}

}  // namespace tmakit

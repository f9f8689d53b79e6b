// encode(): parameters -> the 128 bytes the CUDA driver writes. constexpr, no allocation, no driver,
// host and device.
#pragma once

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/layout.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {

// Writes all 128 bytes. Precondition: validate(p) is empty (otherwise the bytes mean nothing).
TMAKIT_HD constexpr TensorMapBytes encode_unchecked(const TensorMapParams& p) {
  namespace L = tmap_layout;
  TensorMapBytes m{};
  auto put = [&m](L::BitRange r, std::uint64_t v) { m.set_bits(r.lo, r.width, v); };
  const std::uint32_t rank = p.rank < 1 ? 1 : (p.rank > kMaxRank ? kMaxRank : p.rank);
  const bool im2col = p.kind != MapKind::tiled;

  put(L::kAddress, p.address);
  put(L::kIm2colFlag, im2col ? 1 : 0);
  put(L::kRankMinus1, rank - 1);
  put(L::kElemTypeCode, L::hw_elem_code(p.dtype));
  put(L::kInterleave, static_cast<std::uint32_t>(p.interleave));
  put(L::kSwizzle, L::hw_swizzle_mode(p.swizzle));
  put(L::kSwizzleAtomicity, L::hw_swizzle_atomicity(p.swizzle));
  put(L::kOobNan, p.oob == OobFill::nan_request_zero_fma ? 1 : 0);
  put(L::kTf32Round, L::hw_tf32_round(p.dtype) ? 1 : 0);
  put(L::kL2Promotion, static_cast<std::uint32_t>(p.l2));
  for (std::uint32_t i = 0; i + 1 < rank; ++i) {
    const std::uint64_t units = p.strides[i] >> 4;
    put(L::stride_lo(int(i)), units & 0xffffffffu);
    put(L::stride_hi(int(i)), units >> 32);
  }
  for (std::uint32_t i = 0; i < rank; ++i) {
    put(L::dim_minus1(int(i)), p.dims[i] - 1);
    put(L::elem_stride_minus1(int(i)), p.elem_strides[i] - 1);
  }
  if (!im2col) {
    for (std::uint32_t i = 0; i < rank; ++i) put(L::box_minus1(int(i)), p.box[i] - 1);
  } else {
    put(L::kChannelsMinus1, p.channels - 1);
    // im2col-wide keeps its W offsets in corner slot 0 (rank-dependent width), like an im2col
    // map whose other offsets are zero.
    const std::uint32_t spatial = rank >= 3 ? rank - 2 : 0;
    const std::uint32_t n = p.kind == MapKind::im2col_wide ? (spatial ? 1 : 0) : spatial;
    for (std::uint32_t i = 0; i < n; ++i) {
      put(L::lower_corner(rank, int(i)), static_cast<std::uint32_t>(p.lower[i]));
      put(L::upper_corner(rank, int(i)), static_cast<std::uint32_t>(p.upper[i]));
    }
    put(L::kPixelsMinus1, p.pixels - 1);
  }
  put(L::kBoxBytes, box_bytes(p));
  put(L::kSmemAlignment, smem_alignment(p.swizzle));
  return m;
}

struct EncodeResult {
  TensorMapBytes map{};
  Violations violations{};
  TMAKIT_HD constexpr bool ok() const { return violations.empty(); }
};

// Validates, then encodes. On refusal `map` is all zero and `violations` lists every violated rule.
TMAKIT_HD constexpr EncodeResult encode(const TensorMapParams& p) {
  EncodeResult r;
  r.violations = validate(p);
  if (r.violations.empty()) r.map = encode_unchecked(p);
  return r;
}

}  // namespace tmakit

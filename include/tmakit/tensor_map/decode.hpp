// decode(): 128 bytes -> parameters, the derived fields the driver stored, and every set bit that
// no field explains. constexpr, no allocation, host and device.
#pragma once

#include <cstdint>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

struct DecodedTensorMap {
  // The parameters the bytes encode. `kind` is tiled or im2col: an im2col-wide map is stored as an
  // im2col map whose corner slot 0 holds the W offsets (its W/W128 mode leaves no trace on sm_90),
  // so the two cannot be told apart from the bytes. `arch` is sm_100 when a Blackwell-only value
  // (packed type, 128B_ATOM swizzle) is present, else sm_90.
  TensorMapParams params{};
  // Raw hardware fields, kept even when they map to no known value.
  std::uint32_t elem_code = 0;
  bool tf32_round = false;
  bool dtype_known = true;  // false: elem_code/tf32_round name no CUtensorMapDataType
  bool swizzle_known = true;  // false: swizzle bits name no CUtensorMapSwizzle (e.g. PTX's 96B)
  bool interleave_known = true;  // false: interleave bits hold 3, which no CUtensorMapInterleave has
  // The derived fields as stored, and whether they equal what the parameters imply.
  std::uint64_t stored_box_bytes = 0;
  std::uint64_t stored_smem_alignment = 0;
  bool derived_consistent = true;
  // Set bits outside every field of this kind and rank (reserved bits, or array entries past the
  // rank). Never dropped: re-encoding reproduces the input exactly when this is all zero,
  // dtype_known holds and derived_consistent holds.
  TensorMapBytes unexplained{};

  TMAKIT_HD constexpr bool has_unexplained_bits() const {
    for (auto w : unexplained.words)
      if (w) return true;
    return false;
  }
  TMAKIT_HD constexpr bool round_trips() const {
    return dtype_known && swizzle_known && interleave_known && derived_consistent && !has_unexplained_bits();
  }
};

namespace detail {
TMAKIT_HD constexpr std::int32_t sign_extend(std::uint64_t v, int bits) {
  const std::uint64_t m = std::uint64_t{1} << (bits - 1);
  return static_cast<std::int32_t>(static_cast<std::int64_t>((v ^ m)) - static_cast<std::int64_t>(m));
}
}  // namespace detail

TMAKIT_HD constexpr DecodedTensorMap decode(const TensorMapBytes& m) {
  namespace L = tmap_fields;
  DecodedTensorMap d;
  TensorMapParams& p = d.params;
  auto get = [&m](L::BitRange r) { return m.bits(r.lo, r.width); };
  const bool im2col = get(L::kIm2colFlag) != 0;
  const auto rank = static_cast<std::uint32_t>(get(L::kRankMinus1) + 1);  // 1..8; > 5 is malformed
  const std::uint32_t r = rank > kMaxRank ? kMaxRank : rank;
  p.kind = im2col ? MapKind::im2col : MapKind::tiled;
  p.rank = rank;
  p.address = get(L::kAddress);
  d.elem_code = static_cast<std::uint32_t>(get(L::kElemTypeCode));
  d.tf32_round = get(L::kTf32Round) != 0;
  d.dtype_known = L::data_type_from_hw(d.elem_code, d.tf32_round, p.dtype);
  if (!d.dtype_known) p.dtype = static_cast<DataType>(kDataTypeCount);  // an invalid value on purpose
  p.interleave = static_cast<Interleave>(get(L::kInterleave));
  d.interleave_known = get(L::kInterleave) < kInterleaveCount;
  const auto sw = static_cast<std::uint32_t>(get(L::kSwizzle));
  const auto atom = static_cast<std::uint32_t>(get(L::kSwizzleAtomicity));
  d.swizzle_known = get(L::kSwizzleMode96B) == 0 && swizzle_from_hw(sw, atom, p.swizzle);
  if (!d.swizzle_known) p.swizzle = static_cast<Swizzle>(kSwizzleCount);  // an invalid value on purpose
  p.oob = static_cast<OobFill>(get(L::kOobNan));
  p.l2 = static_cast<L2Promotion>(get(L::kL2Promotion));
  for (std::uint32_t i = 0; i + 1 < r; ++i)
    p.strides[i] = ((get(L::stride_hi(int(i))) << 32) | get(L::stride_lo(int(i)))) << 4;
  for (std::uint32_t i = 0; i < r; ++i) {
    p.dims[i] = get(L::dim_minus1(int(i))) + 1;
    p.elem_strides[i] = static_cast<std::uint32_t>(get(L::elem_stride_minus1(int(i))) + 1);
  }
  if (!im2col) {
    for (std::uint32_t i = 0; i < r; ++i) p.box[i] = static_cast<std::uint32_t>(get(L::box_minus1(int(i))) + 1);
  } else {
    p.channels = static_cast<std::uint32_t>(get(L::kChannelsMinus1) + 1);
    for (std::uint32_t i = 0; i + 2 < r; ++i) {
      p.lower[i] = detail::sign_extend(get(L::lower_corner(r, int(i))), L::corner_bits(r));
      p.upper[i] = detail::sign_extend(get(L::upper_corner(r, int(i))), L::corner_bits(r));
    }
    p.pixels = static_cast<std::uint32_t>(get(L::kPixelsMinus1) + 1);
  }
  if (is_packed(p.dtype) || atom != 0) p.arch = Arch::sm_100;
  d.stored_box_bytes = get(L::kBoxBytes);
  d.stored_smem_alignment = get(L::kSmemAlignment);
  d.derived_consistent = d.stored_box_bytes == box_bytes(p) && d.stored_smem_alignment == smem_alignment(p.swizzle);

  // Unexplained: every set bit outside this kind's and rank's fields.
  TensorMapBytes covered{};
  L::NamedRange ranges[L::kMaxNamedRanges] = {};
  const int n = L::named_ranges(im2col, r, ranges);
  for (int i = 0; i < n; ++i) covered.set_bits(ranges[i].bits.lo, ranges[i].bits.width, ~std::uint64_t{0});
  if (rank > kMaxRank) covered.set_bits(L::kRankMinus1.lo, L::kRankMinus1.width, 0);  // the rank itself is bad
  for (int w = 0; w < 16; ++w) d.unexplained.words[w] = m.words[w] & ~covered.words[w];
  if (rank > kMaxRank) d.unexplained.set_bits(L::kRankMinus1.lo, L::kRankMinus1.width, rank - 1);
  return d;
}

}  // namespace tmakit

// validate(): every violated rule of a tensor map's parameters, at once. constexpr, no allocation,
// host and device.
//
// sm_90: accepts exactly what the CUDA driver accepts (H200, driver 580.159.04, CUDA 13.0): 100% of
// the 1,303,729 driver decisions in the sweep files agree (tests/tools/validate_agreement.cpp).
// Several rules are not in cuda.h and were read off the driver's decisions; docs/rules.md lists
// every rule with its source and evidence.
//
// sm_100 / sm_120: UNVERIFIED on hardware (no such GPU was available). They apply the cuda.h and
// PTX ISA rules, including the documented rules the sm_90 driver does not enforce
// (swizzle.interleave32_requires_32b, swizzle.im2col_wide_modes), allow the Blackwell features
// (packed 4/6-bit types, 128B_ATOM_* swizzles), and keep the architecture-neutral rules observed on
// sm_90 (address below 2^57, corner checks in 32-bit arithmetic, shared-memory footprint against
// the architecture's shared memory per SM: 228 KiB on sm_100, 100 KiB on sm_120).
//
// Follow-up suppression: a bad rank skips every per-dimension check; a bad data type skips every
// size-derived check; a bad interleave / swizzle skips the checks that depend on it; an
// out-of-range value is not also reported by the checks computed from it.
#pragma once

#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

namespace validate_detail {

inline constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kStrideLimit = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kAddressLimit = std::uint64_t{1} << 57;

// The driver evaluates the pixel-box corner check in 32-bit two's complement.
TMAKIT_HD constexpr std::int32_t wrap_i32(std::uint64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v & 0xffffffffu));
}

// 16U4_ALIGN16B and 16U6_ALIGN16B: 32-byte alignment, dims[0] % 128, boxDim[0] / channels == 128.
TMAKIT_HD constexpr bool is_packed16(DataType t) {
  return t == DataType::u4x16_align16b || t == DataType::u6x16_align16b;
}

TMAKIT_HD constexpr std::int64_t as_i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

}  // namespace validate_detail

namespace validate_detail {

// What the later checks of a map's parameters depend on, established (and reported on) by the first:
// which fields are in range, the map's kind, its element size in shared memory, its usable rank.
struct Facts {
  bool arch_ok = false, tiled = false, im2col = false, wide = false, blackwell = false;
  bool dtype_ok = false, packed = false, packed16 = false;
  std::uint64_t ebits = 0;  // bits per element in shared memory (the packed ALIGN16B types: 8)
  bool rank_ok = false;
  std::uint32_t rank = 0;  // 0 when the rank is out of range: every per-dimension check is skipped
  bool il_ok = false, sw_ok = false;
  bool align32 = false;  // interleave 32B or a 16-value packed type: 32-byte address and strides
  bool dims_ok[kMaxRank] = {};
  bool es_ok = true;
  std::uint32_t span = 0;     // the swizzle's span in bytes
  bool span_applies = false;  // a swizzle without interleave bounds the inner box extent
};

// The enum fields, the target and the rank.
template <class Sink>
TMAKIT_HD constexpr Facts check_kind_and_rank(const TensorMapParams& p, Sink& v) {
  Facts f;
  f.arch_ok = is_valid(p.arch);
  if (!f.arch_ok) v.add(Rule::arch_supported, Field::arch, -1, static_cast<std::int64_t>(p.arch));
  const bool kind_ok = static_cast<std::uint32_t>(p.kind) < kMapKindCount;
  if (!kind_ok) v.add(Rule::kind_range, Field::kind, -1, static_cast<std::int64_t>(p.kind));
  f.tiled = p.kind == MapKind::tiled;
  f.im2col = p.kind == MapKind::im2col;
  f.wide = p.kind == MapKind::im2col_wide;
  f.blackwell = is_blackwell(p.arch);

  f.dtype_ok = is_valid(p.dtype);
  if (!f.dtype_ok) v.add(Rule::dtype_range, Field::tensorDataType, -1, static_cast<std::int64_t>(p.dtype));
  f.packed = f.dtype_ok && is_packed(p.dtype);
  f.packed16 = f.dtype_ok && is_packed16(p.dtype);
  f.ebits = f.dtype_ok ? smem_element_bits(p.dtype) : 0;

  f.rank_ok = true;
  if (p.rank < 1 || p.rank > kMaxRank) {
    v.add(Rule::rank_range, Field::tensorRank, -1, p.rank);
    f.rank_ok = false;
  } else if ((f.im2col || f.wide) && p.rank < 3) {
    v.add(Rule::rank_im2col_range, Field::tensorRank, -1, p.rank);
    f.rank_ok = false;
  }
  f.rank = f.rank_ok ? p.rank : 0;
  f.il_ok = static_cast<std::uint32_t>(p.interleave) < kInterleaveCount;
  f.sw_ok = static_cast<std::uint32_t>(p.swizzle) < kSwizzleCount;
  f.align32 = (f.il_ok && p.interleave == Interleave::b32) || f.packed16;
  f.span = f.sw_ok ? swizzle_span_bytes(p.swizzle) : 0;
  f.span_applies = f.il_ok && f.sw_ok && p.interleave == Interleave::none && p.swizzle != Swizzle::none;
  return f;
}

// The global tensor: its address, globalDim, globalStrides (rank - 1 of them, in bytes) and
// elementStrides (elementStrides[0] is checked too, although TMA ignores it without interleave).
template <class Sink>
TMAKIT_HD constexpr void check_global(const TensorMapParams& p, Facts& f, Sink& v) {
  if (p.address % 16 != 0) {
    v.add(Rule::address_align16, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));
  } else if (f.align32 && p.address % 32 != 0) {
    v.add(Rule::address_align32, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));
  }
  if (p.address >= kAddressLimit)
    v.add(Rule::address_below_2_57, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));

  for (std::uint32_t i = 0; i < f.rank; ++i) {
    f.dims_ok[i] = p.dims[i] >= 1 && p.dims[i] <= kMaxDim;
    if (!f.dims_ok[i]) v.add(Rule::dims_range, Field::globalDim, static_cast<std::int32_t>(i), as_i64(p.dims[i]));
  }
  if (f.rank >= 1 && f.dims_ok[0]) {
    if (f.packed16 && p.dims[0] % 128 != 0)
      v.add(Rule::dims_packed_multiple_of_128, Field::globalDim, 0, as_i64(p.dims[0]));
    if (f.dtype_ok && p.dtype == DataType::u4x16_align8b && p.dims[0] % 2 != 0)
      v.add(Rule::dims_packed_multiple_of_2, Field::globalDim, 0, as_i64(p.dims[0]));
  }

  for (std::uint32_t i = 0; i + 1 < f.rank; ++i) {
    const std::uint64_t s = p.strides[i];
    if (s % 16 != 0) {
      v.add(Rule::strides_align16, Field::globalStrides, static_cast<std::int32_t>(i), as_i64(s));
    } else if (f.align32 && s % 32 != 0) {
      v.add(Rule::strides_align32, Field::globalStrides, static_cast<std::int32_t>(i), as_i64(s));
    }
    if (s >= kStrideLimit) v.add(Rule::strides_below_2_40, Field::globalStrides, static_cast<std::int32_t>(i), as_i64(s));
  }

  for (std::uint32_t i = 0; i < f.rank; ++i) {
    if (p.elem_strides[i] < 1 || p.elem_strides[i] > 8) {
      v.add(Rule::elem_strides_range, Field::elementStrides, static_cast<std::int32_t>(i), p.elem_strides[i]);
      f.es_ok = false;
    }
  }
}

// boxDim of a tiled map: each extent, the inner extent's bytes, the shared-memory footprint, the
// swizzle span.
template <class Sink>
TMAKIT_HD constexpr void check_box(const TensorMapParams& p, const Facts& f, Sink& v) {
  if (!f.tiled || f.rank < 1) return;
  bool box_ok = true;
  for (std::uint32_t i = 0; i < f.rank; ++i) {
    if (p.box[i] < 1 || p.box[i] > 256) {
      v.add(Rule::box_range, Field::boxDim, static_cast<std::int32_t>(i), p.box[i]);
      box_ok = false;
    }
  }
  const bool box0_ok = p.box[0] >= 1 && p.box[0] <= 256;
  if (f.packed16) {
    if (box0_ok && p.box[0] != 128) v.add(Rule::box_packed_inner_128, Field::boxDim, 0, p.box[0]);
  } else if (f.dtype_ok && box0_ok && (std::uint64_t{p.box[0]} * f.ebits) % 128 != 0) {
    v.add(Rule::box_inner_bytes_multiple_of_16, Field::boxDim, 0, p.box[0]);
  }
  if (f.dtype_ok && box_ok && f.es_ok && f.arch_ok) {
    const std::uint64_t bytes = box_bytes_checked_ranges(p);  // box and element strides in range
    if (bytes > smem_limit_bytes(p.arch)) v.add(Rule::box_smem_footprint, Field::boxDim, -1, as_i64(bytes));
  }
  if (f.span_applies && f.dtype_ok && box0_ok && std::uint64_t{p.box[0]} * f.ebits > std::uint64_t{f.span} * 8)
    v.add(Rule::swizzle_inner_box_span, Field::boxDim, 0, p.box[0]);
}

// interleave, swizzle, the data type on this architecture, l2Promotion and oobFill.
template <class Sink>
TMAKIT_HD constexpr void check_modes(const TensorMapParams& p, const Facts& f, Sink& v) {
  if (f.tiled && f.rank_ok && f.il_ok && p.interleave != Interleave::none && p.rank < 3)
    v.add(Rule::rank_interleave_min3, Field::tensorRank, -1, p.rank);
  if (f.il_ok && f.dtype_ok && p.dtype == DataType::u6x16_align16b && p.interleave != Interleave::none)
    v.add(Rule::interleave_u6_requires_none, Field::interleave, -1, static_cast<std::int64_t>(p.interleave));
  if (!f.il_ok) v.add(Rule::interleave_range, Field::interleave, -1, static_cast<std::int64_t>(p.interleave));

  if (!f.sw_ok) v.add(Rule::swizzle_range, Field::swizzle, -1, static_cast<std::int64_t>(p.swizzle));
  if (f.sw_ok) {
    const std::int64_t sw = static_cast<std::int64_t>(p.swizzle);
    if (p.arch == Arch::sm_90 && is_atom_swizzle(p.swizzle))
      v.add(Rule::swizzle_atom_requires_sm100, Field::swizzle, -1, sw);
    // cuda.h: interleave 32B needs swizzle 32B. The sm_90 driver accepts any swizzle with interleave 32B
    // (verified), so this documented rule is applied only on the unverified Blackwell targets.
    if (f.blackwell && f.il_ok && p.interleave == Interleave::b32 && p.swizzle != Swizzle::b32)
      v.add(Rule::swizzle_interleave32_requires_32b, Field::swizzle, -1, sw);
    if (f.dtype_ok && p.dtype == DataType::u6x16_align16b &&
        !(p.swizzle == Swizzle::none || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b ||
          p.swizzle == Swizzle::b128_atom_64b))
      v.add(Rule::swizzle_u6_modes, Field::swizzle, -1, sw);
    if (f.dtype_ok && p.dtype == DataType::u4x16_align16b &&
        !(p.swizzle == Swizzle::none || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b))
      v.add(Rule::swizzle_u4_align16b_modes, Field::swizzle, -1, sw);
    // cuda.h: im2col_wide takes only 64B / 128B / 128B_ATOM_32B. The sm_90 driver accepts every swizzle
    // (verified), so this documented rule is applied only on the unverified Blackwell targets.
    if (f.blackwell && f.wide &&
        !(p.swizzle == Swizzle::b64 || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b))
      v.add(Rule::swizzle_im2col_wide_modes, Field::swizzle, -1, sw);
  }

  if (f.packed && p.arch == Arch::sm_90)
    v.add(Rule::dtype_packed_requires_sm100, Field::tensorDataType, -1, static_cast<std::int64_t>(p.dtype));

  if (static_cast<std::uint32_t>(p.l2) >= kL2PromotionCount)
    v.add(Rule::l2_promotion_range, Field::l2Promotion, -1, static_cast<std::int64_t>(p.l2));
  if (static_cast<std::uint32_t>(p.oob) >= kOobFillCount) {
    v.add(Rule::oob_fill_range, Field::oobFill, -1, static_cast<std::int64_t>(p.oob));
  } else if (p.oob == OobFill::nan_request_zero_fma && f.dtype_ok && !is_floating_point(p.dtype)) {
    v.add(Rule::oob_fill_requires_float, Field::oobFill, -1, static_cast<std::int64_t>(p.oob));
  }
}

// The pixel box's corners of an im2col / im2col_wide map: each in the range of its rank, each spatial
// extent non-empty in the driver's 32-bit arithmetic.
template <class Sink>
TMAKIT_HD constexpr void check_im2col_corners(const TensorMapParams& p, const Facts& f, Sink& v) {
  const std::uint32_t rank = f.rank;
  const std::int32_t lim = tmap_fields::corner_limit(rank);
  // Spatial dimension of corner i: globalDim[i + 1] without interleave (dims[0] is C), globalDim[i]
  // with interleave (verified on sm_90: the C chunk is the element there).
  const std::uint32_t off = (f.il_ok && p.interleave != Interleave::none) ? 0 : 1;
  const std::uint32_t corners = f.im2col ? rank - 2 : 1;  // im2col_wide: the W corners only
  for (std::uint32_t i = 0; i < corners; ++i) {
    const bool lo_ok = p.lower[i] >= -lim && p.lower[i] < lim;
    const bool up_ok = p.upper[i] >= -lim && p.upper[i] < lim;
    if (!lo_ok) v.add(Rule::im2col_lower_corner_range, Field::pixelBoxLowerCorner, static_cast<std::int32_t>(i), p.lower[i]);
    if (!up_ok) v.add(Rule::im2col_upper_corner_range, Field::pixelBoxUpperCorner, static_cast<std::int32_t>(i), p.upper[i]);
    const std::uint32_t k = i + off;
    if (f.il_ok && lo_ok && up_ok && f.dims_ok[k] &&
        !(wrap_i32(p.dims[k] + static_cast<std::uint64_t>(static_cast<std::int64_t>(p.upper[i]))) > p.lower[i]))
      v.add(Rule::im2col_box_nonempty, Field::pixelBoxLowerCorner, static_cast<std::int32_t>(i), p.lower[i]);
  }
  if (f.wide && f.il_ok) {
    // The D / H extents of a wide map are 1 (corners 0): the same 32-bit check needs dims < 2^31.
    for (std::uint32_t k = off + 1; k < off + rank - 2; ++k) {
      if (f.dims_ok[k] && wrap_i32(p.dims[k]) <= 0)
        v.add(Rule::im2col_wide_spatial_dim_below_2_31, Field::globalDim, static_cast<std::int32_t>(k), as_i64(p.dims[k]));
    }
  }
}

// An im2col / im2col_wide map's corners, channelsPerPixel, pixelsPerColumn and wide mode.
template <class Sink>
TMAKIT_HD constexpr void check_im2col(const TensorMapParams& p, const Facts& f, Sink& v) {
  if (!f.im2col && !f.wide) return;
  if (f.rank >= 3) check_im2col_corners(p, f, v);
  const bool ch_ok = p.channels >= 1 && p.channels <= 256;
  if (!ch_ok) v.add(Rule::im2col_channels_range, Field::channelsPerPixel, -1, p.channels);
  if (f.packed16) {
    if (ch_ok && p.channels != 128) v.add(Rule::im2col_channels_packed_128, Field::channelsPerPixel, -1, p.channels);
  } else if (f.dtype_ok && ch_ok && (std::uint64_t{p.channels} * f.ebits) % 128 != 0) {
    v.add(Rule::im2col_channels_bytes_multiple_of_16, Field::channelsPerPixel, -1, p.channels);
  }
  if (f.span_applies && f.dtype_ok && ch_ok && std::uint64_t{p.channels} * f.ebits > std::uint64_t{f.span} * 8)
    v.add(Rule::swizzle_inner_box_span, Field::channelsPerPixel, -1, p.channels);
  // pixelsPerColumn is range-checked (and counted below) in W128 mode too: verified on sm_90.
  const bool px_ok = p.pixels >= 1 && p.pixels <= 1024;
  if (!px_ok) v.add(Rule::im2col_pixels_range, Field::pixelsPerColumn, -1, p.pixels);
  if (f.dtype_ok && ch_ok && px_ok && f.arch_ok) {
    const std::uint64_t bytes = box_bytes(p);
    if (bytes > smem_limit_bytes(p.arch)) v.add(Rule::im2col_smem_footprint, Field::pixelsPerColumn, -1, as_i64(bytes));
  }
  if (f.wide && static_cast<std::uint32_t>(p.wide_mode) >= kIm2colWideModeCount)
    v.add(Rule::wide_mode_range, Field::mode, -1, static_cast<std::int64_t>(p.wide_mode));
}

}  // namespace validate_detail

// Runs every check, reporting each violation to `v.add(rule, field, index, value)`, in the order of
// the phases below. The sink decides what a violation costs: validate() lists them, is_valid() only
// notes that one occurred (and the compiler then drops the bookkeeping), so the pass/fail path of
// encode builds no list.
template <class Sink>
TMAKIT_HD constexpr void check_params(const TensorMapParams& p, Sink& v) {
  namespace D = validate_detail;
  D::Facts f = D::check_kind_and_rank(p, v);
  D::check_global(p, f, v);
  D::check_box(p, f, v);
  D::check_modes(p, f, v);
  D::check_im2col(p, f, v);
}

// Every violated rule, at once.
TMAKIT_HD constexpr Violations validate(const TensorMapParams& p) {
  Violations v;
  check_params(p, v);
  return v;
}

// True when validate(p) would be empty, without building the list.
struct ValidityFlag {
  bool ok = true;
  TMAKIT_HD constexpr void add(Rule, Field, std::int32_t, std::int64_t) { ok = false; }
};
TMAKIT_HD constexpr bool is_valid(const TensorMapParams& p) {
  ValidityFlag f;
  check_params(p, f);
  return f.ok;
}

}  // namespace tmakit

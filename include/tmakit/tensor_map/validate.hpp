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
#include "tmakit/tensor_map/layout.hpp"
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

// Runs every check, reporting each violation to `v.add(rule, field, index, value)`. The sink decides
// what a violation costs: validate() lists them, is_valid() only notes that one occurred (and the
// compiler then drops the bookkeeping), so the pass/fail path of encode builds no list.
template <class Sink>
TMAKIT_HD constexpr void check_params(const TensorMapParams& p, Sink& v) {
  namespace D = validate_detail;

  // --- enum values and the target
  const bool arch_ok = is_valid(p.arch);
  if (!arch_ok) v.add(Rule::arch_supported, Field::arch, -1, static_cast<std::int64_t>(p.arch));
  const bool kind_ok = static_cast<std::uint32_t>(p.kind) < kMapKindCount;
  if (!kind_ok) v.add(Rule::kind_range, Field::kind, -1, static_cast<std::int64_t>(p.kind));
  const bool tiled = p.kind == MapKind::tiled;
  const bool im2col = p.kind == MapKind::im2col;
  const bool wide = p.kind == MapKind::im2col_wide;
  const bool blackwell = is_blackwell(p.arch);

  const bool dtype_ok = is_valid(p.dtype);
  if (!dtype_ok) v.add(Rule::dtype_range, Field::tensorDataType, -1, static_cast<std::int64_t>(p.dtype));
  const bool packed = dtype_ok && is_packed(p.dtype);
  const bool packed16 = dtype_ok && D::is_packed16(p.dtype);
  // Bits per element in shared memory (the packed ALIGN16B types take 8 bits per value there).
  const std::uint64_t ebits = dtype_ok ? smem_element_bits(p.dtype) : 0;

  // --- rank
  bool rank_ok = true;
  if (p.rank < 1 || p.rank > kMaxRank) {
    v.add(Rule::rank_range, Field::tensorRank, -1, p.rank);
    rank_ok = false;
  } else if ((im2col || wide) && p.rank < 3) {
    v.add(Rule::rank_im2col_range, Field::tensorRank, -1, p.rank);
    rank_ok = false;
  }
  const std::uint32_t rank = rank_ok ? p.rank : 0;  // 0: skip every per-dimension check

  // --- global address
  const bool il_ok = static_cast<std::uint32_t>(p.interleave) < kInterleaveCount;
  const bool sw_ok = static_cast<std::uint32_t>(p.swizzle) < kSwizzleCount;
  const bool align32 = (il_ok && p.interleave == Interleave::b32) || packed16;
  if (p.address % 16 != 0) {
    v.add(Rule::address_align16, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));
  } else if (align32 && p.address % 32 != 0) {
    v.add(Rule::address_align32, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));
  }
  if (p.address >= D::kAddressLimit)
    v.add(Rule::address_below_2_57, Field::globalAddress, -1, static_cast<std::int64_t>(p.address));

  // --- globalDim
  bool dims_ok[kMaxRank] = {};
  for (std::uint32_t i = 0; i < rank; ++i) {
    dims_ok[i] = p.dims[i] >= 1 && p.dims[i] <= D::kMaxDim;
    if (!dims_ok[i]) v.add(Rule::dims_range, Field::globalDim, static_cast<std::int32_t>(i), D::as_i64(p.dims[i]));
  }
  if (rank >= 1 && dims_ok[0]) {
    if (packed16 && p.dims[0] % 128 != 0)
      v.add(Rule::dims_packed_multiple_of_128, Field::globalDim, 0, D::as_i64(p.dims[0]));
    if (dtype_ok && p.dtype == DataType::u4x16_align8b && p.dims[0] % 2 != 0)
      v.add(Rule::dims_packed_multiple_of_2, Field::globalDim, 0, D::as_i64(p.dims[0]));
  }

  // --- globalStrides (rank - 1 of them, in bytes)
  for (std::uint32_t i = 0; i + 1 < rank; ++i) {
    const std::uint64_t s = p.strides[i];
    if (s % 16 != 0) {
      v.add(Rule::strides_align16, Field::globalStrides, static_cast<std::int32_t>(i), D::as_i64(s));
    } else if (align32 && s % 32 != 0) {
      v.add(Rule::strides_align32, Field::globalStrides, static_cast<std::int32_t>(i), D::as_i64(s));
    }
    if (s >= D::kStrideLimit) v.add(Rule::strides_below_2_40, Field::globalStrides, static_cast<std::int32_t>(i), D::as_i64(s));
  }

  // --- elementStrides (elementStrides[0] is checked too, although TMA ignores it without interleave)
  bool es_ok = true;
  for (std::uint32_t i = 0; i < rank; ++i) {
    if (p.elem_strides[i] < 1 || p.elem_strides[i] > 8) {
      v.add(Rule::elem_strides_range, Field::elementStrides, static_cast<std::int32_t>(i), p.elem_strides[i]);
      es_ok = false;
    }
  }

  const std::uint32_t span = sw_ok ? swizzle_span_bytes(p.swizzle) : 0;
  const bool span_applies = il_ok && sw_ok && p.interleave == Interleave::none && p.swizzle != Swizzle::none;

  // --- boxDim (tiled)
  if (tiled && rank >= 1) {
    bool box_ok = true;
    for (std::uint32_t i = 0; i < rank; ++i) {
      if (p.box[i] < 1 || p.box[i] > 256) {
        v.add(Rule::box_range, Field::boxDim, static_cast<std::int32_t>(i), p.box[i]);
        box_ok = false;
      }
    }
    const bool box0_ok = p.box[0] >= 1 && p.box[0] <= 256;
    if (packed16) {
      if (box0_ok && p.box[0] != 128) v.add(Rule::box_packed_inner_128, Field::boxDim, 0, p.box[0]);
    } else if (dtype_ok && box0_ok && (std::uint64_t{p.box[0]} * ebits) % 128 != 0) {
      v.add(Rule::box_inner_bytes_multiple_of_16, Field::boxDim, 0, p.box[0]);
    }
    if (dtype_ok && box_ok && es_ok && arch_ok) {
      const std::uint64_t bytes = box_bytes_checked_ranges(p);  // box and element strides in range
      if (bytes > smem_limit_bytes(p.arch)) v.add(Rule::box_smem_footprint, Field::boxDim, -1, D::as_i64(bytes));
    }
    if (span_applies && dtype_ok && box0_ok && std::uint64_t{p.box[0]} * ebits > std::uint64_t{span} * 8)
      v.add(Rule::swizzle_inner_box_span, Field::boxDim, 0, p.box[0]);
  }

  // --- interleave
  if (tiled && rank_ok && il_ok && p.interleave != Interleave::none && p.rank < 3)
    v.add(Rule::rank_interleave_min3, Field::tensorRank, -1, p.rank);
  if (il_ok && dtype_ok && p.dtype == DataType::u6x16_align16b && p.interleave != Interleave::none)
    v.add(Rule::interleave_u6_requires_none, Field::interleave, -1, static_cast<std::int64_t>(p.interleave));
  if (!il_ok) v.add(Rule::interleave_range, Field::interleave, -1, static_cast<std::int64_t>(p.interleave));

  // --- swizzle
  if (!sw_ok) v.add(Rule::swizzle_range, Field::swizzle, -1, static_cast<std::int64_t>(p.swizzle));
  if (sw_ok) {
    const std::int64_t sw = static_cast<std::int64_t>(p.swizzle);
    if (p.arch == Arch::sm_90 && is_atom_swizzle(p.swizzle))
      v.add(Rule::swizzle_atom_requires_sm100, Field::swizzle, -1, sw);
    // cuda.h: interleave 32B needs swizzle 32B. The sm_90 driver accepts any swizzle with interleave 32B
    // (verified), so this documented rule is applied only on the unverified Blackwell targets.
    if (blackwell && il_ok && p.interleave == Interleave::b32 && p.swizzle != Swizzle::b32)
      v.add(Rule::swizzle_interleave32_requires_32b, Field::swizzle, -1, sw);
    if (dtype_ok && p.dtype == DataType::u6x16_align16b &&
        !(p.swizzle == Swizzle::none || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b ||
          p.swizzle == Swizzle::b128_atom_64b))
      v.add(Rule::swizzle_u6_modes, Field::swizzle, -1, sw);
    if (dtype_ok && p.dtype == DataType::u4x16_align16b &&
        !(p.swizzle == Swizzle::none || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b))
      v.add(Rule::swizzle_u4_align16b_modes, Field::swizzle, -1, sw);
    // cuda.h: im2col_wide takes only 64B / 128B / 128B_ATOM_32B. The sm_90 driver accepts every swizzle
    // (verified), so this documented rule is applied only on the unverified Blackwell targets.
    if (blackwell && wide &&
        !(p.swizzle == Swizzle::b64 || p.swizzle == Swizzle::b128 || p.swizzle == Swizzle::b128_atom_32b))
      v.add(Rule::swizzle_im2col_wide_modes, Field::swizzle, -1, sw);
  }

  // --- data type on this architecture
  if (packed && p.arch == Arch::sm_90)
    v.add(Rule::dtype_packed_requires_sm100, Field::tensorDataType, -1, static_cast<std::int64_t>(p.dtype));

  // --- l2Promotion, oobFill
  if (static_cast<std::uint32_t>(p.l2) >= kL2PromotionCount)
    v.add(Rule::l2_promotion_range, Field::l2Promotion, -1, static_cast<std::int64_t>(p.l2));
  if (static_cast<std::uint32_t>(p.oob) >= kOobFillCount) {
    v.add(Rule::oob_fill_range, Field::oobFill, -1, static_cast<std::int64_t>(p.oob));
  } else if (p.oob == OobFill::nan_request_zero_fma && dtype_ok && !is_floating_point(p.dtype)) {
    v.add(Rule::oob_fill_requires_float, Field::oobFill, -1, static_cast<std::int64_t>(p.oob));
  }

  // --- im2col / im2col_wide
  if (im2col || wide) {
    if (rank >= 3) {
      const std::int32_t lim = tmap_layout::corner_limit(rank);
      // Spatial dimension of corner i: globalDim[i + 1] without interleave (dims[0] is C), globalDim[i]
      // with interleave (verified on sm_90: the C chunk is the element there).
      const std::uint32_t off = (il_ok && p.interleave != Interleave::none) ? 0 : 1;
      const std::uint32_t corners = im2col ? rank - 2 : 1;  // im2col_wide: the W corners only
      for (std::uint32_t i = 0; i < corners; ++i) {
        const bool lo_ok = p.lower[i] >= -lim && p.lower[i] < lim;
        const bool up_ok = p.upper[i] >= -lim && p.upper[i] < lim;
        if (!lo_ok) v.add(Rule::im2col_lower_corner_range, Field::pixelBoxLowerCorner, static_cast<std::int32_t>(i), p.lower[i]);
        if (!up_ok) v.add(Rule::im2col_upper_corner_range, Field::pixelBoxUpperCorner, static_cast<std::int32_t>(i), p.upper[i]);
        const std::uint32_t k = i + off;
        if (il_ok && lo_ok && up_ok && dims_ok[k] &&
            !(D::wrap_i32(p.dims[k] + static_cast<std::uint64_t>(static_cast<std::int64_t>(p.upper[i]))) > p.lower[i]))
          v.add(Rule::im2col_box_nonempty, Field::pixelBoxLowerCorner, static_cast<std::int32_t>(i), p.lower[i]);
      }
      if (wide && il_ok) {
        // The D / H extents of a wide map are 1 (corners 0): the same 32-bit check needs dims < 2^31.
        for (std::uint32_t k = off + 1; k < off + rank - 2; ++k) {
          if (dims_ok[k] && D::wrap_i32(p.dims[k]) <= 0)
            v.add(Rule::im2col_wide_spatial_dim_below_2_31, Field::globalDim, static_cast<std::int32_t>(k), D::as_i64(p.dims[k]));
        }
      }
    }
    const bool ch_ok = p.channels >= 1 && p.channels <= 256;
    if (!ch_ok) v.add(Rule::im2col_channels_range, Field::channelsPerPixel, -1, p.channels);
    if (packed16) {
      if (ch_ok && p.channels != 128) v.add(Rule::im2col_channels_packed_128, Field::channelsPerPixel, -1, p.channels);
    } else if (dtype_ok && ch_ok && (std::uint64_t{p.channels} * ebits) % 128 != 0) {
      v.add(Rule::im2col_channels_bytes_multiple_of_16, Field::channelsPerPixel, -1, p.channels);
    }
    if (span_applies && dtype_ok && ch_ok && std::uint64_t{p.channels} * ebits > std::uint64_t{span} * 8)
      v.add(Rule::swizzle_inner_box_span, Field::channelsPerPixel, -1, p.channels);
    // pixelsPerColumn is range-checked (and counted below) in W128 mode too: verified on sm_90.
    const bool px_ok = p.pixels >= 1 && p.pixels <= 1024;
    if (!px_ok) v.add(Rule::im2col_pixels_range, Field::pixelsPerColumn, -1, p.pixels);
    if (dtype_ok && ch_ok && px_ok && arch_ok) {
      const std::uint64_t bytes = box_bytes(p);
      if (bytes > smem_limit_bytes(p.arch)) v.add(Rule::im2col_smem_footprint, Field::pixelsPerColumn, -1, D::as_i64(bytes));
    }
    if (wide && static_cast<std::uint32_t>(p.wide_mode) >= kIm2colWideModeCount)
      v.add(Rule::wide_mode_range, Field::mode, -1, static_cast<std::int64_t>(p.wide_mode));
  }
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

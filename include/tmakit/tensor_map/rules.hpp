// The rules a tensor map's parameters must satisfy, each with a stable id (see docs/rules.md for the
// source of every rule: cuda.h, the PTX ISA, or the sm_90 driver's observed decisions).
//
// Ids are stable: tests, the CLI's JSON output and users' scripts match on them. Never renumber or
// rename; add new rules at the end of the enum.
#pragma once

#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

enum class Rule : std::uint32_t {
  // --- enum values and the target
  arch_supported = 0,        // arch.supported
  kind_range,                // kind.range
  dtype_range,               // dtype.range
  interleave_range,          // interleave.range
  swizzle_range,             // swizzle.range
  l2_promotion_range,        // l2promotion.range
  oob_fill_range,            // oobfill.range
  wide_mode_range,           // mode.range
  // --- rank
  rank_range,                // rank.range
  rank_im2col_range,         // rank.im2col_range
  rank_interleave_min3,      // rank.interleave_min3
  // --- global address
  address_align16,           // address.align16
  address_align32,           // address.align32
  address_below_2_57,        // address.below_2_57
  // --- globalDim
  dims_range,                // dims.range
  dims_packed_multiple_of_128,  // dims.packed_multiple_of_128
  dims_packed_multiple_of_2,    // dims.packed_multiple_of_2
  // --- globalStrides
  strides_align16,           // strides.align16
  strides_align32,           // strides.align32
  strides_below_2_40,        // strides.below_2_40
  // --- boxDim (tiled)
  box_range,                 // box.range
  box_inner_bytes_multiple_of_16,  // box.inner_bytes_multiple_of_16
  box_packed_inner_128,      // box.packed_inner_128
  box_smem_footprint,        // box.smem_footprint
  swizzle_inner_box_span,    // swizzle.inner_box_span (tiled boxDim[0] / im2col channelsPerPixel)
  // --- elementStrides
  elem_strides_range,        // elem_strides.range
  // --- type / interleave / swizzle / fill combinations
  interleave_u6_requires_none,       // interleave.u6_requires_none
  swizzle_interleave32_requires_32b,  // swizzle.interleave32_requires_32b (sm_100/sm_120 only)
  swizzle_u6_modes,                  // swizzle.u6_modes
  swizzle_u4_align16b_modes,         // swizzle.u4_align16b_modes
  swizzle_im2col_wide_modes,         // swizzle.im2col_wide_modes (sm_100/sm_120 only)
  oob_fill_requires_float,           // oobfill.requires_float_type
  // --- architecture gates
  dtype_packed_requires_sm100,       // dtype.packed_requires_sm100
  swizzle_atom_requires_sm100,       // swizzle.atom_requires_sm100
  // --- im2col / im2col_wide
  im2col_lower_corner_range,         // im2col.lower_corner_range
  im2col_upper_corner_range,         // im2col.upper_corner_range
  im2col_box_nonempty,               // im2col.box_nonempty
  im2col_wide_spatial_dim_below_2_31,  // im2col_wide.spatial_dim_below_2_31
  im2col_channels_range,             // im2col.channels_range
  im2col_channels_bytes_multiple_of_16,  // im2col.channels_bytes_multiple_of_16
  im2col_channels_packed_128,        // im2col.channels_packed_128
  im2col_pixels_range,               // im2col.pixels_range
  im2col_smem_footprint,             // im2col.smem_footprint
};

inline constexpr std::uint32_t kRuleCount = static_cast<std::uint32_t>(Rule::im2col_smem_footprint) + 1;

// Stable id printed to users and asserted by tests, e.g. "rank.range".
TMAKIT_HD constexpr const char* rule_id(Rule r) {
  switch (r) {
    case Rule::arch_supported: return "arch.supported";
    case Rule::kind_range: return "kind.range";
    case Rule::dtype_range: return "dtype.range";
    case Rule::interleave_range: return "interleave.range";
    case Rule::swizzle_range: return "swizzle.range";
    case Rule::l2_promotion_range: return "l2promotion.range";
    case Rule::oob_fill_range: return "oobfill.range";
    case Rule::wide_mode_range: return "mode.range";
    case Rule::rank_range: return "rank.range";
    case Rule::rank_im2col_range: return "rank.im2col_range";
    case Rule::rank_interleave_min3: return "rank.interleave_min3";
    case Rule::address_align16: return "address.align16";
    case Rule::address_align32: return "address.align32";
    case Rule::address_below_2_57: return "address.below_2_57";
    case Rule::dims_range: return "dims.range";
    case Rule::dims_packed_multiple_of_128: return "dims.packed_multiple_of_128";
    case Rule::dims_packed_multiple_of_2: return "dims.packed_multiple_of_2";
    case Rule::strides_align16: return "strides.align16";
    case Rule::strides_align32: return "strides.align32";
    case Rule::strides_below_2_40: return "strides.below_2_40";
    case Rule::box_range: return "box.range";
    case Rule::box_inner_bytes_multiple_of_16: return "box.inner_bytes_multiple_of_16";
    case Rule::box_packed_inner_128: return "box.packed_inner_128";
    case Rule::box_smem_footprint: return "box.smem_footprint";
    case Rule::swizzle_inner_box_span: return "swizzle.inner_box_span";
    case Rule::elem_strides_range: return "elem_strides.range";
    case Rule::interleave_u6_requires_none: return "interleave.u6_requires_none";
    case Rule::swizzle_interleave32_requires_32b: return "swizzle.interleave32_requires_32b";
    case Rule::swizzle_u6_modes: return "swizzle.u6_modes";
    case Rule::swizzle_u4_align16b_modes: return "swizzle.u4_align16b_modes";
    case Rule::swizzle_im2col_wide_modes: return "swizzle.im2col_wide_modes";
    case Rule::oob_fill_requires_float: return "oobfill.requires_float_type";
    case Rule::dtype_packed_requires_sm100: return "dtype.packed_requires_sm100";
    case Rule::swizzle_atom_requires_sm100: return "swizzle.atom_requires_sm100";
    case Rule::im2col_lower_corner_range: return "im2col.lower_corner_range";
    case Rule::im2col_upper_corner_range: return "im2col.upper_corner_range";
    case Rule::im2col_box_nonempty: return "im2col.box_nonempty";
    case Rule::im2col_wide_spatial_dim_below_2_31: return "im2col_wide.spatial_dim_below_2_31";
    case Rule::im2col_channels_range: return "im2col.channels_range";
    case Rule::im2col_channels_bytes_multiple_of_16: return "im2col.channels_bytes_multiple_of_16";
    case Rule::im2col_channels_packed_128: return "im2col.channels_packed_128";
    case Rule::im2col_pixels_range: return "im2col.pixels_range";
    case Rule::im2col_smem_footprint: return "im2col.smem_footprint";
  }
  return "unknown";
}

// The rule in words, phrased to follow "<field> = <value>: " in a message.
TMAKIT_HD constexpr const char* rule_text(Rule r) {
  switch (r) {
    case Rule::arch_supported: return "must be sm_90, sm_100 or sm_120";
    case Rule::kind_range: return "must be tiled, im2col or im2col_wide";
    case Rule::dtype_range: return "must be a CUtensorMapDataType value (0..15)";
    case Rule::interleave_range: return "must be a CUtensorMapInterleave value (0..2)";
    case Rule::swizzle_range: return "must be a CUtensorMapSwizzle value (0..6)";
    case Rule::l2_promotion_range: return "must be a CUtensorMapL2promotion value (0..3)";
    case Rule::oob_fill_range: return "must be a CUtensorMapFloatOOBfill value (0..1)";
    case Rule::wide_mode_range: return "must be a CUtensorMapIm2ColWideMode value (0..1)";
    case Rule::rank_range: return "must be between 1 and 5";
    case Rule::rank_im2col_range: return "must be 3, 4 or 5 for an im2col map";
    case Rule::rank_interleave_min3: return "must be at least 3 when interleave is not NONE";
    case Rule::address_align16: return "must be 16-byte aligned";
    case Rule::address_align32:
      return "must be 32-byte aligned with interleave 32B or a 16U4_ALIGN16B / 16U6_ALIGN16B data type";
    case Rule::address_below_2_57: return "must be below 2^57 (bits 57-63 clear)";
    case Rule::dims_range: return "must be between 1 and 2^32";
    case Rule::dims_packed_multiple_of_128:
      return "must be a multiple of 128 for 16U4_ALIGN16B / 16U6_ALIGN16B";
    case Rule::dims_packed_multiple_of_2: return "must be a multiple of 2 for 16U4_ALIGN8B";
    case Rule::strides_align16: return "must be a multiple of 16 bytes";
    case Rule::strides_align32:
      return "must be a multiple of 32 bytes with interleave 32B or a 16U4_ALIGN16B / 16U6_ALIGN16B data type";
    case Rule::strides_below_2_40: return "must be less than 2^40 bytes";
    case Rule::box_range: return "must be between 1 and 256";
    case Rule::box_inner_bytes_multiple_of_16:
      return "boxDim[0] x element size must be a multiple of 16 bytes (every interleave mode)";
    case Rule::box_packed_inner_128: return "must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B";
    case Rule::box_smem_footprint:
      return "the box's shared-memory footprint, element size x prod(floor(boxDim[i] / elementStrides[i])), "
             "must not exceed the shared memory of one SM";
    case Rule::swizzle_inner_box_span:
      return "the inner box dimension in bytes must not exceed the swizzle span (interleave NONE)";
    case Rule::elem_strides_range: return "must be between 1 and 8 (elementStrides[0] included)";
    case Rule::interleave_u6_requires_none: return "must be NONE for 16U6_ALIGN16B";
    case Rule::swizzle_interleave32_requires_32b: return "must be 32B when interleave is 32B";
    case Rule::swizzle_u6_modes:
      return "must be NONE, 128B, 128B_ATOM_32B or 128B_ATOM_64B for 16U6_ALIGN16B";
    case Rule::swizzle_u4_align16b_modes: return "must be NONE, 128B or 128B_ATOM_32B for 16U4_ALIGN16B";
    case Rule::swizzle_im2col_wide_modes: return "must be 64B, 128B or 128B_ATOM_32B for an im2col_wide map";
    case Rule::oob_fill_requires_float:
      return "NAN_REQUEST_ZERO_FMA needs a floating-point, non-packed data type";
    case Rule::dtype_packed_requires_sm100:
      return "packed 4/6-bit data types are not supported before sm_100 (the sm_90 driver refuses them)";
    case Rule::swizzle_atom_requires_sm100:
      return "128B_ATOM_* swizzles are not supported before sm_100 (the sm_90 driver refuses them)";
    case Rule::im2col_lower_corner_range:
      return "must be within [-2^15, 2^15-1] (rank 3), [-128, 127] (rank 4) or [-16, 15] (rank 5)";
    case Rule::im2col_upper_corner_range:
      return "must be within [-2^15, 2^15-1] (rank 3), [-128, 127] (rank 4) or [-16, 15] (rank 5)";
    case Rule::im2col_box_nonempty:
      return "the pixel box must be non-empty: lower corner < globalDim + upper corner, evaluated in 32-bit "
             "two's complement";
    case Rule::im2col_wide_spatial_dim_below_2_31:
      return "must be below 2^31 for the spatial dimensions other than W of an im2col_wide map";
    case Rule::im2col_channels_range: return "must be between 1 and 256";
    case Rule::im2col_channels_bytes_multiple_of_16:
      return "channelsPerPixel x element size must be a multiple of 16 bytes";
    case Rule::im2col_channels_packed_128: return "must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B";
    case Rule::im2col_pixels_range: return "must be between 1 and 1024 (also in W128 mode)";
    case Rule::im2col_smem_footprint:
      return "the shared-memory footprint, element size x channelsPerPixel x pixelsPerColumn, must not exceed "
             "the shared memory of one SM";
  }
  return "unknown rule";
}

// The largest shared-memory footprint of one copy the driver accepts: 228 KiB on sm_90 (verified:
// 233472 bytes accepted, 233520 refused); sm_100: 228 KiB per SM (unverified); sm_120: 100 KiB per
// SM (unverified).
TMAKIT_HD constexpr std::uint64_t smem_limit_bytes(Arch a) {
  return a == Arch::sm_120 ? 100u * 1024u : 228u * 1024u;
}

using Violations = ViolationList<Rule>;

}  // namespace tmakit

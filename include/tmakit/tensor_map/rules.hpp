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

// The rule in words (`text`) is phrased to follow "<field> = <value>: " in a message; `part` is the
// cuda.h parameter the rule concerns. Fixes are computed from the values (explain(), host only).
TMAKIT_HD constexpr RuleTable<Rule, 43> rule_table(Rule) {
  return {{
      {Rule::arch_supported, "arch.supported", "arch", "must be sm_90, sm_100 or sm_120"},
      {Rule::kind_range, "kind.range", "kind", "must be tiled, im2col or im2col_wide"},
      {Rule::dtype_range, "dtype.range", "tensorDataType", "must be a CUtensorMapDataType value (0..15)"},
      {Rule::interleave_range, "interleave.range", "interleave", "must be a CUtensorMapInterleave value (0..2)"},
      {Rule::swizzle_range, "swizzle.range", "swizzle", "must be a CUtensorMapSwizzle value (0..6)"},
      {Rule::l2_promotion_range, "l2promotion.range", "l2Promotion", "must be a CUtensorMapL2promotion value (0..3)"},
      {Rule::oob_fill_range, "oobfill.range", "oobFill", "must be a CUtensorMapFloatOOBfill value (0..1)"},
      {Rule::wide_mode_range, "mode.range", "mode", "must be a CUtensorMapIm2ColWideMode value (0..1)"},
      {Rule::rank_range, "rank.range", "tensorRank", "must be between 1 and 5"},
      {Rule::rank_im2col_range, "rank.im2col_range", "tensorRank", "must be 3, 4 or 5 for an im2col map"},
      {Rule::rank_interleave_min3, "rank.interleave_min3", "tensorRank",
       "must be at least 3 when interleave is not NONE"},
      {Rule::address_align16, "address.align16", "globalAddress", "must be 16-byte aligned"},
      {Rule::address_align32, "address.align32", "globalAddress",
       "must be 32-byte aligned with interleave 32B or a 16U4_ALIGN16B / 16U6_ALIGN16B data type"},
      {Rule::address_below_2_57, "address.below_2_57", "globalAddress", "must be below 2^57 (bits 57-63 clear)"},
      {Rule::dims_range, "dims.range", "globalDim", "must be between 1 and 2^32"},
      {Rule::dims_packed_multiple_of_128, "dims.packed_multiple_of_128", "globalDim",
       "must be a multiple of 128 for 16U4_ALIGN16B / 16U6_ALIGN16B"},
      {Rule::dims_packed_multiple_of_2, "dims.packed_multiple_of_2", "globalDim",
       "must be a multiple of 2 for 16U4_ALIGN8B"},
      {Rule::strides_align16, "strides.align16", "globalStrides", "must be a multiple of 16 bytes"},
      {Rule::strides_align32, "strides.align32", "globalStrides",
       "must be a multiple of 32 bytes with interleave 32B or a 16U4_ALIGN16B / 16U6_ALIGN16B data type"},
      {Rule::strides_below_2_40, "strides.below_2_40", "globalStrides", "must be less than 2^40 bytes"},
      {Rule::box_range, "box.range", "boxDim", "must be between 1 and 256"},
      {Rule::box_inner_bytes_multiple_of_16, "box.inner_bytes_multiple_of_16", "boxDim",
       "boxDim[0] x element size must be a multiple of 16 bytes (every interleave mode)"},
      {Rule::box_packed_inner_128, "box.packed_inner_128", "boxDim", "must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B"},
      {Rule::box_smem_footprint, "box.smem_footprint", "boxDim",
       "the box's shared-memory footprint, element size x prod(floor(boxDim[i] / elementStrides[i])), "
       "must not exceed the shared memory of one SM"},
      {Rule::swizzle_inner_box_span, "swizzle.inner_box_span", "boxDim, channelsPerPixel",
       "the inner box dimension in bytes must not exceed the swizzle span (interleave NONE)"},
      {Rule::elem_strides_range, "elem_strides.range", "elementStrides",
       "must be between 1 and 8 (elementStrides[0] included)"},
      {Rule::interleave_u6_requires_none, "interleave.u6_requires_none", "interleave",
       "must be NONE for 16U6_ALIGN16B"},
      {Rule::swizzle_interleave32_requires_32b, "swizzle.interleave32_requires_32b", "swizzle",
       "must be 32B when interleave is 32B"},
      {Rule::swizzle_u6_modes, "swizzle.u6_modes", "swizzle",
       "must be NONE, 128B, 128B_ATOM_32B or 128B_ATOM_64B for 16U6_ALIGN16B"},
      {Rule::swizzle_u4_align16b_modes, "swizzle.u4_align16b_modes", "swizzle",
       "must be NONE, 128B or 128B_ATOM_32B for 16U4_ALIGN16B"},
      {Rule::swizzle_im2col_wide_modes, "swizzle.im2col_wide_modes", "swizzle",
       "must be 64B, 128B or 128B_ATOM_32B for an im2col_wide map"},
      {Rule::oob_fill_requires_float, "oobfill.requires_float_type", "oobFill",
       "NAN_REQUEST_ZERO_FMA needs a floating-point, non-packed data type"},
      {Rule::dtype_packed_requires_sm100, "dtype.packed_requires_sm100", "tensorDataType",
       "packed 4/6-bit data types are not supported before sm_100 (the sm_90 driver refuses them)"},
      {Rule::swizzle_atom_requires_sm100, "swizzle.atom_requires_sm100", "swizzle",
       "128B_ATOM_* swizzles are not supported before sm_100 (the sm_90 driver refuses them)"},
      {Rule::im2col_lower_corner_range, "im2col.lower_corner_range", "pixelBoxLowerCorner",
       "must be within [-2^15, 2^15-1] (rank 3), [-128, 127] (rank 4) or [-16, 15] (rank 5)"},
      {Rule::im2col_upper_corner_range, "im2col.upper_corner_range", "pixelBoxUpperCorner",
       "must be within [-2^15, 2^15-1] (rank 3), [-128, 127] (rank 4) or [-16, 15] (rank 5)"},
      {Rule::im2col_box_nonempty, "im2col.box_nonempty", "pixelBoxLowerCorner",
       "the pixel box must be non-empty: lower corner < globalDim + upper corner, evaluated in 32-bit "
       "two's complement"},
      {Rule::im2col_wide_spatial_dim_below_2_31, "im2col_wide.spatial_dim_below_2_31", "globalDim",
       "must be below 2^31 for the spatial dimensions other than W of an im2col_wide map"},
      {Rule::im2col_channels_range, "im2col.channels_range", "channelsPerPixel", "must be between 1 and 256"},
      {Rule::im2col_channels_bytes_multiple_of_16, "im2col.channels_bytes_multiple_of_16", "channelsPerPixel",
       "channelsPerPixel x element size must be a multiple of 16 bytes"},
      {Rule::im2col_channels_packed_128, "im2col.channels_packed_128", "channelsPerPixel",
       "must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B"},
      {Rule::im2col_pixels_range, "im2col.pixels_range", "pixelsPerColumn",
       "must be between 1 and 1024 (also in W128 mode)"},
      {Rule::im2col_smem_footprint, "im2col.smem_footprint", "pixelsPerColumn",
       "the shared-memory footprint, element size x channelsPerPixel x pixelsPerColumn, must not exceed "
       "the shared memory of one SM"},
  }};
}
static_assert(rule_table_well_formed(rule_table(Rule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<Rule> == static_cast<int>(Rule::im2col_smem_footprint) + 1, "a row for every enum value");

// The largest shared-memory footprint of one copy the driver accepts: 228 KiB on sm_90 (verified:
// 233472 bytes accepted, 233520 refused); sm_100: 228 KiB per SM (unverified); sm_120: 100 KiB per
// SM (unverified).
TMAKIT_HD constexpr std::uint64_t smem_limit_bytes(Arch a) {
  return a == Arch::sm_120 ? 100u * 1024u : 228u * 1024u;
}

using Violations = ViolationList<Rule>;

}  // namespace tmakit

// The sm_90 WGMMA shared-memory matrix descriptor of a canonical operand buffer (gmma_operand(),
// smem_store_destination.hpp): the 64-bit value a wgmma.mma_async ... .ss takes for A or B.
// PTX ISA, wgmma "matrix descriptor": bits 0-13 the start address >> 4, 16-29 the leading
// dimension byte offset (LBO) >> 4, 32-45 the stride dimension byte offset (SBO) >> 4, 49-51 the
// base offset (0: buffers aligned to the swizzle repeat), 62-63 the swizzle mode (the swizzle-mode
// table's wgmma_layout, tensor_map/swizzle_modes.hpp).
//
// The byte offsets are read off the canonical layout's strides, so they follow the layout:
//   K-major, SW32 / SW64 / SW128: SBO = the stride between 8-row groups (leaf 1 of
//     ((8, MN/8), (w, K/w)): 8 rows of one swizzle span, 8 W bytes: 256 / 512 / 1024 B). LBO is not
//     used (one instruction's K extent stays inside a swizzle atom); it is 16 B (encoded 1).
//     K-major SW32 (64 x 16, 128 x 16 bf16) and SW128 (64 x 64 bf16) run through wgmma in
//     tests/gpu/test_smem_store.cu.
//   MN-major, SW32 / SW64 / SW128: ((w, MN/w), (8, K/8)) : ((1, w K), (w, 8 w)). LBO = the stride
//     between w-element MN blocks (leaf 1), SBO = the stride between 8-row K groups (leaf 3: 8 W
//     bytes, 256 / 512 / 1024 B). The GEMM (kernels/gemm_sm90) runs both MN-major operands through
//     wgmma with imm-trans = 1; its GPU test compares every layout with cuBLAS.
//   K-major without swizzle and MN-major without swizzle: not derived here (ok == false); no such
//     operand has run through a wgmma here, so no value would be checked against silicon.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/smem_store/destination.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

struct WgmmaDescriptorFields {
  std::uint32_t lbo_bytes = 0;  // leading dimension byte offset
  std::uint32_t sbo_bytes = 0;  // stride dimension byte offset
  std::uint32_t mode = 0;       // bits 62-63 (wgmma_swizzle_mode)
  bool ok = false;              // false: not a form derived here (see above)
};

// Bits 62-63 of the descriptor for a swizzle mode; ~0u for the modes wgmma does not take.
TMAKIT_HD constexpr std::uint32_t wgmma_swizzle_mode(Swizzle s) {
  const std::uint32_t t = swizzle_column<SwizzleColumn::wgmma_layout>(s);
  return t == kNoOperandLayout ? ~0u : t;
}

// The sm_100 counterpart: bits 61-63 of the tcgen05 shared-memory descriptor (PTX ISA, "shared
// memory descriptor" of tcgen05.mma) for a swizzle mode; ~0u for the modes tcgen05 does not take.
TMAKIT_HD constexpr std::uint32_t umma_swizzle_mode(Swizzle s) {
  const std::uint32_t t = swizzle_column<SwizzleColumn::umma_layout>(s);
  return t == kNoOperandLayout ? ~0u : t;
}

TMAKIT_HD constexpr WgmmaDescriptorFields wgmma_descriptor_fields(const StoreDestination& d) {
  WgmmaDescriptorFields f;
  const std::uint32_t mode = wgmma_swizzle_mode(d.swizzle_mode);
  if (!d.canonical || mode == ~0u || mode == 0) return f;
  if (d.major == OperandMajor::k) {
    // leaves of ((8, MN/8), (w, K/w)) : ((w, 8w), (1, MN w)): leaf 1 steps 8 rows
    f.sbo_bytes = static_cast<std::uint32_t>(d.tile.layout.stride_at(1) * d.elem_bytes);
    f.lbo_bytes = 16;
  } else {
    // leaves of ((w, MN/w), (8, K/8)) : ((1, w K), (w, 8w)): leaf 1 steps one MN block, leaf 3 eight K rows
    f.lbo_bytes = static_cast<std::uint32_t>(d.tile.layout.stride_at(1) * d.elem_bytes);
    f.sbo_bytes = static_cast<std::uint32_t>(d.tile.layout.stride_at(3) * d.elem_bytes);
  }
  f.mode = mode;
  f.ok = true;
  return f;
}

// The byte offset, before the swizzle, of operand element (mn, k) from the buffer's start: where
// a wgmma whose operand starts at that element points its descriptor (the hardware applies the
// swizzle to the address it forms). For a sub-tile of a canonical buffer: the first MN row of a
// warpgroup's share, the first K column of one k16 step.
TMAKIT_HD constexpr std::uint32_t wgmma_start_offset(const StoreDestination& d, std::int32_t mn, std::int32_t k) {
  const std::int64_t idx = static_cast<std::int64_t>(mn) + static_cast<std::int64_t>(d.rows) * k;
  return static_cast<std::uint32_t>(d.tile.layout(idx) * d.elem_bytes);
}

// The descriptor of an operand starting at shared address smem_addr (a 16-byte multiple).
TMAKIT_HD constexpr std::uint64_t wgmma_descriptor(std::uint32_t smem_addr, const WgmmaDescriptorFields& f) {
  return static_cast<std::uint64_t>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>((f.lbo_bytes >> 4) & 0x3FFF) << 16) |
         (static_cast<std::uint64_t>((f.sbo_bytes >> 4) & 0x3FFF) << 32) | (static_cast<std::uint64_t>(f.mode) << 62);
}

// The descriptor of the same layout starting `bytes` further on: the address field (bits 0-13, in
// units of 16 bytes) advanced by an add, so a kernel can build one descriptor per buffer and reach each
// k-step or stage with one integer add of a constant. Exact while bytes is a multiple of 16 and the
// advanced address stays below 256 KiB (the field does not carry into the leading-byte offset), which
// every shared-memory address of a CTA on sm_90 does.
TMAKIT_HD constexpr std::uint64_t wgmma_descriptor_advance(std::uint64_t desc, std::uint32_t bytes) {
  // A 32-bit add of the low word (no carry reaches bit 32), the high word as it was.
  return (desc & 0xFFFFFFFF00000000ull) | static_cast<std::uint32_t>(static_cast<std::uint32_t>(desc) + (bytes >> 4));
}

}  // namespace tmakit

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
//   K-major without swizzle and every MN-major form: not derived here (ok == false); no such
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
  if (!d.canonical || d.major != OperandMajor::k || mode == ~0u || mode == 0) return f;
  // leaves of ((8, MN/8), (w, K/w)) : ((w, 8w), (1, MN w)): leaf 1 steps 8 rows
  f.sbo_bytes = static_cast<std::uint32_t>(d.tile.layout.stride_at(1) * d.elem_bytes);
  f.lbo_bytes = 16;
  f.mode = mode;
  f.ok = true;
  return f;
}

// The descriptor of an operand starting at shared address smem_addr (a 16-byte multiple).
TMAKIT_HD constexpr std::uint64_t wgmma_descriptor(std::uint32_t smem_addr, const WgmmaDescriptorFields& f) {
  return static_cast<std::uint64_t>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>((f.lbo_bytes >> 4) & 0x3FFF) << 16) |
         (static_cast<std::uint64_t>((f.sbo_bytes >> 4) & 0x3FFF) << 32) | (static_cast<std::uint64_t>(f.mode) << 62);
}

}  // namespace tmakit

// Destinations of a register -> shared-memory store: a tile of rows x cols elements of elem_bytes
// bytes, placed by a SwizzledLayout (element-offset layout, BYTE-unit swizzle; see
// tmakit/layout/swizzled_layout.hpp) whose element offset 0 sits at a shared-memory address that is
// base_offset modulo the swizzle's repeat. The swizzle acts on shared-memory addresses (as TMA's,
// the tensor cores' and CuTe's swizzled pointers do), so tile element (row, col), the layout's
// linear index row + rows * col (CuTe's column-major convention for a (rows, cols) tile), has the
// byte address (within the repeat-aligned frame holding offset 0)
//     swizzle(base_offset + layout(row + rows * col) * elem_bytes).
// A base_offset that is a multiple of the repeat only adds (base_offset + swizzle(...)); any other
// one (a sub-tile that starts inside a swizzled operand: columns 4..35 of a K-major SW128 bf16 tile
// start 8 bytes into its rows) changes which chunks the swizzle moves.
//
// Canonical operand layouts of the tensor cores (GMMA on sm_90, UMMA on sm_100), for an operand tile
// of MN x K elements stored with rows = MN index, cols = K index:
//   K-major, SW32/SW64/SW128 (W = 32/64/128-byte rows, w = W / E elements):
//       Sw<b,4,3> o ((8, MN/8), (w, K/w)) : ((w, 8w), (1, MN w))          (b = 1, 2, 3)
//   K-major, no swizzle (8 x 16-byte core matrices, t = 16 / E; K-adjacent core matrices 128 B apart):
//       ((8, MN/8), (t, K/t)) : ((t, 8K), (1, 8t))
//   MN-major, SW32/SW64/SW128:  Sw<b,4,3> o ((w, MN/w), (8, K/8)) : ((1, w K), (w, 8w))
//   MN-major, no swizzle:       ((t, MN/t), (8, K/8)) : ((1, t K), (t, 8t))
//   SW128 with 32-byte atoms (sm_100 CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B = Sw<2,5,2>, unverified on
//   silicon): the SW128 layout with that swizzle.
// The "rows 8 apart" strides are what the matrix descriptor's stride byte offset (SBO) encodes
// (8 w E bytes for the swizzled K-major forms: 1024 B for SW128).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/int_tuple.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

enum class OperandMajor : std::uint8_t { k = 0, mn = 1 };

struct StoreDestination {
  SwizzledLayout tile{};           // element-offset layout + byte swizzle
  std::int32_t rows = 0, cols = 0;
  std::int32_t elem_bytes = 2;
  std::uint64_t base_offset = 0;   // shared address of element offset 0, modulo the swizzle repeat (bytes)
  bool canonical = false;          // built by gmma_operand()
  OperandMajor major = OperandMajor::k;
  Swizzle swizzle_mode = Swizzle::none;  // canonical only

  // Byte offset of a tile element from the start of a buffer aligned to the swizzle repeat (what the
  // device code adds to its buffer; base_offset a multiple of the repeat), and its byte address with
  // base_offset added before the swizzle (what the planner models, any base_offset).
  TMAKIT_HD constexpr std::uint64_t buffer_offset(std::int32_t row, std::int32_t col) const {
    const std::int64_t idx = static_cast<std::int64_t>(row) + static_cast<std::int64_t>(rows) * col;
    return tile.byte_offset(idx, static_cast<std::uint64_t>(elem_bytes));
  }
  TMAKIT_HD constexpr std::uint64_t byte_address(std::int32_t row, std::int32_t col) const {
    const std::int64_t idx = static_cast<std::int64_t>(row) + static_cast<std::int64_t>(rows) * col;
    return tile.swizzle(base_offset + static_cast<std::uint64_t>(tile.layout(idx)) * static_cast<std::uint64_t>(elem_bytes));
  }
};

// Any layout: rows x cols tile (rows = size of mode 0 when not given).
TMAKIT_HD constexpr StoreDestination smem_destination(const SwizzledLayout& tile, std::int32_t elem_bytes,
                                                      std::int32_t rows = 0, std::int32_t cols = 0,
                                                      std::uint64_t base_offset = 0) {
  StoreDestination d;
  d.tile = tile;
  d.elem_bytes = elem_bytes;
  const std::int64_t size = tile.layout.size();
  if (rows <= 0) rows = tile.layout.rank() >= 2 ? static_cast<std::int32_t>(tile.layout.mode(0).size())
                                                : static_cast<std::int32_t>(size);
  if (cols <= 0) cols = rows > 0 ? static_cast<std::int32_t>(size / rows) : 0;
  d.rows = rows;
  d.cols = cols;
  d.base_offset = base_offset;
  return d;
}

// Bytes per row of an operand swizzle mode: the swizzle's span (swizzle_span_bytes), 16 for none (one
// core-matrix row), 0 for the modes that neither wgmma nor tcgen05 has a layout type for (the
// swizzle-mode table: 128B_ATOM_32B_FLIP_8B, 128B_ATOM_64B).
TMAKIT_HD constexpr std::int32_t operand_row_bytes(Swizzle s) {
  if (swizzle_column<SwizzleColumn::wgmma_layout>(s) == kNoOperandLayout &&
      swizzle_column<SwizzleColumn::umma_layout>(s) == kNoOperandLayout)
    return 0;
  if (s == Swizzle::none) return 16;
  return static_cast<std::int32_t>(swizzle_span_bytes(s));
}

// The canonical GMMA/UMMA operand layout for an mn x k tile (see the header comment). ok == false
// when the extents are not multiples of the atom (mn of 8 (K-major) or w (MN-major); k of w
// (K-major) or 8 (MN-major)) or the swizzle mode has no operand form (128B_ATOM_32B_FLIP_8B,
// 128B_ATOM_64B are not operand layouts here).
struct DestinationResult {
  StoreDestination value{};
  bool ok = false;
  std::int32_t need_mn = 0, need_k = 0;  // the multiples required (for the message)
};

TMAKIT_HD constexpr DestinationResult gmma_operand(OperandMajor major, Swizzle sw, std::int32_t elem_bytes,
                                                   std::int32_t mn, std::int32_t k, std::uint64_t base_offset = 0) {
  DestinationResult r;
  const std::int32_t row_bytes = operand_row_bytes(sw);
  if (row_bytes == 0 || elem_bytes <= 0 || 16 % elem_bytes != 0) return r;
  const std::int32_t w = row_bytes / elem_bytes;  // elements per row of the atom (t = 16/E for none)
  Layout l{};
  if (major == OperandMajor::k) {
    r.need_mn = 8;
    r.need_k = w;
    if (mn <= 0 || k <= 0 || mn % 8 != 0 || k % w != 0) return r;
    if (sw == Swizzle::none)
      l = make_layout(IntTuple::make(IntTuple::make(8, mn / 8), IntTuple::make(w, k / w)),
                      IntTuple::make(IntTuple::make(w, 8 * k), IntTuple::make(1, 8 * w)));
    else
      l = make_layout(IntTuple::make(IntTuple::make(8, mn / 8), IntTuple::make(w, k / w)),
                      IntTuple::make(IntTuple::make(w, 8 * w), IntTuple::make(1, mn * w)));
  } else {
    r.need_mn = w;
    r.need_k = 8;
    if (mn <= 0 || k <= 0 || mn % w != 0 || k % 8 != 0) return r;
    l = make_layout(IntTuple::make(IntTuple::make(w, mn / w), IntTuple::make(8, k / 8)),
                    IntTuple::make(IntTuple::make(1, w * k), IntTuple::make(w, 8 * w)));
  }
  StoreDestination d;
  d.tile.swizzle = swizzle_for(sw);
  d.tile.layout = l;
  d.rows = mn;
  d.cols = k;
  d.elem_bytes = elem_bytes;
  d.base_offset = base_offset;
  d.canonical = true;
  d.major = major;
  d.swizzle_mode = sw;
  r.value = d;
  r.ok = true;
  return r;
}

}  // namespace tmakit

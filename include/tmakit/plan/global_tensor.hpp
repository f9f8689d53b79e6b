// A global-memory tensor as the planner sees it: element type, a layout in ELEMENT strides (CuTe
// notation, any mode order; hierarchical modes are flattened, one global mode per leaf), and what
// is known of the base address. Parsed from `bf16 (4096,4096):(4096,1)` (plan_notation.hpp) or
// built from a DLPack DLTensor (dlpack.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/plan/tile_problem.hpp"

namespace tmakit {

struct GlobalTensor {
  DataType dtype = DataType::bfloat16;
  Layout layout{};
  std::uint64_t address = 0;          // 0: not known yet (the descriptor can be re-pointed later)
  std::uint64_t base_alignment = 16;  // bytes the base is known to be aligned to
  // Elements the base lies past the start of its allocation: a view's storage offset (x[1:],
  // a narrowed column range). Only for messages: address and base_alignment already include it.
  // 0: none, or not known.
  std::int64_t view_offset = 0;
};

// The alignment a base address is known to have: its largest power-of-two divisor, capped at 1024
// bytes (the most any TMA buffer or descriptor rule asks for). 1024 for address 0.
TMAKIT_HD constexpr std::uint64_t known_alignment(std::uint64_t address) {
  std::uint64_t a = 1024;
  while (a > 1 && address % a != 0) a /= 2;
  return a;
}

// How a CTA's tile coordinate maps into the global tensor (CuTe's tiler, by mode): the tile spans
// extent[m] consecutive coordinates of global mode m (0: the whole mode), and tile coordinate t[m]
// puts its origin at t[m] * extent[m]. One entry per (flattened) global mode.
struct TileExtents {
  std::int32_t modes = 0;
  std::int64_t extent[kMaxTileModes] = {};
};

// The extents of a tile, one per global mode in order: make_tile_extents(128, 64, 1).
template <class... E>
TMAKIT_HD constexpr TileExtents make_tile_extents(E... extents) {
  static_assert(sizeof...(E) >= 1 && sizeof...(E) <= static_cast<std::size_t>(kMaxTileModes),
                "one extent per global mode, at most kMaxTileModes");
  TileExtents t;
  t.modes = static_cast<std::int32_t>(sizeof...(E));
  std::int32_t m = 0;
  ((t.extent[m++] = static_cast<std::int64_t>(extents)), ...);
  return t;
}

}  // namespace tmakit

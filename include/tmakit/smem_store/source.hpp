// Sources of a register -> shared-memory store: which tile element each (thread, value) register
// slot holds, as a thread-value map (thread, value) -> (row, col) of the tile.
//
// Models (threads are numbered from 0 within the group that stores; warp w = thread / 32, lane l):
//   wgmma m64nN accumulator (Hopper, 4 warps, N/2 values per thread; f32 or f16 accumulators hold the
//     same elements, the f16 ones two per register), per the PTX ISA's wgmma D-fragment figure:
//       row = 16 w + l/4 + 8 ((v/2) % 2),  col = 8 (v/4) + 2 (l%4) + v%2
//   mma.sync m16n8 C fragment (one 16x8 block per warp per repetition; warps stacked by 16 rows,
//     repetitions along the columns): the same formula with v = 4 j + r for repetition j.
//   tcgen05.ld (Blackwell, MODEL ONLY: never run on hardware here), one load of shape .xR gives
//     R (32x32b, 16x64b), 2R (16x128b) or 4R (16x256b) 32-bit registers; loads repeat along the
//     columns to cover the tile; warp w reads its own TMEM lane slab (32 rows for 32x32b, 16 rows for
//     the 16x* shapes, stacked). Register r of one load holds (row, col):
//       32x32b   (l, r)
//       16x64b   (l/4 + 8 (l%2), (l/2)%2 + 2 r)
//       16x128b  (l/4 + 8 (r%2), l%4 + 4 (r/2))
//       16x256b  (l/4 + 8 ((r/2)%2), r%2 + 2 (l%4) + 8 (r/4))
//     Registers of different loads are not live together (a load's registers are stored before the
//     next load is issued), so a vector never spans two loads: that is what limits the width.
//   tv: any CuTe thread-value layout (T, V) -> linear tile index (column-major over the rows x cols
//     tile, as CuTe's TV layouts), checked to be a register-ownership map (check_source()).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

enum class FragmentKind : std::uint8_t {
  wgmma_acc = 0,
  mma_m16n8_c,
  tcgen05_32x32b,
  tcgen05_16x64b,
  tcgen05_16x128b,
  tcgen05_16x256b,
  tv_layout,
};

TMAKIT_HD constexpr const char* fragment_kind_name(FragmentKind k) {
  switch (k) {
    case FragmentKind::wgmma_acc: return "wgmma";
    case FragmentKind::mma_m16n8_c: return "mma m16n8";
    case FragmentKind::tcgen05_32x32b: return "tcgen05.ld 32x32b";
    case FragmentKind::tcgen05_16x64b: return "tcgen05.ld 16x64b";
    case FragmentKind::tcgen05_16x128b: return "tcgen05.ld 16x128b";
    case FragmentKind::tcgen05_16x256b: return "tcgen05.ld 16x256b";
    case FragmentKind::tv_layout: return "tv";
  }
  return "?";
}

struct TileCoord {
  std::int32_t row = 0, col = 0;
  friend TMAKIT_HD constexpr bool operator==(const TileCoord& a, const TileCoord& b) {
    return a.row == b.row && a.col == b.col;
  }
};

struct StoreSource {
  FragmentKind kind = FragmentKind::wgmma_acc;
  std::int32_t n = 0;        // tile columns (wgmma N; mma: 8 x repetitions; tcgen05: columns covered)
  std::int32_t rep = 1;      // tcgen05 .xR
  std::int32_t warps = 4;    // threads = 32 warps (wgmma: 4)
  // tv only: the layout (thread, value) -> linear tile index, and the tile extents.
  Layout tv{};
  std::int32_t tv_rows = 0, tv_cols = 0;

  // ---- extents
  TMAKIT_HD constexpr std::int32_t threads() const {
    return kind == FragmentKind::tv_layout ? static_cast<std::int32_t>(tv.mode(0).size()) : 32 * warps;
  }
  // 32-bit registers (values) one tcgen05.ld of this shape gives each thread, and the columns it covers.
  TMAKIT_HD constexpr std::int32_t regs_per_load() const {
    switch (kind) {
      case FragmentKind::tcgen05_32x32b: case FragmentKind::tcgen05_16x64b: return rep;
      case FragmentKind::tcgen05_16x128b: return 2 * rep;
      case FragmentKind::tcgen05_16x256b: return 4 * rep;
      default: return 0;
    }
  }
  TMAKIT_HD constexpr std::int32_t cols_per_load() const {
    switch (kind) {
      case FragmentKind::tcgen05_32x32b: return rep;
      case FragmentKind::tcgen05_16x64b: return 2 * rep;
      case FragmentKind::tcgen05_16x128b: return 4 * rep;
      case FragmentKind::tcgen05_16x256b: return 8 * rep;
      default: return 0;
    }
  }
  TMAKIT_HD constexpr bool is_tcgen05() const {
    return kind == FragmentKind::tcgen05_32x32b || kind == FragmentKind::tcgen05_16x64b ||
           kind == FragmentKind::tcgen05_16x128b || kind == FragmentKind::tcgen05_16x256b;
  }
  TMAKIT_HD constexpr std::int32_t rows_per_warp() const {
    switch (kind) {
      case FragmentKind::tcgen05_32x32b: return 32;
      case FragmentKind::tv_layout: return 0;
      default: return 16;
    }
  }
  TMAKIT_HD constexpr std::int32_t rows() const {
    return kind == FragmentKind::tv_layout ? tv_rows : rows_per_warp() * warps;
  }
  TMAKIT_HD constexpr std::int32_t cols() const { return kind == FragmentKind::tv_layout ? tv_cols : n; }
  // Values (register slots) per thread.
  TMAKIT_HD constexpr std::int32_t values() const {
    if (kind == FragmentKind::tv_layout) return static_cast<std::int32_t>(tv.size() / (tv.mode(0).size() ? tv.mode(0).size() : 1));
    if (is_tcgen05()) return cols_per_load() ? n / cols_per_load() * regs_per_load() : 0;
    return n / 2;  // wgmma, mma: 16 x N per warp, 32 lanes
  }
  // Values that are live together: a vector never mixes two live groups.
  TMAKIT_HD constexpr std::int32_t live_values() const { return is_tcgen05() ? regs_per_load() : values(); }

  // ---- the map
  TMAKIT_HD constexpr TileCoord coord(std::int32_t t, std::int32_t v) const {
    const std::int32_t w = t / 32, l = t % 32;
    switch (kind) {
      case FragmentKind::wgmma_acc:
      case FragmentKind::mma_m16n8_c:
        return {16 * w + l / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (l % 4) + v % 2};
      case FragmentKind::tv_layout: {
        const std::int64_t idx = tv(static_cast<std::int64_t>(t) + static_cast<std::int64_t>(threads()) * v);
        const std::int64_t m = tv_rows > 0 ? tv_rows : 1;
        return {static_cast<std::int32_t>(idx % m), static_cast<std::int32_t>(idx / m)};
      }
      default: break;
    }
    const std::int32_t load = v / regs_per_load(), r = v % regs_per_load();
    const std::int32_t c0 = load * cols_per_load();
    TileCoord c{};
    switch (kind) {
      case FragmentKind::tcgen05_32x32b: c = {l, r}; break;
      case FragmentKind::tcgen05_16x64b: c = {l / 4 + 8 * (l % 2), (l / 2) % 2 + 2 * r}; break;
      case FragmentKind::tcgen05_16x128b: c = {l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)}; break;
      case FragmentKind::tcgen05_16x256b: c = {l / 4 + 8 * ((r / 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r / 4)}; break;
      default: break;
    }
    return {w * rows_per_warp() + c.row, c0 + c.col};
  }
};

// ---- constructors
// (f32 and f16 accumulators hold the same elements per slot: the register size does not enter a plan.)
TMAKIT_HD constexpr StoreSource wgmma_accumulator(std::int32_t n) {
  StoreSource s;
  s.kind = FragmentKind::wgmma_acc;
  s.n = n;
  s.warps = 4;
  return s;
}
TMAKIT_HD constexpr StoreSource mma_m16n8_accumulator(std::int32_t n = 8, std::int32_t warps = 1) {
  StoreSource s;
  s.kind = FragmentKind::mma_m16n8_c;
  s.n = n;
  s.warps = warps;
  return s;
}
// shape: FragmentKind::tcgen05_*; rep: .xR; n: tile columns (a multiple of the columns one load covers).
TMAKIT_HD constexpr StoreSource tcgen05_load(FragmentKind shape, std::int32_t rep, std::int32_t n,
                                             std::int32_t warps = 4) {
  StoreSource s;
  s.kind = shape;
  s.rep = rep;
  s.n = n;
  s.warps = warps;
  return s;
}
TMAKIT_HD constexpr StoreSource tv_source(const Layout& tv, std::int32_t rows, std::int32_t cols) {
  StoreSource s;
  s.kind = FragmentKind::tv_layout;
  s.tv = tv;
  s.tv_rows = rows;
  s.tv_cols = cols;
  return s;
}

}  // namespace tmakit

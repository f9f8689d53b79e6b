// Divides (CuTe's semantics): split a layout into tiles and the layout of the tiles.
//
//   logical_divide(A, B) = A o (B, complement(B, size(A)))            (B a layout: 1-D)
//   logical_divide(A, <B0,B1,...>) = (logical_divide(A0,B0), logical_divide(A1,B1), ..., A_r, ...)
//     (4,2,3):(2,1,8) / 4:2 = ((2,2),(2,3)):((4,1),(2,8))
//   zipped_divide: ((TileM,TileN), (RestM,RestN,L,...));  tiled_divide: ((TileM,TileN), RestM, RestN, L, ...)
//   (for a layout tiler all three are (Tile, Rest)).
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/complement.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

TMAKIT_HD constexpr LayoutResult logical_divide(const Layout& a, const Layout& b) {
  const LayoutOpResult<std::int64_t> n = checked_size(a);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  const LayoutResult c = complement(b, n.value);
  if (!c.ok()) return c;
  return composition(a, make_layout_of(b, c.value));
}

TMAKIT_HD constexpr LayoutResult logical_divide(const Layout& a, const Tiler& t) {
  if (!t.by_mode) return logical_divide(a, t.layout);
  return apply_by_mode(a, t, true, [](const Layout& m, const Layout& b) { return logical_divide(m, b); });
}

TMAKIT_HD constexpr LayoutResult zipped_divide(const Layout& a, const Tiler& t) {
  const LayoutResult d = logical_divide(a, t);
  if (!d.ok() || !t.by_mode) return d;
  Layout tiles{IntTuple::tuple(), IntTuple::tuple()}, rests{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < d.value.rank(); ++i) {
    const Layout m = d.value.mode(i);
    if (i < t.rank()) {
      const Layout tile = m.mode(0), rest = m.mode(1);
      tiles.shape.append(tile.shape);
      tiles.stride.append(tile.stride);
      rests.shape.append(rest.shape);
      rests.stride.append(rest.stride);
    } else {
      rests.shape.append(m.shape);
      rests.stride.append(m.stride);
    }
  }
  return accept(make_layout_of(tiles, rests));
}

TMAKIT_HD constexpr LayoutResult tiled_divide(const Layout& a, const Tiler& t) {
  const LayoutResult z = zipped_divide(a, t);
  if (!z.ok()) return z;
  Layout out = make_layout_of(z.value.mode(0));
  const Layout rest = z.value.mode(1);
  for (int i = 0; i < rest.rank(); ++i) {
    const Layout m = rest.mode(i);
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return accept(out);
}

TMAKIT_HD constexpr LayoutResult logical_divide(const Layout& a, const IntTuple& shape) {
  return logical_divide(a, shape_tiler(shape));
}

}  // namespace tmakit

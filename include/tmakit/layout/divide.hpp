// Divides (CuTe's semantics): split a layout into tiles and the layout of the tiles.
//
//   logical_divide(A, B) = A o (B, complement(B, shape(coalesce(A))))   (B a layout: 1-D)
//   logical_divide(A, <B0,B1,...>) = (logical_divide(A0,B0), logical_divide(A1,B1), ..., A_r, ...)
//     (4,2,3):(2,1,8) / 4:2 = ((2,2),(2,3)):((4,1),(2,8))
//   zipped_divide: ((TileM,TileN), (RestM,RestN,L,...));  tiled_divide: ((TileM,TileN), RestM, RestN, L, ...)
//   (a nested tiler gathers its tiles and rests the same way, recursively: CuTe's zip2_by; for a
//   layout tiler zipped_divide is (Tile, Rest) and tiled_divide unpacks Rest's modes).
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/coalesce.hpp"
#include "tmakit/layout/complement.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

TMAKIT_HD constexpr LayoutResult logical_divide(const Layout& a, const Layout& b) {
  const LayoutOpResult<std::int64_t> n = checked_size(a);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  const LayoutResult c = detail::complement_to(b, coalesce(a).shape);
  if (!c.ok()) return c;
  return composition(a, make_layout_of(b, c.value));
}

TMAKIT_HD constexpr LayoutResult logical_divide(const Layout& a, const Tiler& t) {
  return apply_tiler(a, t, true, [](const Layout& m, const Layout& b) { return logical_divide(m, b); });
}

namespace detail {

// CuTe's zip2_by on a layout: where the guide has a leaf, l is a pair (tile, rest); where it has a
// tuple, l's first modes are gathered recursively into ((tiles...), (rests..., l's other modes...)).
TMAKIT_HD constexpr Layout zip2_by(const Layout& l, const IntTuple& guide) {
  if (guide.is_leaf()) return l;
  Layout tiles{IntTuple::tuple(), IntTuple::tuple()}, rests{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < guide.rank(); ++i) {
    const Layout z = zip2_by(l.mode(i), guide.mode(i));
    tiles.shape.append(z.mode(0).shape);
    tiles.stride.append(z.mode(0).stride);
    rests.shape.append(z.mode(1).shape);
    rests.stride.append(z.mode(1).stride);
  }
  for (int i = guide.rank(); i < l.rank(); ++i) {
    rests.shape.append(l.mode(i).shape);
    rests.stride.append(l.mode(i).stride);
  }
  return make_layout_of(tiles, rests);
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult zipped_divide(const Layout& a, const Tiler& t) {
  const LayoutResult d = logical_divide(a, t);
  if (!d.ok() || !t.by_mode) return d;
  return accept(detail::zip2_by(d.value, t.guide));
}

// zipped_divide with its second mode's modes made top-level modes. A second mode of rank 1 (a leaf
// or a 1-tuple) stays as it is: CuTe slices with result(_, _) then.
TMAKIT_HD constexpr LayoutResult tiled_divide(const Layout& a, const Tiler& t) {
  const LayoutResult z = zipped_divide(a, t);
  if (!z.ok()) return z;
  Layout out = make_layout_of(z.value.mode(0));
  const Layout rest = z.value.mode(1);
  if (rest.rank() == 1) return z;
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

// Products (CuTe's semantics): repeat a layout according to another.
//
//   logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)       (B a layout: 1-D)
//     (2,2):(4,1) x 6:1 = ((2,2),(2,3)):((4,1),(2,8))
//   logical_product(A, <B0,B1,...>): by mode, modes past the tiler kept.
//   blocked_product(A, B): both padded with 1:0 modes to rank R = max(rank A, rank B); the logical
//     product (A, P) is zipped mode by mode, ((A0,P0), (A1,P1), ...) (CuTe's zip, nothing coalesced):
//     (2,5):(5,1) blocked (3,4):(1,3) = ((2,3),(5,4)):((5,10),(1,30))
//   raked_product(A, B): the same with each mode (P_i, A_i): the tile interleaved ("raked") with the
//     layout of tiles:  (2,5):(5,1) raked (3,4):(1,3) = ((3,2),(4,5)):((10,5),(30,1))
//   An integral first part zips into one mode ((X, Y)); a tuple needs a tuple of its rank as the
//   second part, else CuTe's zip does not compile (layout.product.rank): e.g. (4):(1) blocked 2:1.
//   Refused (layout.overflow) when size(A) * cosize(B), or the result's size or offsets, do not fit
//   in 64 bits.
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/coalesce.hpp"
#include "tmakit/layout/complement.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

TMAKIT_HD constexpr LayoutResult logical_product(const Layout& a, const Layout& b) {
  const LayoutOpResult<std::int64_t> sa = checked_size(a), cb = checked_cosize(b);
  if (!sa.ok()) return {Layout{}, sa.diagnostic};
  if (!cb.ok()) return {Layout{}, cb.diagnostic};
  std::int64_t target = 0;
  if (!checked_mul(sa.value, cb.value, &target))
    return {Layout{}, overflow_diagnostic(LayoutOperation::logical_product, -1, sa.value, cb.value)};
  const LayoutResult c = complement(a, target);
  if (!c.ok()) return c;
  const LayoutResult p = composition(c.value, b);
  if (!p.ok()) return p;
  return accept(make_layout_of(a, p.value));
}

TMAKIT_HD constexpr LayoutResult logical_product(const Layout& a, const Tiler& t) {
  return apply_tiler(a, t, true, [](const Layout& m, const Layout& b) { return logical_product(m, b); });
}

namespace detail {

// CuTe's append<r>: l with 1:0 modes appended up to rank r (an integral l stays integral for r = 1).
TMAKIT_HD constexpr Layout pad_rank(const Layout& l, int r) {
  if (l.shape.is_leaf() && r == 1) return l;
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < r; ++i) {
    const Layout m = i < l.rank() ? l.mode(i) : Layout{1, 0};
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return out;
}

// CuTe's zip(x, y) of two layouts: ((x, y)) for an integral x; ((x0,y0),(x1,y1),...) for tuples of
// one rank; refused otherwise.
TMAKIT_HD constexpr LayoutResult zip_layouts(const Layout& x, const Layout& y) {
  if (x.shape.is_leaf()) return accept(make_layout_of(make_layout_of(x, y)));
  if (y.shape.is_leaf() || y.rank() != x.rank())
    return refuse(LayoutRule::product_rank, -1, x.rank(), y.shape.is_leaf() ? 0 : y.rank());
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < x.rank(); ++i) {
    const Layout m = make_layout_of(x.mode(i), y.mode(i));
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return accept(out);
}

TMAKIT_HD constexpr LayoutResult zip_product(const Layout& a, const Layout& b, bool raked) {
  const int r = a.rank() > b.rank() ? a.rank() : b.rank();
  const LayoutResult lp = logical_product(pad_rank(a, r), pad_rank(b, r));
  if (!lp.ok()) return lp;
  const Layout block = lp.value.mode(0), tiles = lp.value.mode(1);
  return raked ? zip_layouts(tiles, block) : zip_layouts(block, tiles);
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult blocked_product(const Layout& a, const Layout& b) { return detail::zip_product(a, b, false); }
TMAKIT_HD constexpr LayoutResult raked_product(const Layout& a, const Layout& b) { return detail::zip_product(a, b, true); }

}  // namespace tmakit

// Products (CuTe's semantics): repeat a layout according to another.
//
//   logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)       (B a layout: 1-D)
//     (2,2):(4,1) x 6:1 = ((2,2),(2,3)):((4,1),(2,8))
//   logical_product(A, <B0,B1,...>): by mode, modes past the tiler kept.
//   blocked_product(A, B): both padded with 1:0 modes to rank R = max(rank A, rank B); the logical
//     product (A, P) is re-associated mode by mode, ((A0,P0), (A1,P1), ...), and each mode coalesced:
//     (2,5):(5,1) blocked (3,4):(1,3) = (6,(5,4)):(5,(1,30))
//   raked_product(A, B): the same with each mode (P_i, A_i): the tile interleaved ("raked") with the
//     layout of tiles:  (2,5):(5,1) raked (3,4):(1,3) = ((3,2),(4,5)):((10,5),(30,1))
//   For rank 1 both give the single coalesced mode.
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
  if (!t.by_mode) return logical_product(a, t.layout);
  return apply_by_mode(a, t, true, [](const Layout& m, const Layout& b) { return logical_product(m, b); });
}

namespace detail {

// l as a tuple of exactly r top-level modes (a leaf becomes its 1-tuple), padded with 1:0.
TMAKIT_HD constexpr Layout pad_rank(const Layout& l, int r) {
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < r; ++i) {
    const Layout m = i < l.rank() ? l.mode(i) : Layout{1, 0};
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return out;
}

TMAKIT_HD constexpr LayoutResult zip_product(const Layout& a, const Layout& b, bool raked) {
  const int r = a.rank() > b.rank() ? a.rank() : b.rank();
  const Layout pa = pad_rank(a, r), pb = pad_rank(b, r);
  const LayoutResult lp = logical_product(pa, pb);
  if (!lp.ok()) return lp;
  const Layout block = lp.value.mode(0), tiles = lp.value.mode(1);
  if (r == 1) {
    const Layout m = raked ? make_layout_of(tiles.mode(0), block.mode(0)) : make_layout_of(block.mode(0), tiles.mode(0));
    return accept(coalesce(m));
  }
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < r; ++i) {
    const Layout m = coalesce(raked ? make_layout_of(tiles.mode(i), block.mode(i)) : make_layout_of(block.mode(i), tiles.mode(i)));
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return accept(out);
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult blocked_product(const Layout& a, const Layout& b) { return detail::zip_product(a, b, false); }
TMAKIT_HD constexpr LayoutResult raked_product(const Layout& a, const Layout& b) { return detail::zip_product(a, b, true); }

}  // namespace tmakit

// Tiler: what divide / product / composition take as their second argument (CuTe's Tiler).
//   - a Layout: the operation treats both layouts as 1-D functions;
//   - a tuple of layouts <B0, B1, ...> (by_mode): the operation applies Bi to mode i of the layout;
//   - a Shape (4,8) is the by-mode tiler <4:1, 8:1> (CuTe's reading of a shape as a tiler).
// Stored as one Layout whose top-level modes are the per-mode tilers. One level of by-mode only:
// a mode's tiler is itself a Layout (CuTe also allows nested tuples of tilers).
// Written `<3:3,(2,4):(1,8)>` (see notation.hpp: parse_tiler, to_string).
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

struct Tiler {
  Layout layout{};
  bool by_mode = false;

  TMAKIT_HD constexpr int rank() const { return by_mode ? layout.rank() : 1; }
  TMAKIT_HD constexpr Layout mode(int i) const { return by_mode ? layout.mode(i) : layout; }
  friend TMAKIT_HD constexpr bool operator==(const Tiler& a, const Tiler& b) {
    return a.by_mode == b.by_mode && a.layout == b.layout;
  }
};

TMAKIT_HD constexpr Tiler layout_tiler(const Layout& l) { return {l, false}; }
// <l0, l1, ...>
template <class... Ls>
TMAKIT_HD constexpr Tiler by_mode_tiler(const Ls&... ls) {
  return {make_layout_of(ls...), true};
}
// Applies `op` (an algebra operation Layout x Layout -> LayoutResult) mode by mode: mode i of `a`
// with mode i of the by-mode tiler `t`. Modes of `a` past the tiler's rank are kept (divide,
// product) or dropped (composition, as in CuTe: keep_rest = false). A refusal from mode i names the
// flattened leaf of `a`: the leaves of modes 0..i-1 plus the leaf op named inside mode i (its first
// leaf when op named none).
template <class Op>
TMAKIT_HD constexpr LayoutResult apply_by_mode(const Layout& a, const Tiler& t, bool keep_rest, Op op) {
  const int r = t.rank();
  if (r > a.rank() || (!keep_rest && a.shape.is_leaf() && r > 1)) return refuse(LayoutRule::tiler_rank, -1, r, a.rank());
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  const int n = keep_rest ? a.rank() : r;
  int leaves_before = 0;
  for (int i = 0; i < n; ++i) {
    Layout m = a.mode(i);
    if (i < r) {
      LayoutResult d = op(m, t.mode(i));
      if (!d.ok()) {
        d.diagnostic.mode = leaves_before + (d.diagnostic.mode < 0 ? 0 : d.diagnostic.mode);
        return d;
      }
      leaves_before += m.num_leaves();
      m = d.value;
    }
    out.shape.append(m.shape);
    out.stride.append(m.stride);
  }
  return accept(out);
}

// A shape as a tiler: each top-level extent n becomes n:1 (a tuple mode becomes its compact layout).
TMAKIT_HD constexpr Tiler shape_tiler(const IntTuple& shape) {
  if (shape.is_leaf()) return {make_layout(shape), false};
  Layout l{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < shape.rank(); ++i) {
    const Layout m = make_layout(shape.mode(i));
    l.shape.append(m.shape);
    l.stride.append(m.stride);
  }
  return {l, true};
}

}  // namespace tmakit

// Tiler: what divide / product / composition take as their second argument (CuTe's Tiler).
//   - a Layout: the operation treats both layouts as 1-D functions;
//   - a tuple of tilers <B0, B1, ...> (by_mode): the operation applies Bi to mode i of the layout;
//     each Bi is a layout or itself a tuple of tilers (nested: <<2:1,2:1>,8:1> tiles mode 0's modes);
//   - a Shape (4,8) is the by-mode tiler <4:1, 8:1>, ((2,2),8) is <<2:1,2:1>,8:1> (CuTe's reading of
//     a shape as a tiler).
// Stored as one Layout whose top-level modes are the per-mode tilers (a nested tuple's mode is the
// tuple of its tilers' layouts) and a guide: a leaf where the tiler is a layout, a tuple (of the
// modes' guides) where it is by-mode.
// Written `<3:3,(2,4):(1,8)>`, `<<2:1,2:1>,8:1>` (see notation.hpp: parse_tiler, to_string).
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

struct Tiler {
  Layout layout{};
  bool by_mode = false;
  IntTuple guide = IntTuple(0);  // by_mode: a tuple with one mode per tiler mode (leaf: a layout)

  TMAKIT_HD constexpr int rank() const { return by_mode ? layout.rank() : 1; }
  TMAKIT_HD constexpr Layout mode(int i) const { return by_mode ? layout.mode(i) : layout; }
  // Mode i as a tiler of its own (a layout, or a nested by-mode tiler).
  TMAKIT_HD constexpr Tiler sub(int i) const {
    if (!by_mode) return *this;
    const IntTuple g = guide.is_tuple() ? guide.mode(i) : IntTuple(0);
    return {layout.mode(i), g.is_tuple(), g};
  }
  friend TMAKIT_HD constexpr bool operator==(const Tiler& a, const Tiler& b) {
    return a.by_mode == b.by_mode && a.layout == b.layout && (!a.by_mode || a.guide == b.guide);
  }
};

TMAKIT_HD constexpr Tiler layout_tiler(const Layout& l) { return {l, false, IntTuple(0)}; }
// <t0, t1, ...> from tilers (layouts or by-mode tilers).
TMAKIT_HD constexpr Tiler tuple_tiler_append(Tiler t, const Tiler& m) {
  if (!t.by_mode) t = {Layout{IntTuple::tuple(), IntTuple::tuple()}, true, IntTuple::tuple()};
  t.layout.shape.append(m.layout.shape);
  t.layout.stride.append(m.layout.stride);
  t.guide.append(m.by_mode ? m.guide : IntTuple(0));
  return t;
}
// <l0, l1, ...> from layouts
template <class... Ls>
TMAKIT_HD constexpr Tiler by_mode_tiler(const Ls&... ls) {
  Tiler t{Layout{IntTuple::tuple(), IntTuple::tuple()}, true, IntTuple::tuple()};
  ((t = tuple_tiler_append(t, layout_tiler(ls))), ...);
  return t;
}
// Applies `op` (an algebra operation Layout x Layout -> LayoutResult) mode by mode: mode i of `a`
// with mode i of the by-mode tiler `t`, recursively where that mode is itself by-mode (a layout
// tiler is op(a, t.layout)). Modes of `a` past the tiler's rank are kept (divide, product) or
// dropped (composition, as in CuTe: keep_rest = false). A refusal from mode i names the flattened
// leaf of `a`: the leaves of modes 0..i-1 plus the leaf op named inside mode i (its first leaf when
// op named none).
template <class Op>
TMAKIT_HD constexpr LayoutResult apply_tiler(const Layout& a, const Tiler& t, bool keep_rest, Op op) {
  if (!t.by_mode) return op(a, t.layout);
  const int r = t.rank();
  if (r > a.rank() || (!keep_rest && a.shape.is_leaf() && r > 1)) return refuse(LayoutRule::tiler_rank, -1, r, a.rank());
  Layout out{IntTuple::tuple(), IntTuple::tuple()};
  const int n = keep_rest ? a.rank() : r;
  int leaves_before = 0;
  for (int i = 0; i < n; ++i) {
    Layout m = a.mode(i);
    if (i < r) {
      LayoutResult d = apply_tiler(m, t.sub(i), keep_rest, op);
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

// A shape as a tiler: each extent n becomes n:1, each tuple mode a nested by-mode tiler.
TMAKIT_HD constexpr Tiler shape_tiler(const IntTuple& shape) {
  if (shape.is_leaf()) return layout_tiler(make_layout(shape));
  Tiler t{Layout{IntTuple::tuple(), IntTuple::tuple()}, true, IntTuple::tuple()};
  for (int i = 0; i < shape.rank(); ++i) t = tuple_tiler_append(t, shape_tiler(shape.mode(i)));
  return t;
}

}  // namespace tmakit

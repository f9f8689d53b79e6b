// coalesce: the simplest layout with the same function on [0, size) and the same size (CuTe).
//   coalesce((2,(1,6)):(1,(6,2)))          = 12:1
//   coalesce((2,(1,6)):(1,(6,2)), (1,1))   = (2,6):(1,2)    by-mode: coalesce each mode of the profile
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

TMAKIT_HD constexpr Layout coalesce(const Layout& l) { return coalesce_flat(flat_of(l)).to_layout(); }

// By-mode: where the profile has a leaf, coalesce that sub-layout entirely; where it has a tuple,
// recurse mode by mode; modes past the profile's rank are kept as they are. Refused when the
// profile has more modes than the layout (rule layout.tiler.rank).
TMAKIT_HD constexpr LayoutResult coalesce(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return accept(coalesce(l));
  if (l.shape.is_leaf() || profile.rank() > l.rank()) return refuse(LayoutRule::tiler_rank, -1, profile.rank(), l.rank());
  Layout r{IntTuple::tuple(), IntTuple::tuple()};
  for (int i = 0; i < l.rank(); ++i) {
    Layout m = l.mode(i);
    if (i < profile.rank()) {
      const LayoutResult sub = coalesce(m, profile.mode(i));
      if (!sub.ok()) return sub;
      m = sub.value;
    }
    r.shape.append(m.shape);
    r.stride.append(m.stride);
  }
  return accept(r);
}

}  // namespace tmakit

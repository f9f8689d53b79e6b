// coalesce: the simplest layout with the same function on [0, size) and the same size (CuTe).
//   coalesce((2,(1,6)):(1,(6,2)))          = 12:1
//   coalesce((2,(1,6)):(1,(6,2)), (1,1))   = (2,6):(1,2)    by-mode: coalesce each mode of the profile
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

// For a layout whose size fits in int64 (check_layout / checked_size); the by-mode form below
// refuses one whose size does not (layout.overflow).
TMAKIT_HD constexpr Layout coalesce(const Layout& l) { return coalesce_flat(flat_of(l)).to_layout(); }

// By-mode: where the profile has a leaf, coalesce that sub-layout entirely; where it has a tuple,
// recurse mode by mode (apply_tiler, as the other by-mode operations); modes past the profile's
// rank are kept as they are. Refused when the profile has more modes than the layout (rule
// layout.tiler.rank; a leaf layout has one mode).
TMAKIT_HD constexpr LayoutResult coalesce(const Layout& l, const IntTuple& profile) {
  const LayoutOpResult<std::int64_t> n = checked_size(l);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  if (profile.is_leaf()) return accept(coalesce(l));
  return apply_tiler(l, shape_tiler(profile), true, [](const Layout& m, const Layout&) { return accept(coalesce(m)); });
}

}  // namespace tmakit

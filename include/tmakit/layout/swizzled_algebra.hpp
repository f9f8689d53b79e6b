// The algebra on swizzled layouts (CuTe's ComposedLayout): the swizzle is applied last, to the byte
// address, so selecting or regrouping coordinates acts on the inner layout only:
//   (Sw o L) o B = Sw o (L o B),   logical_divide(Sw o L, B) = Sw o logical_divide(L, B), ...
// e.g. the 64x64 bf16 tile of the 128B swizzle divided into 8-row slabs: Sw<3,4,3> o ((8,8),64):...
#pragma once

#include "tmakit/core/config.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/divide.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

using SwizzledLayoutResult = LayoutOpResult<SwizzledLayout>;

namespace detail {
TMAKIT_HD constexpr SwizzledLayoutResult with_swizzle(const SwizzleParams& sw, const LayoutResult& r) {
  return {SwizzledLayout{sw, r.value}, r.diagnostic};
}
}  // namespace detail

TMAKIT_HD constexpr SwizzledLayoutResult composition(const SwizzledLayout& a, const Tiler& b) {
  return detail::with_swizzle(a.swizzle, composition(a.layout, b));
}
TMAKIT_HD constexpr SwizzledLayoutResult composition(const SwizzledLayout& a, const Layout& b) {
  return detail::with_swizzle(a.swizzle, composition(a.layout, b));
}
TMAKIT_HD constexpr SwizzledLayoutResult logical_divide(const SwizzledLayout& a, const Tiler& b) {
  return detail::with_swizzle(a.swizzle, logical_divide(a.layout, b));
}
TMAKIT_HD constexpr SwizzledLayoutResult zipped_divide(const SwizzledLayout& a, const Tiler& b) {
  return detail::with_swizzle(a.swizzle, zipped_divide(a.layout, b));
}
TMAKIT_HD constexpr SwizzledLayoutResult tiled_divide(const SwizzledLayout& a, const Tiler& b) {
  return detail::with_swizzle(a.swizzle, tiled_divide(a.layout, b));
}

}  // namespace tmakit

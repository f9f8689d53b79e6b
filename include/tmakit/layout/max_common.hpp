// max_common_vector(A, B) / max_common_layout(A, B) (CuTe's semantics): how many leading logical
// elements A and B both map contiguously (offsets 0, 1, 2, ... for indices that B also enumerates in
// order), e.g. the widest vector copy between a register layout and a memory layout.
//   common = coalesce(A o right_inverse(B)); if its first mode has stride 1, its extent, else 1.
//   max_common_layout returns right_inverse(B) o (first mode of common), or 1:0.
//     max_common_vector((4,8):(1,4), (4,8):(1,4)) = 32;  max_common_vector((4,8):(8,1), (4,8):(1,4)) = 1
// Refused when A o right_inverse(B) is (composition preconditions).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/coalesce.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/inverse.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

using IntResult = LayoutOpResult<std::int64_t>;

TMAKIT_HD constexpr LayoutResult max_common_layout(const Layout& a, const Layout& b) {
  const Layout inv_b = right_inverse(b);
  const LayoutResult comp = composition(a, inv_b);
  if (!comp.ok()) return comp;
  const FlatLayout common = coalesce_flat(flat_of(comp.value));
  if (common.n == 0 || common.stride[0] != 1) return accept(Layout{1, 0});
  return composition(inv_b, Layout{common.shape[0], 1});
}

// The size of max_common_layout.
TMAKIT_HD constexpr IntResult max_common_vector(const Layout& a, const Layout& b) {
  const LayoutResult l = max_common_layout(a, b);
  if (!l.ok()) return {0, l.diagnostic};
  return {l.value.size(), {}};
}

}  // namespace tmakit

// max_common_vector(A, B) / max_common_layout(A, B) (CuTe's semantics): how many leading logical
// elements A and B both map contiguously (offsets 0, 1, 2, ... for indices that B also enumerates in
// order), e.g. the widest vector copy between a register layout and a memory layout.
//   common = coalesce(A o right_inverse(B)); if its first mode has stride 1, its extent, else 1.
//   max_common_layout returns right_inverse(B) o (first mode of common), or 1:0.
//     max_common_vector((4,8):(1,4), (4,8):(1,4)) = 32;  max_common_vector((4,8):(8,1), (4,8):(1,4)) = 1
// Refused when A o right_inverse(B) is (composition preconditions); max_common_layout also when
// right_inverse(B) o (first mode of common) is, as in CuTe (max_common_vector does not compose it).
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

// The extent of the common layout's first mode when its stride is 1, else 1 (CuTe's max_common_vector).
TMAKIT_HD constexpr IntResult max_common_vector(const Layout& a, const Layout& b) {
  const LayoutResult comp = composition(a, right_inverse(b));
  if (!comp.ok()) return {0, comp.diagnostic};
  const FlatLayout common = coalesce_flat(flat_of(comp.value));
  if (common.n == 0 || common.stride[0] != 1) return {1, {}};
  return {common.shape[0], {}};
}

TMAKIT_HD constexpr LayoutResult max_common_layout(const Layout& a, const Layout& b) {
  const IntResult v = max_common_vector(a, b);
  if (!v.ok()) return {Layout{}, v.diagnostic};
  if (v.value == 1) return accept(Layout{1, 0});  // coalesced modes have extents > 1: no stride-1 mode
  return composition(right_inverse(b), Layout{v.value, 1});
}

}  // namespace tmakit

// Inverses (CuTe's semantics and algorithms, exactly).
//
// right_inverse(A): R with A(R(i)) == i for all i < size(R). Coalesce A; take its modes by increasing
//   stride (CuTe's exchange sort); a mode whose stride equals the extent reached so far (1 at first)
//   joins, with the stride its coordinate has in A's domain (the prefix product of the coalesced
//   extents), and the extent reached becomes its extent times its stride. Then coalesce; nothing
//   found: 1:0. Modes with negative strides never join (as in CuTe).
//     right_inverse((4,2):(2,1)) = (2,4):(4,1)
// left_inverse(A): R with R(A(i)) == i for all i < size(A) when A is injective (for any A,
//   A(R(A(i))) == A(i)). Coalesce A; take its non-zero strides in increasing order d_0 < d_1 < ...;
//   each must be a multiple of the one before (layout.inverse.stride_divisibility, CuTe's "Left
//   inverse divisibility condition"); R is (d_0, d_1/d_0, ..., d_k/d_{k-1}, s_k) : (0, p_0, ..., p_k)
//   with p the domain strides of those modes and s_k the last mode's extent, coalesced. Offsets
//   between the image's points map to some index (any answer is valid there).
//     left_inverse((6,6):(13,1)) = (13,6):(6,1)
//   Negative strides are refused (layout.negative_stride).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

namespace detail {

// The coalesced modes of a, their domain strides (prefix products; -1 past int64) and the order of
// their strides (CuTe's exchange sort).
struct SortedModes {
  FlatLayout c;
  std::int64_t domain_stride[FlatLayout::kCapacity] = {};
  int order[FlatLayout::kCapacity] = {};
};

TMAKIT_HD constexpr SortedModes sorted_modes(const Layout& a) {
  SortedModes m;
  m.c = coalesce_flat(flat_of(a));
  if (m.c.n == 0) m.c.push(1, 0);  // CuTe's coalesce of a size-1 layout: 1:0
  std::int64_t p = 1;
  for (int i = 0; i < m.c.n; ++i) {
    m.domain_stride[i] = p;
    if (p >= 0 && !checked_mul(p, m.c.shape[i], &p)) p = -1;
  }
  exchange_sort_order(m.c.stride, m.c.n, m.order);
  return m;
}

}  // namespace detail

TMAKIT_HD constexpr Layout right_inverse(const Layout& a) {
  const detail::SortedModes m = detail::sorted_modes(a);
  FlatLayout r;
  std::int64_t want = 1;
  for (int k = 0; k < m.c.n; ++k) {
    const int i = m.order[k];
    if (m.c.stride[i] != want || want < 0) continue;
    if (m.domain_stride[i] < 0) break;  // no domain stride past int64: the chain ends
    r.push(m.c.shape[i], m.domain_stride[i]);
    if (!checked_mul(m.c.shape[i], m.c.stride[i], &want)) want = -1;
  }
  return coalesce_flat(r).to_layout();
}

TMAKIT_HD constexpr LayoutResult left_inverse(const Layout& a) {
  const FlatLayout f = flat_of(a);
  for (int i = 0; i < f.n; ++i)
    if (f.stride[i] < 0) return refuse(LayoutRule::negative_stride, i, f.stride[i]);
  const detail::SortedModes m = detail::sorted_modes(a);
  FlatLayout r;
  r.push(1, 0);  // CuTe starts the strides with 0 and the shapes empty: the first extent pairs with 0
  std::int64_t below = 1;  // size of the shapes so far: the previous non-zero stride
  for (int k = 0; k < m.c.n; ++k) {
    const int i = m.order[k];
    const std::int64_t d = m.c.stride[i];
    if (d == 0) continue;
    if (d % below != 0) return refuse(LayoutRule::left_inverse_divisibility, i, d, below);
    if (m.domain_stride[i] < 0) return {Layout{}, overflow_diagnostic(LayoutOperation::size, i, below, m.c.shape[i])};
    r.shape[r.n - 1] = d / below;
    r.push(1, m.domain_stride[i]);
    below = d;
  }
  r.shape[r.n - 1] = m.c.shape[m.order[m.c.n - 1]];
  const FlatLayout c = coalesce_flat(r);
  if (c.arith_overflow) return {Layout{}, c.overflow_diagnostic};
  return accept(c.to_layout());
}

}  // namespace tmakit

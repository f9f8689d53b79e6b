// complement(A, N): the layout R of the offsets in [0, N) that A does not reach, "the layout of the
// repetitions of A" (CuTe): where A's strides leave gaps that are multiples of what lies below them,
// (A, R) is injective and its image covers [0, size(A)*size(R)), with size(A)*size(R) >= N.
//
//   complement(4:2, 24)          = (2,3):(1,8)
//   complement((2,2):(1,6), 24)  = (3,2):(2,12)
//   complement((4,6):(1,4), 24)  = 1:0
//
// CuTe's algorithm, exactly: drop stride-0 modes and coalesce (CuTe's filter); then, taking the modes
// by increasing stride d (the first of equal strides first), each adds a mode d / cur : cur, where
// cur is the extent spanned so far (the division truncates: a gap that is not a multiple of cur is
// rounded down, as in CuTe, whose result then is not injective with A); the last mode repeats
// everything up to the cotarget, ceil(N / cur) : cur; then coalesce. With a shape as the cotarget
// (what logical_divide passes: A's coalesced shape) the repeat count is CuTe's ceil_div of that
// shape: the product of ceil(n_i / c_i) where c is cur divided out of the extents in order.
// Refusals: a stride below the extent spanned by the smaller ones (d / cur == 0: A is not injective,
// or its modes interleave: layout.complement.not_injective, CuTe's "Non-injective Layout detected
// in complement"); negative strides; N < 1; an extent spanned that does not fit in 64 bits
// (layout.overflow, operation complement).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

namespace detail {

// CuTe's ceil_div(shape, n) folded to one number: the extents take n in turn, each ceil(e / rest)
// with rest = ceil(rest / e) after it; the product of what they give. Saturates at INT64_MAX.
TMAKIT_HD constexpr std::int64_t ceil_div_shape(const IntTuple& target, std::int64_t n) {
  std::int64_t p = 1, rest = n;
  for (int k = 0; k < target.num_leaves(); ++k) {
    const std::int64_t e = target.leaf_at(k);
    p = mul_saturated(p, e / rest + (e % rest != 0 ? 1 : 0));
    rest = rest / e + (rest % e != 0 ? 1 : 0);
  }
  return p;
}

TMAKIT_HD constexpr LayoutResult complement_to(const Layout& a, const IntTuple& cotarget) {
  const std::int64_t target_size = cotarget.product();
  if (target_size < 1) return refuse(LayoutRule::bad_shape, -1, target_size);
  const FlatLayout f = flat_of(a);
  FlatLayout kept;
  for (int i = 0; i < f.n; ++i) {
    if (f.stride[i] < 0) return refuse(LayoutRule::negative_stride, i, f.stride[i]);
    kept.push(f.stride[i] == 0 ? 1 : f.shape[i], f.stride[i]);
  }
  const FlatLayout m = coalesce_flat(kept);
  if (m.n == 0) return accept(Layout{target_size, target_size == 1 ? 0 : 1});  // CuTe: make_layout(coalesce(cotarget))
  int order[FlatLayout::kCapacity] = {};
  exchange_sort_order(m.stride, m.n, order);
  FlatLayout out;
  std::int64_t cur = 1;
  for (int k = 0; k < m.n; ++k) {
    const int i = order[k];
    const std::int64_t d = m.stride[i];
    if (d / cur == 0) return refuse(LayoutRule::complement_not_injective, i, d, cur);
    out.push(d / cur, cur);
    if (!checked_mul(m.shape[i], d, &cur)) return {Layout{}, overflow_diagnostic(LayoutOperation::complement, i, m.shape[i], d)};
  }
  out.push(ceil_div_shape(cotarget, cur), cur);
  const FlatLayout c = coalesce_flat(out);
  if (c.arith_overflow) return {Layout{}, c.overflow_diagnostic};
  return accept(c.to_layout());
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult complement(const Layout& a, std::int64_t cotarget) {
  return detail::complement_to(a, IntTuple(cotarget));
}

// complement(A) = complement(A, cosize(A)); refused (layout.overflow) when cosize(A) does not fit.
TMAKIT_HD constexpr LayoutResult complement(const Layout& a) {
  const LayoutOpResult<std::int64_t> n = checked_cosize(a);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  return complement(a, n.value < 1 ? 1 : n.value);
}

}  // namespace tmakit

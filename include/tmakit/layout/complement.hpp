// complement(A, N): the ordered layout R of the offsets in [0, N) that A does not reach, "the layout
// of the repetitions of A" (CuTe): (A, R) is injective and its image covers [0, size(A)*size(R)),
// with size(A)*size(R) >= N.
//
//   complement(4:2, 24)          = (2,3):(1,8)
//   complement((2,2):(1,6), 24)  = (3,2):(2,12)
//   complement((4,6):(1,4), 24)  = 1:0
//
// Algorithm: drop extent-1 and stride-0 modes, coalesce, sort the modes by stride; walking them from
// the smallest stride, each gap between the extent covered so far (cur) and the next stride d becomes
// a mode d/cur : cur; the last mode repeats everything up to N: ceil(N/cur) : cur. Then coalesce.
// Refusals: a stride below the covered extent (A not injective, or modes interleave:
// layout.complement.not_injective); a stride that is not a multiple of it (no layout fills that gap:
// layout.complement.stride_divisibility, where CuTe would silently give a result that violates its
// own post-conditions); negative strides; N < 1; an extent spanned (extent * stride) that does not
// fit in 64 bits (layout.overflow, operation complement).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

TMAKIT_HD constexpr LayoutResult complement(const Layout& a, std::int64_t cotarget) {
  if (cotarget < 1) return refuse(LayoutRule::bad_shape, -1, cotarget);
  const FlatLayout f = flat_of(a);
  FlatLayout kept;
  for (int i = 0; i < f.n; ++i) {
    if (f.stride[i] < 0) return refuse(LayoutRule::negative_stride, i, f.stride[i]);
    kept.push(f.stride[i] == 0 ? 1 : f.shape[i], f.stride[i]);
  }
  FlatLayout m = coalesce_flat(kept);
  // stable insertion sort by stride
  for (int i = 1; i < m.n; ++i)
    for (int j = i; j > 0 && m.stride[j - 1] > m.stride[j]; --j) {
      const std::int64_t s = m.shape[j], d = m.stride[j];
      m.shape[j] = m.shape[j - 1];
      m.stride[j] = m.stride[j - 1];
      m.shape[j - 1] = s;
      m.stride[j - 1] = d;
    }
  FlatLayout out;
  std::int64_t cur = 1;
  for (int i = 0; i < m.n; ++i) {
    const std::int64_t d = m.stride[i];
    if (d < cur) return refuse(LayoutRule::complement_not_injective, i, d, cur);
    if (d % cur != 0) return refuse(LayoutRule::complement_not_divisible, i, d, cur);
    out.push(d / cur, cur);
    if (!checked_mul(m.shape[i], d, &cur)) return {Layout{}, overflow_diagnostic(LayoutOperation::complement, i, m.shape[i], d)};
  }
  out.push(cotarget / cur + (cotarget % cur != 0 ? 1 : 0), cur);  // ceil(N / cur), without N + cur - 1
  const FlatLayout c = coalesce_flat(out);
  if (c.arith_overflow) return {Layout{}, c.overflow_diagnostic};
  return accept(c.to_layout());
}

// complement(A) = complement(A, cosize(A)); refused (layout.overflow) when cosize(A) does not fit.
TMAKIT_HD constexpr LayoutResult complement(const Layout& a) {
  const LayoutOpResult<std::int64_t> n = checked_cosize(a);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  return complement(a, n.value < 1 ? 1 : n.value);
}

}  // namespace tmakit

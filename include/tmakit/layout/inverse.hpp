// Inverses (CuTe's semantics).
//
// right_inverse(A): the largest R with A(R(i)) == i for all i < size(R). Coalesce A, then follow the
//   chain of strides 1, s1*1, s2*s1, ...: each mode found contributes its extent, with the stride
//   its coordinate has in A's domain (compact column-major of the coalesced shape; the sign of a
//   negative stride is kept). Nothing found: 1:0.
//     right_inverse((4,2):(2,1)) = (2,4):(4,1)
// left_inverse(A): R with R(A(i)) == i for all i < size(A); A must be injective. It is the right
//   inverse of (A, complement(A)). Refused for non-injective A (a stride-0 mode of extent > 1, or a
//   refused complement).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/complement.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

TMAKIT_HD constexpr Layout right_inverse(const Layout& a) {
  const FlatLayout c = coalesce_flat(flat_of(a));
  // Domain strides past a size that does not fit in int64 are marked -1: the chain stops before them.
  std::int64_t domain_stride[FlatLayout::kCapacity] = {};
  std::int64_t p = 1;
  for (int i = 0; i < c.n; ++i) {
    domain_stride[i] = p;
    if (p >= 0 && !checked_mul(p, c.shape[i], &p)) p = -1;
  }
  FlatLayout r;
  std::int64_t want = 1;
  for (int step = 0; step < c.n; ++step) {
    int found = -1;
    for (int i = 0; i < c.n && found < 0; ++i) {
      const std::int64_t ad = c.stride[i] == INT64_MIN ? -1 : c.stride[i] < 0 ? -c.stride[i] : c.stride[i];
      if (ad == want) found = i;
    }
    if (found < 0 || domain_stride[found] < 0) break;
    r.push(c.shape[found], c.stride[found] < 0 ? -domain_stride[found] : domain_stride[found]);
    const std::int64_t ad = c.stride[found] < 0 ? -c.stride[found] : c.stride[found];
    if (!checked_mul(c.shape[found], ad, &want)) break;  // no stride reaches past int64: the chain ends
  }
  return r.to_layout();
}

TMAKIT_HD constexpr LayoutResult left_inverse(const Layout& a) {
  const FlatLayout f = flat_of(a);
  for (int i = 0; i < f.n; ++i)
    if (f.shape[i] > 1 && f.stride[i] == 0) return refuse(LayoutRule::not_injective, i, 0);
  const LayoutResult c = complement(a);
  if (!c.ok()) return c;
  return accept(right_inverse(make_layout_of(a, c.value)));
}

}  // namespace tmakit

// FlatLayout: a layout's leaf modes as a plain list of (extent, stride) pairs, the working form of
// the algebra (coalesce, composition, complement, inverses). Fixed capacity, constexpr, TMAKIT_HD.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/layout.hpp"

namespace tmakit {

struct FlatLayout {
  static constexpr int kCapacity = IntTuple::kMaxNodes;
  std::int64_t shape[kCapacity] = {};
  std::int64_t stride[kCapacity] = {};
  int n = 0;
  bool overflow = false;        // ran out of capacity
  bool arith_overflow = false;  // an extent or stride product did not fit in 64 bits (see overflow_diagnostic)
  LayoutDiagnostic overflow_diagnostic{};

  TMAKIT_HD constexpr void push(std::int64_t s, std::int64_t d) {
    if (n >= kCapacity) {
      overflow = true;
      return;
    }
    shape[n] = s;
    stride[n] = d;
    ++n;
  }
  // The Layout: 1:0 for no modes, a leaf s:d for one, a flat tuple otherwise.
  TMAKIT_HD constexpr Layout to_layout() const {
    if (n == 0) return Layout{1, 0};
    if (n == 1) return Layout{shape[0], stride[0]};
    Layout l{IntTuple::tuple(), IntTuple::tuple()};
    for (int i = 0; i < n; ++i) {
      l.shape.append(IntTuple(shape[i]));
      l.stride.append(IntTuple(stride[i]));
    }
    if (overflow) l.shape.overflow = true;
    return l;
  }
};

TMAKIT_HD constexpr FlatLayout flat_of(const Layout& l) {
  FlatLayout f;
  for (int i = 0; i < l.shape.count; ++i)
    if (l.shape.nodes[i].rank < 0) f.push(l.shape.nodes[i].value, l.stride.nodes[i].value);
  return f;
}

// CuTe's coalesce on a flat list: drop extent-1 modes; merge s0:d0 ++ s1:d1 into s0*s1:d0 when
// d1 == s0*d0. The function on [0, size) and the size are unchanged. A product s0*d0 that does not
// fit in 64 bits cannot equal d1 (no merge); a merged extent s0*s1 that does not fit (a layout of
// more than 2^63 elements) sets arith_overflow with a layout.overflow diagnostic (operation coalesce).
TMAKIT_HD constexpr FlatLayout coalesce_flat(const FlatLayout& in) {
  FlatLayout out;
  for (int i = 0; i < in.n; ++i) {
    const std::int64_t s = in.shape[i], d = in.stride[i];
    if (s == 1) continue;
    std::int64_t span = 0;
    if (out.n > 0 && checked_mul(out.shape[out.n - 1], out.stride[out.n - 1], &span) && span == d) {
      const std::int64_t prev = out.shape[out.n - 1];
      if (!checked_mul(prev, s, &out.shape[out.n - 1])) {
        out.arith_overflow = true;
        out.overflow_diagnostic = overflow_diagnostic(LayoutOperation::coalesce, i, prev, s);
        out.shape[out.n - 1] = prev;
      }
      continue;
    }
    out.push(s, d);
  }
  out.overflow = out.overflow || in.overflow;
  if (in.arith_overflow && !out.arith_overflow) {
    out.arith_overflow = true;
    out.overflow_diagnostic = in.overflow_diagnostic;
  }
  return out;
}

// CuTe's coalesce_x: coalesce that keeps the function outside the domain too (what composition
// reads A as). As coalesce_flat, walking from the last mode, except that a last mode of extent 1 is
// kept (as extent 2, so that its stride still extends the function past the domain) and may merge.
// One mode means an integral A. The empty layout () stays empty.
TMAKIT_HD constexpr FlatLayout coalesce_x(const Layout& l) {
  const FlatLayout in = flat_of(l);
  FlatLayout rev;  // modes found, last first
  if (in.n == 0) return rev;
  rev.push(in.shape[in.n - 1] == 1 ? 2 : in.shape[in.n - 1], in.stride[in.n - 1]);
  for (int i = in.n - 2; i >= 0; --i) {
    const std::int64_t s = in.shape[i], d = in.stride[i];
    if (s == 1) continue;
    std::int64_t span = 0, merged = 0;
    const int f = rev.n - 1;  // the front mode
    if (checked_mul(s, d, &span) && span == rev.stride[f] && checked_mul(s, rev.shape[f], &merged)) {
      rev.shape[f] = merged;
      rev.stride[f] = d;
      continue;
    }
    rev.push(s, d);
  }
  FlatLayout out;
  for (int i = rev.n - 1; i >= 0; --i) out.push(rev.shape[i], rev.stride[i]);
  out.overflow = in.overflow;
  return out;
}

// The order in which CuTe's exchange sort (SortByKey) visits the keys: for i, for j > i, swap when
// key[j] < key[i]. Not stable; equal keys come out in the order this swapping leaves them.
TMAKIT_HD constexpr void exchange_sort_order(const std::int64_t* key, int n, int* order) {
  std::int64_t k[FlatLayout::kCapacity] = {};
  for (int i = 0; i < n; ++i) {
    k[i] = key[i];
    order[i] = i;
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (k[j] < k[i]) {
        const std::int64_t t = k[j];
        k[j] = k[i];
        k[i] = t;
        const int o = order[j];
        order[j] = order[i];
        order[i] = o;
      }
}

}  // namespace tmakit

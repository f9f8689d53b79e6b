// composition(A, B) = A o B: the layout R with R(c) = A(B(c)) for every c in B's domain, shaped like
// B (CuTe's semantics and algorithm: for each leaf mode s:d of B, "divide out" the stride d from A's
// flattened shape, then "mod out" the extent s, then coalesce).
//
//   (6,2):(8,2) o (4,3):(3,1)      = ((2,2),3):((24,2),8)
//   20:2 o (5,4):(4,1)             = (5,4):(8,2)
//   (10,2):(16,4) o (5,4):(1,5)    = (5,(2,2)):(16,(80,4))
//
// Preconditions (refused, never asserted): the stride divisibility condition (each of A's extents
// that the stride walks over divides it or is a multiple of it: layout.composition.stride_divisibility)
// and the shape divisibility condition (layout.composition.shape_divisibility); B's strides >= 0;
// every stride product fits in 64 bits (layout.overflow, operation composition, naming A's leaf).
// The empty layout () as A is the constant function 0 (as 1:0): A o B = B's shape with strides 0.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/flat_layout.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

namespace detail {

// CuTe's shape_div on positive integers: a / b when b divides a, else 1 when a divides b.
TMAKIT_HD constexpr bool divides_either(std::int64_t a, std::int64_t b) { return a % b == 0 || b % a == 0; }
TMAKIT_HD constexpr std::int64_t shape_div(std::int64_t a, std::int64_t b) { return a % b == 0 ? a / b : 1; }

using FlatResult = LayoutOpResult<FlatLayout>;

// A (flattened, `a_is_leaf` when A's shape is an integer) o s:d.
TMAKIT_HD constexpr FlatResult compose_leaf(const FlatLayout& a, bool a_is_leaf, std::int64_t s, std::int64_t d) {
  FlatResult r;
  if (d < 0) {
    r.diagnostic = make_diagnostic(LayoutRule::negative_stride, -1, d);
    return r;
  }
  if (d == 0) {  // every index of B lands on A(0) = 0
    r.value.push(s, 0);
    return r;
  }
  if (a.n == 0) {  // the empty layout () maps everything to offset 0, as 1:0 does
    r.value.push(s, 0);
    return r;
  }
  std::int64_t prod = 0;
  if (a_is_leaf) {  // a:b o s:d = s:(b*d)
    if (!checked_mul(a.stride[0], d, &prod)) {
      r.diagnostic = overflow_diagnostic(LayoutOperation::composition, 0, a.stride[0], d);
      return r;
    }
    r.value.push(s, prod);
    return r;
  }
  const int R = a.n;
  FlatLayout mid;
  // 1. Divide out the stride from the first R-1 extents.
  std::int64_t rest_stride = d;
  for (int i = 0; i + 1 < R; ++i) {
    const std::int64_t si = a.shape[i];
    if (!divides_either(si, rest_stride)) {
      r.diagnostic = make_diagnostic(LayoutRule::composition_stride, i, rest_stride, si);
      return r;
    }
    const std::int64_t ns = shape_div(si, rest_stride);
    if (!checked_mul(a.stride[i], si / ns, &prod)) {
      r.diagnostic = overflow_diagnostic(LayoutOperation::composition, i, a.stride[i], si / ns);
      return r;
    }
    mid.push(ns, prod);
    rest_stride = shape_div(rest_stride, si);
  }
  // 2. Mod out the extent.
  std::int64_t rest_shape = s;
  FlatLayout out;
  for (int i = 0; i < mid.n; ++i) {
    const std::int64_t si = mid.shape[i];
    if (!divides_either(rest_shape, si)) {
      r.diagnostic = make_diagnostic(LayoutRule::composition_shape, i, rest_shape, si);
      return r;
    }
    out.push(si < rest_shape ? si : rest_shape, mid.stride[i]);
    rest_shape = shape_div(rest_shape, si);
  }
  // 3. The last mode of A absorbs what is left (its extent does not bound the composition).
  if (!checked_mul(rest_stride, a.stride[R - 1], &prod)) {
    r.diagnostic = overflow_diagnostic(LayoutOperation::composition, R - 1, rest_stride, a.stride[R - 1]);
    return r;
  }
  out.push(rest_shape, prod);
  r.value = coalesce_flat(out);
  if (r.value.arith_overflow) r.diagnostic = r.value.overflow_diagnostic;
  return r;
}

// Rebuilds B's tree with each leaf replaced by A o leaf. Returns false on a refusal.
TMAKIT_HD constexpr bool compose_tree(const FlatLayout& a, bool a_is_leaf, const Layout& b, int node,
                                      IntTuple& shape_out, IntTuple& stride_out, LayoutDiagnostic& diag) {
  const IntTupleNode& n = b.shape.nodes[node];
  if (n.rank < 0) {
    const FlatResult fr = compose_leaf(a, a_is_leaf, n.value, b.stride.nodes[node].value);
    if (!fr.diagnostic.ok()) {
      diag = fr.diagnostic;
      return false;
    }
    const Layout l = fr.value.to_layout();
    shape_out = l.shape;
    stride_out = l.stride;
    return true;
  }
  shape_out = IntTuple::tuple();
  stride_out = IntTuple::tuple();
  int c = node + 1;
  for (int k = 0; k < n.rank; ++k) {
    IntTuple s, d;
    if (!compose_tree(a, a_is_leaf, b, c, s, d, diag)) return false;
    shape_out.append(s);
    stride_out.append(d);
    c += b.shape.nodes[c].span;
  }
  return true;
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult composition(const Layout& a, const Layout& b) {
  LayoutResult r;
  if (!detail::compose_tree(flat_of(a), a.shape.is_leaf(), b, 0, r.value.shape, r.value.stride, r.diagnostic)) {
    r.value = Layout{};
    return r;
  }
  return accept(r.value);
}

// By-mode composition with a tiler <B0, B1, ...>: (A0 o B0, A1 o B1, ...). As in CuTe, the modes of
// A that the tiler does not reach are dropped. A layout tiler is plain composition.
TMAKIT_HD constexpr LayoutResult composition(const Layout& a, const Tiler& t) {
  if (!t.by_mode) return composition(a, t.layout);
  return apply_by_mode(a, t, false, [](const Layout& m, const Layout& b) { return composition(m, b); });
}

}  // namespace tmakit

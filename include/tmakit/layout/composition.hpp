// composition(A, B) = A o B: the layout R with R(c) = A(B(c)), shaped like B. CuTe's definition,
// exactly: A is first coalesced keeping its function outside its domain too (coalesce_x below), then
// for each leaf mode s:d of B the stride d is "divided out" of A's modes but the last and the extent s
// "modded out" of what remains; A's last mode takes whatever is left (its extent bounds nothing).
//
//   (6,2):(8,2) o (4,3):(3,1)      = ((2,2),3):((24,2),8)
//   20:2 o (5,4):(4,1)             = (5,4):(8,2)
//   (4,3):(1,4) o (3,(1,2)):(0,(11,10)) = (3,(1,2)):(0,(11,10))     (A coalesces to 12:1)
//   (5,8,8):(2,30,240) o 3:1       = 3:2                            (3 fits in A's first mode)
//
// Refused exactly where CuTe's static checks fail (composition_impl's weak divisibility conditions):
//   stride: the rest of the stride r meets one of A's first R-1 extents e with r % e != 0 and r >= e
//           (layout.composition.stride_divisibility);
//   shape:  the extent left to place, s, is not a multiple of min(ceil(e / r), s), where that minimum
//           is the part of s a mode takes (layout.composition.shape_divisibility);
// and where a stride product does not fit in 64 bits (layout.overflow, operation composition). Where
// r < e and r does not divide e CuTe composes anyway (ceil(e / r) elements in that mode, the rest
// stride rounded up to 1); so does tmakit, and the result is then CuTe's, which is not A(B(i)) for
// every i (docs/layout.md). The empty layout () as A is the constant function 0 (as 1:0).
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
// ceil(a / b) for a >= 0, b > 0, without a + b - 1.
TMAKIT_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
TMAKIT_HD constexpr std::int64_t magnitude_of(std::int64_t v) { return v < 0 ? -v : v; }

using FlatResult = LayoutOpResult<FlatLayout>;

// A o s:d for one leaf mode of B, with `a` A's coalesce_x form (CuTe's composition_impl). The
// result is written into `shape_out` / `stride_out` (a leaf, or a flat tuple of the modes found).
TMAKIT_HD constexpr LayoutDiagnostic compose_leaf(const FlatLayout& a, std::int64_t s, std::int64_t d,
                                                  IntTuple& shape_out, IntTuple& stride_out) {
  std::int64_t prod = 0;
  if (d == 0 || a.n == 0) {  // every index of B lands on A(0) = 0; () maps everything to 0 as 1:0 does
    shape_out = IntTuple(s);
    stride_out = IntTuple(0);
    return {};
  }
  if (a.n == 1) {  // an integral A: a:b o s:d = s:(b*d)
    if (!checked_mul(d, a.stride[0], &prod)) return overflow_diagnostic(LayoutOperation::composition, 0, d, a.stride[0]);
    shape_out = IntTuple(s);
    stride_out = IntTuple(prod);
    return {};
  }
  const int R = a.n;
  FlatLayout out;
  std::int64_t rest_shape = s, rest_stride = d;
  if (d == INT64_MIN) return overflow_diagnostic(LayoutOperation::composition, 0, d, 1);
  for (int i = 0; i + 1 < R; ++i) {
    const std::int64_t e = a.shape[i], r = magnitude_of(rest_stride);
    if (r % e != 0 && r >= e) return make_diagnostic(LayoutRule::composition_stride, i, rest_stride, e);
    const std::int64_t next_shape = ceil_div(e, r);
    const std::int64_t next_stride = ceil_div(r, e) * (rest_stride < 0 ? -1 : 1);
    if (next_shape != 1 && rest_shape != 1) {
      const std::int64_t new_shape = next_shape < rest_shape ? next_shape : rest_shape;
      if (rest_shape % new_shape != 0) return make_diagnostic(LayoutRule::composition_shape, i, rest_shape, new_shape);
      if (!checked_mul(rest_stride, a.stride[i], &prod))
        return overflow_diagnostic(LayoutOperation::composition, i, rest_stride, a.stride[i]);
      out.push(new_shape, prod);
      rest_shape /= new_shape;
    }
    rest_stride = next_stride;
  }
  if (out.n == 0 || rest_shape != 1) {
    if (!checked_mul(rest_stride, a.stride[R - 1], &prod))
      return overflow_diagnostic(LayoutOperation::composition, R - 1, rest_stride, a.stride[R - 1]);
    out.push(rest_shape, prod);
  }
  const Layout l = out.to_layout();
  shape_out = l.shape;
  stride_out = l.stride;
  return {};
}

// Rebuilds B's tree with each leaf replaced by A o leaf. Returns false on a refusal.
TMAKIT_HD constexpr bool compose_tree(const FlatLayout& a, const Layout& b, int node, IntTuple& shape_out,
                                      IntTuple& stride_out, LayoutDiagnostic& diag) {
  const IntTupleNode& n = b.shape.nodes[node];
  if (n.rank < 0) {
    diag = compose_leaf(a, n.value, b.stride.nodes[node].value, shape_out, stride_out);
    return diag.ok();
  }
  shape_out = IntTuple::tuple();
  stride_out = IntTuple::tuple();
  int c = node + 1;
  for (int k = 0; k < n.rank; ++k) {
    IntTuple s, d;
    if (!compose_tree(a, b, c, s, d, diag)) return false;
    shape_out.append(s);
    stride_out.append(d);
    c += b.shape.nodes[c].span;
  }
  return true;
}

}  // namespace detail

TMAKIT_HD constexpr LayoutResult composition(const Layout& a, const Layout& b) {
  LayoutResult r;
  if (!detail::compose_tree(coalesce_x(a), b, 0, r.value.shape, r.value.stride, r.diagnostic)) {
    r.value = Layout{};
    return r;
  }
  return accept(r.value);
}

// By-mode composition with a tiler <B0, B1, ...>: (A0 o B0, A1 o B1, ...). As in CuTe, the modes of
// A that the tiler does not reach are dropped. A layout tiler is plain composition.
TMAKIT_HD constexpr LayoutResult composition(const Layout& a, const Tiler& t) {
  return apply_tiler(a, t, false, [](const Layout& m, const Layout& b) { return composition(m, b); });
}

}  // namespace tmakit

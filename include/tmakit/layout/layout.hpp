// Layout: a map from coordinates to offsets, (shape):(stride) with congruent hierarchical
// IntTuples, CuTe's semantics: a linear index is split colexicographically over the shape (mode 0
// fastest) and the offset is the inner product of the coordinate with the stride.
//
//   ((2,2),3):((1,4),2)   size 12, cosize 1 + 1*1 + 1*4 + 2*2 = 10, rank 2, depth 2
//
// Units are whatever the strides count: element offsets for shared-memory tiles (see
// swizzled_layout.hpp for the byte conversion). Everything is constexpr and TMAKIT_HD.
#pragma once

#include <cstdint>

#include "tmakit/core/checked.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/layout/int_tuple.hpp"
#include "tmakit/layout/diagnostic.hpp"

namespace tmakit {

struct Layout {
  IntTuple shape = IntTuple(1);
  IntTuple stride = IntTuple(0);

  constexpr Layout() = default;
  TMAKIT_HD constexpr Layout(const IntTuple& s, const IntTuple& d) : shape(s), stride(d) {}

  // shape and stride have the same structure (every Layout the library builds has).
  TMAKIT_HD constexpr bool congruent() const { return shape.congruent(stride); }
  TMAKIT_HD constexpr bool overflow() const { return shape.overflow || stride.overflow; }

  TMAKIT_HD constexpr std::int64_t size() const { return shape.product(); }
  // CuTe's cosize: layout(size - 1) + 1, i.e. one past the largest offset for non-negative strides.
  // Saturates at INT64_MAX / INT64_MIN where the exact value does not fit (checked_cosize refuses).
  TMAKIT_HD constexpr std::int64_t cosize() const {
    std::int64_t c = 1;
    for (int i = 0; i < shape.count; ++i)
      if (shape.nodes[i].rank < 0) {
        const std::int64_t t = mul_saturated(shape.nodes[i].value - 1, stride.nodes[i].value);
        if (!checked_add(c, t, &c)) return t < 0 ? static_cast<std::int64_t>(std::uint64_t{1} << 63)
                                                 : static_cast<std::int64_t>((std::uint64_t{1} << 63) - 1);
      }
    return c;
  }
  TMAKIT_HD constexpr int rank() const { return shape.rank(); }
  TMAKIT_HD constexpr int depth() const { return shape.depth(); }
  TMAKIT_HD constexpr Layout mode(int i) const { return {shape.mode(i), stride.mode(i)}; }
  TMAKIT_HD constexpr Layout flatten() const { return {shape.flatten(), stride.flatten()}; }
  TMAKIT_HD constexpr int num_leaves() const { return shape.num_leaves(); }
  TMAKIT_HD constexpr std::int64_t shape_at(int k) const { return shape.leaf_at(k); }
  TMAKIT_HD constexpr std::int64_t stride_at(int k) const { return stride.leaf_at(k); }

  // Linear index -> offset. Indices at or past size() continue along the last leaf mode (its
  // extent is not wrapped), as a one-dimensional extension of the layout.
  TMAKIT_HD constexpr std::int64_t operator()(std::int64_t index) const { return eval_linear(0, index); }

  // Coordinate -> offset. The coordinate is congruent to the shape or coarser: an integer standing
  // for a tuple mode is split colexicographically over that mode, e.g. for ((2,2),3) the
  // coordinates (3,1), ((1,1),1) and 9 all name the same element. Sets *ok = false (and returns 0)
  // when the coordinate has a tuple where the shape has a leaf, or a different rank.
  TMAKIT_HD constexpr std::int64_t operator()(const IntTuple& coord, bool* ok = nullptr) const {
    bool good = true;
    const std::int64_t r = eval_coord(coord, 0, 0, good);
    if (ok) *ok = good;
    return good ? r : 0;
  }

  friend TMAKIT_HD constexpr bool operator==(const Layout& a, const Layout& b) {
    return a.shape == b.shape && a.stride == b.stride;
  }

  // ---- helpers (public: a structural type has only public members)
  // Linear index over the subtree rooted at `node` (same node index in shape and stride).
  TMAKIT_HD constexpr std::int64_t eval_linear(int node, std::int64_t index) const {
    const int end = node + shape.nodes[node].span;
    int last = node;
    for (int i = node; i < end; ++i)
      if (shape.nodes[i].rank < 0) last = i;
    std::int64_t off = 0;
    for (int i = node; i < end; ++i) {
      if (shape.nodes[i].rank >= 0) continue;
      const std::int64_t s = shape.nodes[i].value;
      if (i == last) {
        off += index * stride.nodes[i].value;
        break;
      }
      off += (index % s) * stride.nodes[i].value;
      index /= s;
    }
    return off;
  }
  TMAKIT_HD constexpr std::int64_t eval_coord(const IntTuple& c, int cnode, int snode, bool& good) const {
    if (c.nodes[cnode].rank < 0) return eval_linear(snode, c.nodes[cnode].value);
    if (shape.nodes[snode].rank < 0 || shape.nodes[snode].rank != c.nodes[cnode].rank) {
      good = false;
      return 0;
    }
    std::int64_t off = 0;
    int cn = cnode + 1, sn = snode + 1;
    for (int k = 0; k < c.nodes[cnode].rank; ++k) {
      off += eval_coord(c, cn, sn, good);
      cn += c.nodes[cn].span;
      sn += shape.nodes[sn].span;
    }
    return off;
  }
};

// A Layout or the reason it could not be computed.
using LayoutResult = LayoutOpResult<Layout>;

TMAKIT_HD constexpr LayoutResult refuse(LayoutRule r, int mode = -1, std::int64_t a = 0, std::int64_t b = 0) {
  return {Layout{}, make_diagnostic(r, mode, a, b)};
}

// The exact size (product of the extents), or layout.overflow (operation size) naming the leaf at
// which the product leaves int64 (a = the product of the leaves before it, b = its extent).
TMAKIT_HD constexpr LayoutOpResult<std::int64_t> checked_size(const Layout& l) {
  std::int64_t p = 1;
  int k = 0;
  for (int i = 0; i < l.shape.count; ++i) {
    if (l.shape.nodes[i].rank >= 0) continue;
    const std::int64_t s = l.shape.nodes[i].value;
    std::int64_t next = 0;
    if (!checked_mul(p, s, &next)) return {0, overflow_diagnostic(LayoutOperation::size, k, p, s)};
    p = next;
    ++k;
  }
  return {p, {}};
}

// The exact cosize, or layout.overflow (operation cosize) naming the leaf whose term (a = extent - 1
// times b = stride, or the sum with it) leaves int64.
TMAKIT_HD constexpr LayoutOpResult<std::int64_t> checked_cosize(const Layout& l) {
  std::int64_t c = 1;
  int k = 0;
  for (int i = 0; i < l.shape.count; ++i) {
    if (l.shape.nodes[i].rank >= 0) continue;
    const std::int64_t s = l.shape.nodes[i].value, d = l.stride.nodes[i].value;
    std::int64_t t = 0;
    if (!checked_sub(s, 1, &t) || !checked_mul(t, d, &t) || !checked_add(c, t, &c))
      return {0, overflow_diagnostic(LayoutOperation::cosize, k, s, d)};
    ++k;
  }
  return {c, {}};
}

// Whether every offset of the layout's domain fits in int64: the sum of |(extent - 1) * stride| over
// the leaves must (layout.overflow, operation offsets, naming the first leaf that makes it too
// large, a = extent, b = stride). A layout that passes evaluates without overflow.
TMAKIT_HD constexpr LayoutDiagnostic check_offsets(const Layout& l) {
  std::int64_t span = 0;
  int k = 0;
  for (int i = 0; i < l.shape.count; ++i) {
    if (l.shape.nodes[i].rank >= 0) continue;
    const std::int64_t s = l.shape.nodes[i].value, d = l.stride.nodes[i].value;
    std::int64_t t = 0;
    if (!checked_sub(s, 1, &t) || !checked_mul(t, d, &t) || t == INT64_MIN || !checked_add(span, t < 0 ? -t : t, &span))
      return overflow_diagnostic(LayoutOperation::offsets, k, s, d);
    ++k;
  }
  return {};
}

// A result leaves an operation only when it fits: within the node capacity (layout.capacity), its
// size and every offset in int64 (layout.overflow).
TMAKIT_HD constexpr LayoutResult accept(const Layout& l) {
  if (l.overflow()) return refuse(LayoutRule::capacity, -1, IntTuple::kMaxNodes);
  const LayoutOpResult<std::int64_t> n = checked_size(l);
  if (!n.ok()) return {Layout{}, n.diagnostic};
  const LayoutDiagnostic o = check_offsets(l);
  if (!o.ok()) return {Layout{}, o};
  return {l, {}};
}

// The most elements a layout from outside may have (check_layout, layout.size_range): 2^62, the
// largest integer the notation reads. Below it size() and the compact strides stay in int64.
inline constexpr std::int64_t kMaxLayoutSize = std::int64_t{1} << 62;

// The compact column-major (CuTe's default, LayoutLeft) strides for a shape: prefix products. For a
// shape of more than 2^63 elements (check_layout refuses it: layout.size_range) the products
// saturate at INT64_MAX instead of overflowing.
TMAKIT_HD constexpr IntTuple compact_col_major(const IntTuple& shape, std::int64_t start = 1) {
  IntTuple d = shape;
  std::int64_t p = start;
  for (int i = 0; i < d.count; ++i)
    if (d.nodes[i].rank < 0) {
      const std::int64_t s = d.nodes[i].value;
      d.nodes[i].value = p;
      p = mul_saturated(p, s);
    }
  return d;
}

// make_layout(shape): compact column-major strides. make_layout(shape, stride) as given.
TMAKIT_HD constexpr Layout make_layout(const IntTuple& shape) { return {shape, compact_col_major(shape)}; }
TMAKIT_HD constexpr Layout make_layout(const IntTuple& shape, const IntTuple& stride) { return {shape, stride}; }

// The layout whose modes are the given layouts: (a, b, ...) -> (a.shape, b.shape):(a.stride, b.stride).
template <class... Ls>
TMAKIT_HD constexpr Layout make_layout_of(const Ls&... ls) {
  return {IntTuple::make(ls.shape...), IntTuple::make(ls.stride...)};
}

// Checks a layout from outside (user input): congruent, every shape leaf >= 1, at most
// kMaxLayoutSize (2^62) elements in all (layout.size_range: the first leaf k at which the product
// passes it, a = its extent, b = the product of the leaves before it).
TMAKIT_HD constexpr LayoutDiagnostic check_layout(const Layout& l) {
  if (l.overflow()) return make_diagnostic(LayoutRule::capacity, -1, IntTuple::kMaxNodes);
  if (!l.congruent()) return make_diagnostic(LayoutRule::not_congruent);
  for (int k = 0; k < l.num_leaves(); ++k)
    if (l.shape_at(k) < 1) return make_diagnostic(LayoutRule::bad_shape, k, l.shape_at(k));
  std::int64_t size = 1;
  for (int k = 0; k < l.num_leaves(); ++k) {
    const std::int64_t s = l.shape_at(k);
    if (s > kMaxLayoutSize / size) return make_diagnostic(LayoutRule::size_range, k, s, size);
    size *= s;
  }
  return {};
}

}  // namespace tmakit

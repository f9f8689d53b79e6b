// IntTuple: a hierarchical integer tuple (CuTe's IntTuple) with a fixed capacity and no heap.
//
// A value is either a leaf (one int64) or a tuple of IntTuples, e.g. ((2,2),3). It is stored as a
// preorder array of nodes: a leaf node holds its value; a tuple node holds its rank (number of
// children) and its span (how many nodes its subtree occupies, itself included), so children are
// found by skipping spans. Everything is constexpr and TMAKIT_HD, and the type is structural (all
// members public, scalars and arrays only), so it can be a template argument.
//
// Capacity: kMaxNodes nodes (leaves + tuple nodes) in all. Operations that would exceed it report
// it (a false return, or `overflow` set on the result) instead of asserting; nodes past `count` are
// always zero so that the defaulted comparison of two tuples is structural equality.
#pragma once

#include <cstdint>

#include "tmakit/core/checked.hpp"
#include "tmakit/core/config.hpp"

namespace tmakit {

struct IntTupleNode {
  std::int64_t value = 0;  // a leaf's value (0 for tuple nodes)
  std::int32_t rank = -1;  // -1: leaf; >= 0: a tuple of `rank` children
  std::int32_t span = 1;   // nodes in this subtree, itself included
  friend constexpr bool operator==(const IntTupleNode&, const IntTupleNode&) = default;
};

struct IntTuple {
  static constexpr int kMaxNodes = 64;

  IntTupleNode nodes[kMaxNodes] = {};
  std::int32_t count = 1;     // nodes in use; node 0 is the root (a leaf 0 by default)
  bool overflow = false;      // set when an operation ran out of capacity (the value is then partial)

  // ---- construction
  constexpr IntTuple() = default;
  TMAKIT_HD constexpr IntTuple(std::int64_t v) { nodes[0] = {v, -1, 1}; }  // NOLINT: implicit leaf
  // The empty tuple ().
  TMAKIT_HD static constexpr IntTuple tuple() {
    IntTuple t;
    t.nodes[0] = {0, 0, 1};
    return t;
  }
  template <class... Ts>
  TMAKIT_HD static constexpr IntTuple make(const Ts&... children) {
    IntTuple t = tuple();
    (t.append(IntTuple(children)), ...);
    return t;
  }

  // Appends `child` as the last mode of this tuple (a leaf is first turned into the 1-tuple (v)).
  // Returns false (and sets overflow) when the capacity would be exceeded.
  TMAKIT_HD constexpr bool append(const IntTuple& child) {
    if (is_leaf()) {
      const std::int64_t v = nodes[0].value;
      if (count + 1 > kMaxNodes) return fail();
      nodes[0] = {0, 1, 2};
      nodes[1] = {v, -1, 1};
      count = 2;
    }
    if (count + child.count > kMaxNodes) return fail();
    for (int i = 0; i < child.count; ++i) nodes[count + i] = child.nodes[i];
    count += child.count;
    nodes[0].rank += 1;
    nodes[0].span = count;
    overflow = overflow || child.overflow;
    return !overflow;
  }

  // ---- queries
  TMAKIT_HD constexpr bool is_leaf() const { return nodes[0].rank < 0; }
  TMAKIT_HD constexpr bool is_tuple() const { return nodes[0].rank >= 0; }
  TMAKIT_HD constexpr std::int64_t value() const { return nodes[0].value; }  // a leaf's value
  // rank: 1 for a leaf (as CuTe's rank of an integer), else the number of modes.
  TMAKIT_HD constexpr int rank() const { return is_leaf() ? 1 : nodes[0].rank; }
  // depth: 0 for a leaf, 1 + max depth of the modes for a tuple.
  TMAKIT_HD constexpr int depth() const { return depth_at(0); }
  // Node index of mode i (i < rank()); for a leaf, mode 0 is the leaf itself.
  TMAKIT_HD constexpr int mode_node(int i) const {
    if (is_leaf()) return 0;
    int n = 1;
    for (int k = 0; k < i; ++k) n += nodes[n].span;
    return n;
  }
  // Mode i as its own IntTuple (a leaf's mode 0 is the leaf).
  TMAKIT_HD constexpr IntTuple mode(int i) const { return subtree(mode_node(i)); }
  TMAKIT_HD constexpr IntTuple subtree(int node) const {
    IntTuple t;
    const int span = nodes[node].span;
    for (int k = 0; k < span; ++k) t.nodes[k] = nodes[node + k];
    t.count = span;
    return t;
  }
  TMAKIT_HD constexpr int num_leaves() const {
    int n = 0;
    for (int i = 0; i < count; ++i) n += nodes[i].rank < 0 ? 1 : 0;
    return n;
  }
  // The k-th leaf value in preorder (= flattened, colexicographic mode order).
  TMAKIT_HD constexpr std::int64_t leaf_at(int k) const {
    for (int i = 0; i < count; ++i)
      if (nodes[i].rank < 0 && k-- == 0) return nodes[i].value;
    return 0;
  }
  // Product of all leaves (CuTe's size of a shape); 1 for (). Saturates at INT64_MAX / INT64_MIN
  // where the exact product does not fit (checked_size in layout.hpp refuses it instead).
  TMAKIT_HD constexpr std::int64_t product() const {
    std::int64_t p = 1;
    for (int i = 0; i < count; ++i)
      if (nodes[i].rank < 0) p = mul_saturated(p, nodes[i].value);
    return p;
  }
  // Same tree shape (CuTe's congruent): equal structure, leaf values ignored.
  TMAKIT_HD constexpr bool congruent(const IntTuple& o) const {
    if (count != o.count) return false;
    for (int i = 0; i < count; ++i)
      if (nodes[i].rank != o.nodes[i].rank || nodes[i].span != o.nodes[i].span) return false;
    return true;
  }
  // The tuple of all leaves, in order: ((2,2),3) -> (2,2,3); a leaf stays a leaf.
  TMAKIT_HD constexpr IntTuple flatten() const {
    if (is_leaf()) return *this;
    IntTuple t = tuple();
    for (int i = 0; i < count; ++i)
      if (nodes[i].rank < 0) t.append(IntTuple(nodes[i].value));
    return t;
  }

  friend TMAKIT_HD constexpr bool operator==(const IntTuple& a, const IntTuple& b) {
    if (a.count != b.count) return false;
    for (int i = 0; i < a.count; ++i)
      if (!(a.nodes[i] == b.nodes[i])) return false;
    return true;
  }

  // ---- helpers (public: a structural type has only public members)
  TMAKIT_HD constexpr bool fail() {
    overflow = true;
    return false;
  }
  TMAKIT_HD constexpr int depth_at(int node) const {
    if (nodes[node].rank < 0) return 0;
    int d = 0, n = node + 1;
    for (int k = 0; k < nodes[node].rank; ++k) {
      const int c = depth_at(n);
      d = c > d ? c : d;
      n += nodes[n].span;
    }
    return d + 1;
  }
};

}  // namespace tmakit

// Algebra laws on thousands of random layouts (seeded). Each test prints how many cases the law was
// checked on ("[law] ..."), and requires at least 5,000 (or the stated number) checked cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"

using namespace tmakit;

namespace {

constexpr int kWanted = 5000;

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  int uni(int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); }
  std::int64_t extent(bool pow2_only) {
    static const int pow2[] = {1, 2, 2, 4, 4, 8, 16};
    static const int mixed[] = {1, 2, 3, 4, 5, 6, 8, 12};
    return pow2_only ? pow2[uni(0, 6)] : mixed[uni(0, 7)];
  }
  // Groups a flat list of modes into a random hierarchy (depth <= 3).
  Layout nest(const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& d, std::size_t lo, std::size_t hi, int depth) {
    if (hi - lo == 1 && (depth > 0 || uni(0, 1))) return Layout{s[lo], d[lo]};
    Layout out{IntTuple::tuple(), IntTuple::tuple()};
    std::size_t i = lo;
    while (i < hi) {
      std::size_t len = 1;
      if (depth < 2 && hi - i > 1 && uni(0, 2) == 0) len = static_cast<std::size_t>(uni(2, static_cast<int>(std::min<std::size_t>(3, hi - i))));
      const Layout m = len == 1 ? Layout{s[i], d[i]} : nest(s, d, i, i + len, depth + 1);
      out.shape.append(m.shape);
      out.stride.append(m.stride);
      i += len;
    }
    return out;
  }
  // An injective layout whose strides, sorted, nest (each a multiple of the extent below): the kind
  // complement and left_inverse accept. Gaps between modes with probability 1/3.
  Layout injective(int max_modes, bool pow2_only, bool gaps = true, std::int64_t max_size = 2048) {
    for (;;) {
      const Layout l = injective_any_size(max_modes, pow2_only, gaps);
      if (l.size() <= max_size) return l;
    }
  }
  Layout injective_any_size(int max_modes, bool pow2_only, bool gaps) {
    const int n = uni(1, max_modes);
    std::vector<std::int64_t> s(n), d(n);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) {
      s[i] = extent(pow2_only);
      order[i] = i;
    }
    std::shuffle(order.begin(), order.end(), rng);
    std::int64_t cur = 1;
    for (int k : order) {
      const std::int64_t gap = gaps && uni(0, 2) == 0 ? (pow2_only ? 2 : uni(2, 3)) : 1;
      d[k] = cur * gap;
      cur = d[k] * s[k];
    }
    return nest(s, d, 0, s.size(), 0);
  }
  // Any layout: random extents and strides (including 0 and repeats).
  Layout any(int max_modes, bool pow2_only, std::int64_t max_size = 2048) {
    for (;;) {
      const Layout l = any_size(max_modes, pow2_only);
      if (l.size() <= max_size) return l;
    }
  }
  Layout any_size(int max_modes, bool pow2_only) {
    const int n = uni(1, max_modes);
    std::vector<std::int64_t> s(n), d(n);
    for (int i = 0; i < n; ++i) {
      s[i] = extent(pow2_only);
      d[i] = uni(0, 4) == 0 ? 0 : (pow2_only ? (std::int64_t{1} << uni(0, 6)) : uni(1, 40));
    }
    return nest(s, d, 0, s.size(), 0);
  }
};

std::string S(const Layout& l) { return to_string(l); }

// CuTe's compatible(B, R): where B has a leaf, R has anything of that size; where B has a tuple, R
// has a tuple of the same rank with compatible modes.
bool compatible(const IntTuple& b, const IntTuple& r) {
  if (b.is_leaf()) return b.value() == r.product();
  if (r.is_leaf() || r.rank() != b.rank()) return false;
  for (int i = 0; i < b.rank(); ++i)
    if (!compatible(b.mode(i), r.mode(i))) return false;
  return true;
}

// Whether A o B is composition of functions, R(i) == A(B(i)): CuTe composes also where a stride r
// meets an extent e with r < e and r not dividing e (its weak condition), and its result is then not
// A o B; here every such meeting must divide one way or the other (the strong condition). The walk
// is composition's (composition.hpp) on A's coalesce_x form.
bool strongly_divisible(const Layout& a, const Layout& b) {
  const FlatLayout fa = coalesce_x(a);
  if (fa.n <= 1) return true;
  for (int k = 0; k < b.num_leaves(); ++k) {
    std::int64_t rest = b.stride_at(k);
    if (rest == 0) continue;
    for (int i = 0; i + 1 < fa.n; ++i) {
      const std::int64_t e = fa.shape[i];
      if (rest % e != 0 && e % rest != 0) return false;
      rest = rest % e == 0 ? rest / e : 1;
    }
  }
  return true;
}

// Whether complement(A, ...) is a true complement: A's strides, in increasing order, each a multiple
// of the extent spanned below them (CuTe's complement truncates the other gaps).
bool gaps_divide(const Layout& a) {
  FlatLayout f = coalesce_flat(flat_of(a));
  std::vector<std::pair<std::int64_t, std::int64_t>> m;
  for (int i = 0; i < f.n; ++i)
    if (f.stride[i] != 0) m.push_back({f.stride[i], f.shape[i]});
  std::sort(m.begin(), m.end());
  std::int64_t cur = 1;
  for (const auto& [d, s] : m) {
    if (d % cur != 0) return false;
    cur = d * s;
  }
  return true;
}

}  // namespace

TEST(LayoutLaws, CoalescePreservesFunctionAndSize) {
  Gen g(1);
  int checked = 0, bymode = 0;
  for (int it = 0; it < kWanted; ++it) {
    const Layout a = it % 2 ? g.any(6, it % 3 == 0) : g.injective(6, it % 3 == 0);
    const Layout c = coalesce(a);
    ASSERT_EQ(c.size(), a.size()) << S(a);
    ASSERT_LE(c.depth(), 1) << S(a);
    for (std::int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(c(i), a(i)) << S(a) << " -> " << S(c) << " at " << i;
    ++checked;
    // by-mode: the profile (1,1,...) of a's rank keeps the rank and the function
    if (a.shape.is_tuple()) {
      IntTuple prof = IntTuple::tuple();
      for (int m = 0; m < a.rank(); ++m) prof.append(IntTuple(1));
      const LayoutResult bm = coalesce(a, prof);
      ASSERT_TRUE(bm.ok());
      ASSERT_EQ(bm.value.rank(), a.rank());
      for (std::int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(bm.value(i), a(i)) << S(a);
      ++bymode;
    }
  }
  std::printf("[law] coalesce: same function and size, depth <= 1: %d layouts; by-mode (rank kept): %d\n", checked, bymode);
  EXPECT_GE(checked, kWanted);
}

TEST(LayoutLaws, CompositionIsFunctionCompositionAndAssociative) {
  Gen g(2);
  int correct = 0, assoc = 0, refused = 0, attempts = 0;
  while ((assoc < kWanted || correct < kWanted) && attempts < 400000) {
    ++attempts;
    const bool p2 = attempts % 4 != 0;
    const Layout a = g.injective(5, p2), b = g.injective(4, p2, attempts % 2 == 0, a.size()),
                 c = g.injective(3, p2, attempts % 2 == 1, b.size());
    // (CuTe: composition distributes over B's modes, A o (B0,B1) = (A o B0, A o B1), when B is
    // injective; for a non-injective B, R(i) == A(B(i)) does not hold in general. So B and C are injective.)
    const LayoutResult ab = composition(a, b);
    if (!ab.ok()) {
      ++refused;
      continue;
    }
    if (!strongly_divisible(a, b)) continue;
    // R(i) == A(B(i)) on B's domain, and R is compatible with B (B's coordinates are R's)
    ASSERT_TRUE(compatible(b.shape, ab.value.shape)) << S(a) << " o " << S(b) << " = " << S(ab.value);
    for (std::int64_t i = 0; i < b.size(); ++i)
      ASSERT_EQ(ab.value(i), a(b(i))) << S(a) << " o " << S(b) << " = " << S(ab.value) << " at " << i;
    ++correct;
    // Associativity is a law of functions on their domains: B's offsets must stay inside A's
    // domain and C's inside B's (past it, a layout's 1-D extension is not preserved by coalesce).
    if (b.cosize() > a.size() || c.cosize() > b.size()) continue;
    const LayoutResult bc = composition(b, c);
    if (!bc.ok() || !strongly_divisible(b, c) || !strongly_divisible(ab.value, c)) continue;
    const LayoutResult ab_c = composition(ab.value, c), a_bc = composition(a, bc.value);
    if (!ab_c.ok() || !a_bc.ok()) continue;
    for (std::int64_t i = 0; i < c.size(); ++i) {
      ASSERT_EQ(ab_c.value(i), a_bc.value(i)) << "(" << S(a) << " o " << S(b) << ") o " << S(c) << " at " << i;
      ASSERT_EQ(ab_c.value(i), a(b(c(i)))) << S(a) << " o " << S(b) << " = " << S(ab.value) << "; o " << S(c) << " = " << S(ab_c.value) << " at " << i;
    }
    ++assoc;
  }
  std::printf("[law] composition: R(i) == A(B(i)) on %d pairs; (A o B) o C == A o (B o C) on %d triples "
              "(%d of %d random pairs refused by the divisibility conditions)\n",
              correct, assoc, refused, attempts);
  EXPECT_GE(correct, kWanted);
  EXPECT_GE(assoc, kWanted);
}

TEST(LayoutLaws, ComplementIsDisjointAndCovers) {
  Gen g(3);
  int checked = 0;
  for (int it = 0; it < kWanted; ++it) {
    const Layout a = g.injective(5, it % 2 == 0);
    // top extent spanned by a: max over modes of extent*stride
    std::int64_t top = 1;
    for (int k = 0; k < a.num_leaves(); ++k) top = std::max(top, a.shape_at(k) * a.stride_at(k));
    const std::int64_t n = top * g.uni(1, 3);
    const LayoutResult r = complement(a, n);
    ASSERT_TRUE(r.ok()) << S(a) << " " << message(r.diagnostic);
    // disjoint: no offset of R but 0 is an offset of A
    std::set<std::int64_t> image_a;
    for (std::int64_t i = 0; i < a.size(); ++i) image_a.insert(a(i));
    for (std::int64_t j = 1; j < r.value.size(); ++j) ASSERT_EQ(image_a.count(r.value(j)), 0u) << S(a) << " vs " << S(r.value);
    // ordered: strictly increasing offsets
    for (std::int64_t j = 1; j < r.value.size(); ++j) ASSERT_LT(r.value(j - 1), r.value(j)) << S(r.value);
    // cover: (A, R) is a bijection onto [0, N)
    const Layout ar = make_layout_of(a, r.value);
    ASSERT_EQ(ar.size(), n) << S(a) << " , " << S(r.value);
    std::vector<char> hit(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < ar.size(); ++i) {
      const std::int64_t o = ar(i);
      ASSERT_TRUE(o >= 0 && o < n) << S(ar);
      ASSERT_EQ(hit[static_cast<std::size_t>(o)], 0) << S(ar) << " hits " << o << " twice";
      hit[static_cast<std::size_t>(o)] = 1;
    }
    ++checked;
  }
  std::printf("[law] complement: disjoint from A, ordered, (A, complement) covers [0, N) exactly once: %d layouts\n", checked);
  EXPECT_GE(checked, kWanted);
}

TEST(LayoutLaws, Inverses) {
  Gen g(4);
  int left = 0, left_comp = 0, right = 0;
  for (int it = 0; it < kWanted; ++it) {
    const Layout a = g.injective(5, it % 2 == 0);
    const LayoutResult li = left_inverse(a);
    ASSERT_TRUE(li.ok()) << S(a) << " " << message(li.diagnostic);
    for (std::int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(li.value(a(i)), i) << S(a) << " left inverse " << S(li.value);
    ++left;
    const LayoutResult lia = composition(li.value, a);  // left_inverse(A) o A == identity, as a layout
    if (lia.ok()) {
      for (std::int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(lia.value(i), i) << S(a);
      ++left_comp;
    }
    const Layout b = it % 3 == 0 ? g.any(5, it % 2 == 0) : a;
    const Layout ri = right_inverse(b);
    const LayoutResult bri = composition(b, ri);  // A o right_inverse(A) == identity
    ASSERT_TRUE(bri.ok()) << S(b) << " o " << S(ri) << ": " << message(bri.diagnostic);
    for (std::int64_t i = 0; i < ri.size(); ++i) {
      ASSERT_EQ(b(ri(i)), i) << S(b) << " right inverse " << S(ri);
      ASSERT_EQ(bri.value(i), i);
    }
    if (b == a && a.cosize() == a.size()) {  // bijective A: the right inverse is the full inverse
      ASSERT_EQ(ri.size(), a.size()) << S(a);
    }
    ++right;
  }
  std::printf("[law] left_inverse(A)(A(i)) == i: %d injective layouts (as composition left_inverse(A) o A == id: %d); "
              "A o right_inverse(A) == id: %d layouts\n", left, left_comp, right);
  EXPECT_GE(left, kWanted);
  EXPECT_GE(right, kWanted);
}

TEST(LayoutLaws, DivideIsCompositionWithTheTilerAndItsComplement) {
  Gen g(5);
  int checked = 0, attempts = 0, permutation = 0;
  while (checked < kWanted && attempts < 200000) {
    ++attempts;
    const bool p2 = attempts % 3 != 0;
    const Layout a = g.injective(5, p2), b = g.injective(3, p2);
    const LayoutResult d = logical_divide(a, b);
    if (!d.ok()) continue;
    // CuTe's cotarget is A's coalesced shape (its ceil_div by the tiles is the repeat count)
    const LayoutResult c = detail::complement_to(b, coalesce(a).shape);
    ASSERT_TRUE(c.ok());
    const Layout bb = make_layout_of(b, c.value);
    if (!strongly_divisible(a, bb)) continue;
    ASSERT_EQ(d.value.rank(), 2);
    // logical_divide(A, B)(i) == A((B, B*)(i)) and mode 0 == A o B
    for (std::int64_t i = 0; i < d.value.size(); ++i) ASSERT_EQ(d.value(i), a(bb(i))) << S(a) << " / " << S(b);
    const LayoutResult ab = composition(a, b);
    ASSERT_TRUE(ab.ok());
    ASSERT_EQ(d.value.mode(0), ab.value) << S(a) << " / " << S(b);
    // when the tiles fill A exactly, the divide only rearranges A: same offsets
    if (bb.size() == a.size() && bb.cosize() == a.size()) {
      std::multiset<std::int64_t> x, y;
      for (std::int64_t i = 0; i < a.size(); ++i) {
        x.insert(a(i));
        y.insert(d.value(i));
      }
      ASSERT_EQ(x, y) << S(a) << " / " << S(b);
      ++permutation;
    }
    ++checked;
  }
  std::printf("[law] logical_divide(A,B) == A o (B, complement(B, size A)), mode 0 == A o B: %d pairs "
              "(%d of them exact tilings, checked to be a rearrangement of A)\n", checked, permutation);
  EXPECT_GE(checked, kWanted);
}

TEST(LayoutLaws, ProductsAreConsistent) {
  Gen g(6);
  int checked = 0, attempts = 0;
  while (checked < kWanted && attempts < 200000) {
    ++attempts;
    const bool p2 = attempts % 3 != 0;
    const Layout a = g.injective(4, p2, true, 128), b = g.injective(3, p2, false, 32);
    const LayoutResult p = logical_product(a, b);
    if (!p.ok()) continue;
    ASSERT_EQ(p.value.mode(0), a);
    ASSERT_EQ(p.value.size(), a.size() * b.size());
    // (A, A* o B): injective (where A's gaps divide, so that A* is a true complement), and mode 1 ==
    // complement(A, size(A)*cosize(B)) o B
    const Layout comp = complement(a, a.size() * b.cosize()).value;
    if (!gaps_divide(a) || !strongly_divisible(comp, b)) continue;
    std::set<std::int64_t> seen;
    for (std::int64_t i = 0; i < p.value.size(); ++i) ASSERT_TRUE(seen.insert(p.value(i)).second) << S(a) << " x " << S(b);
    for (std::int64_t j = 0; j < b.size(); ++j) ASSERT_EQ(p.value.mode(1)(j), comp(b(j)));
    // blocked and raked products: same size, same set of offsets as the logical product (a re-association)
    const LayoutResult bl = blocked_product(a, b), rk = raked_product(a, b);
    // CuTe's zip needs the ranks to pair up (e.g. 3:2 raked (2):(1) zips the tuple (2) with an integral 3)
    if (bl.diagnostic.rule == LayoutRule::product_rank || rk.diagnostic.rule == LayoutRule::product_rank) continue;
    ASSERT_TRUE(bl.ok() && rk.ok()) << S(a) << " x " << S(b);
    ASSERT_EQ(bl.value.size(), p.value.size());
    ASSERT_EQ(rk.value.size(), p.value.size());
    std::set<std::int64_t> sb, sr;
    for (std::int64_t i = 0; i < p.value.size(); ++i) {
      sb.insert(bl.value(i));
      sr.insert(rk.value(i));
    }
    ASSERT_EQ(sb, seen) << S(a) << " blocked " << S(b) << " = " << S(bl.value);
    ASSERT_EQ(sr, seen) << S(a) << " raked " << S(b) << " = " << S(rk.value);
    ++checked;
  }
  std::printf("[law] logical_product: mode 0 == A, injective, mode 1 == A* o B; blocked/raked: same offsets: %d pairs\n", checked);
  EXPECT_GE(checked, kWanted);
}

TEST(LayoutLaws, MaxCommonLayoutMapsBothToTheIdentity) {
  Gen g(7);
  int checked = 0, attempts = 0, longer = 0;
  while (checked < kWanted && attempts < 100000) {
    ++attempts;
    // two layouts of the same shape with different (injective) strides
    const Layout a = g.injective(4, true, false);
    Layout b = a;
    const Layout other = g.injective(4, true, false);
    if (other.size() != a.size()) continue;
    b = composition(other, make_layout(a.shape)).value;  // other's function, a's shape
    const LayoutResult r = max_common_layout(a, b);
    const IntResult v = max_common_vector(a, b);
    if (!r.ok() || !v.ok()) continue;
    ASSERT_EQ(r.value.size(), v.value) << S(a) << " " << S(b);
    for (std::int64_t i = 0; i < r.value.size(); ++i) {
      ASSERT_EQ(a(r.value(i)), i) << S(a) << " " << S(b) << " common " << S(r.value);
      ASSERT_EQ(b(r.value(i)), i) << S(a) << " " << S(b) << " common " << S(r.value);
    }
    if (v.value > 1) ++longer;
    ++checked;
  }
  std::printf("[law] max_common_layout R: A(R(i)) == B(R(i)) == i, size == max_common_vector: %d pairs (%d with vector > 1)\n",
              checked, longer);
  EXPECT_GE(checked, kWanted);
}

TEST(LayoutLaws, TilerRoundTrip) {
  Gen g(8);
  int checked = 0;
  for (int it = 0; it < kWanted; ++it) {
    const Layout m0 = g.injective(3, true), m1 = g.any(3, false);
    const Tiler t = it % 2 ? by_mode_tiler(m0, m1) : layout_tiler(m0);
    const auto p = parse_tiler(to_string(t));
    ASSERT_TRUE(p.ok) << to_string(t) << ": " << p.error.message;
    ASSERT_EQ(p.value, t) << to_string(t);
    ++checked;
  }
  std::printf("[law] parse_tiler(print(T)) == T: %d tilers\n", checked);
}

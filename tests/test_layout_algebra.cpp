// The worked examples of CuTe's layout-algebra documentation (media/docs/cpp/cute/02_layout_algebra.md),
// asserted on tmakit's printed results, plus refusals. Each doc example is one row; the count is printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"

using namespace tmakit;

namespace {

Layout L(const std::string& s) {
  const auto p = parse_layout(s);
  EXPECT_TRUE(p.ok) << s << ": " << p.error.message;
  return p.value;
}
Tiler T(const std::string& s) {
  const auto p = parse_tiler(s);
  EXPECT_TRUE(p.ok) << s << ": " << p.error.message;
  return p.value;
}
std::string str(const LayoutResult& r) { return r.ok() ? to_string(r.value) : "refused: " + message(r.diagnostic); }

int g_doc_examples = 0;
#define DOC_EXAMPLE(expr, expected) \
  do {                              \
    EXPECT_EQ(expr, expected);      \
    ++g_doc_examples;               \
  } while (0)

// compile-time: the algebra is constexpr
constexpr Layout kA{IntTuple::make(6, 2), IntTuple::make(8, 2)};
constexpr Layout kB{IntTuple::make(4, 3), IntTuple::make(3, 1)};
constexpr LayoutResult kAB = composition(kA, kB);
static_assert(kAB.ok());
static_assert(kAB.value == Layout{IntTuple::make(IntTuple::make(2, 2), 3), IntTuple::make(IntTuple::make(24, 2), 8)});
static_assert(complement(Layout{4, 2}, 24).value == Layout{IntTuple::make(2, 3), IntTuple::make(1, 8)});
static_assert(right_inverse(Layout{IntTuple::make(4, 2), IntTuple::make(2, 1)}) ==
              Layout{IntTuple::make(2, 4), IntTuple::make(4, 1)});

}  // namespace

void doc_coalesce() {
  DOC_EXAMPLE(to_string(coalesce(L("(2,(1,6)):(1,(6,2))"))), "12:1");
  DOC_EXAMPLE(str(coalesce(L("(2,(1,6)):(1,(6,2))"), IntTuple::make(1, 1))), "(2,6):(1,2)");
  // the four binary cases of the doc
  EXPECT_EQ(to_string(coalesce(L("(4,1):(2,7)"))), "4:2");
  EXPECT_EQ(to_string(coalesce(L("(1,4):(7,2)"))), "4:2");
  EXPECT_EQ(to_string(coalesce(L("(4,3):(2,8)"))), "12:2");
  EXPECT_EQ(to_string(coalesce(L("(4,3):(2,9)"))), "(4,3):(2,9)");
  EXPECT_EQ(to_string(coalesce(L("(2,4):(1,2)"))), "8:1");
  EXPECT_EQ(to_string(coalesce(L("(1,1):(3,5)"))), "1:0");
}

void doc_composition() {
  DOC_EXAMPLE(str(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))), "((2,2),3):((24,2),8)");
  // its two halves
  DOC_EXAMPLE(str(composition(L("(6,2):(8,2)"), L("4:3"))), "(2,2):(24,2)");
  DOC_EXAMPLE(str(composition(L("(6,2):(8,2)"), L("3:1"))), "3:8");
  DOC_EXAMPLE(str(composition(L("20:2"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
  DOC_EXAMPLE(str(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))), "(5,(2,2)):(16,(80,4))");
  // (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z), with w,x,y,z = 1000,100,10,1
  DOC_EXAMPLE(str(composition(L("(3,6,2,8):(1000,100,10,1)"), L("16:9"))), "(2,2,4):(300,10,1)");
  // by-mode composition with a tiler and with a shape
  DOC_EXAMPLE(str(composition(L("(12,(4,8)):(59,(13,1))"), T("<3:4,8:2>"))), "(3,(2,4)):(236,(26,1))");
  DOC_EXAMPLE(str(composition(L("(12,(4,8)):(59,(13,1))"), T("(3,8)"))), "(3,(4,2)):(59,(13,1))");
  // the function is A(B(i)) on B's domain
  const Layout a = L("(6,2):(8,2)"), b = L("(4,3):(3,1)");
  const Layout r = composition(a, b).value;
  const int doc_values[12] = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r(i), doc_values[i]) << i;
}

void doc_complement() {
  DOC_EXAMPLE(str(complement(L("4:1"), 24)), "6:4");
  DOC_EXAMPLE(str(complement(L("6:4"), 24)), "4:1");
  DOC_EXAMPLE(str(complement(L("(4,6):(1,4)"), 24)), "1:0");
  DOC_EXAMPLE(str(complement(L("4:2"), 24)), "(2,3):(1,8)");
  DOC_EXAMPLE(str(complement(L("(2,4):(1,6)"), 24)), "3:2");
  DOC_EXAMPLE(str(complement(L("(2,2):(1,6)"), 24)), "(3,2):(2,12)");
}

void doc_divide() {
  // 1-D: complement, concatenation, composition
  DOC_EXAMPLE(str(complement(L("4:2"), 24)), "(2,3):(1,8)");
  DOC_EXAMPLE(str(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))), "((2,2),(2,3)):((4,1),(2,8))");
  // 2-D: A = (9,(4,8)):(59,(13,1)), B = <3:3, (2,4):(1,8)>
  const Layout a = L("(9,(4,8)):(59,(13,1))");
  const Tiler b = T("<3:3,(2,4):(1,8)>");
  const LayoutResult ld = logical_divide(a, b);
  ASSERT_TRUE(ld.ok()) << str(ld);
  // "the first mode of each mode of the result is (3,(2,4)):(177,(13,2)) = composition(A, B)"
  const Layout first = make_layout_of(ld.value.mode(0).mode(0), ld.value.mode(1).mode(0));
  DOC_EXAMPLE(to_string(first), "(3,(2,4)):(177,(13,2))");
  DOC_EXAMPLE(str(composition(a, b)), "(3,(2,4)):(177,(13,2))");
  // shapes: logical ((3,3),(8,4)), zipped ((3,8),(3,4))
  DOC_EXAMPLE(to_string(ld.value.shape), "((3,3),((2,4),(2,2)))");
  const LayoutResult zd = zipped_divide(a, b);
  ASSERT_TRUE(zd.ok());
  DOC_EXAMPLE(to_string(zd.value.mode(0)) + " " + std::to_string(zd.value.mode(0).size()) + " " +
                  std::to_string(zd.value.mode(1).size()) + " rank " + std::to_string(zd.value.mode(1).rank()),
              "(3,(2,4)):(177,(13,2)) 24 12 rank 2");
  // layout<0>(zipped_divide(a, b)) == composition(a, b)
  DOC_EXAMPLE(zd.value.mode(0) == composition(a, b).value, true);
  EXPECT_EQ(str(zd), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  EXPECT_EQ(str(tiled_divide(a, b)), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  // a layout tiler: zipped == tiled == logical
  EXPECT_EQ(str(zipped_divide(L("(4,2,3):(2,1,8)"), T("4:2"))), "((2,2),(2,3)):((4,1),(2,8))");
  // tiled_divide unpacks the rest mode, as CuTe's result(_, repeat<R1>(_))
  EXPECT_EQ(str(tiled_divide(L("(4,2,3):(2,1,8)"), T("4:2"))), "((2,2),2,3):((4,1),2,8)");
}

void doc_product() {
  DOC_EXAMPLE(str(complement(L("(2,2):(4,1)"), 24)), "(2,3):(2,8)");
  DOC_EXAMPLE(str(composition(L("(2,3):(2,8)"), L("6:1"))), "(2,3):(2,8)");
  DOC_EXAMPLE(str(logical_product(L("(2,2):(4,1)"), L("6:1"))), "((2,2),(2,3)):((4,1),(2,8))");
  // "identical to the result of the 1-D logical divide example"
  DOC_EXAMPLE(str(logical_product(L("(2,2):(4,1)"), L("6:1"))), str(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))));
  // B = (4,2):(2,1): 8 tiles in another order
  EXPECT_EQ(str(logical_product(L("(2,2):(4,1)"), L("(4,2):(2,1)"))), "((2,2),(4,2)):((4,1),(8,2))");
  // 2x5 row-major block tiled over a 3x4 column-major arrangement. CuTe's blocked_product zips the
  // block with the layout of blocks and no longer coalesces each mode (older CuTe printed
  // (6,(5,4)):(5,(1,30)), the same function): today's CuTe gives this.
  DOC_EXAMPLE(str(blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))), "((2,3),(5,4)):((5,10),(1,30))");
  DOC_EXAMPLE(str(raked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))), "((3,2),(4,5)):((10,5),(30,1))");
  // the block is compatible with a corner of the blocked result: element (r, c) of block 0
  const Layout bp = blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)")).value;
  const Layout blk = L("(2,5):(5,1)");
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_EQ(bp(IntTuple::make(r, c)), blk(IntTuple::make(r, c)));
}

// One test runs them all, so the count is complete whichever way the tests are run (ctest runs
// each TEST in its own process).
TEST(LayoutDocExamples, AllOfThem) {
  doc_coalesce();
  doc_composition();
  doc_complement();
  doc_divide();
  doc_product();
  std::printf("[doc] CuTe layout-algebra documentation examples asserted: %d\n", g_doc_examples);
  EXPECT_GE(g_doc_examples, 25);
}

TEST(LayoutAlgebra, InversesAndCommonVector) {
  EXPECT_EQ(to_string(right_inverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(to_string(right_inverse(L("(4,8):(8,1)"))), "(8,4):(4,1)");
  EXPECT_EQ(to_string(right_inverse(L("4:2"))), "1:0");
  EXPECT_EQ(to_string(right_inverse(L("(2,4):(1,4)"))), "2:1");   // stride 2 missing: stops after 2
  EXPECT_EQ(str(left_inverse(L("4:2"))), "(2,4):(0,1)");  // CuTe's; odd offsets (off the image) map anywhere
  EXPECT_EQ(str(left_inverse(L("(6,6):(13,1)"))), "(13,6):(6,1)");  // a gap complement cannot fill: CuTe's answer
  EXPECT_EQ(str(left_inverse(L("(4,8):(8,1)"))), "(8,4):(4,1)");
  EXPECT_EQ(max_common_vector(L("(4,8):(1,4)"), L("(4,8):(1,4)")).value, 32);
  EXPECT_EQ(max_common_vector(L("(4,8):(8,1)"), L("(4,8):(1,4)")).value, 1);
  EXPECT_EQ(max_common_vector(L("(4,8):(1,8)"), L("(4,8):(1,4)")).value, 4);
  EXPECT_EQ(str(max_common_layout(L("(4,8):(1,8)"), L("(4,8):(1,4)"))), "4:1");
  EXPECT_EQ(str(max_common_layout(L("(4,8):(8,1)"), L("(4,8):(1,4)"))), "1:0");
}

TEST(LayoutAlgebra, RefusalsNameRuleModeAndNumbers) {
  // (6,2) / 8: 8 is at least 6 and not a multiple of it (CuTe's static stride check fails). A's
  // second stride is 7, so A does not coalesce into one mode (6 * 1 != 7).
  const LayoutResult c = composition(L("(6,2):(1,7)"), L("2:8"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(std::string(rule_id(c.diagnostic.rule)), "layout.composition.stride_divisibility");
  EXPECT_EQ(c.diagnostic.mode, 0);
  EXPECT_EQ(c.diagnostic.a, 8);
  EXPECT_EQ(c.diagnostic.b, 6);
  EXPECT_NE(message(c.diagnostic).find("stride 8"), std::string::npos) << message(c.diagnostic);
  EXPECT_FALSE(fix(c.diagnostic).empty());
  // a stride below the extent composes, as in CuTe (its weak condition): 2:4 and 4:1 fit in mode 0
  EXPECT_EQ(str(composition(L("(6,2):(1,7)"), L("2:4"))), "2:4");
  EXPECT_EQ(str(composition(L("(6,2):(1,7)"), L("4:1"))), "4:1");
  // ... even where the result is then not A(B(i)): CuTe's (6,2):(1,7) o 4:4
  EXPECT_EQ(str(composition(L("(6,2):(1,7)"), L("4:4"))), "(2,2):(4,7)");
  // a layout that coalesces into one mode composes with any stride: (6,2):(1,6) is 12:1
  EXPECT_EQ(str(composition(L("(6,2):(1,6)"), L("2:8"))), "2:8");
  // the examples CuTe composes and tmakit used to refuse: size-1 modes with any stride, and A's last
  // mode, which need not divide
  EXPECT_EQ(str(composition(L("(4,3):(1,4)"), L("(3,(1,2)):(0,(11,10))"))), "(3,(1,2)):(0,(11,10))");
  EXPECT_EQ(str(composition(L("(5,8,8):(2,30,240)"), L("3:1"))), "3:2");
  // (4,3) % 6: mode 0 takes 4 of the 6 elements, and 4 does not divide 6: shape divisibility
  const LayoutResult s = composition(L("(4,3):(1,5)"), L("6:1"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.diagnostic.rule, LayoutRule::composition_shape);
  // complement of a non-injective layout
  const LayoutResult n = complement(L("(2,2):(1,1)"), 8);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.diagnostic.rule, LayoutRule::complement_not_injective);
  // a gap that is not a multiple of what lies below: CuTe's complement truncates (3 / 2 = 1)
  EXPECT_EQ(str(complement(L("(2,3):(1,3)"), 24)), "3:9");
  // not injective: CuTe's left inverse is a quasi-inverse, A(R(A(i))) == A(i)
  EXPECT_EQ(str(left_inverse(L("(4,2):(1,0)"))), "4:1");
  const LayoutResult li = left_inverse(L("(2,3):(2,3)"));  // strides 2 and 3: 3 is not a multiple of 2
  EXPECT_EQ(li.diagnostic.rule, LayoutRule::left_inverse_divisibility);
  EXPECT_NE(message(li.diagnostic).find("stride 3, not a multiple of the next smaller stride 2"), std::string::npos)
      << message(li.diagnostic);
  EXPECT_EQ(logical_divide(L("(8,8):(1,8)"), T("<2:1,2:1,2:1>")).diagnostic.rule, LayoutRule::tiler_rank);
  EXPECT_EQ(coalesce(L("8:1"), IntTuple::make(1, 1)).diagnostic.rule, LayoutRule::tiler_rank);
}

// A by-mode refusal names the flattened leaf of the left-hand layout, not the leaf inside its mode.
TEST(LayoutAlgebra, ByModeRefusalsNameTheFlattenedMode) {
  // mode 1 is (6,2):(2,13); 8 is at least 6 and not a multiple of it: leaf 0 of mode 1 = leaf 1
  const LayoutResult c = composition(L("(2,(6,2)):(1,(2,13))"), T("<1:1,2:8>"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.diagnostic.rule, LayoutRule::composition_stride);
  EXPECT_EQ(c.diagnostic.mode, 1);
  EXPECT_NE(message(c.diagnostic).find("left mode 1"), std::string::npos) << message(c.diagnostic);
  // the same tiler on ((2,2),(6,2)): two leaves before mode 1
  const LayoutResult d = composition(L("((2,2),(6,2)):((1,2),(4,30))"), T("<4:1,2:8>"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.diagnostic.mode, 2);
  // a refusal without a leaf (tiler rank inside a by-mode coalesce) names mode 1's first leaf
  const LayoutResult e = coalesce(L("((2,2),8):((1,2),4)"), IntTuple::make(1, IntTuple::make(1, 1)));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.diagnostic.rule, LayoutRule::tiler_rank);
  EXPECT_EQ(e.diagnostic.mode, 2);
}

// By-mode coalesce is apply_by_mode: a leaf layout has one mode, so a rank-1 profile applies to it.
TEST(LayoutAlgebra, CoalesceByModeOnALeafLayout) {
  const LayoutResult r = coalesce(L("8:1"), IntTuple::make(1));
  ASSERT_TRUE(r.ok()) << message(r.diagnostic);
  EXPECT_EQ(to_string(r.value), "(8):(1)");
  const LayoutResult t = coalesce(L("(2,(2,3)):(1,(2,4))"), IntTuple::make(1));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(to_string(t.value), "(2,(2,3)):(1,(2,4))");  // mode 0 coalesced (already one leaf), mode 1 kept
  const LayoutResult u = coalesce(L("8:1"), IntTuple::make(1, 1));
  EXPECT_NE(message(u.diagnostic).find("2 modes but the layout only 1"), std::string::npos) << message(u.diagnostic);
}

TEST(LayoutAlgebra, ComplementOfANonPositiveSizeSaysSo) {
  const LayoutResult r = complement(L("4:1"), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostic.rule, LayoutRule::bad_shape);
  EXPECT_EQ(message(r.diagnostic).find("shape leaf"), std::string::npos) << message(r.diagnostic);
  EXPECT_NE(message(r.diagnostic).find("the size 0 is below 1"), std::string::npos) << message(r.diagnostic);
  EXPECT_EQ(fix(r.diagnostic), "give a size (N) >= 1");
  EXPECT_NE(message(complement(L("4:1"), -3).diagnostic).find("the size -3"), std::string::npos);
}

TEST(LayoutAlgebra, TilerNotation) {
  EXPECT_EQ(to_string(T("<3:3, (2,4):(1,8)>")), "<3:3,(2,4):(1,8)>");
  EXPECT_EQ(to_string(T("(4,8)")), "<4:1,8:1>");
  EXPECT_EQ(to_string(T("<4,8>")), "<4:1,8:1>");
  EXPECT_EQ(to_string(T("8")), "8:1");
  EXPECT_EQ(to_string(T("(4,8):(8,1)")), "(4,8):(8,1)");
  // nested tilers: a tuple of tilers inside <>, or a nested shape (CuTe's Shape<Shape<_2,_2>,_8>)
  EXPECT_EQ(to_string(T("((2,2),8)")), "<<2:1,2:1>,8:1>");
  EXPECT_EQ(to_string(T("<(2,2),8>")), "<<2:1,2:1>,8:1>");
  EXPECT_EQ(to_string(T("< <2:1, (2,2):(1,4)>, 8>")), "<<2:1,(2,2):(1,4)>,8:1>");
  // tilers with layouts inside, in CuTe's static spelling
  EXPECT_EQ(to_string(T("<_4:_1,_1:_0,(_1,_2,_4):(_3,_4,_1)>")), "<4:1,1:0,(1,2,4):(3,4,1)>");
  EXPECT_EQ(to_string(T("<(_1,(_2,_2)):(_3,(_1,_16))>")), "<(1,(2,2)):(3,(1,16))>");
  EXPECT_FALSE(parse_tiler("<<2:1,8:1>").ok);
  // no tilers: the shape () and <> are the same tiler, and it prints as one that parses back
  EXPECT_EQ(to_string(T("()")), "<>");
  EXPECT_TRUE(T("<>") == T("()"));
  EXPECT_FALSE(parse_tiler("<2:1,8:1").ok);
}

#include "tmakit/layout/swizzled_algebra.hpp"

TEST(LayoutAlgebra, SwizzledLayoutsDivideTheInnerLayout) {
  const auto sl = parse_swizzled_layout("Sw<3,4,3> o (64,64):(64,1)");
  ASSERT_TRUE(sl.ok);
  const SwizzledLayoutResult d = zipped_divide(sl.value, T("<8:1,64:1>"));
  ASSERT_TRUE(d.ok());
  // the rest of mode 1 is complement(64:1, 64) = 1:0, kept as a mode (as CuTe keeps _1:_0)
  EXPECT_EQ(to_string(d.value), "Sw<3,4,3> o ((8,64),(8,1)):((64,1),(512,0))");
  // tile t, element (r, c): the swizzled byte address is the original tile's at row 8t + r
  for (int t = 0; t < 8; ++t)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 64; ++c)
        ASSERT_EQ(d.value.byte_offset(IntTuple::make(IntTuple::make(r, c), t), 2),
                  sl.value.byte_offset(IntTuple::make(8 * t + r, c), 2));
  EXPECT_FALSE(composition(sl.value, L("2:96")).ok());  // 96 >= 64 and not a multiple of it
}

// ---- checked arithmetic: a result that does not fit in 64 bits is layout.overflow, never a wrapped value

namespace {
constexpr std::int64_t k62 = std::int64_t{1} << 62;
}  // namespace

static_assert([] {
  std::int64_t r = 0;
  return !checked_mul(k62, 2, &r) && checked_mul(k62, -2, &r) && r == INT64_MIN && !checked_add(INT64_MAX, 1, &r) &&
         checked_add(INT64_MIN, INT64_MAX, &r) && r == -1 && !checked_sub(INT64_MIN, 1, &r) &&
         mul_saturated(k62, 4) == INT64_MAX && mul_saturated(-k62, 4) == INT64_MIN;
}());
static_assert(!checked_cosize(Layout{IntTuple::make(2, 2), IntTuple::make(k62, k62)}).ok());
static_assert(checked_cosize(Layout{IntTuple::make(2, 2), IntTuple::make(k62, k62 - 2)}).value == INT64_MAX);
static_assert(Layout{IntTuple::make(2, 2), IntTuple::make(k62, k62)}.cosize() == INT64_MAX);  // saturates
static_assert(IntTuple::make(k62, 4).product() == INT64_MAX);                                  // saturates
static_assert(complement(Layout{2, k62}, 32).diagnostic.rule == LayoutRule::overflow);

TEST(LayoutOverflow, CosizeIsRefusedNotWrapped) {
  const IntResult r = checked_cosize(L("(2,2):(4611686018427387904,4611686018427387904)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostic.rule, LayoutRule::overflow);
  EXPECT_EQ(r.diagnostic.op, LayoutOperation::cosize);
  EXPECT_EQ(r.diagnostic.mode, 1);
  EXPECT_EQ(std::string(rule_id(r.diagnostic.rule)), "layout.overflow");
  EXPECT_NE(message(r.diagnostic).find("cosize at leaf 1"), std::string::npos) << message(r.diagnostic);
  EXPECT_EQ(checked_cosize(L("(2,2):(-4611686018427387904,-4611686018427387904)")).diagnostic.rule, LayoutRule::ok);
  EXPECT_EQ(check_offsets(L("(2,2):(-4611686018427387904,-4611686018427387904)")).op, LayoutOperation::offsets);
}

TEST(LayoutOverflow, EveryOperationRefusesInsteadOfWrapping) {
  const std::int64_t big = k62;
  struct Case {
    LayoutResult r;
    LayoutOperation op;
  } cases[] = {
      // complement's extent 2 * 2^62 (today's "negative stride")
      {logical_divide(L("(4,8):(8,1)"), T("2:4611686018427387904")), LayoutOperation::complement},
      // size(A) * cosize(B) (today's "size 0")
      {logical_product(L("4611686018427387904:1"), T("(4,8):(8,1)")), LayoutOperation::logical_product},
      // the result (2^62 : 1, 4 : 0) has 2^64 elements
      {logical_product(L("4611686018427387904:1"), T("4:0")), LayoutOperation::size},
      // composition: the leaf A's stride times B's stride
      {composition(L("2:4611686018427387904"), L("2:4")), LayoutOperation::composition},
      // composition: the last mode's stride times the stride left over
      {composition(L("(2,2):(1,4611686018427387904)"), L("2:4")), LayoutOperation::composition},
      // complement(A) of a layout whose cosize does not fit
      {complement(L("(2,2):(4611686018427387904,4611686018427387904)")), LayoutOperation::cosize},
      // left_inverse: the result (2^62, 2):(0, 2) has 2^63 elements
      {left_inverse(L("(2,2):(4611686018427387904,4611686018427387904)")), LayoutOperation::size},
      // a by-mode coalesce whose result's offsets do not fit
      {coalesce(L("(2,2):(4611686018427387904,4611686018427387904)"), IntTuple::make(1, 1)), LayoutOperation::offsets},
      {blocked_product(L("(2,2):(1,2)"), L("(2,2):(1,4611686018427387904)")), LayoutOperation::logical_product},
      {raked_product(L("4611686018427387904:1"), L("2:0")), LayoutOperation::size},
      {max_common_layout(L("(2,2):(4611686018427387904,4611686018427387904)"), L("4:1")), LayoutOperation::offsets},
  };
  int i = 0;
  for (const Case& c : cases) {
    EXPECT_EQ(c.r.diagnostic.rule, LayoutRule::overflow) << i << ": " << str(c.r);
    EXPECT_EQ(c.r.diagnostic.op, c.op) << i << ": " << str(c.r);
    EXPECT_NE(message(c.r.diagnostic).find(operation_name(c.op)), std::string::npos) << message(c.r.diagnostic);
    ++i;
  }
  // Near the limit, results that fit are still computed.
  EXPECT_EQ(str(complement(Layout{2, big / 2}, big)), "2305843009213693952:1");
  EXPECT_EQ(str(logical_product(L("2:1"), T("2:1"))), "(2,2):(1,2)");
}

// ---- the empty layout (): one element at offset 0, the constant function 0 (as 1:0)

TEST(LayoutEmpty, EveryOperationIsDefined) {
  const Layout e = L("()");
  EXPECT_EQ(e.size(), 1);
  EXPECT_EQ(e.cosize(), 1);
  EXPECT_EQ(e(0), 0);
  EXPECT_EQ(str(composition(e, T("(4,8):(8,1)"))), "(4,8):(0,0)");  // as 1:0 o B: B's shape, strides 0
  EXPECT_EQ(str(composition(L("(4,8):(8,1)"), T("()"))), "():()");   // no tilers: every mode dropped
  EXPECT_EQ(str(logical_divide(e, T("2:1"))), "(2,1):(0,0)");
  EXPECT_EQ(str(zipped_divide(e, T("2:1"))), "(2,1):(0,0)");
  EXPECT_EQ(str(tiled_divide(e, T("2:1"))), "(2,1):(0,0)");
  EXPECT_EQ(logical_divide(e, T("(4,8)")).diagnostic.rule, LayoutRule::tiler_rank);  // () has no modes
  EXPECT_EQ(str(logical_divide(L("(4,8):(8,1)"), T("()"))), "(4,8):(8,1)");         // no tilers: all kept
  EXPECT_EQ(str(zipped_divide(L("(4,8)"), T("()"))), "((),(4,8)):((),(1,4))");
  EXPECT_EQ(max_common_vector(e, L("(4,8)")).value, 1);
  EXPECT_EQ(max_common_vector(L("(4,8)"), e).value, 1);
  EXPECT_EQ(str(max_common_layout(e, L("(4,8)"))), "1:0");
  EXPECT_EQ(str(max_common_layout(L("(4,8)"), e)), "1:0");
  EXPECT_EQ(to_string(coalesce(e)), "1:0");
  EXPECT_EQ(str(complement(e)), "1:0");
  EXPECT_EQ(str(complement(e, 8)), "8:1");
  EXPECT_EQ(str(left_inverse(e)), "1:0");
  EXPECT_EQ(to_string(right_inverse(e)), "1:0");
  EXPECT_EQ(str(logical_product(e, T("4:1"))), "((),4):((),1)");
  EXPECT_EQ(str(logical_product(L("(4,8)"), T("()"))), "(4,8):(1,4)");
  // () is padded with 1:0 modes to rank 2 and zipped (CuTe's blocked/raked_product)
  EXPECT_EQ(str(blocked_product(e, L("(2,2)"))), "((1,2),(1,2)):((0,1),(0,2))");
  EXPECT_EQ(str(raked_product(L("(2,2)"), e)), "((1,2),(1,2)):((0,1),(0,2))");
}

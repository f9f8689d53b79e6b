// IntTuple, Layout (size/cosize/rank/depth/eval/flatten), CuTe notation, SwizzledLayout.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>

#include "tmakit/layout/int_tuple.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/swizzled_layout.hpp"

using namespace tmakit;

namespace {

Layout L(const char* s) {
  const auto p = parse_layout(s);
  EXPECT_TRUE(p.ok) << s << ": " << p.error.message;
  return p.value;
}

// Everything in the core is usable at compile time.
constexpr Layout kL = make_layout_of(Layout{IntTuple::make(2, 2), IntTuple::make(1, 4)}, Layout{3, 2});
static_assert(kL.size() == 12);
static_assert(kL.cosize() == 10);
static_assert(kL.rank() == 2 && kL.depth() == 2);
static_assert(kL(0) == 0 && kL(1) == 1 && kL(2) == 4 && kL(3) == 5 && kL(4) == 2 && kL(11) == 9);
static_assert(kL(IntTuple::make(3, 1)) == kL(7));
static_assert(kL(IntTuple::make(IntTuple::make(1, 1), 1)) == 7);
static_assert(kL.flatten() == Layout{IntTuple::make(2, 2, 3), IntTuple::make(1, 4, 2)});
static_assert(make_layout(IntTuple::make(4, 8)).stride == IntTuple::make(1, 4));

// Structural: a Layout can be a template argument.
template <Layout Lay>
constexpr std::int64_t size_of() { return Lay.size(); }
static_assert(size_of<kL>() == 12);

}  // namespace

TEST(IntTuple, BuildQueryFlatten) {
  const IntTuple t = IntTuple::make(IntTuple::make(2, 3), 4, IntTuple::make(IntTuple::make(5), 6));
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.depth(), 3);
  EXPECT_EQ(t.num_leaves(), 5);
  EXPECT_EQ(t.product(), 2 * 3 * 4 * 5 * 6);
  EXPECT_EQ(to_string(t), "((2,3),4,((5),6))");
  EXPECT_EQ(to_string(t.mode(0)), "(2,3)");
  EXPECT_EQ(to_string(t.mode(2)), "((5),6)");
  EXPECT_EQ(to_string(t.flatten()), "(2,3,4,5,6)");
  EXPECT_EQ(IntTuple(7).rank(), 1);
  EXPECT_EQ(IntTuple(7).depth(), 0);
  EXPECT_EQ(to_string(IntTuple::tuple()), "()");
  EXPECT_TRUE(t.congruent(IntTuple::make(IntTuple::make(1, 1), 1, IntTuple::make(IntTuple::make(1), 1))));
  EXPECT_FALSE(t.congruent(t.flatten()));
}

TEST(IntTuple, CapacityIsReportedNotAsserted) {
  IntTuple t = IntTuple::tuple();
  int appended = 0;
  while (t.append(IntTuple(1))) ++appended;
  EXPECT_EQ(appended, IntTuple::kMaxNodes - 1);
  EXPECT_TRUE(t.overflow);
  std::string many = "(";
  for (int i = 0; i < 80; ++i) many += i ? ",1" : "1";
  many += ")";
  const auto p = parse_layout(many);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.error.message.find("capacity"), std::string::npos) << p.error.message;
}

TEST(Layout, EvalMatchesCuTeColexicographicOrder) {
  const Layout l = L("((2,2),3):((1,4),2)");
  const int expect[12] = {0, 1, 4, 5, 2, 3, 6, 7, 4, 5, 8, 9};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(l(i), expect[i]) << i;
  EXPECT_EQ(l.size(), 12);
  EXPECT_EQ(l.cosize(), 10);
  bool ok = true;
  EXPECT_EQ(l(IntTuple::make(IntTuple::make(1, 0), 2), &ok), 5);
  EXPECT_TRUE(ok);
  l(IntTuple::make(1, IntTuple::make(1, 1)), &ok);  // tuple where the shape has a leaf
  EXPECT_FALSE(ok);
  l(IntTuple::make(1, 1, 1), &ok);  // rank 3 against rank 2
  EXPECT_FALSE(ok);
  EXPECT_EQ(to_string(l.mode(0)), "(2,2):(1,4)");
  EXPECT_EQ(to_string(l.mode(1)), "3:2");
  EXPECT_EQ(to_string(l.flatten()), "(2,2,3):(1,4,2)");
}

TEST(Notation, PrintsAsCuTe) {
  EXPECT_EQ(to_string(L("8:1")), "8:1");
  EXPECT_EQ(to_string(L("((2,2),3):((1,4),2)")), "((2,2),3):((1,4),2)");
  EXPECT_EQ(to_string(L("(_4,_8):(_8,_1)")), "(4,8):(8,1)");
  EXPECT_EQ(to_string(L(" ( 4 , 8 ) ")), "(4,8):(1,4)");               // bare shape: column-major
  EXPECT_EQ(to_string(L("((2,4),(3,5))")), "((2,4),(3,5)):((1,2),(8,24))");
  EXPECT_EQ(to_string(L("(4,2):(-1,_-8)")), "(4,2):(-1,-8)");
  EXPECT_EQ(to_string(L("16")), "16:1");
}

TEST(Notation, ErrorsSayWhereAndWhat) {
  struct Case {
    const char* text;
    std::size_t pos;
    const char* needle;
  } cases[] = {
      {"(4,8", 4, "expected ',' or ')'"},
      {"(4,8):(1)", 6, "congruent"},
      {"(4,x):(1,4)", 3, "expected an integer or '('"},
      {"(4,0):(1,4)", 0, "must be >= 1"},
      {"4:1 junk", 4, "expected end of input"},
      {"", 0, "expected an integer or '('"},
      {"(4,8):", 6, "expected an integer"},
      // 2^64 + 4 wrapped to 4 before the limit check once
      {"18446744073709551620", 0, "integer too large"},
      {"(4,36893488147419103232)", 3, "integer too large"},
      {"4611686018427387905", 0, "integer too large"},  // 2^62 + 1
  };
  for (const auto& c : cases) {
    const auto p = parse_layout(c.text);
    EXPECT_FALSE(p.ok) << c.text;
    EXPECT_EQ(p.error.position, c.pos) << c.text << ": " << p.error.message;
    EXPECT_NE(p.error.message.find(c.needle), std::string::npos) << c.text << ": " << p.error.message;
  }
}

TEST(Notation, IntegersUpTo2To62) {
  const auto p = parse_int_tuple("4611686018427387904");  // 2^62: the limit itself is accepted
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_EQ(p.value.leaf_at(0), std::int64_t{1} << 62);
  EXPECT_EQ(to_string(SwizzleParams{3, 4, 3, true, true}), "Sw<3,4,3>");
  EXPECT_EQ(to_string(SwizzleParams{}), "Sw<0,4,3>");
}

// A shape's extents may each be up to 2^62, but their product is the layout's size: the compact
// strides of a bare shape multiplied past 2^63 (signed overflow: (4096,2^62) had size 0, and
// (4096,2^62,2) the stride 0 for its last leaf). A layout of more than 2^62 elements is refused
// (layout.size_range) with the leaf where the product passes 2^62 and a bound for it.
TEST(Notation, ShapeOfMoreThan2To62ElementsIsRefused) {
  for (const char* text : {"(4096,4611686018427387904)", "(4611686018427387904,4611686018427387904):(1,1)",
                           "(3037000500,3037000500)", "(4096,4611686018427387904,2):(1,0,0)"}) {
    const auto p = parse_layout(text);
    EXPECT_FALSE(p.ok) << text << " parsed as " << to_string(p.value) << ", size " << p.value.size();
    EXPECT_EQ(p.error.position, 0u) << text;
    EXPECT_NE(p.error.message.find("more than 2^62"), std::string::npos) << p.error.message;
  }
  const auto p = parse_layout("(4096,4611686018427387904)");
  EXPECT_NE(p.error.message.find("shape (4096,4611686018427387904) has more than 2^62"), std::string::npos)
      << p.error.message;
  EXPECT_NE(p.error.message.find("make shape leaf 1 at most 1125899906842624"), std::string::npos) << p.error.message;
  // the suggested bound is itself accepted
  EXPECT_EQ(L("(4096,1125899906842624)").size(), std::int64_t{1} << 62);
  EXPECT_EQ(L("(2147483648,2147483648)").size(), std::int64_t{1} << 62);
  EXPECT_EQ(to_string(L("(2,2305843009213693952)")), "(2,2305843009213693952):(1,2)");

  const Layout big{IntTuple::make(4096, std::int64_t{1} << 62), IntTuple::make(1, 4096)};
  const LayoutDiagnostic d = check_layout(big);
  EXPECT_EQ(d.rule, LayoutRule::size_range);
  EXPECT_EQ(d.mode, 1);
  EXPECT_EQ(d.a, std::int64_t{1} << 62);
  EXPECT_EQ(d.b, 4096);
  EXPECT_STREQ(rule_id(d.rule), "layout.size_range");
  EXPECT_NE(message(d).find("layout.size_range"), std::string::npos) << message(d);
  EXPECT_EQ(fix(d), "make shape leaf 1 at most 1125899906842624 (or the leaves before it smaller): at most 2^62 "
                    "elements in all");

  // make_layout's compact strides saturate instead of wrapping (4096 * 2^62 wrapped to 0), also for
  // the negative extents check_layout refuses as layout.bad_shape
  const auto shape = parse_int_tuple("(4096,4611686018427387904,2)");
  ASSERT_TRUE(shape.ok);
  EXPECT_EQ(to_string(make_layout(shape.value).stride), "(1,4096,9223372036854775807)");
  const auto negative = parse_int_tuple("(-4611686018427387904,4,2)");
  ASSERT_TRUE(negative.ok);
  EXPECT_EQ(to_string(make_layout(negative.value).stride), "(1,-4611686018427387904,-9223372036854775808)");
  EXPECT_FALSE(parse_layout("(-4611686018427387904,4,2)").ok);
  static_assert(mul_saturated(-(std::int64_t{1} << 62), 2) == INT64_MIN);
  static_assert(mul_saturated(std::int64_t{1} << 62, 2) == INT64_MAX);
  static_assert(mul_saturated(INT64_MIN, -1) == INT64_MAX);
  static_assert(mul_saturated(INT64_MIN, 1) == INT64_MIN);
  static_assert(mul_saturated(-3, 5) == -15 && mul_saturated(-3, -5) == 15 && mul_saturated(0, INT64_MIN) == 0);
}

TEST(Notation, RoundTripRandom) {
  std::mt19937_64 rng(1234);
  int checked = 0;
  for (int it = 0; it < 5000; ++it) {
    // random tree of depth <= 3
    std::function<IntTuple(int)> gen = [&](int depth) -> IntTuple {
      if (depth >= 3 || rng() % 3 == 0) return IntTuple(static_cast<std::int64_t>(rng() % 9) + 1);
      IntTuple t = IntTuple::tuple();
      const int r = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < r; ++k) t.append(gen(depth + 1));
      return t;
    };
    const IntTuple s = gen(0);
    IntTuple d = s;
    for (int i = 0; i < d.count; ++i)
      if (d.nodes[i].rank < 0) d.nodes[i].value = static_cast<std::int64_t>(rng() % 41) - 8;
    const Layout l{s, d};
    if (l.overflow()) continue;
    const auto p = parse_layout(to_string(l));
    ASSERT_TRUE(p.ok) << to_string(l) << ": " << p.error.message;
    EXPECT_EQ(p.value, l) << to_string(l);
    ++checked;
  }
  std::printf("[law] parse(print(L)) == L: checked on %d random layouts\n", checked);
  EXPECT_GE(checked, 4900);
}

TEST(SwizzledLayout, ParsePrintAndByteAddresses) {
  const auto p = parse_swizzled_layout("Sw<3,4,3> o (64,64):(64,1)");
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_EQ(to_string(p.value), "Sw<3,4,3> o (64,64):(64,1)");
  const auto q = parse_swizzled_layout("Swizzle<3,4,3> o (_64,_64):(_64,_1)");
  ASSERT_TRUE(q.ok) << q.error.message;
  EXPECT_EQ(p.value, q.value);
  const SwizzledLayout& s = p.value;
  EXPECT_EQ(s.base_alignment(), 1024u);
  // bf16: row r, column c -> byte (r*64 + c)*2, 16-byte chunk index XOR (r % 8).
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) {
      const std::uint64_t plain = static_cast<std::uint64_t>(r * 64 + c) * 2;
      const std::uint64_t expect = (plain & ~std::uint64_t{0x70}) | ((((plain >> 4) & 7) ^ (static_cast<std::uint64_t>(r) & 7)) << 4);
      EXPECT_EQ(s.byte_offset(IntTuple::make(r, c), 2), expect) << r << "," << c;
    }
  // plain layouts parse as identity-swizzled
  const auto plain = parse_swizzled_layout("(8,8):(8,1)");
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.value.swizzle.bits, 0);
  EXPECT_EQ(to_string(plain.value), "(8,8):(8,1)");
  // errors
  EXPECT_FALSE(parse_swizzled_layout("Sw<3,4> o 8:1").ok);
  EXPECT_FALSE(parse_swizzled_layout("Sw<3,4,2> o 8:1").ok);  // S < B
  EXPECT_FALSE(parse_swizzled_layout("Sw<3,4,3> (8,8)").ok);
}

TEST(SwizzledLayout, ElementUnitsAndTheirRefusal) {
  const SwizzleParams sw128{3, 4, 3, true, true};
  EXPECT_TRUE(check_elem_bytes(sw128, 2).ok());
  EXPECT_TRUE(check_elem_bytes(sw128, 16).ok());
  const LayoutDiagnostic d = check_elem_bytes(sw128, 32);
  EXPECT_EQ(d.rule, LayoutRule::swizzle_elem_bytes);
  EXPECT_EQ(d.a, 32);
  EXPECT_EQ(d.b, 16);
  EXPECT_NE(message(d).find("16-byte chunk"), std::string::npos) << message(d);
  EXPECT_FALSE(check_elem_bytes(sw128, 6).ok());
  const auto e = element_swizzle(sw128, 2);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value.base, 3);
  // element-unit swizzle == byte swizzle / elem_bytes, on every offset of one pattern repeat
  for (std::uint64_t i = 0; i < 4096; ++i) EXPECT_EQ(e.value(i), sw128(i * 2) / 2) << i;
  EXPECT_FALSE(element_swizzle(sw128, 32).ok());
}

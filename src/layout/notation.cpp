// CuTe notation: parse and print IntTuples, Layouts, swizzled layouts (see notation.hpp).
#include "tmakit/layout/notation.hpp"

#include <cctype>
#include <cstdint>
#include <string>

namespace tmakit {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::size_t pos() const { return p_; }
  bool failed() const { return failed_; }
  const NotationError& error() const { return err_; }

  void skip_ws() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool at_end() {
    skip_ws();
    return p_ >= s_.size();
  }
  bool peek(char c) {
    skip_ws();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++p_;
    return true;
  }
  bool eat_word(std::string_view w) {
    skip_ws();
    if (s_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  bool expect(char c) {
    if (eat(c)) return true;
    return fail(std::string("'") + c + "'");
  }

  bool fail(const std::string& expected) {
    if (failed_) return false;
    failed_ = true;
    skip_ws();
    err_.position = p_;
    err_.expected = expected;
    const std::string found = p_ >= s_.size() ? "end of input" : "'" + std::string(1, s_[p_]) + "'";
    err_.message = "position " + std::to_string(p_) + ": expected " + expected + ", found " + found;
    return false;
  }
  bool fail_semantic(std::size_t at, const std::string& msg) {
    if (failed_) return false;
    failed_ = true;
    err_.position = at;
    err_.expected = "";
    err_.message = "position " + std::to_string(at) + ": " + msg;
    return false;
  }

  // int := ['-'] ['_'] digits  |  '_' ['-'] digits
  bool integer(std::int64_t& v) {
    skip_ws();
    const std::size_t start = p_;
    bool neg = false;
    if (p_ < s_.size() && s_[p_] == '_') ++p_;
    if (p_ < s_.size() && s_[p_] == '-') {
      neg = true;
      ++p_;
    }
    if (p_ < s_.size() && s_[p_] == '_') ++p_;
    if (p_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      p_ = start;
      return fail("an integer or '('");
    }
    constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
    std::uint64_t x = 0;
    while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      const std::uint64_t digit = static_cast<std::uint64_t>(s_[p_] - '0');
      if (x > (kLimit - digit) / 10) return fail_semantic(start, "integer too large (limit 2^62)");  // before x*10 wraps
      x = x * 10 + digit;
      ++p_;
    }
    v = neg ? -static_cast<std::int64_t>(x) : static_cast<std::int64_t>(x);
    return true;
  }

  // tuple := int | '(' [tuple (',' tuple)*] ')'
  bool int_tuple(IntTuple& out, int depth = 0) {
    if (depth > 16) return fail_semantic(p_, "nesting deeper than 16 levels");
    if (eat('(')) {
      out = IntTuple::tuple();
      if (eat(')')) return true;
      for (;;) {
        IntTuple child;
        if (!int_tuple(child, depth + 1)) return false;
        if (!out.append(child))
          return fail_semantic(p_, "more than " + std::to_string(IntTuple::kMaxNodes) + " nodes (tmakit's IntTuple capacity)");
        if (eat(',')) continue;
        if (eat(')')) return true;
        return fail("',' or ')'");
      }
    }
    std::int64_t v = 0;
    if (!integer(v)) return false;
    out = IntTuple(v);
    return true;
  }

  bool layout(Layout& out) {
    skip_ws();
    const std::size_t shape_at = p_;
    IntTuple shape;
    if (!int_tuple(shape)) return false;
    // check_layout (layout.hpp) decides; the shape is checked first so that its error names the shape
    if (!checked(make_layout(shape), shape_at)) return false;
    if (!eat(':')) {
      out = make_layout(shape);
      return true;
    }
    skip_ws();
    const std::size_t stride_at = p_;
    IntTuple stride;
    if (!int_tuple(stride)) return false;
    if (!checked(Layout{shape, stride}, stride_at)) return false;
    out = Layout{shape, stride};
    return true;
  }

  // check_layout's verdict as a parse error at `at`.
  bool checked(const Layout& l, std::size_t at) {
    const LayoutDiagnostic d = check_layout(l);
    switch (d.rule) {
      case LayoutRule::ok: return true;
      case LayoutRule::bad_shape:
        return fail_semantic(at, "shape leaf " + std::to_string(d.mode) + " is " + std::to_string(d.a) +
                                     "; every extent must be >= 1");
      case LayoutRule::size_range:
        return fail_semantic(at, "shape " + to_string(l.shape) + " has more than 2^62 = " + std::to_string(kMaxLayoutSize) +
                                     " elements (leaf " + std::to_string(d.mode) + ", " + std::to_string(d.a) +
                                     ", after leaves of " + std::to_string(d.b) + " elements); " + fix(d));
      case LayoutRule::not_congruent:
        return fail_semantic(at, "stride " + to_string(l.stride) + " does not have the structure of shape " +
                                     to_string(l.shape) + " (they must be congruent)");
      default: return fail_semantic(at, message(d));
    }
  }

  // tiler := '<' item (',' item)* '>' | layout | shape;  item := tiler
  // A bare tuple shape is CuTe's shape tiler: each extent n is n:1, each tuple a nested tiler.
  bool tiler(Tiler& out, int depth = 0) {
    if (depth > 16) return fail_semantic(p_, "nesting deeper than 16 levels");
    skip_ws();
    const std::size_t at = p_;
    if (eat('<')) {
      out = Tiler{Layout{IntTuple::tuple(), IntTuple::tuple()}, true, IntTuple::tuple()};
      if (eat('>')) return true;  // <>: no tilers (as the shape tiler ())
      for (;;) {
        skip_ws();
        const std::size_t item_at = p_;
        Tiler m;
        if (!tiler(m, depth + 1)) return false;
        out = tuple_tiler_append(out, m);
        if (out.layout.overflow() || out.guide.overflow)
          return fail_semantic(item_at, "tiler exceeds tmakit's IntTuple capacity");
        if (eat(',')) continue;
        if (eat('>')) return true;
        return fail("',' or '>'");
      }
    }
    Layout l;
    if (!layout(l)) return false;
    if (has_colon(at, p_) || l.shape.is_leaf()) {
      out = layout_tiler(l);
      return true;
    }
    out = shape_tiler(l.shape);
    return true;
  }

  bool has_colon(std::size_t from, std::size_t to) const { return s_.substr(from, to - from).find(':') != std::string_view::npos; }

  bool swizzled(SwizzledLayout& out) {
    skip_ws();
    const std::size_t at = p_;
    if (eat_word("Swizzle<") || eat_word("Sw<")) {
      std::int64_t b = 0, m = 0, s = 0;
      if (!integer(b) || !expect(',') || !integer(m) || !expect(',') || !integer(s) || !expect('>')) return false;
      if (b < 0 || m < 0 || s < b || b + m + s > 40)
        return fail_semantic(at, "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) +
                                     "> is not a valid swizzle: need B >= 0, M >= 0, S >= B, B+M+S <= 40");
      skip_ws();
      if (!eat('o')) return fail("'o' (composition: Sw<B,M,S> o LAYOUT)");
      out.swizzle = SwizzleParams{static_cast<int>(b), static_cast<int>(m), static_cast<int>(s), true, true};
    } else {
      out.swizzle = SwizzleParams{};
    }
    return layout(out.layout);
  }

 private:
  std::string_view s_;
  std::size_t p_ = 0;
  bool failed_ = false;
  NotationError err_;
};

template <class T, class F>
Parsed<T> run_parser(std::string_view text, F&& body) {
  Parser p(text);
  Parsed<T> r;
  if (body(p, r.value) && (p.at_end() || p.fail("end of input"))) {
    r.ok = true;
  } else {
    r.ok = false;
    r.error = p.error();
    r.value = T{};
  }
  return r;
}

void append(const IntTuple& t, int node, std::string& out) {
  const IntTupleNode& n = t.nodes[node];
  if (n.rank < 0) {
    out += std::to_string(n.value);
    return;
  }
  out += '(';
  int c = node + 1;
  for (int k = 0; k < n.rank; ++k) {
    if (k) out += ',';
    append(t, c, out);
    c += t.nodes[c].span;
  }
  out += ')';
}

}  // namespace

Parsed<IntTuple> parse_int_tuple(std::string_view text) {
  return run_parser<IntTuple>(text, [](Parser& p, IntTuple& v) { return p.int_tuple(v); });
}
Parsed<Layout> parse_layout(std::string_view text) {
  return run_parser<Layout>(text, [](Parser& p, Layout& v) { return p.layout(v); });
}
Parsed<Tiler> parse_tiler(std::string_view text) {
  return run_parser<Tiler>(text, [](Parser& p, Tiler& v) { return p.tiler(v); });
}
Parsed<SwizzledLayout> parse_swizzled_layout(std::string_view text) {
  return run_parser<SwizzledLayout>(text, [](Parser& p, SwizzledLayout& v) { return p.swizzled(v); });
}

std::string to_string(const IntTuple& t) {
  std::string s;
  append(t, 0, s);
  return s;
}
std::string to_string(const Layout& l) { return to_string(l.shape) + ":" + to_string(l.stride); }
std::string to_string(const Tiler& t) {
  if (!t.by_mode) return to_string(t.layout);
  std::string s = "<";
  for (int i = 0; i < t.rank(); ++i) {
    if (i) s += ',';
    s += to_string(t.sub(i));
  }
  return s + ">";
}
std::string to_string(const LinearLayout& l) {
  std::string s;
  for (int d = 0; d < l.n_in; ++d) {
    if (d) s += "; ";
    s += std::string(l.in[d].name) + "[" + std::to_string(l.in[d].bits) + "]:";
    for (int b = 0; b < l.in[d].bits; ++b) s += (b ? "," : " ") + std::to_string(l.basis_of(d, b));
  }
  s += " ->";
  for (int d = 0; d < l.n_out; ++d)
    s += std::string(d ? ", " : " ") + l.out[d].name + "[" + std::to_string(l.out[d].bits) + "]";
  return s;
}

std::string to_string(const SwizzleParams& sw) {
  return "Sw<" + std::to_string(sw.bits) + "," + std::to_string(sw.base) + "," + std::to_string(sw.shift) + ">";
}

std::string to_string(const SwizzledLayout& l) {
  if (l.swizzle.bits == 0) return to_string(l.layout);
  return to_string(l.swizzle) + " o " + to_string(l.layout);
}

}  // namespace tmakit

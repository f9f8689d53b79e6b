// tmakit layout OP ARGS... [--json] [--svg FILE] [--dtype T]
// The CuTe layout algebra on the command line (docs/layout.md). Its own argument loop (OP and its
// layouts are positional; a usage error is JSON too with --json). Exit 0 ok, 1 refused (an
// operation's precondition, with the rule and a fix), 2 bad usage or bad notation.
#include <algorithm>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/render.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

constexpr const char* kLayoutUsage =
    "Usage: tmakit layout OP ARGS... [--json] [--svg FILE] [--dtype T]\n"
    "\n"
    "Layouts in CuTe notation, e.g. '((2,2),3):((1,4),2)', '(4,8)' (column-major), '_4' = 4;\n"
    "a tiler B is a layout, '<3:3,(2,4):(1,8)>' (one layout per mode), or a shape '(4,8)' = <4:1,8:1>.\n"
    "\n"
    "  coalesce A [PROFILE]        simplest equal layout; by mode with a profile, e.g. (1,1)\n"
    "  composition A B             A o B (B: a tiler)\n"
    "  complement A [N]            the layout of A's repetitions up to N (default cosize(A))\n"
    "  logical_divide A B          A o (B, complement(B, size A)), by mode for a tuple tiler\n"
    "  zipped_divide A B           ((tiles), (rests, ...))\n"
    "  tiled_divide A B            ((tiles), rest0, rest1, ...)\n"
    "  logical_product A B         (A, complement(A, size A * cosize B) o B)\n"
    "  blocked_product A B         A's block tiled by B (B a layout), modes re-associated\n"
    "  raked_product A B           the same, interleaved (cyclic)\n"
    "  left_inverse A              R with R(A(i)) == i (A injective)\n"
    "  right_inverse A             R with A(R(i)) == i\n"
    "  max_common_vector A B       number of leading elements contiguous in both\n"
    "  max_common_layout A B       the layout of those elements\n"
    "  size A | cosize A           integers\n"
    "  print A                     2-D table of offsets (rows: mode 0; columns: the other modes)\n"
    "\n"
    "  --json         one JSON object on stdout (errors too)\n"
    "  --svg FILE     draw the (result) layout as a grid; A may be swizzled: 'Sw<3,4,3> o (8,64):(64,1)'\n"
    "  --dtype T      element type (bf16, f32, u8, ...): the swizzle acts on bytes; with --svg, colour\n"
    "                 each element by its 4-byte shared-memory bank (32 banks), for any OP's result\n"
    "\n"
    "Exit status: 0 ok; 1 refused (a precondition failed, with the rule and a fix); 2 bad usage or notation.\n";

struct Op {
  const char* name;
  int min_args, max_args;  // positional arguments after OP
};
constexpr Op kOps[] = {
    {"coalesce", 1, 2},       {"composition", 2, 2},     {"complement", 1, 2},      {"logical_divide", 2, 2},
    {"zipped_divide", 2, 2},  {"tiled_divide", 2, 2},    {"logical_product", 2, 2}, {"blocked_product", 2, 2},
    {"raked_product", 2, 2},  {"left_inverse", 1, 1},    {"right_inverse", 1, 1},   {"max_common_vector", 2, 2},
    {"max_common_layout", 2, 2}, {"size", 1, 1},         {"cosize", 1, 1},          {"print", 1, 1},
};

struct Context {
  std::string op;
  std::vector<std::string> args;
  bool json = false;
  std::string svg_path, dtype;
  long elem_bytes = 0;  // from --dtype (resolved once in run_layout), 0 when absent
  std::ostream& out;
  std::ostream& err;
};

// size and cosize are null where they do not fit in 64 bits (checked_size / checked_cosize).
nlohmann::json layout_json(const Layout& l) {
  const IntResult size = checked_size(l), cosize = checked_cosize(l);
  return {{"result", to_string(l)},
          {"shape", to_string(l.shape)},
          {"stride", to_string(l.stride)},
          {"size", size.ok() ? nlohmann::json(size.value) : nlohmann::json(nullptr)},
          {"cosize", cosize.ok() ? nlohmann::json(cosize.value) : nlohmann::json(nullptr)},
          {"rank", l.rank()},
          {"depth", l.depth()}};
}

int layout_usage_error(Context& c, const std::string& msg, UsageRule rule = UsageRule::layout_usage) {
  if (!c.json) return Reporter{"tmakit layout", false, c.out, c.err}.usage(rule, msg, "", true);
  print_json(c.out, nlohmann::json{
                        {"op", c.op}, {"ok", false}, {"exit", kExitUsage}, {"error", {{"rule", rule_id(rule)}, {"message", msg}}}});
  return kExitUsage;
}

int notation_error(Context& c, const char* which, const std::string& text, const NotationError& e) {
  if (c.json) {
    print_json(c.out, nlohmann::json{{"op", c.op},
                                      {"ok", false},
                                      {"exit", kExitUsage},
                                      {"error",
                                       {{"rule", rule_id(UsageRule::layout_notation)},
                                        {"argument", which},
                                        {"input", text},
                                        {"position", e.position},
                                        {"expected", e.expected},
                                        {"message", e.message}}}});
  } else {
    c.err << "tmakit layout " << c.op << ": " << which << ": " << e.message << "\n  " << text << "\n  "
          << std::string(e.position, ' ') << "^\n";
  }
  return kExitUsage;
}

int refusal(Context& c, const LayoutDiagnostic& d) {
  if (c.json) {
    print_json(c.out, nlohmann::json{{"op", c.op},
                                      {"ok", false},
                                      {"exit", kExitRefused},
                                      {"args", c.args},
                                      {"error",
                                       {{"rule", rule_id(d.rule)},
                                        {"mode", d.mode},
                                        {"values", {d.a, d.b}},
                                        {"message", message(d)},
                                        {"fix", fix(d)}}}});
  } else {
    c.err << "tmakit layout " << c.op << ": refused: " << message(d) << "\n  fix: " << fix(d) << '\n';
  }
  return kExitRefused;
}

// Element bytes from --dtype (0 when absent); -1 after reporting an error.
long dtype_bytes(Context& c) {
  if (c.dtype.empty()) return 0;
  DataType t{};
  std::string why;
  if (!parse_name(c.dtype, t, &why)) {
    layout_usage_error(c, "--dtype: " + why);
    return -1;
  }
  const std::uint32_t bits = element_bits(t);
  if (bits < 8 || bits % 8 != 0) {
    layout_usage_error(c, "--dtype " + c.dtype + ": sub-byte types have no byte offsets");
    return -1;
  }
  return static_cast<long>(bits / 8);
}

// Whether l can be drawn with c.elem_bytes (render.hpp's check_drawable: the element size divides
// the swizzle's chunk, at most kMaxDrawElements elements, offsets in int64); a swizzle needs
// --dtype (it acts on bytes). Returns 0, or the exit status of the refusal.
int check_drawable(Context& c, const SwizzledLayout& l) {
  if (l.swizzle.bits != 0 && c.elem_bytes == 0)
    return layout_usage_error(c, "a swizzled layout needs --dtype: the swizzle acts on byte offsets");
  const LayoutDiagnostic d = tmakit::check_drawable(l, static_cast<std::uint64_t>(c.elem_bytes));
  return d.ok() ? 0 : refusal(c, d);
}

// Writes the SVG of l (swizzled or not) when --svg was given; with --dtype each element is coloured
// by its bank. Returns 0, or an exit status.
int maybe_svg(Context& c, const SwizzledLayout& l) {
  if (c.svg_path.empty()) return 0;
  if (const int rc = check_drawable(c, l)) return rc;
  const LayoutGrid g = make_grid(l, static_cast<std::uint64_t>(c.elem_bytes));
  std::string title = to_string(l);
  if (c.elem_bytes > 0) title += "  [" + c.dtype + ": element offsets; colour = 4-byte bank]";
  std::ofstream f(c.svg_path);
  if (!f) return layout_usage_error(c, "--svg: cannot write " + quote_user_text(c.svg_path), UsageRule::input);
  f << render_svg(title, g);
  if (f) f.close();  // a full disk shows here, when the buffer goes out
  return f ? 0 : layout_usage_error(c, "--svg: error writing " + quote_user_text(c.svg_path), UsageRule::input);
}

int emit_layout(Context& c, const Layout& l) {
  const int rc = maybe_svg(c, SwizzledLayout{SwizzleParams{}, l});
  if (rc) return rc;
  if (c.json) {
    nlohmann::json j{{"op", c.op}, {"ok", true}, {"exit", kExitOk}, {"args", c.args}};
    j.update(layout_json(l));
    print_json(c.out, j);
  } else {
    c.out << to_string(l) << '\n';
  }
  return kExitOk;
}

int emit_int(Context& c, std::int64_t v) {
  if (c.json) {
    print_json(c.out, nlohmann::json{{"op", c.op}, {"ok", true}, {"exit", kExitOk}, {"args", c.args}, {"result", v}});
  } else {
    c.out << v << '\n';
  }
  return kExitOk;
}

int emit_result(Context& c, const LayoutResult& r) { return r.ok() ? emit_layout(c, r.value) : refusal(c, r.diagnostic); }

int run_op(Context& c) {
  const auto& a = c.args;
  // Swizzled layouts: only print / size / cosize (and --svg of them).
  if (c.op == "print" || c.op == "size" || c.op == "cosize") {
    const Parsed<SwizzledLayout> p = parse_swizzled_layout(a[0]);
    if (!p.ok) return notation_error(c, "A", a[0], p.error);
    if (c.op == "size" || c.op == "cosize") {
      const int rc = maybe_svg(c, p.value);
      if (rc) return rc;
      const IntResult v = c.op == "size" ? checked_size(p.value.layout) : checked_cosize(p.value.layout);
      return v.ok() ? emit_int(c, v.value) : refusal(c, v.diagnostic);
    }
    if (const int rc = check_drawable(c, p.value)) return rc;
    const int rc = maybe_svg(c, p.value);
    if (rc) return rc;
    const LayoutGrid g = make_grid(p.value, static_cast<std::uint64_t>(c.elem_bytes));
    if (c.json) {
      nlohmann::json rows = nlohmann::json::array(), banks = nlohmann::json::array();
      for (std::int64_t r = 0; r < g.rows; ++r) {
        nlohmann::json row = nlohmann::json::array(), brow = nlohmann::json::array();
        for (std::int64_t col = 0; col < g.cols; ++col) {
          row.push_back(g.at(r, col));
          if (!g.bank.empty()) brow.push_back(g.bank[static_cast<std::size_t>(r * g.cols + col)]);
        }
        rows.push_back(row);
        banks.push_back(brow);
      }
      nlohmann::json j{{"op", c.op}, {"ok", true}, {"exit", kExitOk}, {"args", c.args}, {"layout", to_string(p.value)},
                       {"rows", g.rows}, {"cols", g.cols}, {"offsets", rows}};
      if (!g.bank.empty()) j["banks"] = banks;
      print_json(c.out, j);
    } else {
      c.out << render_table(to_string(p.value), g);
    }
    return kExitOk;
  }

  const Parsed<Layout> pa = parse_layout(a[0]);
  if (!pa.ok) {
    if (parse_swizzled_layout(a[0]).ok) return layout_usage_error(c, c.op + " takes plain layouts; swizzled ones only print, size, cosize");
    return notation_error(c, "A", a[0], pa.error);
  }
  const Layout& A = pa.value;

  if (c.op == "coalesce") {
    if (a.size() == 1) return emit_layout(c, coalesce(A));
    const Parsed<IntTuple> prof = parse_int_tuple(a[1]);
    if (!prof.ok) return notation_error(c, "PROFILE", a[1], prof.error);
    return emit_result(c, coalesce(A, prof.value));
  }
  if (c.op == "complement") {
    if (a.size() == 1) return emit_result(c, complement(A));
    const Parsed<IntTuple> n = parse_int_tuple(a[1]);
    if (!n.ok || !n.value.is_leaf()) {
      NotationError e = n.error;
      if (n.ok) e = {0, "an integer", "position 0: expected an integer cotarget"};
      return notation_error(c, "N", a[1], e);
    }
    return emit_result(c, complement(A, n.value.value()));
  }
  if (c.op == "left_inverse") return emit_result(c, left_inverse(A));
  if (c.op == "right_inverse") return emit_layout(c, right_inverse(A));

  // Two-argument ops. B is a tiler for composition / divides / logical_product, a layout otherwise.
  const bool tiler_op = c.op == "composition" || c.op == "logical_divide" || c.op == "zipped_divide" ||
                        c.op == "tiled_divide" || c.op == "logical_product";
  if (tiler_op) {
    const Parsed<Tiler> pb = parse_tiler(a[1]);
    if (!pb.ok) return notation_error(c, "B", a[1], pb.error);
    const Tiler& B = pb.value;
    if (c.op == "composition") return emit_result(c, composition(A, B));
    if (c.op == "logical_divide") return emit_result(c, logical_divide(A, B));
    if (c.op == "zipped_divide") return emit_result(c, zipped_divide(A, B));
    if (c.op == "tiled_divide") return emit_result(c, tiled_divide(A, B));
    return emit_result(c, logical_product(A, B));
  }
  const Parsed<Layout> pb = parse_layout(a[1]);
  if (!pb.ok) return notation_error(c, "B", a[1], pb.error);
  const Layout& B = pb.value;
  if (c.op == "blocked_product") return emit_result(c, blocked_product(A, B));
  if (c.op == "raked_product") return emit_result(c, raked_product(A, B));
  if (c.op == "max_common_layout") return emit_result(c, max_common_layout(A, B));
  const IntResult v = max_common_vector(A, B);
  return v.ok() ? emit_int(c, v.value) : refusal(c, v.diagnostic);
}


// The options of `tmakit layout` (hand-parsed: OP and its arguments are positional). Returns "" with
// the options in `c` and the other words in `pos`, or what is wrong: an unknown option (with the
// nearest one), an option given twice, a value that is missing, empty or another option.
std::string read_layout_options(const std::vector<std::string>& args, Context& c, std::vector<std::string>& pos,
                                bool& svg_given, bool& help) {
  const std::vector<std::string> names = {"--json", "--svg", "--dtype", "--help"};
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    if (s.size() <= 2 || s[0] != '-' || s[1] != '-') {
      if (s == "-h") help = true;
      else pos.push_back(s);
      continue;
    }
    const std::size_t eq = s.find('=');
    const std::string name = s.substr(0, eq);
    if (std::find(names.begin(), names.end(), name) == names.end())
    {
      const std::string near = nearest_name(name, names);
      return "unknown option " + quote_user_text(name) + (near.empty() ? "" : "; did you mean " + near + "?");
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) return name + " given more than once; give it once";
    seen.push_back(name);
    if (name == "--json" || name == "--help") {
      if (eq != std::string::npos) return name + " takes no value";
      (name == "--json" ? c.json : help) = true;
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = s.substr(eq + 1);
    } else {
      if (i + 1 >= args.size()) return name + " needs a value";
      value = args[++i];
      if (value.rfind("--", 0) == 0) return name + ": expected a value, found the option " + quote_user_text(value);
    }
    if (value.empty()) return name + (name == "--svg" ? ": an empty file name" : ": an empty value");
    svg_given = svg_given || name == "--svg";
    (name == "--svg" ? c.svg_path : c.dtype) = value;
  }
  return "";
}

}  // namespace

int run_layout(std::vector<std::string> args, std::istream& /*in*/, std::ostream& out, std::ostream& err) {
  Context c{"", {}, wants_json(args), "", "", 0, out, err};
  std::vector<std::string> pos;
  bool svg_given = false, help = false;
  const std::string bad = read_layout_options(args, c, pos, svg_given, help);
  if (!bad.empty()) return layout_usage_error(c, bad, bad.find(": an empty ") != std::string::npos ? UsageRule::value : UsageRule::layout_usage);
  if (help) return Reporter{"tmakit layout", c.json, out, err}.help(kLayoutUsage);
  if (pos.empty()) return layout_usage_error(c, "missing OP");
  c.op = pos[0];
  c.args.assign(pos.begin() + 1, pos.end());
  for (const Op& op : kOps) {
    if (parse_choice(c.op, {op.name}) != 0) continue;
    c.op = op.name;  // any case: COALESCE, Logical-Divide
    if (svg_given && c.op == "max_common_vector")
      return layout_usage_error(c, "--svg: max_common_vector's result is a number, there is nothing to draw "
                                   "(max_common_layout draws the layout of those elements)",
                                UsageRule::conflict);
    const int n = static_cast<int>(c.args.size());
    if (n < op.min_args || n > op.max_args)
      return layout_usage_error(c, c.op + " takes " + std::to_string(op.min_args) +
                                (op.max_args > op.min_args ? " or " + std::to_string(op.max_args) : std::string()) +
                                " argument(s), got " + std::to_string(n));
    c.elem_bytes = dtype_bytes(c);  // every op: --dtype is validated once, and colours --svg banks
    if (c.elem_bytes < 0) return kExitUsage;
    return run_op(c);
  }
  std::string valid;
  for (const Op& op : kOps) valid += std::string(valid.empty() ? "" : ", ") + op.name;
  return layout_usage_error(c, "unknown operation '" + c.op + "'; valid: " + valid);
}

}  // namespace tmakit::cli

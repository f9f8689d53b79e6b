// tmakit.Layout: a (swizzled) layout in CuTe notation and the algebra of `tmakit layout`
// (layout/algebra.hpp, swizzled_algebra.hpp), its 2-D table and SVG (layout/render.hpp). A refused
// operation raises tmakit.Refused with the rule (layout.*), its words and fix (message() / fix() of
// layout/notation.hpp); notation that does not parse raises ValueError with the position.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/render.hpp"
#include "tmakit/layout/swizzled_algebra.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::py {
namespace {

[[noreturn]] void refuse_layout(const LayoutDiagnostic& d) {
  refuse({{rule_id(d.rule), d.mode >= 0 ? "mode " + std::to_string(d.mode) : "", "", message(d), fix(d), ""}});
}

template <class T>
T value_or_refuse(const LayoutOpResult<T>& r) {
  if (!r.ok()) refuse_layout(r.diagnostic);
  return r.value;
}

[[noreturn]] void notation_error(const char* which, const std::string& text, const NotationError& e) {
  usage_error(std::string(which) + ": " + e.message + "\n  " + text + "\n  " + std::string(e.position, ' ') + "^");
}

SwizzledLayout parse(const std::string& text) {
  const Parsed<SwizzledLayout> p = parse_swizzled_layout(text);
  if (!p.ok) notation_error("layout", text, p.error);
  return p.value;
}

// B of an operation: a Layout, or text (a tiler where the operation takes one).
std::string text_of(nb::handle h) {
  if (nb::isinstance<nb::str>(h)) return nb::cast<std::string>(h);
  if (nb::isinstance<SwizzledLayout>(h)) return to_string(nb::cast<const SwizzledLayout&>(h));
  if (nb::isinstance<nb::int_>(h)) return std::to_string(nb::cast<std::int64_t>(h));
  usage_error("expected a Layout or CuTe notation (str)");
}

Tiler tiler_of(nb::handle h) {
  const std::string t = text_of(h);
  const Parsed<Tiler> p = parse_tiler(t);
  if (!p.ok) notation_error("B", t, p.error);
  return p.value;
}

Layout layout_of(nb::handle h) {
  const std::string t = text_of(h);
  const Parsed<Layout> p = parse_layout(t);
  if (!p.ok) notation_error("B", t, p.error);
  return p.value;
}

const Layout& plain(const SwizzledLayout& a, const char* op) {
  if (a.swizzle.bits != 0)
    usage_error(std::string(op) + " takes plain layouts; swizzled ones compose, divide, print, draw, size and cosize");
  return a.layout;
}

SwizzledLayout wrap(const Layout& l) { return SwizzledLayout{SwizzleParams{}, l}; }

// Linear index i of l, checked: 0 <= i < size (IndexError otherwise), and every offset of l in
// int64 (layout.overflow otherwise, as the CLI's operations refuse such layouts).
std::int64_t offset_of(const Layout& l, std::int64_t i) {
  const std::int64_t n = value_or_refuse(checked_size(l));
  if (i < 0 || i >= n) throw nb::index_error(("index " + std::to_string(i) + " outside 0.." + std::to_string(n - 1)).c_str());
  if (const LayoutDiagnostic d = check_offsets(l); !d.ok()) refuse_layout(d);
  return l(i);
}

// The swizzled byte offset of linear index i, checked: the element offset (offset_of) is not
// negative (layout.negative_stride) and times elem_bytes stays in 64 bits (layout.overflow).
std::uint64_t byte_offset_of(const SwizzledLayout& l, std::int64_t i, std::uint64_t elem_bytes) {
  if (elem_bytes == 0) usage_error("elem_bytes: at least 1");
  const std::int64_t off = offset_of(l.layout, i);
  std::int64_t bytes = 0;
  if (off < 0) refuse_layout(make_diagnostic(LayoutRule::negative_stride, -1, off));  // no byte address below 0
  if (elem_bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
      !checked_mul(off, static_cast<std::int64_t>(elem_bytes), &bytes))
    refuse_layout(overflow_diagnostic(LayoutOperation::offsets, -1, off, static_cast<std::int64_t>(elem_bytes)));
  return l.swizzle(static_cast<std::uint64_t>(bytes));
}

// Element bytes of a dtype name (0 for none); sub-byte types have no byte offsets.
std::uint64_t elem_bytes_of(const std::optional<std::string>& dtype) {
  if (!dtype) return 0;
  DataType t{};
  std::string why;
  if (!parse_name(*dtype, t, &why)) usage_error("dtype: " + why);
  const std::uint32_t bits = element_bits(t);
  if (bits < 8 || bits % 8 != 0) usage_error("dtype " + *dtype + ": sub-byte types have no byte offsets");
  return bits / 8;
}

LayoutGrid drawable_grid(const SwizzledLayout& l, std::uint64_t elem_bytes) {
  if (l.swizzle.bits != 0 && elem_bytes == 0) usage_error("a swizzled layout needs dtype=: the swizzle acts on byte offsets");
  const LayoutDiagnostic d = check_drawable(l, elem_bytes);
  if (!d.ok()) refuse_layout(d);
  return make_grid(l, elem_bytes);
}

std::string title_of(const SwizzledLayout& l, const std::optional<std::string>& dtype) {
  std::string title = to_string(l);
  if (dtype) title += "  [" + *dtype + ": element offsets; colour = 4-byte bank]";
  return title;
}

}  // namespace

void bind_layout(nb::module_& m) {
  nb::class_<SwizzledLayout>(m, "Layout", "A layout in CuTe notation, e.g. Layout('(4,8):(8,1)') or Layout('Sw<3,4,3> o (8,64):(64,1)')")
      .def("__init__", [](SwizzledLayout* self, const std::string& text) { new (self) SwizzledLayout(parse(text)); },
           nb::arg("notation"))
      .def("__str__", [](const SwizzledLayout& l) { return to_string(l); })
      .def("__repr__", [](const SwizzledLayout& l) { return "Layout('" + to_string(l) + "')"; })
      .def("__eq__", [](const SwizzledLayout& a, const SwizzledLayout& b) { return to_string(a) == to_string(b); })
      .def("__hash__", [](const SwizzledLayout& l) { return nb::hash(nb::str(to_string(l).c_str())); })
      .def_prop_ro("shape", [](const SwizzledLayout& l) { return to_string(l.layout.shape); })
      .def_prop_ro("stride", [](const SwizzledLayout& l) { return to_string(l.layout.stride); })
      .def_prop_ro("swizzle", [](const SwizzledLayout& l) -> std::optional<std::string> {
        return l.swizzle.bits ? std::optional<std::string>(to_string(l.swizzle)) : std::nullopt;
      })
      .def_prop_ro("rank", [](const SwizzledLayout& l) { return l.layout.rank(); })
      .def_prop_ro("depth", [](const SwizzledLayout& l) { return l.layout.depth(); })
      .def("size", [](const SwizzledLayout& l) { return value_or_refuse(checked_size(l.layout)); })
      .def("cosize", [](const SwizzledLayout& l) { return value_or_refuse(checked_cosize(l.layout)); })
      .def("__len__", [](const SwizzledLayout& l) { return value_or_refuse(checked_size(l.layout)); })
      .def("__call__",
           [](const SwizzledLayout& l, std::int64_t i) {
             if (l.swizzle.bits != 0) usage_error("a swizzled layout maps to bytes: use byte_offset(i, elem_bytes)");
             return offset_of(l.layout, i);
           },
           nb::arg("index"), "the offset of linear index i (colexicographic, CuTe's order)")
      .def("byte_offset", &byte_offset_of, nb::arg("index"), nb::arg("elem_bytes"),
           "the swizzled byte offset of linear index i")
      .def("coalesce",
           [](const SwizzledLayout& a, std::optional<std::string> profile) {
             const Layout& l = plain(a, "coalesce");
             if (!profile) return wrap(coalesce(l));
             const Parsed<IntTuple> p = parse_int_tuple(*profile);
             if (!p.ok) notation_error("profile", *profile, p.error);
             return wrap(value_or_refuse(coalesce(l, p.value)));
           },
           nb::arg("profile") = nb::none())
      .def("complement",
           [](const SwizzledLayout& a, std::optional<std::int64_t> cotarget) {
             const Layout& l = plain(a, "complement");
             return wrap(value_or_refuse(cotarget ? complement(l, *cotarget) : complement(l)));
           },
           nb::arg("cotarget") = nb::none())
      .def("composition",
           [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(composition(a, tiler_of(b))); }, nb::arg("b"))
      .def("compose", [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(composition(a, tiler_of(b))); },
           nb::arg("b"), "A o B (composition)")
      .def("logical_divide", [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(logical_divide(a, tiler_of(b))); },
           nb::arg("b"))
      .def("zipped_divide", [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(zipped_divide(a, tiler_of(b))); },
           nb::arg("b"))
      .def("tiled_divide", [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(tiled_divide(a, tiler_of(b))); },
           nb::arg("b"))
      .def("logical_product",
           [](const SwizzledLayout& a, nb::handle b) { return wrap(value_or_refuse(logical_product(plain(a, "logical_product"), tiler_of(b)))); },
           nb::arg("b"))
      .def("blocked_product",
           [](const SwizzledLayout& a, nb::handle b) { return wrap(value_or_refuse(blocked_product(plain(a, "blocked_product"), layout_of(b)))); },
           nb::arg("b"))
      .def("raked_product",
           [](const SwizzledLayout& a, nb::handle b) { return wrap(value_or_refuse(raked_product(plain(a, "raked_product"), layout_of(b)))); },
           nb::arg("b"))
      .def("left_inverse", [](const SwizzledLayout& a) { return wrap(value_or_refuse(left_inverse(plain(a, "left_inverse")))); })
      .def("right_inverse", [](const SwizzledLayout& a) { return wrap(right_inverse(plain(a, "right_inverse"))); })
      .def("max_common_vector",
           [](const SwizzledLayout& a, nb::handle b) { return value_or_refuse(max_common_vector(plain(a, "max_common_vector"), layout_of(b))); },
           nb::arg("b"))
      .def("max_common_layout",
           [](const SwizzledLayout& a, nb::handle b) { return wrap(value_or_refuse(max_common_layout(plain(a, "max_common_layout"), layout_of(b)))); },
           nb::arg("b"))
      .def("print",
           [](const SwizzledLayout& l, std::optional<std::string> dtype) {
             return render_table(to_string(l), drawable_grid(l, elem_bytes_of(dtype)));
           },
           nb::arg("dtype") = nb::none(), "`tmakit layout print`'s table (returned, not printed): rows = mode 0")
      .def("offsets",
           [](const SwizzledLayout& l, std::optional<std::string> dtype) {
             const LayoutGrid g = drawable_grid(l, elem_bytes_of(dtype));
             nb::list rows;
             for (std::int64_t r = 0; r < g.rows; ++r) {
               nb::list row;
               for (std::int64_t c = 0; c < g.cols; ++c) row.append(g.at(r, c));
               rows.append(row);
             }
             return rows;
           },
           nb::arg("dtype") = nb::none(), "the table as rows of element offsets (rows = mode 0)")
      .def("svg",
           [](const SwizzledLayout& l, std::optional<std::string> dtype) {
             return render_svg(title_of(l, dtype), drawable_grid(l, elem_bytes_of(dtype)));
           },
           nb::arg("dtype") = nb::none(), "`tmakit layout --svg`'s picture (with dtype: coloured by bank)");
}

}  // namespace tmakit::py

// Text table and SVG grid of a 2-D layout (see tmakit/layout/render.hpp).
#include "tmakit/layout/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "tmakit/core/checked.hpp"
#include "tmakit/layout/max_common.hpp"

namespace tmakit {

LayoutDiagnostic check_drawable(const SwizzledLayout& l, std::uint64_t elem_bytes) {
  if (elem_bytes > 0) {
    const LayoutDiagnostic d = check_elem_bytes(l.swizzle, elem_bytes);
    if (!d.ok()) return d;
  }
  const IntResult n = checked_size(l.layout);
  if (!n.ok()) return n.diagnostic;
  if (n.value > kMaxDrawElements) return make_diagnostic(LayoutRule::too_large_to_draw, -1, n.value, kMaxDrawElements);
  const LayoutDiagnostic o = check_offsets(l.layout);
  if (!o.ok()) return o;
  if (elem_bytes > 0) {
    // Byte offsets are computed in 64 bits too: the largest offset times the element size must fit.
    const IntResult cos = checked_cosize(l.layout);
    std::int64_t bytes = 0;
    if (!cos.ok() || !checked_mul(cos.value, static_cast<std::int64_t>(elem_bytes), &bytes))
      return overflow_diagnostic(LayoutOperation::offsets, -1, cos.value, static_cast<std::int64_t>(elem_bytes));
  }
  return {};
}

LayoutGrid make_grid(const SwizzledLayout& l, std::uint64_t elem_bytes) {
  LayoutGrid g;
  const std::int64_t size = l.layout.size();
  g.rows = l.layout.rank() >= 2 ? l.layout.mode(0).size() : size;
  g.cols = g.rows > 0 ? size / g.rows : 0;
  g.offset.resize(static_cast<std::size_t>(size));
  if (elem_bytes > 0) g.bank.resize(static_cast<std::size_t>(size));
  for (std::int64_t r = 0; r < g.rows; ++r)
    for (std::int64_t c = 0; c < g.cols; ++c) {
      const std::int64_t index = r + c * g.rows;  // coordinate (r, c) of (mode 0, rest)
      const std::size_t at = static_cast<std::size_t>(r * g.cols + c);
      if (elem_bytes == 0) {
        g.offset[at] = l.layout(index);
        continue;
      }
      const std::uint64_t byte = l.byte_offset(index, elem_bytes);
      g.offset[at] = static_cast<std::int64_t>(byte / elem_bytes);
      g.bank[at] = static_cast<int>((byte / 4) % 32);
    }
  return g;
}

namespace {
int digits(std::int64_t v) {
  int d = v < 0 ? 2 : 1;
  for (v = v < 0 ? -v : v; v >= 10; v /= 10) ++d;
  return d;
}
std::string pad(const std::string& s, int w) { return std::string(static_cast<std::size_t>(std::max(0, w - static_cast<int>(s.size()))), ' ') + s; }
}  // namespace

std::string render_table(const std::string& title, const LayoutGrid& g) {
  std::int64_t widest = 0;
  for (std::int64_t v : g.offset) widest = std::max<std::int64_t>(widest, digits(v));
  widest = std::max<std::int64_t>(widest, digits(g.cols > 0 ? g.cols - 1 : 0));
  const int w = static_cast<int>(widest) + 2;  // cell width between the bars
  const int rw = digits(g.rows > 0 ? g.rows - 1 : 0);
  std::string out = title + "\n";
  const std::string lead(static_cast<std::size_t>(rw + 2), ' ');
  out += lead;
  for (std::int64_t c = 0; c < g.cols; ++c) out += " " + pad(std::to_string(c), w - 1) + (c + 1 < g.cols ? " " : "");
  out += "\n";
  std::string rule = lead;
  for (std::int64_t c = 0; c < g.cols; ++c) rule += "+" + std::string(static_cast<std::size_t>(w), '-');
  rule += "+\n";
  for (std::int64_t r = 0; r < g.rows; ++r) {
    out += rule;
    out += pad(std::to_string(r), rw) + "  ";
    for (std::int64_t c = 0; c < g.cols; ++c) out += "|" + pad(std::to_string(g.at(r, c)), w - 1) + " ";
    out += "|\n";
  }
  out += rule;
  return out;
}

namespace {
// A distinct, light colour per bank: hue around the circle, alternating lightness for neighbours.
std::string bank_colour(int bank) {
  const double h = std::fmod(bank * 360.0 / 32.0 * 7.0, 360.0);  // *7 spreads neighbouring banks apart
  const double s = 0.65, l = bank % 2 ? 0.78 : 0.68;
  const double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h / 60.0, 2) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 60) r = c, g = x;
  else if (h < 120) r = x, g = c;
  else if (h < 180) g = c, b = x;
  else if (h < 240) g = x, b = c;
  else if (h < 300) r = x, b = c;
  else r = c, b = x;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>((r + m) * 255 + 0.5), static_cast<int>((g + m) * 255 + 0.5),
                static_cast<int>((b + m) * 255 + 0.5));
  return buf;
}
std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '<') o += "&lt;";
    else if (ch == '>') o += "&gt;";
    else if (ch == '&') o += "&amp;";
    else o += ch;
  }
  return o;
}
}  // namespace

std::string render_svg(const std::string& title, const LayoutGrid& g) {
  const bool banks = !g.bank.empty();
  const int cw = 34, ch = banks ? 30 : 22, left = 30, top = 44;
  const std::int64_t width = left + g.cols * cw + 10, height = top + g.rows * ch + 10;
  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
       "\" font-family=\"monospace\" font-size=\"10\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"4\" y=\"14\" font-size=\"12\">" + xml_escape(title) + "</text>\n";
  for (std::int64_t c = 0; c < g.cols; ++c)
    s += "<text x=\"" + std::to_string(left + c * cw + cw / 2) + "\" y=\"" + std::to_string(top - 6) +
         "\" text-anchor=\"middle\" fill=\"#666\">" + std::to_string(c) + "</text>\n";
  for (std::int64_t r = 0; r < g.rows; ++r) {
    const std::int64_t y = top + r * ch;
    s += "<text x=\"" + std::to_string(left - 4) + "\" y=\"" + std::to_string(y + ch / 2 + 4) +
         "\" text-anchor=\"end\" fill=\"#666\">" + std::to_string(r) + "</text>\n";
    for (std::int64_t c = 0; c < g.cols; ++c) {
      const std::int64_t x = left + c * cw;
      const std::size_t at = static_cast<std::size_t>(r * g.cols + c);
      const std::string fill = banks ? bank_colour(g.bank[at]) : "#f4f4f4";
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(cw) +
           "\" height=\"" + std::to_string(ch) + "\" fill=\"" + fill + "\" stroke=\"#333\" stroke-width=\"0.5\"/>\n";
      s += "<text x=\"" + std::to_string(x + cw / 2) + "\" y=\"" + std::to_string(y + (banks ? 12 : 15)) +
           "\" text-anchor=\"middle\">" + std::to_string(g.offset[at]) + "</text>\n";
      if (banks)
        s += "<text x=\"" + std::to_string(x + cw / 2) + "\" y=\"" + std::to_string(y + 25) +
             "\" text-anchor=\"middle\" font-size=\"8\" fill=\"#222\">b" + std::to_string(g.bank[at]) + "</text>\n";
    }
  }
  s += "</svg>\n";
  return s;
}

}  // namespace tmakit

// 2-D renderings of a (swizzled) layout (host only; src/layout/render.cpp): a text table of offsets
// in the spirit of cute::print_layout, and an SVG grid, coloured by shared-memory bank when the
// element size is known. `tmakit layout print` / `--svg` and the Python package's Layout.print() /
// Layout.svg() draw with these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmakit/layout/diagnostic.hpp"
#include "tmakit/layout/swizzled_layout.hpp"

namespace tmakit {

// The layout as a rows x cols grid: rows = mode 0, cols = the remaining modes (colexicographic);
// a rank-1 layout is one column. offsets are element offsets (after the swizzle, when there is one);
// banks (only with elem_bytes > 0) are the 4-byte banks (0..31) of each element's first byte.
struct LayoutGrid {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> offset;  // row-major: [r * cols + c]
  std::vector<int> bank;             // empty without elem_bytes
  std::int64_t at(std::int64_t r, std::int64_t c) const { return offset[static_cast<std::size_t>(r * cols + c)]; }
};

// The most elements print and --svg draw (2^16, e.g. 256 x 256): a larger layout is refused
// (layout.too_large_to_draw) before its grid is allocated.
inline constexpr std::int64_t kMaxDrawElements = std::int64_t{1} << 16;

// Whether `l` may be drawn with `elem_bytes` (0: no element size): a swizzle acts on bytes, so the
// element size must divide its chunk (check_elem_bytes); at most kMaxDrawElements elements
// (layout.too_large_to_draw, checked before anything is allocated); every offset, and with an
// element size every byte offset, in int64 (layout.overflow). The first refusal, or ok. A swizzled
// layout without an element size passes here: callers ask for one (it has no element offsets).
LayoutDiagnostic check_drawable(const SwizzledLayout& l, std::uint64_t elem_bytes);

// elem_bytes = 0: no element size (a swizzled layout then cannot be drawn: the caller refuses).
// Precondition: check_drawable(l, elem_bytes).ok().
LayoutGrid make_grid(const SwizzledLayout& l, std::uint64_t elem_bytes);

// The text table: a header line (the layout), column numbers, and one boxed row per mode-0 index.
std::string render_table(const std::string& title, const LayoutGrid& g);

// The SVG picture: one cell per element with its offset (and "b<bank>" with a colour per bank).
std::string render_svg(const std::string& title, const LayoutGrid& g);

}  // namespace tmakit

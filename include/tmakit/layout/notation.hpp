// CuTe notation for IntTuples, Layouts and swizzled layouts: parse and print (host only).
//
//   print: exactly as cute::print writes a layout with plain integers: `((2,2),3):((1,4),2)`, a leaf
//          layout as `8:1`, a swizzled layout as `Sw<3,4,3> o (64,64):(64,1)`.
//   parse: the same, plus CuTe's static spelling `_4` for 4, spaces anywhere between tokens, a bare
//          shape `(4,8)` meaning the compact column-major layout (4,8):(1,4) (as cute::make_layout),
//          and `Swizzle<3,4,3> o ...` for `Sw<3,4,3> o ...`. Errors give the character position and
//          what was expected there.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tmakit/layout/int_tuple.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/linear_layout.hpp"
#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/layout/tiler.hpp"

namespace tmakit {

struct NotationError {
  std::size_t position = 0;  // 0-based character offset in the input
  std::string expected;      // what the parser expected there, e.g. "an integer or '('"
  std::string message;       // one line: "position 7: expected ..., found ')'" (or a semantic error)
};

template <class T>
struct Parsed {
  T value{};
  bool ok = false;
  NotationError error;
};

Parsed<IntTuple> parse_int_tuple(std::string_view text);
Parsed<Layout> parse_layout(std::string_view text);
// A swizzled layout `Sw<B,M,S> o L`; a plain layout is accepted too (identity swizzle).
Parsed<SwizzledLayout> parse_swizzled_layout(std::string_view text);

// A tiler (see tiler.hpp): a layout `3:3`; a by-mode tuple of tilers `<3:3,(2,4):(1,8)>` (an integer
// n inside <> is n:1; a tiler inside <> may itself be a tuple: `<<2:1,2:1>,8:1>`); or a bare shape,
// read as CuTe reads a shape tiler: `(4,8)` is <4:1,8:1>, `((2,2),8)` is <<2:1,2:1>,8:1> (also inside <>).
Parsed<Tiler> parse_tiler(std::string_view text);

std::string to_string(const IntTuple& t);
std::string to_string(const Tiler& t);  // a layout, or <T0,T1,...>
std::string to_string(const Layout& l);
std::string to_string(const SwizzleParams& sw);   // "Sw<B,M,S>" (also for B == 0)
std::string to_string(const SwizzledLayout& l);  // "Sw<B,M,S> o L", or just L for the identity
// Each input dimension with the images of its bits (packed output bits), then the outputs:
// "lane[5]: 8,16,32,64,128; register[3]: 1,2,4 -> offset[8]"
std::string to_string(const LinearLayout& l);

// Words for a refusal: what failed and a concrete fix (src/layout/diagnostic.cpp).
std::string message(const LayoutDiagnostic& d);
std::string fix(const LayoutDiagnostic& d);

}  // namespace tmakit

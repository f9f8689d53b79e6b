// Why a layout operation refused, as plain data (usable in constexpr and device code). The words
// and the fix are produced on the host by message() / fix() (src/layout/diagnostic.cpp).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

// Stable rules; rule_id() gives the string form used in JSON and messages (the table below). Append
// only.
enum class LayoutRule : std::uint16_t {
  ok = 0,
  capacity,                    // the result needs more than IntTuple::kMaxNodes nodes
  not_congruent,               // shape and stride (or coordinate and shape) differ in structure
  bad_shape,                   // a shape leaf < 1
  negative_stride,             // an operation defined for non-negative strides only
  composition_stride,          // composition: rhs stride a >= lhs extent b and not a multiple of it
  composition_shape,           // composition: rhs extent a not a multiple of b, the part a lhs mode takes
  complement_not_injective,    // complement: two modes overlap (stride a < current extent b)
  complement_not_divisible,    // no longer issued: CuTe's complement accepts such gaps (the id stays reserved)
  tiler_rank,                  // by-mode tiler has more modes (a) than the layout (b)
  not_injective,               // left_inverse of a non-injective layout
  swizzle_elem_bytes,          // elem_bytes a does not divide the swizzle chunk 2^M = b bytes
  not_power_of_two,            // F2 linear layouts: extent or stride a is not a power of two
  not_bijective,               // F2 linear layout inverse of a non-bijective map
  dims_mismatch,               // F2 linear layouts: the two maps do not share the named dimension
  not_linear,                  // F2 linear layouts: two input bits land on output bit a (carries)
  size_range,                  // the shape has more than 2^62 elements: leaf `mode` (extent a) after b
  overflow,                    // operation `op`: a * b (or a + b) at leaf `mode` does not fit in 64 bits
  too_large_to_draw,           // print / --svg: a layout of a elements, more than the b a drawing may have
  left_inverse_divisibility,   // left_inverse: stride a (leaf mode) is not a multiple of the smaller stride b
  product_rank,                // blocked/raked product: the block part has a modes, the tile part b (0: integral)
};

// Which operation's arithmetic a layout.overflow refusal comes from (LayoutDiagnostic::op).
enum class LayoutOperation : std::uint8_t {
  none = 0,
  size,             // the product of the extents
  cosize,           // 1 + sum of (extent - 1) * stride
  offsets,          // the largest |offset| a layout reaches (sum of |(extent - 1) * stride|)
  coalesce,         // merging two modes: extent * stride, extent * extent
  complement,       // the extent a mode spans: extent * stride
  composition,      // a left-hand stride times the right-hand stride (or the extent divided out)
  logical_product,  // size(A) * cosize(B), the complement's target
};

TMAKIT_HD constexpr const char* operation_name(LayoutOperation o) {
  switch (o) {
    case LayoutOperation::none: return "";
    case LayoutOperation::size: return "size";
    case LayoutOperation::cosize: return "cosize";
    case LayoutOperation::offsets: return "offsets";
    case LayoutOperation::coalesce: return "coalesce";
    case LayoutOperation::complement: return "complement";
    case LayoutOperation::composition: return "composition";
    case LayoutOperation::logical_product: return "logical_product";
  }
  return "?";
}

// `text` says in one line what the input does wrong (`ok`: a note, no refusal); the words with the
// numbers, and the fixes, come from message() / fix() (host only).
TMAKIT_HD constexpr RuleTable<LayoutRule, 21> rule_table(LayoutRule) {
  return {{
      {LayoutRule::ok, "layout.ok", "", "no refusal", Severity::note},
      {LayoutRule::capacity, "layout.capacity", "result",
       "the result needs more than tmakit's fixed capacity (IntTuple nodes; F2 linear layouts: bits, dimensions, "
       "name characters)"},
      {LayoutRule::not_congruent, "layout.not_congruent", "shape, stride",
       "shape and stride (or coordinate and shape) differ in structure"},
      {LayoutRule::bad_shape, "layout.bad_shape", "shape", "a shape leaf (or size) below 1"},
      {LayoutRule::negative_stride, "layout.negative_stride", "stride",
       "a negative stride where the operation needs non-negative ones"},
      {LayoutRule::composition_stride, "layout.composition.stride_divisibility", "right-hand layout",
       "composition: a right-hand stride at least a left-hand extent and not a multiple of it"},
      {LayoutRule::composition_shape, "layout.composition.shape_divisibility", "right-hand layout",
       "composition: a right-hand extent that is not a multiple of the part a left-hand mode takes"},
      {LayoutRule::complement_not_injective, "layout.complement.not_injective", "layout",
       "complement: two modes overlap (the layout is not injective)"},
      {LayoutRule::complement_not_divisible, "layout.complement.stride_divisibility", "layout",
       "complement: a stride is not a multiple of the extent spanned below it (no longer issued: CuTe's "
       "complement accepts such gaps)"},
      {LayoutRule::tiler_rank, "layout.tiler.rank", "tiler", "a by-mode tiler with more modes than the layout"},
      {LayoutRule::not_injective, "layout.inverse.not_injective", "layout",
       "left inverse of a layout that is not injective"},
      {LayoutRule::swizzle_elem_bytes, "layout.swizzle.elem_bytes", "element size",
       "an element size that does not divide the swizzle chunk (2^M bytes)"},
      {LayoutRule::not_power_of_two, "layout.linear.not_power_of_two", "layout",
       "F2 linear layouts: an extent or stride that is not a power of two"},
      {LayoutRule::not_bijective, "layout.linear.not_bijective", "linear layout",
       "F2 linear layouts: inverse of a map that is not bijective"},
      {LayoutRule::dims_mismatch, "layout.linear.dims_mismatch", "linear layout",
       "F2 linear layouts: the two maps do not share the named dimension"},
      {LayoutRule::not_linear, "layout.linear.not_linear", "layout",
       "F2 linear layouts: two input bits land on one output bit (carries)"},
      {LayoutRule::size_range, "layout.size_range", "shape", "a shape of more than 2^62 elements"},
      {LayoutRule::overflow, "layout.overflow", "layout",
       "a product or sum of extents and strides that does not fit in 64 bits"},
      {LayoutRule::too_large_to_draw, "layout.too_large_to_draw", "layout",
       "a layout with more elements than a table or picture may have"},
      {LayoutRule::left_inverse_divisibility, "layout.inverse.stride_divisibility", "layout",
       "left inverse: a stride is not a multiple of the next smaller stride (CuTe's left inverse divisibility condition)"},
      {LayoutRule::product_rank, "layout.product.rank", "layouts",
       "blocked/raked product: the block and the layout of the blocks do not pair up mode by mode"},
  }};
}
static_assert(rule_table_well_formed(rule_table(LayoutRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<LayoutRule> == static_cast<int>(LayoutRule::product_rank) + 1, "a row for every enum value");

struct LayoutDiagnostic {
  LayoutRule rule = LayoutRule::ok;
  std::int32_t mode = -1;  // the (flattened) mode it concerns, -1 for none
  std::int64_t a = 0, b = 0;  // the numbers (see the enum)
  LayoutOperation op = LayoutOperation::none;  // layout.overflow: the operation whose arithmetic overflowed
  TMAKIT_HD constexpr bool ok() const { return rule == LayoutRule::ok; }
};

// The result of a layout operation: its value, or why it was refused (diagnostic; value is then
// default). LayoutResult, IntResult, LinearLayoutResult, ... are this template.
template <class T>
struct LayoutOpResult {
  T value{};
  LayoutDiagnostic diagnostic{};
  TMAKIT_HD constexpr bool ok() const { return diagnostic.ok(); }
};

TMAKIT_HD constexpr LayoutDiagnostic make_diagnostic(LayoutRule r, int mode = -1, std::int64_t a = 0,
                                                     std::int64_t b = 0) {
  return {r, mode, a, b, LayoutOperation::none};
}

// layout.overflow: operation `op`, leaf `mode` (-1 for none), operands a and b.
TMAKIT_HD constexpr LayoutDiagnostic overflow_diagnostic(LayoutOperation op, int mode, std::int64_t a,
                                                         std::int64_t b) {
  return {LayoutRule::overflow, mode, a, b, op};
}

}  // namespace tmakit

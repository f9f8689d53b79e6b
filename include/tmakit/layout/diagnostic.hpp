// Why a layout operation refused, as plain data (usable in constexpr and device code). The words
// and the fix are produced on the host by message() / fix() (src/layout/diagnostic.cpp).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// Stable rule ids; rule_id() gives the string form used in JSON and messages. Append only.
enum class LayoutRule : std::uint16_t {
  ok = 0,
  capacity,                    // the result needs more than IntTuple::kMaxNodes nodes
  not_congruent,               // shape and stride (or coordinate and shape) differ in structure
  bad_shape,                   // a shape leaf < 1
  negative_stride,             // an operation defined for non-negative strides only
  composition_stride,          // composition: rhs stride a (mode b) neither divides nor is divided by lhs shape
  composition_shape,           // composition: rhs shape a does not split lhs shape b
  complement_not_injective,    // complement: two modes overlap (stride a < current extent b)
  complement_not_divisible,    // complement: stride a is not a multiple of the extent b below it
  tiler_rank,                  // by-mode tiler has more modes (a) than the layout (b)
  not_injective,               // left_inverse of a non-injective layout
  swizzle_elem_bytes,          // elem_bytes a does not divide the swizzle chunk 2^M = b bytes
  not_power_of_two,            // F2 linear layouts: extent or stride a is not a power of two
  not_bijective,               // F2 linear layout inverse of a non-bijective map
  dims_mismatch,               // F2 linear layouts: the two maps do not share the named dimension
  not_linear,                  // F2 linear layouts: two input bits land on output bit a (carries)
  size_range,                  // the shape has more than 2^62 elements: leaf `mode` (extent a) after b
};

TMAKIT_HD constexpr const char* rule_id(LayoutRule r) {
  switch (r) {
    case LayoutRule::ok: return "layout.ok";
    case LayoutRule::capacity: return "layout.capacity";
    case LayoutRule::not_congruent: return "layout.not_congruent";
    case LayoutRule::bad_shape: return "layout.bad_shape";
    case LayoutRule::negative_stride: return "layout.negative_stride";
    case LayoutRule::composition_stride: return "layout.composition.stride_divisibility";
    case LayoutRule::composition_shape: return "layout.composition.shape_divisibility";
    case LayoutRule::complement_not_injective: return "layout.complement.not_injective";
    case LayoutRule::complement_not_divisible: return "layout.complement.stride_divisibility";
    case LayoutRule::tiler_rank: return "layout.tiler.rank";
    case LayoutRule::not_injective: return "layout.inverse.not_injective";
    case LayoutRule::swizzle_elem_bytes: return "layout.swizzle.elem_bytes";
    case LayoutRule::not_power_of_two: return "layout.linear.not_power_of_two";
    case LayoutRule::not_bijective: return "layout.linear.not_bijective";
    case LayoutRule::dims_mismatch: return "layout.linear.dims_mismatch";
    case LayoutRule::not_linear: return "layout.linear.not_linear";
    case LayoutRule::size_range: return "layout.size_range";
  }
  return "layout.unknown";
}

struct LayoutDiagnostic {
  LayoutRule rule = LayoutRule::ok;
  std::int32_t mode = -1;  // the (flattened) mode it concerns, -1 for none
  std::int64_t a = 0, b = 0;  // the numbers (see the enum)
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
  return {r, mode, a, b};
}

}  // namespace tmakit

// Words and fixes for layout refusals (see tmakit/layout/diagnostic.hpp for the rule ids).
#include <string>

#include "tmakit/layout/notation.hpp"

namespace tmakit {
namespace {
std::string n(std::int64_t v) { return std::to_string(v); }
std::string mode_of(const LayoutDiagnostic& d) { return d.mode >= 0 ? "mode " + n(d.mode) : "the layout"; }
}  // namespace

std::string message(const LayoutDiagnostic& d) {
  const std::string head = std::string(rule_id(d.rule)) + ": ";
  switch (d.rule) {
    case LayoutRule::ok: return "ok";
    case LayoutRule::capacity:
      return head + "the result exceeds tmakit's fixed capacity of " + n(d.a) +
             " (IntTuple nodes; for F2 linear layouts: bits, dimensions or name characters)";
    case LayoutRule::not_congruent: return head + "shape and stride (or coordinate and shape) differ in structure";
    case LayoutRule::bad_shape:
      if (d.mode < 0) return head + "the size " + n(d.a) + " is below 1 (e.g. complement's N); sizes must be >= 1";
      return head + "shape leaf " + n(d.mode) + " is " + n(d.a) + "; extents must be >= 1";
    case LayoutRule::negative_stride:
      return head + "leaf " + n(d.mode) + " has stride " + n(d.a) + "; this operation needs non-negative strides";
    case LayoutRule::composition_stride:
      return head + "the right-hand stride " + n(d.a) + " is at least the left-hand extent " + n(d.b) +
             " and not a multiple of it (left " + mode_of(d) + "; CuTe's Stride Divisibility Condition)";
    case LayoutRule::composition_shape:
      return head + "the right-hand extent " + n(d.a) + " is not a multiple of " + n(d.b) + ", the part of it that left " +
             mode_of(d) + " takes after dividing out the stride (CuTe's Shape Divisibility Condition)";
    case LayoutRule::complement_not_injective:
      return head + "a mode with stride " + n(d.a) + " starts inside the " + n(d.b) +
             " offsets spanned by the modes with smaller strides: the layout is not injective (or its modes interleave)";
    case LayoutRule::complement_not_divisible:
      return head + "a mode has stride " + n(d.a) + ", not a multiple of " + n(d.b) +
             " (the extent spanned by the modes with smaller strides): no layout fills the gap";
    case LayoutRule::tiler_rank:
      return head + "the tiler has " + n(d.a) + " modes but the layout only " + n(d.b);
    case LayoutRule::not_injective:
      return head + mode_of(d) + " maps two indices to the same offset: the layout is not injective";
    case LayoutRule::swizzle_elem_bytes:
      return head + "elements of " + n(d.a) + " bytes do not divide the swizzle's " + n(d.b) +
             "-byte chunk, so swizzled addresses are not whole element offsets";
    case LayoutRule::not_power_of_two:
      return head + mode_of(d) + " has extent or stride " + n(d.a) + ", not a power of two (F2 linear layouts need powers of two)";
    case LayoutRule::not_bijective:
      return head + "the linear layout (" + n(d.a) + " input bits -> " + n(d.b) +
             " output bits) is not bijective (or, for a right inverse, not surjective)";
    case LayoutRule::dims_mismatch:
      return head + "the dimensions do not match (" + n(d.a) + " vs " + n(d.b) +
             "): compose needs the inner map's output bits to equal the outer map's input bits, linear_from_layout "
             "one input name per top-level mode";
    case LayoutRule::not_linear:
      return head + "two input bits land on offset bit " + n(d.a) + " (leaf " + n(d.mode) +
             "): the strides add with carries, so the layout is not linear over GF(2)";
    case LayoutRule::size_range:
      return head + "shape leaf " + n(d.mode) + " (extent " + n(d.a) + ") after leaves of " + n(d.b) +
             " elements makes more than 2^62 = " + n(kMaxLayoutSize) + " elements, the most a layout may have";
    case LayoutRule::overflow: {
      const std::string op = d.op == LayoutOperation::none ? std::string("the layout") : operation_name(d.op);
      const std::string where = d.mode >= 0 ? " at leaf " + n(d.mode) : std::string();
      switch (d.op) {
        case LayoutOperation::cosize:
        case LayoutOperation::offsets:
          return head + op + where + ": extent " + n(d.a) + " with stride " + n(d.b) +
                 " reaches an offset that does not fit in 64 bits";
        default:
          return head + op + where + ": " + n(d.a) + " * " + n(d.b) + " does not fit in 64 bits";
      }
    }
    case LayoutRule::left_inverse_divisibility:
      return head + "leaf " + n(d.mode) + " has stride " + n(d.a) + ", not a multiple of the next smaller stride " + n(d.b) +
             " (CuTe's left inverse divisibility condition)";
    case LayoutRule::product_rank:
      return head + "the block part has " + (d.a == 0 ? std::string("an integral shape") : n(d.a) + " modes") +
             " but the tile part " + (d.b == 0 ? std::string("an integral shape") : n(d.b) + " modes") +
             ": CuTe's zip of the two does not compile";
    case LayoutRule::too_large_to_draw:
      return head + "the layout has " + n(d.a) + " elements; a table or picture draws at most " + n(d.b);
  }
  return head + "unknown rule";
}

std::string fix(const LayoutDiagnostic& d) {
  switch (d.rule) {
    case LayoutRule::ok: return "";
    case LayoutRule::capacity:
      return "use fewer or flatter modes (coalesce the inputs first); F2 linear layouts take at most " +
             n(LinearLayout::kMaxDims) + " dimensions of at most 64 bits, named in at most " + n(LinearDim::kMaxName) +
             " characters";
    case LayoutRule::not_congruent: return "give the stride exactly the parentheses of the shape";
    case LayoutRule::bad_shape: return d.mode < 0 ? "give a size (N) >= 1" : "use extents >= 1";
    case LayoutRule::negative_stride: return "reverse the mode (use a positive stride) before this operation";
    case LayoutRule::composition_stride:
    case LayoutRule::composition_shape:
      return "make the right-hand layout's strides and extents divide (or be multiples of) the left-hand extents, "
             "e.g. tile by a divisor of the left-hand mode, or regroup the left-hand modes";
    case LayoutRule::complement_not_injective: return "complement needs an injective layout; remove the overlapping mode";
    case LayoutRule::complement_not_divisible:
      return "choose strides that are multiples of the extent below them (each stride a multiple of the previous shape*stride)";
    case LayoutRule::tiler_rank: return "give at most one tiler per mode of the layout";
    case LayoutRule::not_injective: return "only injective layouts (distinct offsets) have a left inverse";
    case LayoutRule::swizzle_elem_bytes:
      return "use byte offsets (swizzle(L(c) * E)) for this element size, or a swizzle whose chunk 2^M is a multiple of it";
    case LayoutRule::not_power_of_two: return "use power-of-two extents and strides, or the CuTe algebra instead";
    case LayoutRule::not_bijective: return "invert only square full-rank maps; for a surjective map use right_inverse";
    case LayoutRule::dims_mismatch:
      return "compose maps whose bit dimensions agree; give linear_from_layout exactly one name per top-level mode";
    case LayoutRule::not_linear: return "give every mode its own power-of-two stride range (no two modes overlapping)";
    case LayoutRule::size_range:
      return d.b >= 1 && d.b <= kMaxLayoutSize
                 ? "make shape leaf " + n(d.mode) + " at most " + n(kMaxLayoutSize / d.b) +
                       " (or the leaves before it smaller): at most 2^62 elements in all"
                 : "use at most 2^62 elements in all";
    case LayoutRule::overflow:
      return "use smaller extents or strides: every size, stride and offset the operation computes must fit in a "
             "signed 64-bit integer";
    case LayoutRule::left_inverse_divisibility:
      return "give the layout strides that are each a multiple of the next smaller one, e.g. (4,8):(1,4)";
    case LayoutRule::product_rank:
      return "give the block and the tiler as tuples of the same rank, e.g. (4):(1) and (2):(1), or both as integral layouts";
    case LayoutRule::too_large_to_draw:
      return "draw a slice: compose with a smaller tiler and draw that, e.g. `tmakit layout composition A '(32,32)' "
             "--svg FILE`, or print the composition's result";
  }
  return "";
}

}  // namespace tmakit

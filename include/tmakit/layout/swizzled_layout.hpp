// SwizzledLayout: a shared-memory tile as CuTe's ComposedLayout `Sw<B,M,S> o L`, with tmakit's unit
// convention made explicit:
//   - the layout L maps coordinates to ELEMENT offsets;
//   - the swizzle acts on BYTE offsets (include/tmakit/layout/swizzle.hpp), as TMA and the hardware
//     apply it to the shared-memory address.
// The byte address of coordinate c for elements of E bytes is  swizzle(L(c) * E), relative to a
// buffer aligned to swizzle.base_alignment(). Converting back to an element offset divides by E,
// which is exact only when E divides the swizzle's 2^M-byte chunk (the swizzle never moves bytes
// inside a chunk); otherwise the conversion is refused (rule layout.swizzle.elem_bytes).
//
//   Sw<3,4,3> o (64,64):(64,1) with bf16: 128-byte rows of 64 elements, the 128B TMA swizzle.
#pragma once

#include <cstdint>

#include "tmakit/core/bits.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/swizzle.hpp"

namespace tmakit {

struct SwizzledLayout {
  SwizzleParams swizzle{};  // BYTE units; bits == 0 is the identity
  Layout layout{};          // ELEMENT offsets

  TMAKIT_HD constexpr std::int64_t size() const { return layout.size(); }
  // Swizzled byte offset of linear index i / of a coordinate, for elements of elem_bytes bytes.
  TMAKIT_HD constexpr std::uint64_t byte_offset(std::int64_t index, std::uint64_t elem_bytes) const {
    return swizzle(static_cast<std::uint64_t>(layout(index)) * elem_bytes);
  }
  TMAKIT_HD constexpr std::uint64_t byte_offset(const IntTuple& coord, std::uint64_t elem_bytes,
                                                bool* ok = nullptr) const {
    return swizzle(static_cast<std::uint64_t>(layout(coord, ok)) * elem_bytes);
  }
  // The base alignment (bytes) the shared-memory buffer needs.
  TMAKIT_HD constexpr std::uint64_t base_alignment() const { return swizzle.base_alignment(); }

  friend TMAKIT_HD constexpr bool operator==(const SwizzledLayout& a, const SwizzledLayout& b) {
    // Every B = 0 swizzle is the identity, whatever M and S say.
    const bool same_swizzle = a.swizzle.bits == b.swizzle.bits &&
                              (a.swizzle.bits == 0 || (a.swizzle.base == b.swizzle.base && a.swizzle.shift == b.swizzle.shift));
    return same_swizzle && a.layout == b.layout;
  }
};

// Whether elements of elem_bytes bytes can be addressed in element units under this swizzle:
// elem_bytes must be a power of two dividing the 2^M-byte chunk (always true for the identity).
TMAKIT_HD constexpr LayoutDiagnostic check_elem_bytes(const SwizzleParams& sw, std::uint64_t elem_bytes) {
  const bool pow2 = elem_bytes != 0 && (elem_bytes & (elem_bytes - 1)) == 0;
  const std::uint64_t chunk = std::uint64_t{1} << sw.base;
  if (!pow2 || (sw.bits != 0 && chunk % elem_bytes != 0))
    return make_diagnostic(LayoutRule::swizzle_elem_bytes, -1, static_cast<std::int64_t>(elem_bytes),
                           static_cast<std::int64_t>(chunk));
  return {};
}

// The element-unit swizzle equivalent to the byte swizzle for elem_bytes-byte elements:
// Sw<B,M,S> on bytes == Sw<B,M-log2(E),S> on elements, when E divides 2^M.
// value: the swizzle.
using ElementSwizzleResult = LayoutOpResult<SwizzleParams>;
TMAKIT_HD constexpr ElementSwizzleResult element_swizzle(const SwizzleParams& sw, std::uint64_t elem_bytes) {
  const LayoutDiagnostic d = check_elem_bytes(sw, elem_bytes);
  if (!d.ok()) return {sw, d};
  SwizzleParams e = sw;
  if (sw.bits != 0) e.base = sw.base - log2_exact(static_cast<std::int64_t>(elem_bytes));
  return {e, {}};
}

// The inverse of element_swizzle: the byte swizzle equivalent to an element-unit swizzle for
// elem_bytes-byte elements, Sw<B,M,S> on elements == Sw<B,M+log2(E),S> on bytes. Refused
// (layout.swizzle.elem_bytes) unless elem_bytes is a power of two (at most 2^62).
TMAKIT_HD constexpr ElementSwizzleResult byte_swizzle(const SwizzleParams& element_sw, std::uint64_t elem_bytes) {
  const int log2e = elem_bytes <= (std::uint64_t{1} << 62) ? log2_exact(static_cast<std::int64_t>(elem_bytes)) : -1;
  if (log2e < 0)
    return {element_sw, make_diagnostic(LayoutRule::swizzle_elem_bytes, -1, static_cast<std::int64_t>(elem_bytes),
                                        std::int64_t{1} << element_sw.base)};
  SwizzleParams b = element_sw;
  if (element_sw.bits != 0) b.base = element_sw.base + log2e;
  return {b, {}};
}

}  // namespace tmakit

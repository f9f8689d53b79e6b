// Shared-memory swizzles as functions on BYTE offsets (CuTe semantics).
//
// Swizzle<B, M, S>(o) = o ^ ((o >> S) & (((1 << B) - 1) << M)): the B "yyy" bits at
// [M + S, M + S + B) are XORed into the B "zzz" bits at [M, M + B). Everything below bit M (the
// 2^M-byte chunk) and above bit M + S + B is left alone. The pattern repeats every 2^(M+S+B) bytes,
// and the hardware applies it to the shared-memory ADDRESS, so a buffer must be aligned to
// base_alignment() for offsets relative to the buffer to agree with it. Which swizzle each TMA
// swizzle mode applies is stated one layer up (tensor_map/swizzle_modes.hpp, swizzle_for()).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// Swizzle<B, M, S> as a value (CuTe's Swizzle, at run time). bits == 0 is the identity. For elements
// instead of bytes see element_swizzle / byte_swizzle (swizzled_layout.hpp).
struct SwizzleParams {
  int bits = 0;   // B
  int base = 4;   // M (bytes: 2^M-byte chunks)
  int shift = 3;  // S
  bool supported = true;   // false: B/M/S do not model the whole pattern it stands for
  bool verified = true;    // false: the pattern is taken from documentation, not checked on silicon
  TMAKIT_HD constexpr std::uint64_t zzz_mask() const { return ((std::uint64_t{1} << bits) - 1) << base; }
  // Byte offset -> swizzled byte offset. An involution: applying it twice gives o back.
  TMAKIT_HD constexpr std::uint64_t operator()(std::uint64_t o) const {
    return o ^ ((o & (zzz_mask() << shift)) >> shift);
  }
  // Alignment (bytes) the buffer base needs: one full repeat of the pattern.
  TMAKIT_HD constexpr std::uint64_t base_alignment() const {
    return bits == 0 ? 1 : std::uint64_t{1} << (base + shift + bits);
  }
};

}  // namespace tmakit

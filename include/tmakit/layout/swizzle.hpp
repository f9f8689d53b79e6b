// Shared-memory swizzles as functions on BYTE offsets (CuTe semantics), and the map from the
// tensor-map swizzle modes to them.
//
// Swizzle<B, M, S>(o) = o ^ ((o >> S) & (((1 << B) - 1) << M)): the B "yyy" bits at
// [M + S, M + S + B) are XORed into the B "zzz" bits at [M, M + B). Everything below bit M (the
// 2^M-byte chunk) and above bit M + S + B is left alone. The pattern repeats every 2^(M+S+B) bytes,
// and TMA applies it to the shared-memory ADDRESS, so a buffer must be aligned to base_alignment()
// for offsets relative to the buffer to agree with the hardware.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

// Swizzle<B, M, S> as a value (CuTe's Swizzle, at run time), as selected by swizzle_for(). bits == 0
// is the identity. For elements instead of bytes see element_swizzle / byte_swizzle
// (swizzled_layout.hpp).
struct SwizzleParams {
  int bits = 0;   // B
  int base = 4;   // M (bytes: 2^M-byte chunks)
  int shift = 3;  // S
  bool supported = true;   // false: no model (identity returned by apply)
  bool verified = true;    // false: derived from cuda.h comments only, not checked on silicon
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

// Tensor-map swizzle mode -> byte swizzle.
//   32B  = Swizzle<1,4,3>: bit 7 into bit 4 (16 B chunks within 32 B, repeats every 256 B)
//   64B  = Swizzle<2,4,3>: bits 7..8 into 4..5 (repeats every 512 B)
//   128B = Swizzle<3,4,3>: bits 7..9 into 4..6 (repeats every 1024 B)
// sm_100 modes, from the cuda.h comments only (UNVERIFIED on silicon):
//   128B_ATOM_32B = Swizzle<2,5,2>: 32 B chunks within a 128 B row, bits 7..8 into 5..6
//   128B_ATOM_64B = Swizzle<1,6,1>: 64 B chunks within a 128 B row, bit 7 into bit 6
//   128B_ATOM_32B_FLIP_8B: Swizzle<2,5,2> plus "swap lower 8B with upper 8B within each 16B for
//   every alternate row": not modelled (supported = false).
TMAKIT_HD constexpr SwizzleParams swizzle_for(Swizzle s) {
  switch (s) {
    case Swizzle::none: return {};
    case Swizzle::b32: return {1, 4, 3, true, true};
    case Swizzle::b64: return {2, 4, 3, true, true};
    case Swizzle::b128: return {3, 4, 3, true, true};
    case Swizzle::b128_atom_32b: return {2, 5, 2, true, false};
    case Swizzle::b128_atom_64b: return {1, 6, 1, true, false};
    case Swizzle::b128_atom_32b_flip_8b: return {2, 5, 2, false, false};
  }
  return {0, 4, 3, false, false};
}

// The inverse of swizzle_for() over the sm_90 modes: the TMA swizzle mode whose pattern is the
// byte-unit swizzle `s`, or false when TMA has none (an identity of any M/S is Swizzle::none).
TMAKIT_HD constexpr bool tma_swizzle_of(const SwizzleParams& s, Swizzle& out) {
  if (s.bits == 0) {
    out = Swizzle::none;
    return true;
  }
  constexpr Swizzle kModes[] = {Swizzle::b32, Swizzle::b64, Swizzle::b128};
  for (Swizzle m : kModes) {
    const SwizzleParams t = swizzle_for(m);
    if (t.bits == s.bits && t.base == s.base && t.shift == s.shift) {
      out = m;
      return true;
    }
  }
  return false;
}

}  // namespace tmakit

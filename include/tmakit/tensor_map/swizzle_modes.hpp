// The TMA swizzle modes: one table row per CUtensorMapSwizzle value, holding every fact about a
// mode that the library uses (its names, the bits the 128-byte map stores, the byte swizzle it
// applies to shared-memory addresses, the alignment the map stores, the tensor-core operand layout
// type it corresponds to). Encode, decode, validate, the planners, the names and the device code
// read these rows; nothing else states them.
//
// The rows live in a TMAKIT_HD constexpr function (a namespace-scope constexpr array would be a
// host-only object to nvcc), so they serve constant expressions, host and device code alike. For a
// mode known only at run time, the numeric fields are read through swizzle_column(): each column is
// packed into one 64-bit constant at compile time and read with a shift, no memory access and no
// branch (g++ copies a local array indexed at run time to the stack on every call; these accessors
// sit on the encoder's general path and in device code).
#pragma once

#include <cstdint>
#include <utility>

#include "tmakit/core/config.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

// A tensor-core descriptor field value for "this mode has no operand layout type".
inline constexpr std::uint32_t kNoOperandLayout = 0xff;

struct SwizzleMode {
  Swizzle mode;
  const char* name;            // the canonical name, printed and parsed (names.hpp): the cuda.h suffix
  const char* cuda_name;       // the cuda.h enumerator (names.hpp also parses it)
  std::uint32_t hw_mode;       // tmap_fields::kSwizzle: the mode bits the map stores
  std::uint32_t hw_atomicity;  // tmap_fields::kSwizzleAtomicity: non-zero for the sm_100 128B_ATOM modes
  const char* atomicity_name;  // what the atomicity bits mean, as decode prints them
  std::uint32_t span_bytes;    // bytes of one swizzled row; 0 without swizzle
  SwizzleParams bytes;         // the pattern on byte addresses, Swizzle<B,M,S> (+ modelled / verified)
  std::uint32_t smem_alignment;  // the map's kSmemAlignment field: 16 without swizzle, else 8 rows of the span
  std::uint32_t wgmma_layout;  // sm_90 wgmma matrix descriptor, bits 62-63 (kNoOperandLayout: none)
  std::uint32_t umma_layout;   // sm_100 tcgen05 shared-memory descriptor, bits 61-63 (kNoOperandLayout: none)
};

// The row of `s`; for a value outside the enum, a row with null names, no span, an unmodelled
// identity swizzle and the largest alignment any mode needs (1024).
//
// Sources: the mode bits, the span, the sm_90 patterns and the alignments were read off the driver's
// output and checked on sm_90 silicon (docs/tensor_map_format.md; tests/test_driver_vectors.cpp,
// tests/test_swizzle.cpp, tests/gpu/test_tma_load.cu). The atomicity bits come from the SASS ptxas
// emits for tensormap.replace.swizzle_atomicity on sm_100a, the 128B_ATOM patterns from the cuda.h
// comments ("32B" / "64B" atomicity: 32 B / 64 B chunks within a 128 B row), and their alignment is
// the 128B mode's; none of these is checked on silicon (verified = false), and the 8-byte flip of
// 128B_ATOM_32B_FLIP_8B is not modelled (supported = false). The wgmma values are the PTX ISA's
// matrix-descriptor swizzle modes (1 128B, 2 64B, 3 32B) and the tcgen05 values its
// shared-memory-descriptor layout types (1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B); 0 is the
// unswizzled (interleaved core-matrix) layout in both.
TMAKIT_HD constexpr SwizzleMode swizzle_mode_row(Swizzle s) {
  constexpr SwizzleMode kRows[] = {
      // mode, name, cuda_name, hw mode, atomicity, atomicity as printed, span, Swizzle<B,M,S>
      // {supported, verified}, alignment, wgmma, tcgen05
      {Swizzle::none, "NONE", "CU_TENSOR_MAP_SWIZZLE_NONE", 0, 0, "16B (none)", 0, {0, 4, 3, true, true}, 16, 0, 0},
      {Swizzle::b32, "32B", "CU_TENSOR_MAP_SWIZZLE_32B", 1, 0, "16B (none)", 32, {1, 4, 3, true, true}, 256, 3, 6},
      {Swizzle::b64, "64B", "CU_TENSOR_MAP_SWIZZLE_64B", 2, 0, "16B (none)", 64, {2, 4, 3, true, true}, 512, 2, 4},
      {Swizzle::b128, "128B", "CU_TENSOR_MAP_SWIZZLE_128B", 3, 0, "16B (none)", 128, {3, 4, 3, true, true}, 1024, 1,
       2},
      {Swizzle::b128_atom_32b, "128B_ATOM_32B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", 3, 1, "32B", 128,
       {2, 5, 2, true, false}, 1024, kNoOperandLayout, 1},
      {Swizzle::b128_atom_32b_flip_8b, "128B_ATOM_32B_FLIP_8B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B", 3, 2,
       "32B + 8B flip", 128, {2, 5, 2, false, false}, 1024, kNoOperandLayout, kNoOperandLayout},
      {Swizzle::b128_atom_64b, "128B_ATOM_64B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B", 3, 3, "64B", 128,
       {1, 6, 1, true, false}, 1024, kNoOperandLayout, kNoOperandLayout},
      // outside the enum
      {static_cast<Swizzle>(kSwizzleCount), nullptr, nullptr, 0, 0, nullptr, 0, {0, 4, 3, false, false}, 1024,
       kNoOperandLayout, kNoOperandLayout},
  };
  static_assert(sizeof(kRows) / sizeof(kRows[0]) == kSwizzleCount + 1, "one row per Swizzle value");
  const auto v = static_cast<std::uint32_t>(s);
  return kRows[v < kSwizzleCount ? v : kSwizzleCount];
}

// The numeric fields that code reads for a mode known only at run time.
enum class SwizzleColumn : std::uint32_t {
  hw_mode,
  hw_atomicity,
  span_bytes,
  smem_alignment_log2,  // log2 of smem_alignment
  swizzle_bits,         // B
  swizzle_base,         // M
  swizzle_shift,        // S
  swizzle_flags,        // bit 0: supported, bit 1: verified
  wgmma_layout,
  umma_layout,
};

namespace swizzle_modes_detail {

TMAKIT_HD constexpr std::uint32_t log2_exact(std::uint32_t v) {
  std::uint32_t l = 0;
  while (v > 1) v >>= 1, ++l;
  return l;
}

TMAKIT_HD constexpr std::uint32_t column_value(const SwizzleMode& r, SwizzleColumn c) {
  switch (c) {
    case SwizzleColumn::hw_mode: return r.hw_mode;
    case SwizzleColumn::hw_atomicity: return r.hw_atomicity;
    case SwizzleColumn::span_bytes: return r.span_bytes;
    case SwizzleColumn::smem_alignment_log2: return log2_exact(r.smem_alignment);
    case SwizzleColumn::swizzle_bits: return static_cast<std::uint32_t>(r.bytes.bits);
    case SwizzleColumn::swizzle_base: return static_cast<std::uint32_t>(r.bytes.base);
    case SwizzleColumn::swizzle_shift: return static_cast<std::uint32_t>(r.bytes.shift);
    case SwizzleColumn::swizzle_flags: return (r.bytes.supported ? 1u : 0u) | (r.bytes.verified ? 2u : 0u);
    case SwizzleColumn::wgmma_layout: return r.wgmma_layout;
    case SwizzleColumn::umma_layout: return r.umma_layout;
  }
  return 0;
}

// Eight 8-bit slots: slot v holds the column of Swizzle(v), slot kSwizzleCount the row outside the enum.
inline constexpr std::uint32_t kSlotBits = 8;
static_assert((kSwizzleCount + 1) * kSlotBits <= 64, "every row's slot fits one 64-bit word");

TMAKIT_HD constexpr std::uint64_t packed_column(SwizzleColumn c) {
  std::uint64_t packed = 0;
  for (std::uint32_t v = 0; v <= kSwizzleCount; ++v)
    packed |= std::uint64_t{column_value(swizzle_mode_row(static_cast<Swizzle>(v)), c)} << (kSlotBits * v);
  return packed;
}

// Every column value fits its slot (packed_column would drop the high bits otherwise).
TMAKIT_HD constexpr bool columns_fit_slots() {
  for (std::uint32_t c = 0; c <= static_cast<std::uint32_t>(SwizzleColumn::umma_layout); ++c)
    for (std::uint32_t v = 0; v <= kSwizzleCount; ++v)
      if (column_value(swizzle_mode_row(static_cast<Swizzle>(v)), static_cast<SwizzleColumn>(c)) >> kSlotBits) return false;
  return true;
}
static_assert(columns_fit_slots());

template <std::size_t... I>
TMAKIT_HD constexpr const char* name_at(std::uint32_t v, std::index_sequence<I...>) {
  const char* name = nullptr;
  ((v == I ? (name = swizzle_mode_row(static_cast<Swizzle>(I)).name, 0) : 0), ...);
  return name;
}

}  // namespace swizzle_modes_detail

// Column `C` of the row of `s` (values outside the enum: the row outside the enum).
template <SwizzleColumn C>
TMAKIT_HD constexpr std::uint32_t swizzle_column(Swizzle s) {
  constexpr std::uint64_t kPacked = swizzle_modes_detail::packed_column(C);
  const auto v = static_cast<std::uint32_t>(s);
  const std::uint32_t slot = v < kSwizzleCount ? v : kSwizzleCount;
  return static_cast<std::uint32_t>(kPacked >> (swizzle_modes_detail::kSlotBits * slot)) & 0xffu;
}

// The canonical name of `s` ("128B"), or nullptr outside the enum. Each comparison reads a row at a
// constant index, so this folds to a chain of selects in device code too.
TMAKIT_HD constexpr const char* swizzle_name(Swizzle s) {
  return swizzle_modes_detail::name_at(static_cast<std::uint32_t>(s), std::make_index_sequence<kSwizzleCount>{});
}

// Span in bytes of a swizzle pattern's row (0 for none / invalid).
TMAKIT_HD constexpr std::uint32_t swizzle_span_bytes(Swizzle s) { return swizzle_column<SwizzleColumn::span_bytes>(s); }

// True for the sm_100 128B_ATOM modes (those with atomicity bits), which sm_90 does not have.
TMAKIT_HD constexpr bool is_atom_swizzle(Swizzle s) { return swizzle_column<SwizzleColumn::hw_atomicity>(s) != 0; }

// Tensor-map swizzle mode -> the byte swizzle TMA applies to shared-memory addresses (the table's
// Swizzle<B,M,S>): 32B = Swizzle<1,4,3> (bit 7 into bit 4, repeats every 256 B), 64B =
// Swizzle<2,4,3> (bits 7..8 into 4..5, 512 B), 128B = Swizzle<3,4,3> (bits 7..9 into 4..6, 1024 B);
// 128B_ATOM_32B = Swizzle<2,5,2> (32 B chunks within a 128 B row), 128B_ATOM_64B = Swizzle<1,6,1>
// (64 B chunks), both unverified; 128B_ATOM_32B_FLIP_8B has no model (supported = false). Outside
// the enum: an unmodelled identity.
TMAKIT_HD constexpr SwizzleParams swizzle_for(Swizzle s) {
  const std::uint32_t flags = swizzle_column<SwizzleColumn::swizzle_flags>(s);
  return {static_cast<int>(swizzle_column<SwizzleColumn::swizzle_bits>(s)),
          static_cast<int>(swizzle_column<SwizzleColumn::swizzle_base>(s)),
          static_cast<int>(swizzle_column<SwizzleColumn::swizzle_shift>(s)), (flags & 1u) != 0, (flags & 2u) != 0};
}

// The inverse of swizzle_for() over the sm_90 modes (the rows without atomicity bits): the TMA
// swizzle mode whose pattern is the byte-unit swizzle `s`, or false when TMA has none (an identity
// of any M/S is Swizzle::none).
TMAKIT_HD constexpr bool tma_swizzle_of(const SwizzleParams& s, Swizzle& out) {
  if (s.bits == 0) {
    out = Swizzle::none;
    return true;
  }
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const auto m = static_cast<Swizzle>(v);
    if (is_atom_swizzle(m)) continue;
    const SwizzleParams t = swizzle_for(m);
    if (t.bits == s.bits && t.base == s.base && t.shift == s.shift) {
      out = m;
      return true;
    }
  }
  return false;
}

// The mode whose row holds these map bits (tmap_fields::kSwizzle, kSwizzleAtomicity), or false when
// none does.
TMAKIT_HD constexpr bool swizzle_from_hw(std::uint32_t hw_mode, std::uint32_t hw_atomicity, Swizzle& out) {
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const auto m = static_cast<Swizzle>(v);
    if (swizzle_column<SwizzleColumn::hw_mode>(m) == hw_mode &&
        swizzle_column<SwizzleColumn::hw_atomicity>(m) == hw_atomicity) {
      out = m;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The table pinned: the cuda.h integers (CUtensorMapSwizzle) and the facts each row must agree with.
namespace swizzle_modes_detail {

// `text` equals `prefix` followed by `rest`.
TMAKIT_HD constexpr bool is_concat(const char* text, const char* prefix, const char* rest) {
  if (!text || !prefix || !rest) return false;
  while (*prefix)
    if (*text++ != *prefix++) return false;
  while (*rest)
    if (*text++ != *rest++) return false;
  return *text == '\0';
}

TMAKIT_HD constexpr bool rows_consistent() {
  for (std::uint32_t v = 0; v < kSwizzleCount; ++v) {
    const SwizzleMode r = swizzle_mode_row(static_cast<Swizzle>(v));
    const SwizzleParams& b = r.bytes;
    if (static_cast<std::uint32_t>(r.mode) != v) return false;  // row v is Swizzle(v)
    if (!is_concat(r.cuda_name, "CU_TENSOR_MAP_SWIZZLE_", r.name)) return false;
    // the map's mode bits: the value itself up to 128B; the 128B_ATOM modes are 128B plus atomicity
    if (r.hw_mode != (v < 3 ? v : 3) || r.hw_atomicity != (v < 3 ? 0 : v - 3)) return false;
    if (v == 0) {
      if (r.span_bytes != 0 || b.bits != 0 || r.smem_alignment != 16) return false;
      continue;
    }
    // a swizzled row spans the 2^M-byte chunks the B bits permute, and the map asks for 8 rows
    if (r.span_bytes != (1u << (b.base + b.bits)) || r.smem_alignment != 8 * r.span_bytes) return false;
    // the sm_90 modes: 16-byte chunks, the row index taken from bits 7.., aligned to one repeat
    if (r.hw_atomicity == 0 && (b.base != 4 || b.shift != 3 || b.base_alignment() != r.smem_alignment)) return false;
    if (!b.supported && b.verified) return false;
  }
  return true;
}

}  // namespace swizzle_modes_detail

static_assert(swizzle_modes_detail::rows_consistent());
// CUtensorMapSwizzle: the enumerators in cuda.h order, from 0 (tests/gpu/compile_check.cu checks the
// integers against cuda.h itself).
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(Swizzle::none).cuda_name, "CU_TENSOR_MAP_SWIZZLE_", "NONE"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(1)).name, "", "32B"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(2)).name, "", "64B"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(3)).name, "", "128B"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(4)).name, "", "128B_ATOM_32B"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(5)).name, "", "128B_ATOM_32B_FLIP_8B"));
static_assert(swizzle_modes_detail::is_concat(swizzle_mode_row(static_cast<Swizzle>(6)).name, "", "128B_ATOM_64B"));
// 128B: span 128, Swizzle<3,4,3>, repeat and alignment 1024 (docs/tensor_map_format.md); 64B and 32B
// likewise at 512 and 256 bytes.
static_assert(swizzle_span_bytes(Swizzle::b128) == 128 && swizzle_span_bytes(Swizzle::b64) == 64 &&
              swizzle_span_bytes(Swizzle::b32) == 32 && swizzle_span_bytes(Swizzle::none) == 0);
static_assert(swizzle_for(Swizzle::b128).bits == 3 && swizzle_for(Swizzle::b128).base == 4 &&
              swizzle_for(Swizzle::b128).shift == 3 && swizzle_for(Swizzle::b128).base_alignment() == 1024);
static_assert(swizzle_for(Swizzle::b64).bits == 2 && swizzle_for(Swizzle::b64).base_alignment() == 512);
static_assert(swizzle_for(Swizzle::b32).bits == 1 && swizzle_for(Swizzle::b32).base_alignment() == 256);
static_assert(swizzle_mode_row(Swizzle::b128).smem_alignment == 1024 && swizzle_mode_row(Swizzle::none).smem_alignment == 16);
// The sm_100 modes: Swizzle<2,5,2> and <1,6,1> (cuda.h comments), unverified; FLIP_8B not modelled.
static_assert(swizzle_for(Swizzle::b128_atom_32b).bits == 2 && swizzle_for(Swizzle::b128_atom_32b).base == 5 &&
              swizzle_for(Swizzle::b128_atom_32b).shift == 2 && !swizzle_for(Swizzle::b128_atom_32b).verified);
static_assert(swizzle_for(Swizzle::b128_atom_64b).bits == 1 && swizzle_for(Swizzle::b128_atom_64b).base == 6 &&
              swizzle_for(Swizzle::b128_atom_64b).shift == 1);
static_assert(!swizzle_for(Swizzle::b128_atom_32b_flip_8b).supported);
// Operand layout types: wgmma 1 128B, 2 64B, 3 32B; tcgen05 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B.
static_assert(swizzle_mode_row(Swizzle::b128).wgmma_layout == 1 && swizzle_mode_row(Swizzle::b64).wgmma_layout == 2 &&
              swizzle_mode_row(Swizzle::b32).wgmma_layout == 3 && swizzle_mode_row(Swizzle::none).wgmma_layout == 0);
static_assert(swizzle_mode_row(Swizzle::b128_atom_32b).umma_layout == 1 && swizzle_mode_row(Swizzle::b128).umma_layout == 2 &&
              swizzle_mode_row(Swizzle::b64).umma_layout == 4 && swizzle_mode_row(Swizzle::b32).umma_layout == 6);
// Values outside the enum: no name, no span, an unmodelled identity, the largest alignment.
static_assert(swizzle_name(static_cast<Swizzle>(kSwizzleCount)) == nullptr && swizzle_span_bytes(static_cast<Swizzle>(99)) == 0 &&
              !swizzle_for(static_cast<Swizzle>(99)).supported &&
              swizzle_column<SwizzleColumn::smem_alignment_log2>(static_cast<Swizzle>(99)) == 10);

}  // namespace tmakit

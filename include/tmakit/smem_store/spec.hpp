// Text forms of store sources and destinations, as the CLI takes them (host only;
// src/smem_store/spec.cpp).
//
// Source:  KIND SHAPE [OPTIONS] [CONVERSION]
//   wgmma m64n128 f32->bf16           Hopper WGMMA accumulator (f32 or f16), N in 8..256
//   mma m16n8 [n64] [warps4] f32->bf16  mma.sync C fragment, repeated along N (n = tile columns)
//   tcgen05 32x32b.x4 [n128] [warps4] f32->bf16   (also 16x64b, 16x128b, 16x256b; model only)
//   tv ((4,8),(2,2)):((32,1),(16,8)) 16x8 f32->bf16   a CuTe TV layout and its tile (rows x cols)
//   CONVERSION: A->B or B alone; types: the tensor-map data types (tensor_map/names.hpp: f32, f16,
//   bf16, tf32, u8, u16, u32, s32, f64, FLOAT32, ...) and fp8, e4m3, e5m2, s8, i8: B fixes the element
//   size in shared memory; A (the register type, default f32) must be a type but does not change a plan.
// Destination:
//   kmajor|mnmajor none|sw32|sw64|sw128|sw128-atom32    the canonical GMMA/UMMA operand layout of the
//                                                      source's tile (rows = MN, cols = K); the
//                                                      swizzle's library names (128B, ...) also work
//   or any layout in CuTe notation, swizzled or not: 'Sw<3,4,3> o ((8,8),(64,2)):((64,512),(1,4096))'
//   (the swizzle in BYTE units; elements_units = true converts an element-unit swizzle Sw<B,M,S> to
//   the byte swizzle Sw<B,M+log2(E),S>).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tmakit/smem_store/destination.hpp"
#include "tmakit/smem_store/source.hpp"

namespace tmakit {

struct SourceSpec {
  StoreSource source{};
  std::int32_t elem_bytes = 2;   // in shared memory (the conversion's output type)
};

struct ParsedSource {
  SourceSpec value{};
  bool ok = false;
  std::string error;  // what was expected, with the offending word
};
ParsedSource parse_store_source(std::string_view text);

struct ParsedDestination {
  StoreDestination value{};
  bool ok = false;
  std::string error;
  // elements_units asked for and nothing to convert (a canonical operand, whose swizzle is in bytes
  // by definition, or a layout without a swizzle): why it changes nothing, else "".
  std::string elements_no_effect;
};
// rows/cols/elem_bytes come from the source; base_offset as given.
ParsedDestination parse_store_destination(std::string_view text, std::int32_t rows, std::int32_t cols,
                                          std::int32_t elem_bytes, std::uint64_t base_offset = 0,
                                          bool elements_units = false);

}  // namespace tmakit

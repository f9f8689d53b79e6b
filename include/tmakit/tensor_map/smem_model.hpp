// Host reference model of the bytes a TILED TMA load (cp.async.bulk.tensor ... .tile) writes into
// shared memory. Used by tests/gpu/test_tma_load.cu to check the model against silicon.
//
// Model (each choice that is not documented fact is an option, so the GPU test can tell which
// one the hardware follows):
//  * Box element k_i in dim i reads global coordinate start_i + k_i * elementStrides[i].
//    count_i = ceil(box_i / es_i) (cuda.h text; ceil_counts) or floor (what the driver's box_bytes
//    counts). Without interleave, cuda.h says elementStrides[0] is ignored (es0_without_interleave
//    = false: dim 0 counts box[0] elements at stride 1).
//  * Shared memory is written densely, dim 0 fastest (row = count_0 * element bytes), then the
//    swizzle of layout/swizzle.hpp is applied to the byte offset (the buffer is assumed aligned to
//    the swizzle repeat, as TMA requires). pad_rows_to_span (default on): a dim-0 row shorter than
//    the swizzle span is padded to the span before the swizzle applies, which is what the H200
//    does (measured 2026-11-22); off gives the dense alternative, kept for comparison.
//  * Interleave 16B / 32B (measured on the H100, 2026-11-22, 575 driver-made maps fitted exactly by
//    tools/driver_sweep/interleave_probe.cu): dim 0 counts whole chunks of 16 / 32 bytes whatever
//    the element type (globalDim[0], boxDim[0] and the coordinate; chunk c at byte c x chunk),
//    elementStrides[0] honoured, and dimension rank - 2 is not traversed: one slice at its
//    coordinate (bounds-checked) is copied whatever boxDim[rank - 2] says (derived.hpp:
//    dim0_unit_bytes, interleave_untraversed_dim). Dense shared layout, no row padding.
//  * An element with any coordinate outside [0, dims_i) is filled: zero, or with oobFill =
//    NAN_REQUEST_ZERO_FMA and a floating type, the 16-bit pattern 0x7ff7 repeated over the
//    element (measured on the H200 for every floating type).
//  * No value conversion (tf32 rounding of the tfloat32 types is not modelled: tf32_round option
//    rounds to nearest even on the low 13 mantissa bits when set).
// Packed sub-byte types and im2col maps are not modelled (the functions return false).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

struct SmemModelOptions {
  bool ceil_counts = true;
  bool es0_without_interleave = false;
  bool pad_rows_to_span = true;  // measured on the H200: rows shorter than the swizzle span are padded to it
  bool tf32_round = false;
};

// The stride (in units) the model walks dim i with: elementStrides[i], except dim 0 of a
// non-interleaved map (1, unless the es0_without_interleave option says otherwise).
inline std::uint32_t smem_model_stride(const TensorMapParams& p, const SmemModelOptions& o, std::uint32_t i) {
  if (i >= p.rank || !p.elem_strides[i]) return 1;
  if (i == 0 && p.interleave == Interleave::none && !o.es0_without_interleave) return 1;
  return p.elem_strides[i];
}

// Dim-0 units per dim the model writes (unused dims and the untraversed dim of an interleaved
// map: 1). A unit is an element, or an interleave chunk (smem_model_unit_bytes). With the default
// options this is derived.hpp's delivered_count().
inline void smem_model_counts(const TensorMapParams& p, const SmemModelOptions& o, std::uint32_t out[kMaxRank]) {
  for (std::uint32_t i = 0; i < kMaxRank; ++i) {
    if (i >= p.rank || static_cast<int>(i) == interleave_untraversed_dim(p)) { out[i] = 1; continue; }
    const std::uint32_t es = smem_model_stride(p, o, i);
    out[i] = o.ceil_counts ? (p.box[i] + es - 1) / es : p.box[i] / es;
  }
}

inline std::uint32_t smem_model_element_bytes(const TensorMapParams& p) { return element_bits(p.dtype) / 8; }
// Bytes of one dim-0 unit: the element, or the 16 / 32-byte chunk of an interleaved map.
inline std::uint32_t smem_model_unit_bytes(const TensorMapParams& p) { return dim0_unit_bytes(p); }
// Bytes the walker hands over at once: a unit, cut into 16-byte pieces (the swizzle's granule: a
// 32-byte interleave chunk is two pieces that the swizzle can send to different places).
inline std::uint32_t smem_model_piece_bytes(const TensorMapParams& p) {
  const std::uint32_t u = smem_model_unit_bytes(p);
  return u > 16 ? 16 : u;
}

// A shared-memory row of `row_bytes` as the hardware lays it out: derived.hpp's smem_padded_row
// (non-interleaved maps), unless the option says otherwise.
inline std::uint64_t smem_model_padded_row(const TensorMapParams& p, const SmemModelOptions& o, std::uint64_t row_bytes) {
  return o.pad_rows_to_span && p.interleave == Interleave::none ? smem_padded_row(p.swizzle, row_bytes) : row_bytes;
}

// `bytes` rounded up to a whole number of swizzle repeats (derived.hpp's smem_round_to_repeat).
inline std::uint64_t smem_model_round_to_repeat(const TensorMapParams& p, std::uint64_t bytes) {
  return smem_round_to_repeat(p.swizzle, bytes);
}

// Row pitch (bytes) of dim 0 in shared memory under the model.
inline std::uint64_t smem_model_row_pitch(const TensorMapParams& p, const SmemModelOptions& o) {
  std::uint32_t n[kMaxRank];
  smem_model_counts(p, o, n);
  return smem_model_padded_row(p, o, std::uint64_t{n[0]} * smem_model_unit_bytes(p));
}

// Bytes the model writes (equals box_bytes(p) when every box_i is a multiple of the stride used
// and rows are not padded).
inline std::uint64_t smem_model_bytes(const TensorMapParams& p, const SmemModelOptions& o = {}) {
  std::uint32_t n[kMaxRank];
  smem_model_counts(p, o, n);
  std::uint64_t b = smem_model_row_pitch(p, o);
  for (std::uint32_t i = 1; i < kMaxRank; ++i) b *= n[i];
  return b;
}

// Extent of shared memory the image spans: smem_model_bytes, rounded up to the swizzle repeat
// when a swizzle is on and the dense image is not a whole number of repeats (then swizzled
// offsets of the last partial repeat can land past the dense size, e.g. 32 B rows with 128B
// swizzle: whether the hardware really writes there is one of the questions the GPU test answers).
inline std::uint64_t smem_model_footprint(const TensorMapParams& p, const SmemModelOptions& o = {}) {
  std::uint32_t n[kMaxRank];
  smem_model_counts(p, o, n);
  return smem_footprint(p.swizzle, smem_model_row_pitch(p, o), n, kMaxRank);
}

// The fill pattern of one out-of-bounds unit (smem_model_unit_bytes bytes, little-endian) into out.
inline void smem_model_oob_fill(const TensorMapParams& p, unsigned char* out) {
  const std::uint32_t ub = smem_model_unit_bytes(p);
  std::memset(out, 0, ub);
  if (p.oob != OobFill::nan_request_zero_fma || !is_floating_point(p.dtype)) return;
  // Measured on the H200 (2026-11-22) for every floating type: the 16-bit pattern 0x7ff7 repeated
  // (f16/bf16 0x7ff7, f32 0x7ff77ff7, f64 0x7ff77ff77ff77ff7: a NaN in each format).
  for (std::uint32_t i = 0; i < ub; ++i) out[i] = i % 2 ? 0x7f : 0xf7;
}

// Produces the shared-memory image of one tiled load. `global` holds the whole global allocation
// with params.address mapped to offset 0; `start` holds p.rank box-start coordinates. Bytes the
// model does not write (row padding, the unused part of a partial swizzle repeat) are left as
// `pad_byte`; out.size() is smem_model_footprint(). Returns false when the configuration is
// outside the model (im2col, packed types, a read past the end of `global`).
namespace smem_model_detail {

// The global byte offset of the unit at coordinates c (p.rank of them; dim 0 in units of
// `unit_bytes`, below `dim0_limit`; the others below globalDim): false when any is out of bounds.
inline bool global_offset(const TensorMapParams& p, const std::int64_t* c, std::uint64_t dim0_limit,
                          std::uint32_t unit_bytes, std::uint64_t& off) {
  off = 0;
  for (std::uint32_t i = 0; i < p.rank; ++i) {
    const std::uint64_t limit = i == 0 ? dim0_limit : p.dims[i];
    if (c[i] < 0 || static_cast<std::uint64_t>(c[i]) >= limit) return false;
    off += static_cast<std::uint64_t>(c[i]) * (i == 0 ? unit_bytes : p.strides[i - 1]);
  }
  return true;
}

// Rounds the tf32 types' values to tf32 as the hardware's tf32 mode does (nearest even on the low
// 13 mantissa bits; Inf/NaN kept), over `bytes` bytes of 4-byte words.
inline void round_tf32_words(unsigned char* p, std::uint32_t bytes) {
  for (std::uint32_t w = 0; w + 4 <= bytes; w += 4) {
    std::uint32_t v;
    std::memcpy(&v, p + w, 4);
    if ((v & 0x7f800000u) != 0x7f800000u) {
      const std::uint32_t lsb = (v >> 13) & 1u;
      v = (v + 0x0fffu + lsb) & ~0x1fffu;
    }
    std::memcpy(p + w, &v, 4);
  }
}

// Visits every dim-0 unit (element, or interleave chunk) of the box in shared-memory order, in
// pieces of smem_model_piece_bytes, and calls f(shared_offset (swizzled), in_bounds, global_offset)
// per piece -- global_offset only meaningful when in_bounds. Dim 0 is in bounds below `dim0_limit`
// units, the others below their globalDim.
// Stops and returns false as soon as f does.
template <class F>
inline bool for_each_box_element(const TensorMapParams& p, const std::int32_t* start, const SmemModelOptions& o,
                                 std::uint64_t dim0_limit, F&& f) {
  const std::uint32_t eb = smem_model_unit_bytes(p);
  const std::uint32_t piece = smem_model_piece_bytes(p);
  const SwizzleParams sw = swizzle_for(p.swizzle);
  std::uint32_t n[kMaxRank];
  smem_model_counts(p, o, n);
  const std::uint64_t pitch = smem_model_row_pitch(p, o);
  std::uint32_t es[kMaxRank];
  for (std::uint32_t i = 0; i < kMaxRank; ++i) es[i] = smem_model_stride(p, o, i);
  std::uint32_t k[kMaxRank] = {};
  for (k[4] = 0; k[4] < n[4]; ++k[4])
    for (k[3] = 0; k[3] < n[3]; ++k[3])
      for (k[2] = 0; k[2] < n[2]; ++k[2])
        for (k[1] = 0; k[1] < n[1]; ++k[1]) {
          std::uint64_t row = 0;
          for (int i = 4; i >= 1; --i) row = row * n[i] + k[i];
          for (k[0] = 0; k[0] < n[0]; ++k[0]) {
            const std::uint64_t unit_off = row * pitch + std::uint64_t{k[0]} * eb;
            std::int64_t c[kMaxRank];
            for (std::uint32_t i = 0; i < p.rank; ++i) c[i] = std::int64_t{start[i]} + std::int64_t{k[i]} * es[i];
            std::uint64_t global = 0;
            const bool in = global_offset(p, c, dim0_limit, eb, global);
            for (std::uint32_t q = 0; q < eb; q += piece)
              if (!f(sw(unit_off + q), in, global + q)) return false;
          }
        }
  return true;
}

}  // namespace smem_model_detail

inline bool smem_model_tiled_load(const TensorMapParams& p, std::span<const unsigned char> global,
                                  const std::int32_t* start, std::vector<unsigned char>& out,
                                  const SmemModelOptions& o = {}, unsigned char pad_byte = 0) {
  if (p.kind != MapKind::tiled || is_packed(p.dtype) || p.rank < 1 || p.rank > kMaxRank) return false;
  const std::uint32_t eb = smem_model_piece_bytes(p);
  if (eb == 0 || !swizzle_for(p.swizzle).supported) return false;
  out.assign(smem_model_footprint(p, o), pad_byte);
  unsigned char fill[32];
  smem_model_oob_fill(p, fill);
  return smem_model_detail::for_each_box_element(
      p, start, o, p.dims[0], [&](std::uint64_t dst, bool in, std::uint64_t src) {
        if (dst + eb > out.size()) return false;
        if (!in) {
          std::memcpy(&out[dst], fill, eb);
          return true;
        }
        if (src + eb > global.size()) return false;
        std::memcpy(&out[dst], &global[src], eb);
        if (o.tf32_round && tmap_fields::hw_tf32_round(p.dtype)) smem_model_detail::round_tf32_words(&out[dst], eb);
        return true;
      });
}

// Inverse direction, for stores / reductions: the global bytes after a tiled store of `smem`
// (the shared image, laid out as the load model lays it out) at `start`. `global` is updated in
// place; `op` combines (old, new) element bytes (nullptr: plain store). Out-of-bounds elements are
// not written, except along dim 0 up to the next 16-byte boundary (measured, below). Negative
// coordinates make a store an illegal instruction on the H200: not modelled.
using SmemModelCombine = void (*)(const TensorMapParams&, unsigned char* dst, const unsigned char* src);
inline bool smem_model_tiled_store(const TensorMapParams& p, std::span<unsigned char> global,
                                   const std::int32_t* start, std::span<const unsigned char> smem,
                                   SmemModelCombine op = nullptr) {
  if (p.kind != MapKind::tiled || is_packed(p.dtype) || p.rank < 1 || p.rank > kMaxRank) return false;
  const std::uint32_t eb = smem_model_piece_bytes(p);
  const std::uint32_t ub = smem_model_unit_bytes(p);
  if (eb == 0 || !swizzle_for(p.swizzle).supported) return false;
  // Measured on the H200 (2026-11-22): along dim 0 a store clips at the 16-byte granule that holds
  // the tensor's last element, not at the element: it also writes the bytes between globalDim[0]
  // and the next 16-byte boundary of the row. (Interleaved units are whole 16 / 32-byte chunks.)
  const std::uint64_t dim0_limit = (p.dims[0] * ub + 15) / 16 * 16 / ub;
  return smem_model_detail::for_each_box_element(
      p, start, SmemModelOptions{}, dim0_limit, [&](std::uint64_t srco, bool in, std::uint64_t dst) {
        if (srco + eb > smem.size()) return false;
        if (!in) return true;
        if (dst + eb > global.size()) return false;
        if (op) {
          const std::uint32_t elem = smem_model_element_bytes(p);  // op combines one element
          for (std::uint32_t w = 0; w + elem <= eb; w += elem) op(p, &global[dst + w], &smem[srco + w]);
        } else {
          std::memcpy(&global[dst], &smem[srco], eb);
        }
        return true;
      });
}

}  // namespace tmakit

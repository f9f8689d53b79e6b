// Host reference model of the bytes an IM2COL TMA load (cp.async.bulk.tensor ... .im2col) writes
// into shared memory, read off an H100 (2026-11-22, tools/driver_sweep/im2col_probe.cu: every one of
// the recorded loads is reproduced byte for byte; docs/lab/device.md). Tensor dims are
// (C, spatial..., N): dim 0 the channels, dims 1..rank-2 the spatial dims (W, H, D), dim rank-1
// the batch.
//  * The bounding box of spatial dim i is [lower_i, globalDim_i - 1 + upper_i] (the corners of the
//    map, in pixels). The load walks pixelsPerColumn pixels from the start coordinate: W first by
//    elementStrides[1], wrapping to lower_W and stepping H, and so on; past the last spatial dim the
//    batch coordinate steps by elementStrides[rank-1] (unbounded: a batch outside the tensor reads
//    fill).
//  * Pixel k reads global coordinate (c0 + j, s_1 + offset_1, ..., n) for channels j < channelsPerPixel,
//    where s is the walk position and offset the instruction's 16-bit im2col offsets (the kernel
//    position). Any coordinate outside [0, globalDim) reads the fill (zero; the NaN pattern of
//    smem_model_oob_fill with NAN_REQUEST_ZERO_FMA).
//  * Pixel k's channels are row k in shared memory (channelsPerPixel x element bytes, padded to the
//    swizzle span when shorter, as tiled rows are), then the swizzle applies to the byte offset.
//  * The start coordinate of every spatial dim must lie inside its bounding box: otherwise the load
//    is an ILLEGAL INSTRUCTION on the H100 (139 of 139 such loads faulted, none of 211 inside did).
//    im2col_start_in_box() checks it.
// The transaction count is the descriptor's box_bytes(): channels x pixels x element bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "tmakit/tensor_map/smem_model.hpp"

namespace tmakit {

// Bounding box of spatial dim i (1..rank-2) of an im2col map: [lo, hi].
inline void im2col_box_range(const TensorMapParams& p, std::uint32_t i, std::int64_t& lo, std::int64_t& hi) {
  lo = p.lower[i - 1];
  hi = static_cast<std::int64_t>(p.dims[i]) - 1 + p.upper[i - 1];
}

// True when the start coordinate of every spatial dim lies inside its bounding box (a load
// otherwise faults: see above). `start` holds p.rank coordinates (C, spatial..., N).
inline bool im2col_start_in_box(const TensorMapParams& p, const std::int32_t* start) {
  for (std::uint32_t i = 1; i + 1 < p.rank; ++i) {
    std::int64_t lo, hi;
    im2col_box_range(p, i, lo, hi);
    if (start[i] < lo || start[i] > hi) return false;
  }
  return true;
}

// One step of the pixel walk from position `pos` (p.rank entries; spatial dims 1..rank-2, the batch
// rank-1; pos[0] unused): W first by elementStrides[1]; past the box's high corner back to its low
// corner, carrying into the next spatial dim; past the last one the batch steps by
// elementStrides[rank-1], unbounded. The load model and the convolution check
// (im2col_conv.hpp) walk with it.
inline void im2col_walk_step(const TensorMapParams& p, std::int64_t* pos) {
  for (std::uint32_t i = 1;; ++i) {
    const std::uint32_t es = p.elem_strides[i] ? p.elem_strides[i] : 1;
    if (i == p.rank - 1) {
      pos[i] += es;
      return;
    }
    std::int64_t lo, hi;
    im2col_box_range(p, i, lo, hi);
    pos[i] += es;
    if (pos[i] <= hi) return;
    pos[i] = lo;
  }
}

// The shared-memory image of one im2col load. `global` holds the allocation with p.address at
// offset 0; `start` the p.rank coordinates; `offsets` the rank-2 im2col offsets. Returns false
// outside the model (not an im2col map, rank < 3, packed types, start outside the box, a read
// past `global`). out.size() = pixels x row pitch, rounded up to the swizzle repeat.
inline bool smem_model_im2col_load(const TensorMapParams& p, std::span<const unsigned char> global,
                                   const std::int32_t* start, const std::uint16_t* offsets,
                                   std::vector<unsigned char>& out, unsigned char pad_byte = 0) {
  if (p.kind != MapKind::im2col || is_packed(p.dtype) || p.rank < 3 || p.rank > kMaxRank) return false;
  if (p.interleave != Interleave::none || !im2col_start_in_box(p, start)) return false;
  const std::uint32_t eb = smem_model_element_bytes(p);
  const SwizzleParams sw = swizzle_for(p.swizzle);
  if (eb == 0 || !sw.supported) return false;
  const std::uint32_t nsp = p.rank - 2;  // spatial dims
  const std::uint64_t pitch = smem_model_padded_row(p, SmemModelOptions{}, std::uint64_t{p.channels} * eb);
  out.assign(smem_model_round_to_repeat(p, pitch * p.pixels), pad_byte);
  unsigned char fill[32];
  smem_model_oob_fill(p, fill);  // non-interleaved: one element
  std::int64_t pos[kMaxRank] = {};  // walk position: spatial dims 1..nsp, batch rank-1
  for (std::uint32_t i = 1; i < p.rank; ++i) pos[i] = start[i];
  for (std::uint32_t k = 0; k < p.pixels; ++k) {
    for (std::uint32_t j = 0; j < p.channels; ++j) {
      std::int64_t g[kMaxRank] = {};
      g[0] = std::int64_t{start[0]} + j;
      for (std::uint32_t i = 1; i <= nsp; ++i) g[i] = pos[i] + offsets[i - 1];
      g[p.rank - 1] = pos[p.rank - 1];
      std::uint64_t src = 0;
      const bool in = smem_model_detail::global_offset(p, g, p.dims[0], eb, src);
      // Elements are at most 8 bytes: never split by the 16-byte swizzle granule.
      const std::uint64_t dst = sw(k * pitch + std::uint64_t{j} * eb);
      if (dst + eb > out.size()) return false;
      if (!in) {
        std::memcpy(&out[dst], fill, eb);
        continue;
      }
      if (src + eb > global.size()) return false;
      std::memcpy(&out[dst], &global[src], eb);
    }
    im2col_walk_step(p, pos);  // next pixel
  }
  return true;
}

}  // namespace tmakit

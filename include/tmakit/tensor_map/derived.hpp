// Quantities derived from a tensor map's parameters that the driver also stores in the descriptor
// (bytes per copy, shared-memory alignment) and that planners and device code need.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {

// Bits one element occupies in shared memory after a load. The 16-value packed types are padded
// to 16 bytes per 16 values (ALIGN16B) in shared memory; from cuda.h, unverified on hardware.
TMAKIT_HD constexpr std::uint32_t smem_element_bits(DataType t) {
  switch (t) {
    case DataType::u4x16_align16b: case DataType::u6x16_align16b: return 8;
    default: return element_bits(t);
  }
}

// floor(b / e) for b <= 256 and 1 <= e <= 8 (what a valid map holds): a multiply by a rounded-up
// reciprocal, exact there (b * (ceil(2^16 / e) * e - 2^16) < 2^16 for b < 8192).
TMAKIT_HD constexpr std::uint64_t div_box_small(std::uint64_t b, std::uint32_t e) {
  constexpr std::uint32_t kRecip[9] = {0, 65536, 32768, 21846, 16384, 13108, 10923, 9363, 8192};
  return (b * kRecip[e]) >> 16;
}

// box_bytes() for parameters whose box dims are 1..256 and element strides 1..8 (validate checks
// both before it computes the footprint; encode_unchecked requires valid parameters).
TMAKIT_HD constexpr std::uint64_t box_bytes_checked_ranges(const TensorMapParams& p) {
  const std::uint32_t rank = p.rank > kMaxRank ? kMaxRank : p.rank;
  std::uint64_t bits = smem_element_bits(p.dtype);
  if (p.kind == MapKind::tiled) {
    for (std::uint32_t i = 0; i < kMaxRank; ++i) bits *= i < rank ? div_box_small(p.box[i], p.elem_strides[i]) : 1;
  } else {
    bits *= std::uint64_t{p.channels} * p.pixels;
  }
  return bits / 8;
}

// The box size the driver computes and stores in the descriptor (its boxBytes field), which it
// also checks against the shared-memory limit: tiled: element bytes x prod(floor(box[i] /
// elementStrides[i])); im2col: element bytes x channelsPerPixel x pixelsPerColumn (read off the
// driver for every accepted configuration). NOT the mbarrier transaction count when element
// strides do not divide the box or elementStrides[0] != 1: use transaction_bytes() for that.
// Any input is fine here (a zero element stride counts as a zero-sized dimension).
TMAKIT_HD constexpr std::uint64_t box_bytes(const TensorMapParams& p) {
  const std::uint32_t rank = p.rank > kMaxRank ? kMaxRank : p.rank;
  if (p.kind == MapKind::tiled) {
    bool small = true;
    for (std::uint32_t i = 0; i < rank; ++i)
      small = small && p.box[i] <= 256 && p.elem_strides[i] >= 1 && p.elem_strides[i] <= 8;
    if (!small) {
      std::uint64_t bits = smem_element_bits(p.dtype);
      for (std::uint32_t i = 0; i < rank; ++i) bits *= p.elem_strides[i] ? p.box[i] / p.elem_strides[i] : 0;
      return bits / 8;
    }
  }
  return box_bytes_checked_ranges(p);
}

// The most transaction bytes one mbarrier phase can expect: the PTX tx-count range is
// +-(2^20 - 1); a larger expect_tx made an H200 kernel fail. Plans check their byte counts against it.
inline constexpr std::uint32_t kMaxTransactionBytes = (1u << 20) - 1;

// Bytes of one dim-0 unit in shared and global memory: the element for non-interleaved maps; the
// whole interleave chunk (16 or 32 bytes, whatever the element type) for interleaved ones.
// Measured on the H100 (2026-11-22, tools/driver_sweep/interleave_probe.cu, 575 driver-made maps):
// with interleave, globalDim[0], boxDim[0] and the dim-0 coordinate count 16 B / 32 B chunks.
TMAKIT_HD constexpr std::uint32_t dim0_unit_bytes(const TensorMapParams& p) {
  switch (p.interleave) {
    case Interleave::b16: return 16;
    case Interleave::b32: return 32;
    default: return smem_element_bits(p.dtype) / 8;
  }
}

// The dimension an interleaved copy does not traverse: measured on the H100 (2026-11-22, same
// probe), an interleaved map (rank >= 3) copies ONE slice along dimension rank - 2, at the given
// coordinate, whatever boxDim[rank - 2] says. -1 for non-interleaved maps.
TMAKIT_HD constexpr int interleave_untraversed_dim(const TensorMapParams& p) {
  return p.interleave == Interleave::none || p.rank < 3 ? -1 : static_cast<int>(p.rank) - 2;
}

// Units one copy delivers along dim i (1 for dims past the rank): ceil(box[i] / elementStrides[i]),
// except dim 0 of a non-interleaved map, where elementStrides[0] is ignored (box[0] elements), and
// the untraversed dim of an interleaved map (1). Measured on the H200 and H100 (docs/lab/device.md).
TMAKIT_HD constexpr std::uint64_t delivered_count(const TensorMapParams& p, std::uint32_t i) {
  if (i >= p.rank || static_cast<int>(i) == interleave_untraversed_dim(p)) return 1;
  const std::uint64_t es = (i == 0 && p.interleave == Interleave::none) ? 1 : p.elem_strides[i];
  return es ? (std::uint64_t{p.box[i]} + es - 1) / es : 0;
}

// Bytes a copy with this map actually delivers to shared memory: the mbarrier transaction count
// to expect: dim0_unit_bytes x prod_i delivered_count(i). Measured on the H200 (2026-11-22,
// tools/driver_sweep/tma_layout_probe.cu) for non-interleaved maps; this differs from box_bytes()
// -- the field the driver stores, floor(box / stride) with elementStrides[0] honoured -- whenever a
// stride does not divide its box dimension or elementStrides[0] != 1, and then arming a barrier
// with box_bytes() hangs it or lets it complete early. Interleaved maps deliver whole chunks and
// skip one dimension (dim0_unit_bytes, interleave_untraversed_dim), checked by the GPU suite.
TMAKIT_HD constexpr std::uint64_t transaction_bytes(const TensorMapParams& p) {
  if (p.kind != MapKind::tiled) return box_bytes(p);
  const std::uint32_t rank = p.rank > kMaxRank ? kMaxRank : p.rank;
  if (p.interleave == Interleave::none) {
    std::uint64_t bits = smem_element_bits(p.dtype);
    for (std::uint32_t i = 0; i < rank; ++i) bits *= delivered_count(p, i);
    return bits / 8;
  }
  std::uint64_t bytes = dim0_unit_bytes(p);
  for (std::uint32_t i = 0; i < rank; ++i) bytes *= delivered_count(p, i);
  return bytes;
}

// Shared-memory alignment (bytes) the destination buffer needs, as the descriptor stores it (the
// swizzle-mode table's smem_alignment): 16 without swizzle, else 8 rows of the span: 256, 512 or
// 1024 bytes.
TMAKIT_HD constexpr std::uint64_t smem_alignment(Swizzle s) {
  return std::uint64_t{1} << swizzle_column<SwizzleColumn::smem_alignment_log2>(s);
}

// Shared-memory alignment a TENSOR copy's shared buffer (load destination, store/reduce source)
// really needs: 128 bytes at least, or the swizzle's repeat. The descriptor's own field
// (smem_alignment(): 16 without swizzle) is not enough: a 16- but not 128-byte aligned destination
// faults with "misaligned address" on the H100 (measured 2026-11-22, docs/device.md), as the PTX ISA
// requires 128-byte alignment for cp.async.bulk.tensor.
TMAKIT_HD constexpr std::uint64_t tma_smem_alignment(Swizzle s) {
  return smem_alignment(s) < 128 ? 128 : smem_alignment(s);
}

// A dim-0 row of `row_bytes` as a tiled copy lays it out in shared memory (non-interleaved maps):
// padded to the swizzle span when shorter (measured on the H200).
TMAKIT_HD constexpr std::uint64_t smem_padded_row(Swizzle s, std::uint64_t row_bytes) {
  const std::uint64_t span = swizzle_span_bytes(s);
  return span && row_bytes < span ? span : row_bytes;
}

// Bytes between consecutive dim-0 rows of a tiled copy's shared image: the units delivered along
// dim 0 (elements, or interleave chunks), padded to the swizzle span when shorter (non-interleaved
// maps; measured on the H200).
TMAKIT_HD constexpr std::uint64_t smem_row_pitch(const TensorMapParams& p) {
  if (p.interleave != Interleave::none) return delivered_count(p, 0) * dim0_unit_bytes(p);
  return smem_padded_row(p.swizzle, delivered_count(p, 0) * smem_element_bits(p.dtype) / 8);
}

// `bytes` rounded up to a whole number of swizzle repeats (the extent a swizzled image spans).
TMAKIT_HD constexpr std::uint64_t smem_round_to_repeat(Swizzle s, std::uint64_t bytes) {
  const std::uint64_t rep = swizzle_for(s).base_alignment();
  return (bytes + rep - 1) / rep * rep;
}

// Shared bytes a box image spans: rows of `row_pitch` bytes (padded already, smem_padded_row), one
// per combination of counts[1..rank) (the units delivered along the outer dims), rounded up to the
// swizzle repeat.
TMAKIT_HD constexpr std::uint64_t smem_footprint(Swizzle s, std::uint64_t row_pitch, const std::uint32_t* counts,
                                                 std::uint32_t rank) {
  std::uint64_t b = row_pitch;
  for (std::uint32_t i = 1; i < rank; ++i) b *= counts[i];
  return smem_round_to_repeat(s, b);
}

// The shared bytes a tiled copy's destination buffer must span: smem_row_pitch rows, one per
// combination of the units delivered along dims 1.., rounded up to the swizzle repeat. Larger than
// transaction_bytes() when rows are padded (a row shorter than the swizzle span) or the image is
// not a whole number of repeats: size buffers with this, arm barriers with transaction_bytes().
TMAKIT_HD constexpr std::uint64_t box_smem_image_bytes(const TensorMapParams& p) {
  std::uint64_t b = smem_row_pitch(p);
  for (std::uint32_t i = 1; i < p.rank && i < kMaxRank; ++i) b *= delivered_count(p, i);
  return smem_round_to_repeat(p.swizzle, b);
}

}  // namespace tmakit

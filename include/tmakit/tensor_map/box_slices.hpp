// Splitting one TMA box into `count` equal slices, one copy per CTA of a multicast group, all
// landing in the same shared buffer of every receiver. The one rule both planners use: the TMA
// planner (planner.hpp: a multicast tile whose instructions do not divide over the CTAs gets a
// slowest loop over the slices, or plan.multicast) and the cluster planner (cluster_multicast.hpp,
// MulticastMode::sliced: slice.outermost, slice.divisible, slice.alignment).
//
//  * Only the OUTERMOST box dimension delivering more than one unit is cut (delivered_count; an
//    interleaved map's untraversed dim delivers one): cutting an inner one would interleave the
//    slices in shared memory instead of giving each copy one contiguous range.
//  * box[dim] splits into `count` equal parts that together deliver exactly the box: count * the
//    bytes of one slice == transaction_bytes(box), and where elementStrides[dim] is honoured each
//    part starts on a delivered element (part % elementStrides[dim] == 0).
//  * Slice k starts k * part elements along dim and k * smem_step bytes into the box's shared
//    image as one copy of the whole box would lay it out: rows of dim 0 padded to the swizzle span
//    when shorter (smem_padded_row, non-interleaved maps), then dims 1.. densely. Every slice's
//    destination, like every tensor copy's, must be a multiple of tma_smem_alignment (128 B
//    unswizzled, the swizzle repeat otherwise): smem_step % alignment == 0.
//  * Every receiving CTA gets all `count` slices: count * bytes, the box's transaction bytes.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

// The outermost dim along which a copy delivers more than one unit (0 when none does).
TMAKIT_HD constexpr std::uint32_t outermost_nonunit_dim(const TensorMapParams& p) {
  std::uint32_t d = 0;
  for (std::uint32_t i = 0; i < p.rank && i < kMaxRank; ++i)
    if (delivered_count(p, i) > 1) d = i;
  return d;
}

// The alignment (bytes) every slice's shared destination needs: any tensor copy's.
TMAKIT_HD constexpr std::uint64_t slice_alignment(const TensorMapParams& box) { return tma_smem_alignment(box.swizzle); }

struct BoxSlices {
  TensorMapParams params{};     // one slice's map: the box with box[dim] = part
  std::uint32_t dim = 0;
  std::uint32_t count = 1;
  std::uint32_t part = 0;       // box elements along dim per slice: slice k starts at coordinate k * part
  std::uint64_t bytes = 0;      // transaction_bytes(params): what one slice delivers to each receiver
  std::uint64_t smem_step = 0;  // slice k's destination: k * smem_step bytes past the box's
  std::uint64_t alignment = 128;  // slice_alignment(box)
  bool outermost = false;       // dim < rank and no dim above it delivers more than one unit
  bool divisible = false;       // the parts are equal and together deliver exactly the box
  TMAKIT_HD constexpr bool aligned() const { return smem_step % alignment == 0; }
  TMAKIT_HD constexpr bool ok() const { return outermost && divisible && aligned(); }
};

// The `count` slices of `box` (a tiled map) along `dim`; see the rules above. Every check is
// reported separately (outermost, divisible, aligned()) so that each planner names its own rule.
TMAKIT_HD constexpr BoxSlices slice_box(const TensorMapParams& box, std::uint32_t dim, std::uint32_t count) {
  BoxSlices s;
  s.params = box;
  s.dim = dim;
  s.count = count;
  s.alignment = slice_alignment(box);
  if (dim >= box.rank || dim >= kMaxRank || count == 0) return s;
  s.outermost = true;
  for (std::uint32_t i = dim + 1; i < box.rank && i < kMaxRank; ++i)
    if (delivered_count(box, i) > 1) s.outermost = false;
  s.part = box.box[dim] / count;
  s.params.box[dim] = s.part;
  s.bytes = transaction_bytes(s.params);
  const std::uint32_t es = box.elem_strides[dim];
  const bool stride_honoured = delivered_count(box, dim) != box.box[dim];
  s.divisible = box.box[dim] % count == 0 && s.bytes * count == transaction_bytes(box) &&
                (!stride_honoured || (es != 0 && s.part % es == 0));
  // The box's shared image (smem_row_pitch rows, then each outer dim's delivered units densely).
  const std::uint64_t unit_bits =
      box.interleave == Interleave::none ? smem_element_bits(box.dtype) : std::uint64_t{dim0_unit_bytes(box)} * 8;
  if (dim == 0) {
    s.smem_step = delivered_count(s.params, 0) * unit_bits / 8;
  } else {
    std::uint64_t step = smem_row_pitch(box);
    for (std::uint32_t i = 1; i < dim; ++i) step *= delivered_count(box, i);
    s.smem_step = step * delivered_count(s.params, dim);
  }
  return s;
}

}  // namespace tmakit

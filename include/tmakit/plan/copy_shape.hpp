// A plan's compile-time shape, and the check that a plan made at run time has it.
//
// A TmaPlan mixes two kinds of fact. Its *shape* is fixed once the shared layout, the tile and the
// order of the global modes are: the rank, which TMA dimension each tile mode moves and by how
// much (coef), the instruction loops and their shared offsets, the box, the multicast slicing and
// the bytes each stage expects. Its *run-time data* is the tensor: the base address, the global
// extents and strides, which reach the device inside the tensor map, never as plan fields.
//
// A kernel that knows its shared layouts at compile time plans a representative tensor at compile
// time (the planner is constexpr), keeps the shape of that plan as a template argument
// (device/copy_program.cuh: one TMA instruction per copy, every coordinate offset and shared
// offset a constant), and its launcher checks that the plan made for the caller's real tensor has
// the same shape before launching (shape_difference); a plan of another shape is refused with
// PlanRule-style words instead of running a kernel compiled for a different copy program.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/plan/tma_plan.hpp"

namespace tmakit {

// The plan with its run-time data cleared: address, global extents and strides (the tensor map
// carries them). Two plans with equal shapes issue the same instructions, at the same coordinates
// relative to the tile, into the same shared offsets, with the same bytes.
TMAKIT_HD constexpr TmaPlan plan_shape(const TmaPlan& p) {
  TmaPlan s = p;
  s.params.address = 0;
  for (std::uint32_t d = 0; d < kMaxRank; ++d) s.params.dims[d] = 0;
  for (std::uint32_t d = 0; d + 1 < kMaxRank; ++d) s.params.strides[d] = 0;
  return s;
}

// The first field in which a plan's shape differs from a compiled one: its name, and both values.
// `same` when none does.
struct ShapeDifference {
  bool same = true;
  const char* field = "";
  std::int64_t compiled = 0;
  std::int64_t planned = 0;
};

namespace copy_shape_detail {
struct Compare {
  ShapeDifference d{};
  TMAKIT_HD constexpr void field(const char* name, std::int64_t compiled, std::int64_t planned) {
    if (d.same && compiled != planned) d = ShapeDifference{false, name, compiled, planned};
  }
};
}  // namespace copy_shape_detail

TMAKIT_HD constexpr ShapeDifference shape_difference(const TmaPlan& compiled, const TmaPlan& planned) {
  copy_shape_detail::Compare c;
  const TensorMapParams &a = compiled.params, &b = planned.params;
  c.field("kind", static_cast<std::int64_t>(a.kind), static_cast<std::int64_t>(b.kind));
  c.field("dtype", static_cast<std::int64_t>(a.dtype), static_cast<std::int64_t>(b.dtype));
  c.field("rank", a.rank, b.rank);
  for (std::uint32_t d = 0; d < kMaxRank; ++d) {
    c.field("box", a.box[d], b.box[d]);
    c.field("element strides", a.elem_strides[d], b.elem_strides[d]);
  }
  c.field("swizzle", static_cast<std::int64_t>(a.swizzle), static_cast<std::int64_t>(b.swizzle));
  c.field("interleave", static_cast<std::int64_t>(a.interleave), static_cast<std::int64_t>(b.interleave));
  for (std::uint32_t d = 0; d < kMaxRank; ++d) {
    c.field("TMA dimension's global mode", compiled.dim[d].mode, planned.dim[d].mode);
    c.field("TMA dimension's coordinate unit", compiled.dim[d].offset, planned.dim[d].offset);
    c.field("TMA dimension's folded modes", compiled.dim[d].folded, planned.dim[d].folded);
    c.field("TMA dimension's shared pitch", compiled.dim[d].smem_pitch, planned.dim[d].smem_pitch);
  }
  c.field("tile modes", compiled.tile_modes, planned.tile_modes);
  for (std::uint32_t d = 0; d < kMaxRank; ++d)
    for (int m = 0; m < kMaxTileModes; ++m) c.field("coordinate coefficient", compiled.coef[d][m], planned.coef[d][m]);
  c.field("loops", compiled.loops, planned.loops);
  for (std::uint32_t l = 0; l < kMaxPlanLoops; ++l) {
    c.field("loop extent", compiled.loop[l].extent, planned.loop[l].extent);
    c.field("loop dimension", compiled.loop[l].dim, planned.loop[l].dim);
    c.field("loop coordinate step", compiled.loop[l].coord_step, planned.loop[l].coord_step);
    c.field("loop shared step", compiled.loop[l].smem_step, planned.loop[l].smem_step);
  }
  c.field("instructions", compiled.instructions, planned.instructions);
  c.field("bytes per instruction", compiled.tx_bytes_per_instruction, planned.tx_bytes_per_instruction);
  c.field("expect_tx bytes", compiled.expect_tx_bytes, planned.expect_tx_bytes);
  c.field("shared bytes", static_cast<std::int64_t>(compiled.smem_bytes), static_cast<std::int64_t>(planned.smem_bytes));
  c.field("shared alignment", compiled.smem_alignment, planned.smem_alignment);
  for (int k = 0; k < 3; ++k) c.field("cluster", compiled.cluster[k], planned.cluster[k]);
  c.field("multicast dimension", compiled.multicast_dim, planned.multicast_dim);
  c.field("multicast CTAs", compiled.multicast_ctas, planned.multicast_ctas);
  c.field("instructions per CTA", compiled.instructions_per_cta, planned.instructions_per_cta);
  c.field("direction", static_cast<std::int64_t>(compiled.direction), static_cast<std::int64_t>(planned.direction));
  c.field("reduce op", static_cast<std::int64_t>(compiled.reduce_op), static_cast<std::int64_t>(planned.reduce_op));
  return c.d;
}

TMAKIT_HD constexpr bool same_shape(const TmaPlan& compiled, const TmaPlan& planned) {
  return shape_difference(compiled, planned).same;
}

}  // namespace tmakit

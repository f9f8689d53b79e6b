// load_tile: a TmaPlan (tmakit/plan) drives the TMA copies of one tile. The producer thread calls
//
//   tmakit::device::load_tile(plan, desc, smem, bar, tile_coord);
//
// which arms `bar` with exactly plan.expect_tx_bytes (arrive_expect_tx: one arrival) and issues
// exactly the planned instructions, each at its planned coordinates (affine in tile_coord, one
// int32 per global mode) and shared offset. No byte count is written by hand anywhere. Everyone then
// waits on `bar` (mbarrier.cuh's wait). `smem` must be aligned to plan.smem_alignment (the watchdog,
// when on, checks it per copy) and hold plan.smem_bytes.
//
// The plan can be a kernel parameter (`const __grid_constant__ tmakit::TmaPlan plan`, computed on
// the host or as a constexpr there) or a template argument: load_tile<kPlan>(desc, smem, bar, t)
// with `constexpr tmakit::TmaPlan kPlan = ...` (the loops unroll; the plan lives in no memory).
// A kernel whose shared layouts are compile-time constants compiles its plans' shapes instead
// (copy_program.cuh: one TMA instruction per copy, no run-time plan at all); the run-time form is
// for plans made at run time (tests, the CLI's GPU checks).
// nvcc (12/13) cannot put a class-type template argument on a __global__ kernel itself: call
// load_tile<kPlan> from an ordinary kernel (tests/gpu/test_plan_load.cu does).
//
// Multicast plans (plan.multicast_ctas > 1): every CTA of the multicast group calls
// load_tile_multicast(plan, desc, smem, bar, tile_coord) with the same tile_coord; each issues its
// share of the instructions to all of them and arms its own barrier with the whole tile's bytes
// (what each receiving CTA must expect). The barriers must be initialized in every CTA of the group
// and made visible (fence_init_cluster() + cluster sync) before any CTA calls it.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/plan/tma_plan.hpp"

namespace tmakit::device {

namespace detail {

// A string literal naming the element type, for the watchdog's ledger ("TMA load of box 64x2x64 bf16").
__device__ constexpr const char* dtype_literal(DataType t) {
  const char* s = short_name(t);
  return s ? s : "packed";
}

__device__ inline void issue_planned(const TmaPlan& plan, MapRef desc, unsigned char* smem, Barrier& bar,
                                     const PlanInstruction& in) {
  void* dst = smem + in.smem_offset;
  const std::int32_t* c = in.coord;
  switch (plan.params.rank) {
    case 1: load(desc, dst, bar, c[0]); break;
    case 2: load(desc, dst, bar, c[0], c[1]); break;
    case 3: load(desc, dst, bar, c[0], c[1], c[2]); break;
    case 4: load(desc, dst, bar, c[0], c[1], c[2], c[3]); break;
    default: load(desc, dst, bar, c[0], c[1], c[2], c[3], c[4]); break;
  }
}

__device__ inline void issue_planned_multicast(const TmaPlan& plan, MapRef desc, unsigned char* smem, Barrier& bar,
                                               std::uint16_t mask, const PlanInstruction& in) {
  void* dst = smem + in.smem_offset;
  const std::int32_t* c = in.coord;
  switch (plan.params.rank) {
    case 1: load_multicast(desc, dst, bar, mask, c[0]); break;
    case 2: load_multicast(desc, dst, bar, mask, c[0], c[1]); break;
    case 3: load_multicast(desc, dst, bar, mask, c[0], c[1], c[2]); break;
    case 4: load_multicast(desc, dst, bar, mask, c[0], c[1], c[2], c[3]); break;
    default: load_multicast(desc, dst, bar, mask, c[0], c[1], c[2], c[3], c[4]); break;
  }
}

// Tells the watchdog (when on) what the tile brings to `bar` (after `bar` was armed for it).
__device__ __forceinline__ void expect(const TmaPlan& plan, MapRef desc, Barrier& bar) {
  watchdog::expect_tma_load(bar, desc.p, plan.expect_tx_bytes, dtype_literal(plan.params.dtype), plan.params.box[0],
                            plan.params.box[1], plan.params.box[2]);
}

// Arms `bar` with the whole tile's bytes (one arrival) and tells the watchdog (when on) what to expect.
__device__ __forceinline__ void arm(const TmaPlan& plan, MapRef desc, Barrier& bar) {
  arrive_expect_tx(bar, plan.expect_tx_bytes);
  expect(plan, desc, bar);
}

// Issues instructions [first, first + count) of the tile at tile_coord; mask != 0: multicast to
// those CTAs. Force-inlined so that a compile-time plan (load_tile<Plan>) unrolls the loop.
__device__ __forceinline__ void issue(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                      const std::int32_t* tile_coord, std::uint32_t first, std::uint32_t count,
                                      std::uint16_t mask = 0) {
  auto* base = static_cast<unsigned char*>(smem);
  const PlanOrigin o = plan.origin(tile_coord);
#pragma unroll
  for (std::uint32_t i = 0; i < count; ++i) {
    const PlanInstruction in = plan.instruction_at(first + i, o);
    if (mask) issue_planned_multicast(plan, desc, base, bar, mask, in);
    else issue_planned(plan, desc, base, bar, in);
  }
}

}  // namespace detail

// The two halves of load_tile, for pipelines that arm a stage before anyone may copy into it
// (multicast.cuh's pipelines: the receiving CTA arms, then tells the issuing CTAs the stage is free). arm_tile: arrive_expect_tx with the bytes the tile brings to THIS CTA (one arrival).
__device__ inline void arm_tile(const TmaPlan& plan, MapRef desc, Barrier& bar) { detail::arm(plan, desc, bar); }
// issue_tile: the tile's copies without arming (bar must have been armed for them).
__device__ inline void issue_tile(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                  const std::int32_t* tile_coord) {
  detail::issue(plan, desc, smem, bar, tile_coord, 0, plan.instructions);
}
// issue_tile_multicast: this CTA's share of a multicast tile, to every CTA of its group, without
// arming (each receiver armed its own barrier with arm_tile).
__device__ inline void issue_tile_multicast(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                            const std::int32_t* tile_coord) {
  if (plan.multicast_ctas <= 1 || plan.multicast_dim < 0) {
    issue_tile(plan, desc, smem, bar, tile_coord);
    return;
  }
  const dim3 b = cooperative_groups::this_cluster().block_index();
  const std::uint32_t cta[3] = {b.x, b.y, b.z};
  detail::issue(plan, desc, smem, bar, tile_coord, plan.first_instruction(cta[plan.multicast_dim]),
                plan.instructions_per_cta, plan.multicast_mask(cta));
}

// load_armed_tile: the tile's copies on a barrier its caller armed with plan.expect_tx_bytes
// (Ring::arm: a ring arms its own stages): tells the watchdog (when on) what they bring, then issues.
__device__ inline void load_armed_tile(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                       const std::int32_t* tile_coord) {
  detail::expect(plan, desc, bar);
  issue_tile(plan, desc, smem, bar, tile_coord);
}

// One thread: arm + issue every instruction of the tile at tile_coord (plan.tile_modes entries).
__device__ inline void load_tile(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                 const std::int32_t* tile_coord) {
  arm_tile(plan, desc, bar);
  issue_tile(plan, desc, smem, bar, tile_coord);
}

// The same with the plan as a compile-time constant (the loop unrolls).
template <TmaPlan Plan>
__device__ inline void load_tile(MapRef desc, void* smem, Barrier& bar, const std::int32_t* tile_coord) {
  constexpr TmaPlan plan = Plan;
  detail::arm(plan, desc, bar);
  detail::issue(plan, desc, smem, bar, tile_coord, 0, plan.instructions);
}

// One thread in each CTA of the multicast group (same tile_coord everywhere).
__device__ inline void load_tile_multicast(const TmaPlan& plan, MapRef desc, void* smem, Barrier& bar,
                                           const std::int32_t* tile_coord) {
  detail::arm(plan, desc, bar);  // the whole tile arrives here, from every sharer
  issue_tile_multicast(plan, desc, smem, bar, tile_coord);
}

}  // namespace tmakit::device

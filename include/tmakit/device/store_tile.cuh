// store_tile: a TmaPlan (tmakit/plan) drives the TMA stores of one tile from shared to global
// memory, the mirror of load_tile. One thread, after every thread that wrote the tile fenced its
// writes for the async proxy and the writers synchronized (tma.cuh: publish_smem_writes), calls
//
//   tmakit::device::store_tile(plan, desc, smem, tile_coord);   // issues the planned stores
//   tmakit::device::commit_group();                              // closes one bulk group
//
// and before the shared tile is written again: wait_group_read<N>() (at most N younger groups
// still reading shared memory); before the kernel exits: wait_group<0>(). Out-of-bounds elements
// of a box are not written, so tiles hanging off the tensor's end are clipped by the hardware.
// reduce_tile issues the same copies as reductions (.add, .min, .max, ... into global memory).
#pragma once

#include <cstdint>

#include "tmakit/device/tma.cuh"
#include "tmakit/plan/tma_plan.hpp"

namespace tmakit::device {

namespace detail {

__device__ __forceinline__ void store_planned_box(const TmaPlan& plan, MapRef desc, const unsigned char* smem,
                                                  const PlanInstruction& in) {
  const void* src = smem + in.smem_offset;
  const std::int32_t* c = in.coord;
  switch (plan.params.rank) {
    case 1: store(desc, src, c[0]); break;
    case 2: store(desc, src, c[0], c[1]); break;
    case 3: store(desc, src, c[0], c[1], c[2]); break;
    case 4: store(desc, src, c[0], c[1], c[2], c[3]); break;
    default: store(desc, src, c[0], c[1], c[2], c[3], c[4]); break;
  }
}

template <ReduceOp Op>
__device__ __forceinline__ void reduce_planned_box(const TmaPlan& plan, MapRef desc, const unsigned char* smem,
                                                   const PlanInstruction& in) {
  const void* src = smem + in.smem_offset;
  const std::int32_t* c = in.coord;
  switch (plan.params.rank) {
    case 1: reduce<Op>(desc, src, c[0]); break;
    case 2: reduce<Op>(desc, src, c[0], c[1]); break;
    case 3: reduce<Op>(desc, src, c[0], c[1], c[2]); break;
    case 4: reduce<Op>(desc, src, c[0], c[1], c[2], c[3]); break;
    default: reduce<Op>(desc, src, c[0], c[1], c[2], c[3], c[4]); break;
  }
}

}  // namespace detail

// One thread: every planned store of the tile at tile_coord (plan.tile_modes entries), from the
// tile's shared base `smem` (aligned to plan.smem_alignment). Does not commit the bulk group.
__device__ __forceinline__ void store_tile(const TmaPlan& plan, MapRef desc, const void* smem,
                                           const std::int32_t* tile_coord) {
  const auto* base = static_cast<const unsigned char*>(smem);
#pragma unroll 1
  for (std::uint32_t k = 0; k < plan.instructions; ++k)
    detail::store_planned_box(plan, desc, base, plan.instruction(k, tile_coord));
}

// The same copies as reductions into global memory (Op: tma.cuh's ReduceOp).
template <ReduceOp Op>
__device__ __forceinline__ void reduce_tile(const TmaPlan& plan, MapRef desc, const void* smem,
                                            const std::int32_t* tile_coord) {
  const auto* base = static_cast<const unsigned char*>(smem);
#pragma unroll 1
  for (std::uint32_t k = 0; k < plan.instructions; ++k)
    detail::reduce_planned_box<Op>(plan, desc, base, plan.instruction(k, tile_coord));
}

}  // namespace tmakit::device

// store_tile: a store plan (tmakit/plan, PlanOptions::direction = PlanDirection::store) drives the
// TMA stores of one tile from shared to global memory, the mirror of load_tile; reduce_tile<Op>
// issues the same boxes as reductions (a plan with direction reduce and reduce_op Op: .add, .min,
// .max, ... into global memory). The plan's instructions, coordinates and shared offsets are the
// ones a load plan of the same tile has.
//
// Stores complete by bulk groups, not by an mbarrier. The steps, in order (also in the plan's
// description: plan/describe.hpp bulk_group_steps, `tmakit plan --store`):
//   1. before the stores: every thread that wrote the shared tile fences its writes for the async
//      proxy (fence.proxy.async.shared::cta), then the writers synchronize -- publish_smem_writes()
//      (tma.cuh) does both; without it TMA may read shared memory the writes have not reached yet;
//   2. one thread issues the stores and closes them as one bulk group:
//        tmakit::device::store_tile(plan, desc, smem, tile_coord);
//        tmakit::device::commit_group();
//   3. before the shared tile is written again, that thread waits until the group has read it:
//      wait_group_read<0>() (or wait_group_read<N>() to let the N youngest groups still be in
//      flight, e.g. with N + 1 tile buffers), then the writers synchronize;
//   4. before the kernel exits, that thread waits for the writes themselves: wait_group<0>().
// Out-of-bounds elements of a box are not written, so tiles hanging off the tensor's end are
// clipped by the hardware.
//
// Checks: a plan that is not a store plan (resp. a reduce plan of the same op) is a static_assert
// when the plan is a template argument (store_tile<kPlan>, reduce_tile<Op, kPlan>), and with the
// watchdog on (TMAKIT_WATCHDOG, watchdog.cuh) a report and a trap at run time:
//   tmakit watchdog: block (0,0,0) thread (0,0,0): store_tile given a load plan; it issues stores
//   tmakit watchdog: diagnosis: wrong plan direction: plan the tile with PlanOptions::direction = store (tmakit plan --store)
#pragma once

#include <cstdint>
#include <cstdio>

#include "tmakit/core/reduce_op.hpp"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/plan/tma_plan.hpp"

namespace tmakit::device {

namespace detail {

#if TMAKIT_WATCHDOG
// `call` was given a plan of the wrong direction (or, for reduce_tile, of another op): report it
// (one reporter per grid, as watchdog.cuh's reports) and trap instead of issuing the wrong copies.
__device__ __noinline__ inline void report_plan_direction_and_trap(const char* call, const TmaPlan& plan,
                                                                   PlanDirection want, ReduceOp want_op) {
  watchdog::detail::claim_reporter();
  const char* got_op = reduce_op_name(plan.reduce_op);
  const char* op = reduce_op_name(want_op);
  if (plan.direction == want)  // a reduce plan of another op
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): %s<%s> given a reduce plan of .%s; it issues .%s\n",
           blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, call, op, got_op ? got_op : "?",
           op);
  else
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): %s given a %s plan; it issues %s\n", blockIdx.x,
           blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, call, direction_name(plan.direction),
           want == PlanDirection::store ? "stores" : "reductions");
  if (want == PlanDirection::store)
    printf("tmakit watchdog: diagnosis: wrong plan direction: plan the tile with PlanOptions::direction = store "
           "(tmakit plan --store)\n");
  else
    printf("tmakit watchdog: diagnosis: wrong plan direction: plan the tile with PlanOptions::direction = reduce and "
           "reduce_op = %s (tmakit plan --reduce %s)\n",
           op, op);
  __threadfence_system();
  __trap();
}
#endif

__device__ __forceinline__ void check_store_plan(const TmaPlan& plan) {
#if TMAKIT_WATCHDOG
  if (plan.direction != PlanDirection::store)
    report_plan_direction_and_trap("store_tile", plan, PlanDirection::store, ReduceOp::add);
#else
  (void)plan;
#endif
}

template <ReduceOp Op>
__device__ __forceinline__ void check_reduce_plan(const TmaPlan& plan) {
#if TMAKIT_WATCHDOG
  if (plan.direction != PlanDirection::reduce || plan.reduce_op != Op)
    report_plan_direction_and_trap("reduce_tile", plan, PlanDirection::reduce, Op);
#else
  (void)plan;
#endif
}

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

__device__ __forceinline__ void issue_stores(const TmaPlan& plan, MapRef desc, const void* smem,
                                             const std::int32_t* tile_coord) {
  const auto* base = static_cast<const unsigned char*>(smem);
#pragma unroll 1
  for (std::uint32_t k = 0; k < plan.instructions; ++k) store_planned_box(plan, desc, base, plan.instruction(k, tile_coord));
}

template <ReduceOp Op>
__device__ __forceinline__ void issue_reductions(const TmaPlan& plan, MapRef desc, const void* smem,
                                                 const std::int32_t* tile_coord) {
  const auto* base = static_cast<const unsigned char*>(smem);
#pragma unroll 1
  for (std::uint32_t k = 0; k < plan.instructions; ++k)
    reduce_planned_box<Op>(plan, desc, base, plan.instruction(k, tile_coord));
}

}  // namespace detail

// One thread: every planned store of the tile at tile_coord (plan.tile_modes entries), from the
// tile's shared base `smem` (aligned to plan.smem_alignment). Does not commit the bulk group (step
// 2 above: commit_group() after it).
__device__ __forceinline__ void store_tile(const TmaPlan& plan, MapRef desc, const void* smem,
                                           const std::int32_t* tile_coord) {
  detail::check_store_plan(plan);
  detail::issue_stores(plan, desc, smem, tile_coord);
}

// The same with the plan as a compile-time constant: a plan of another direction does not compile.
template <TmaPlan Plan>
__device__ __forceinline__ void store_tile(MapRef desc, const void* smem, const std::int32_t* tile_coord) {
  static_assert(Plan.direction == PlanDirection::store,
                "store_tile<Plan>: Plan is not a store plan (PlanOptions::direction = PlanDirection::store)");
  constexpr TmaPlan plan = Plan;
  detail::issue_stores(plan, desc, smem, tile_coord);
}

// The same copies as reductions into global memory (Op: tma.cuh's ReduceOp); the plan must be a
// reduce plan of Op (its element type was checked against Op by the planner: plan.reduce_dtype).
template <ReduceOp Op>
__device__ __forceinline__ void reduce_tile(const TmaPlan& plan, MapRef desc, const void* smem,
                                            const std::int32_t* tile_coord) {
  detail::check_reduce_plan<Op>(plan);
  detail::issue_reductions<Op>(plan, desc, smem, tile_coord);
}

template <ReduceOp Op, TmaPlan Plan>
__device__ __forceinline__ void reduce_tile(MapRef desc, const void* smem, const std::int32_t* tile_coord) {
  static_assert(Plan.direction == PlanDirection::reduce,
                "reduce_tile<Op, Plan>: Plan is not a reduce plan (PlanOptions::direction = PlanDirection::reduce)");
  static_assert(Plan.reduce_op == Op, "reduce_tile<Op, Plan>: Plan was planned for another reduction op");
  constexpr TmaPlan plan = Plan;
  detail::issue_reductions<Op>(plan, desc, smem, tile_coord);
}

}  // namespace tmakit::device

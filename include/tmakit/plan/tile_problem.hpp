// The planner's input in flat form: the global modes (extent, stride in elements), the tile extent
// along each, and the pieces ("leaves") of the shared-memory layout, each naming the global mode
// it walks, how far one step moves in that mode's coordinate, and its shared-memory stride.
// make_tile_problem() (tmakit/plan/make_problem.hpp) builds it from a GlobalTensor, a
// SwizzledLayout and a TileExtents; tests may also write one by hand.
#pragma once

#include <cstdint>

#include "tmakit/core/arch.hpp"
#include "tmakit/core/config.hpp"
#include "tmakit/core/reduce_op.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

inline constexpr int kMaxTileModes = 8;    // global modes (after flattening)
inline constexpr int kMaxTileLeaves = 16;  // pieces of the shared layout (after splitting)

// Which way the planned copies go. load: global -> shared (cp.async.bulk.tensor, completes on an
// mbarrier). store: shared -> global (cp.async.bulk.tensor ... .global.shared::cta, completes by
// bulk groups). reduce: the same boxes combined into global memory with a ReduceOp
// (cp.reduce.async.bulk.tensor, bulk groups too). Stored in plans: values are stable.
enum class PlanDirection : std::uint32_t { load = 0, store = 1, reduce = 2 };

TMAKIT_HD constexpr const char* direction_name(PlanDirection d) {
  switch (d) {
    case PlanDirection::load: return "load";
    case PlanDirection::store: return "store";
    case PlanDirection::reduce: return "reduce";
  }
  return "unknown";
}

// One piece of the shared layout: `extent` steps; step k sits at shared element offset
// k * smem_stride (before the swizzle) and at global coordinate origin + k * offset along `mode`.
struct TileLeaf {
  std::int64_t extent = 1;
  std::int64_t smem_stride = 0;  // elements
  std::int32_t mode = 0;         // global mode index
  std::int64_t offset = 1;       // coordinate step along `mode` (product of the inner pieces' extents)
  std::int32_t part = 0;         // index of this piece within its shared mode (for messages)
};

struct TileProblem {
  DataType dtype = DataType::bfloat16;
  Arch arch = Arch::sm_90;
  std::uint64_t address = 0;          // global base address (0: not known yet; the driver takes null)
  std::uint64_t base_alignment = 16;  // bytes the base address is known to be aligned to
  std::int64_t view_offset = 0;       // GlobalTensor::view_offset (elements), for gmem.base_align's message
  std::int32_t modes = 0;
  std::int64_t extent[kMaxTileModes] = {};
  std::int64_t stride[kMaxTileModes] = {};  // elements
  std::int64_t tile[kMaxTileModes] = {};    // tile extent per global mode
  SwizzleParams swizzle{};                  // byte-unit swizzle of the shared layout (bits 0: none)
  std::int32_t leaves = 0;
  TileLeaf leaf[kMaxTileLeaves] = {};
  // Multicast: the CTAs along cluster dimension `multicast_dim` (0 x, 1 y, 2 z; -1 none) load the
  // same tile; each issues a share of the instructions to all of them.
  std::uint32_t cluster[3] = {1, 1, 1};
  std::int32_t multicast_dim = -1;
  L2Promotion l2 = L2Promotion::none;
  OobFill oob = OobFill::none;
  // Stores and reductions plan the same boxes as a load; they refuse multicast and an OOB fill, and
  // a reduction's op must take the element type (plan.store_multicast, plan.store_oob_fill,
  // plan.reduce_dtype).
  PlanDirection direction = PlanDirection::load;
  ReduceOp reduce_op = ReduceOp::add;  // direction == reduce only
  std::uint32_t box_pieces = 1;        // copies the box is cut into (PlanOptions::box_pieces)
  bool fixed_shape = false;            // the plan's shape independent of the extents (PlanOptions::fixed_shape)
};

}  // namespace tmakit

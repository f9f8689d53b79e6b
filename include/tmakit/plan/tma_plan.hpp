// The planner's output: descriptor parameters, the TMA instructions per tile (coordinates affine in
// the tile coordinate, shared-memory byte offsets), the bytes to expect, the shared alignment.
// Plain data (no pointers), constexpr and host+device: a kernel takes a TmaPlan as a constexpr
// value or a kernel parameter (device/load_tile.cuh).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/cluster/shape.hpp"
#include "tmakit/plan/rules.hpp"
#include "tmakit/plan/tile_problem.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

inline constexpr int kMaxPlanLoops = 8;

// Instructions beyond the first come from loops: loop l repeats the box `extent` times, moving
// coordinate `dim` by `coord_step` and the shared destination by `smem_step` bytes each time.
struct PlanLoop {
  std::uint32_t extent = 1;
  std::int32_t dim = 0;
  std::int32_t coord_step = 0;
  std::uint32_t smem_step = 0;
};

// What one TMA dimension of the descriptor is: global mode `mode`, in units of `offset` elements of
// that mode's coordinate (1 unless the planner cut the mode into several TMA dimensions), the
// modes folded into it (only when more than 5 dimensions would be needed otherwise), and the
// shared-memory stride (elements, before the swizzle) its box steps by.
struct PlanDim {
  std::int32_t mode = -1;
  std::int64_t offset = 1;
  std::int64_t smem_pitch = 0;
  std::uint32_t folded = 0;  // bit m: global mode m is folded into this dimension too (see coef)
};

struct PlanInstruction {
  std::int32_t coord[kMaxRank] = {};
  std::uint32_t smem_offset = 0;  // bytes from the (aligned) tile base
};

// The tile coordinate's share of an instruction's coordinates (TmaPlan::origin). plus(step, n): the
// origin n steps further, where step is origin() of a unit tile coordinate along one mode.
struct PlanOrigin {
  std::int32_t coord[kMaxRank] = {};
  TMAKIT_HD constexpr PlanOrigin plus(const PlanOrigin& step, std::int32_t n) const {
    PlanOrigin o;
    TMAKIT_UNROLL
    for (std::uint32_t j = 0; j < kMaxRank; ++j) o.coord[j] = coord[j] + n * step.coord[j];
    return o;
  }
};

struct TmaPlan {
  TensorMapParams params{};  // tiled map; address as given in the problem
  PlanDim dim[kMaxRank] = {};
  std::int32_t tile_modes = 0;
  // coordinate of TMA dim j = sum_m coef[j][m] * tile_coord[m] + the loop offsets
  std::int32_t coef[kMaxRank][kMaxTileModes] = {};
  std::uint32_t loops = 0;
  PlanLoop loop[kMaxPlanLoops] = {};
  std::uint32_t instructions = 1;          // per tile (all CTAs of a multicast group together)
  std::uint32_t tx_bytes_per_instruction = 0;  // transaction_bytes(params)
  std::uint32_t expect_tx_bytes = 0;       // per stage, for every CTA that receives the tile (loads; 0 otherwise)
  std::uint64_t smem_bytes = 0;            // shared bytes the tile spans from its base
  std::uint32_t smem_alignment = 128;      // the tile base must be a multiple of this (bytes): max(128, swizzle repeat)
  std::uint32_t cluster[3] = {1, 1, 1};
  std::int32_t multicast_dim = -1;
  std::uint32_t multicast_ctas = 1;        // CTAs that share the tile (1: no multicast)
  std::uint32_t instructions_per_cta = 1;  // instructions each of them issues
  // load, or store / reduce (device/store_tile.cuh): the same instructions, the other way. Stores and
  // reductions complete by bulk groups, not an mbarrier: see bulk_group_steps (plan/describe.hpp).
  PlanDirection direction = PlanDirection::load;
  ReduceOp reduce_op = ReduceOp::add;  // direction == reduce only

  // The part of every instruction's coordinates that comes from the tile coordinate (tile_modes
  // entries): sum_m coef[j][m] * tile_coord[m]. Linear in the tile coordinate: a kernel that walks
  // tiles along one mode (a GEMM's K loop) computes origin() of its first tile and of one step
  // once, then adds (PlanOrigin::plus). Every loop runs to its compile-time bound with the plan's
  // counts as conditions and every array index is a constant: in device code it stays in registers
  // (pass kMaxTileModes entries, the ones past tile_modes zero).
  TMAKIT_HD constexpr PlanOrigin origin(const std::int32_t* tile_coord) const {
    PlanOrigin o;
    TMAKIT_UNROLL
    for (std::uint32_t j = 0; j < kMaxRank; ++j) {
      if (j >= params.rank) break;
      std::int64_t c = 0;
      TMAKIT_UNROLL
      for (std::int32_t m = 0; m < kMaxTileModes; ++m) {
        if (m >= tile_modes) break;
        c += std::int64_t{coef[j][m]} * tile_coord[m];
      }
      o.coord[j] = static_cast<std::int32_t>(c);
    }
    return o;
  }

  // Instruction k (0 <= k < instructions) at origin `o`: o plus instruction k's loop offsets.
  TMAKIT_HD constexpr PlanInstruction instruction_at(std::uint32_t k, const PlanOrigin& o) const {
    PlanInstruction in;
    TMAKIT_UNROLL
    for (std::uint32_t j = 0; j < kMaxRank; ++j) in.coord[j] = o.coord[j];
    std::uint32_t rest = k;
    TMAKIT_UNROLL
    for (std::uint32_t l = 0; l < kMaxPlanLoops; ++l) {
      if (l >= loops) break;
      const std::uint32_t i = loop[l].extent ? rest % loop[l].extent : 0;
      rest = loop[l].extent ? rest / loop[l].extent : 0;
      const std::int32_t step = static_cast<std::int32_t>(i) * loop[l].coord_step;
      TMAKIT_UNROLL
      for (std::int32_t d = 0; d < static_cast<std::int32_t>(kMaxRank); ++d)
        in.coord[d] += d == loop[l].dim ? step : 0;  // a select per dim, never an index into coord
      in.smem_offset += i * loop[l].smem_step;
    }
    return in;
  }

  // Instruction k (0 <= k < instructions) of the tile at `tile_coord` (tile_modes entries).
  TMAKIT_HD constexpr PlanInstruction instruction(std::uint32_t k, const std::int32_t* tile_coord) const {
    return instruction_at(k, origin(tile_coord));
  }

  // Multicast: the mask of the CTAs (cluster ranks, x fastest) that share the tile with the CTA at
  // cluster position `cta` (x, y, z). Without multicast: that CTA alone.
  TMAKIT_HD constexpr std::uint16_t multicast_mask(const std::uint32_t cta[3]) const {
    std::uint32_t mask = 0;
    const std::uint32_t n = multicast_dim >= 0 ? multicast_ctas : 1;
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint32_t p[3] = {cta[0], cta[1], cta[2]};
      if (multicast_dim >= 0) p[multicast_dim] = k;
      mask |= 1u << ClusterShape{cluster[0], cluster[1], cluster[2]}.rank_of({p[0], p[1], p[2]});
    }
    return static_cast<std::uint16_t>(mask);
  }
  // The instructions the CTA at position `k` along the multicast dimension issues: [first, first+count).
  TMAKIT_HD constexpr std::uint32_t first_instruction(std::uint32_t k) const { return k * instructions_per_cta; }
};

struct PlanResult {
  TmaPlan plan{};
  PlanIssues issues{};
  TileProblem problem{};  // what was planned (as far as it was built): explain_plan() takes it
  TMAKIT_HD constexpr bool ok() const { return issues.empty(); }
};

}  // namespace tmakit

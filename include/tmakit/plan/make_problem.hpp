// From the user's objects (GlobalTensor, shared SwizzledLayout, TileExtents) to the planner's flat
// TileProblem, and plan_tile(): both steps at once. constexpr and host+device.
//
// The shared layout's top-level modes are the tile's modes: either one per global mode, or one per
// global mode the tile spans more than one coordinate of (extent > 1), in order. Each shared mode's
// size must equal its tile extent; its leaves (colexicographic, CuTe order) become TileLeaf pieces.
#pragma once

#include <cstdint>

#include "tmakit/layout/swizzled_layout.hpp"
#include "tmakit/plan/global_tensor.hpp"
#include "tmakit/plan/planner.hpp"
#include "tmakit/plan/tile_problem.hpp"

namespace tmakit {

struct PlanOptions {
  Arch arch = Arch::sm_90;
  std::uint32_t cluster[3] = {1, 1, 1};
  std::int32_t multicast_dim = -1;  // 0 x, 1 y, 2 z; -1 none
  L2Promotion l2 = L2Promotion::none;
  OobFill oob = OobFill::none;
  // load (default), store or reduce (with reduce_op): see TileProblem.
  PlanDirection direction = PlanDirection::load;
  ReduceOp reduce_op = ReduceOp::add;
  // The many-copy form: cut the box's outermost dimension into this many equal copies (1: the
  // fewest copies the tile allows). For measuring one large box against several small ones; a box
  // that cannot be cut so is plan.box_pieces.
  std::uint32_t box_pieces = 1;
  // A plan whose shape (plan/copy_shape.hpp) does not depend on the tensor's extents, for kernels
  // that compile it: every global mode keeps a TMA dimension even at extent 1, and a mode walked by
  // several pieces of the shared layout stays one dimension with the outer pieces as instruction
  // loops (cutting it into several dimensions needs its extent to divide, which a tensor may not).
  bool fixed_shape = false;
};

struct ProblemResult {
  TileProblem problem{};
  PlanIssues issues{};
  TMAKIT_HD constexpr bool ok() const { return issues.empty(); }
};

TMAKIT_HD constexpr ProblemResult make_tile_problem(const GlobalTensor& g, const SwizzledLayout& smem, const TileExtents& t,
                                                    const PlanOptions& o = {}) {
  ProblemResult r;
  TileProblem& pb = r.problem;
  pb.dtype = g.dtype;
  pb.arch = o.arch;
  pb.address = g.address;
  pb.base_alignment = g.base_alignment;
  pb.view_offset = g.view_offset;
  pb.swizzle = smem.swizzle;
  pb.cluster[0] = o.cluster[0];
  pb.cluster[1] = o.cluster[1];
  pb.cluster[2] = o.cluster[2];
  pb.multicast_dim = o.multicast_dim;
  pb.l2 = o.l2;
  pb.oob = o.oob;
  pb.box_pieces = o.box_pieces;
  pb.fixed_shape = o.fixed_shape;
  pb.direction = o.direction;
  pb.reduce_op = o.reduce_op;
  const Layout gf = g.layout.flatten();
  const int gm = gf.num_leaves();
  if (gm > kMaxTileModes || gf.overflow()) {
    r.issues.add(PlanIssue{.rule = PlanRule::gmem_rank, .value = gm, .limit = kMaxTileModes});
    return r;
  }
  pb.modes = gm;
  for (int m = 0; m < gm; ++m) {
    pb.extent[m] = gf.shape_at(m);
    pb.stride[m] = gf.stride_at(m);
  }
  if (t.modes != gm) {
    r.issues.add(PlanIssue{.rule = PlanRule::tile_rank, .value = t.modes, .limit = gm});
    return r;
  }
  std::int32_t tiled[kMaxTileModes] = {};
  std::int32_t ntiled = 0;
  for (int m = 0; m < gm; ++m) {
    pb.tile[m] = t.extent[m] == 0 ? pb.extent[m] : t.extent[m];
    if (pb.tile[m] < 1) r.issues.add(PlanIssue{.rule = PlanRule::tile_extent, .mode = m, .value = pb.tile[m]});
    if (pb.tile[m] > 1) tiled[ntiled++] = m;
  }
  if (!r.issues.empty()) return r;
  const Layout& s = smem.layout;
  const int srank = s.shape.is_leaf() ? 1 : s.rank();
  std::int32_t mode_of[kMaxTileModes] = {};
  if (srank == gm) {
    for (int i = 0; i < gm; ++i) mode_of[i] = i;
  } else if (srank == ntiled) {
    for (int i = 0; i < ntiled; ++i) mode_of[i] = tiled[i];
  } else {
    r.issues.add(PlanIssue{.rule = PlanRule::smem_rank, .value = srank, .limit = ntiled, .count = gm});
    return r;
  }
  for (int i = 0; i < srank; ++i) {
    const Layout sm = s.shape.is_leaf() ? s : s.mode(i);
    const std::int32_t g_mode = mode_of[i];
    if (sm.size() != pb.tile[g_mode]) {
      r.issues.add(PlanIssue{.rule = PlanRule::smem_mode_size, .mode = g_mode, .value = sm.size(),
                             .limit = pb.tile[g_mode], .index = i});
      continue;
    }
    std::int64_t offset = 1;
    const int nl = sm.num_leaves();
    for (int k = 0; k < nl; ++k) {
      if (pb.leaves >= kMaxTileLeaves) {
        r.issues.add(PlanIssue{.rule = PlanRule::leaf_capacity, .value = pb.leaves + 1, .limit = kMaxTileLeaves});
        return r;
      }
      pb.leaf[pb.leaves++] = TileLeaf{sm.shape_at(k), sm.stride_at(k), g_mode, offset, k};
      offset *= sm.shape_at(k);
    }
  }
  return r;
}

// The whole planner: objects in, plan (or every refusal) out.
TMAKIT_HD constexpr PlanResult plan_tile(const GlobalTensor& g, const SwizzledLayout& smem, const TileExtents& t,
                                         const PlanOptions& o = {}) {
  const ProblemResult pr = make_tile_problem(g, smem, t, o);
  if (!pr.ok()) {
    PlanResult r;
    r.issues = pr.issues;
    r.problem = pr.problem;
    return r;
  }
  return plan_tma(pr.problem);
}

}  // namespace tmakit

// A tile plan for a tensor that lives in every rank's symmetric window: ONE TmaPlan (box,
// instructions, byte counts: the same on every rank) and one global address per peer, from which
// one descriptor per peer is encoded (peer_params(), then device/cu_tensor_map.cuh). The peer
// addresses are what this process sees of the other GPUs' windows (NCCL's load/store-accessible
// pointers, ncclGetLsaPointer), so a TMA copy with peer p's descriptor reads or writes GPU p's
// memory over NVLink.
//
//   PeerWindow w;              // world, rank, bytes, base[p] for every rank p
//   GlobalTensor g = ...;      // layout and dtype; g.address = the tensor's OFFSET in the window
//   PeerPlan pp = plan_peer_tile(w, g, smem, tile, options);
//   if (!pp.ok()) ... pp.issues (peer rules) and pp.plan_issues (the planner's own, when peer.plan)
//   TensorMapParams p1 = peer_params(pp, 1);   // the descriptor that reaches rank 1's copy
//
// Checked (every finding at once, each naming its peer): the world and rank, that every rank is
// load/store accessible, every peer's base (present, 4096-aligned), the tensor's address in every
// window (16-aligned), and that the tensor ends inside the window.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/plan/global_tensor.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/peer/rules.hpp"

namespace tmakit {

// One symmetric window as this rank sees it.
struct PeerWindow {
  std::int32_t world = 0;
  std::int32_t rank = 0;
  std::int32_t lsa_ranks = 0;            // ranks load/store accessible from this one (NCCL's LSA team)
  std::uint64_t bytes = 0;               // the window's size (the same on every rank)
  std::uint64_t base[kMaxPeers] = {};    // rank p's window base, as an address of this process
};

struct PeerPlan {
  TmaPlan plan{};                        // rank-independent; plan.params.address = this rank's tensor
  std::uint64_t address[kMaxPeers] = {}; // the tensor's first element in rank p's window
  std::int32_t world = 0;
  PeerIssues issues{};
  PlanIssues plan_issues{};              // the planner's findings (with peer.plan)
  TMAKIT_HD constexpr bool ok() const { return issues.empty(); }
};

// Bytes from the tensor's first element to one past its last (the largest offset any
// coordinate reaches, plus one element). Strides must be non-negative (the planner refuses others).
TMAKIT_HD constexpr std::uint64_t tensor_span_bytes(const GlobalTensor& g) {
  const Layout f = g.layout.flatten();
  std::int64_t last = 0;
  for (int m = 0; m < f.num_leaves(); ++m) {
    const std::int64_t e = f.shape_at(m), s = f.stride_at(m);
    if (e < 1) return 0;
    if (s > 0) last += (e - 1) * s;
  }
  return static_cast<std::uint64_t>(last + 1) * (element_bits(g.dtype) / 8);
}

// The window checks alone (peer.world_size .. peer.window_align), into `issues`.
TMAKIT_HD constexpr void check_window(const PeerWindow& w, PeerIssues& issues) {
  if (w.world < 1 || w.world > kMaxPeers) {
    issues.add(PeerRule::world_size, -1, w.world, kMaxPeers);
    return;
  }
  if (w.rank < 0 || w.rank >= w.world) issues.add(PeerRule::rank_range, -1, w.rank, w.world);
  if (w.lsa_ranks != w.world) issues.add(PeerRule::lsa_team, -1, w.lsa_ranks, w.world);
  for (std::int32_t p = 0; p < w.world; ++p) {
    if (w.base[p] == 0) issues.add(PeerRule::null_base, p, 0, 0);
    else if (w.base[p] % kWindowAlignment != 0)
      issues.add(PeerRule::window_align, p, static_cast<std::int64_t>(w.base[p] % kWindowAlignment),
                 static_cast<std::int64_t>(kWindowAlignment));
  }
}

// The plan of a tile of `g` (g.address: the tensor's offset in the window) in every rank's window.
TMAKIT_HD constexpr PeerPlan plan_peer_tile(const PeerWindow& w, const GlobalTensor& g, const SwizzledLayout& smem,
                                            const TileExtents& tile, const PlanOptions& o = {}) {
  PeerPlan r;
  r.world = w.world;
  check_window(w, r.issues);
  if (!r.issues.empty()) return r;
  const std::uint64_t offset = g.address;
  const std::uint64_t end = offset + tensor_span_bytes(g);
  if (end > w.bytes) r.issues.add(PeerRule::window_bounds, -1, static_cast<std::int64_t>(end),
                                  static_cast<std::int64_t>(w.bytes));
  std::uint64_t align = 1024;
  for (std::int32_t p = 0; p < w.world; ++p) {
    r.address[p] = w.base[p] + offset;
    if (r.address[p] % 16 != 0) r.issues.add(PeerRule::tensor_align, p, static_cast<std::int64_t>(r.address[p] % 16), 16);
    const std::uint64_t a = known_alignment(r.address[p]);
    if (a < align) align = a;
  }
  if (!r.issues.empty()) return r;
  GlobalTensor local = g;
  local.address = r.address[w.rank];
  local.base_alignment = align;  // the plan holds for every peer's address
  const PlanResult pr = plan_tile(local, smem, tile, o);
  if (!pr.ok()) {
    r.issues.add(PeerRule::plan_refused, -1, pr.issues.count, 0);
    r.plan_issues = pr.issues;
    return r;
  }
  r.plan = pr.plan;
  return r;
}

// The descriptor parameters that reach rank p's copy of the tensor: the plan's, re-pointed.
TMAKIT_HD constexpr TensorMapParams peer_params(const PeerPlan& pp, std::int32_t p) {
  TensorMapParams params = pp.plan.params;
  params.address = pp.address[p];
  return params;
}

}  // namespace tmakit

// The rules of tensors that live in other GPUs' memory (peer tensors: one symmetric window per
// rank, every rank's window load/store accessible from this one) and of the collectives built on
// them. One table row per rule, with its stable id; the fixed-capacity list of findings
// (PeerIssues) is plain data, usable in constexpr and device code. Words with the numbers come
// from explain(PeerIssue) (tmakit/peer/explain.hpp, host only).
//
// Ids are stable: tests and users' scripts match on them. Never renumber or rename; add new rules
// at the end.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

// The most ranks one peer plan addresses (one descriptor each; NVLink domains of one host).
inline constexpr int kMaxPeers = 8;

// The alignment NCCL requires of a window's base and size (NCCL_WIN_REQUIRED_ALIGNMENT, nccl.h 2.28).
inline constexpr std::uint64_t kWindowAlignment = 4096;

enum class PeerRule : std::uint32_t {
  world_size = 0,  // peer.world_size: a world of fewer than 1 or more than kMaxPeers ranks
  rank_range,      // peer.rank: this rank is outside [0, world)
  lsa_team,        // peer.lsa_team: not every rank is load/store accessible from this one
  null_base,       // peer.null_base: a peer's window has no address in this process
  window_align,    // peer.window_align: a peer's window base is not a multiple of 4096 bytes
  tensor_align,    // peer.tensor_align: the tensor's address in a peer's window is not a multiple of 16 bytes
  window_bounds,   // peer.window_bounds: the tensor's last byte lies past the end of the window
  plan_refused,    // peer.plan: the tile plan of the tensor was refused (its plan issues say why)
  rows_divide,     // collective.rows_divide: the rows per rank are not a multiple of the tile's rows
  cols_divide,     // collective.cols_divide: the columns are not a multiple of the tile's columns
  reduce_dtype,    // collective.reduce_dtype: an element type the collective does not sum (f32, bf16 only)
  blocks_range,    // collective.blocks: a block count below 1 or above the tiles
  stages_smem,     // collective.stages: the stages do not fit in shared memory (or a lag outside 1 .. min(3, stages - 1))
  gather_rows,     // gather.rows_divide: the gathered rows are not a multiple of world x the row block's rows
  gather_pullers,  // gather.pullers: a puller count below 1, or above what the launch leaves for it
  gather_schedule, // collective.schedule: a store order other than every_peer where it does not apply
};

// `text` says what the input does wrong in one line; `part` names the input; `fix` a remedy that
// needs no numbers.
TMAKIT_HD constexpr RuleTable<PeerRule, 16> rule_table(PeerRule) {
  return {{
      {PeerRule::world_size, "peer.world_size", "communicator", "a world of fewer than 1 or more than kMaxPeers ranks",
       Severity::error, "run 1 to kMaxPeers (8) ranks, one per GPU of one NVLink domain"},
      {PeerRule::rank_range, "peer.rank", "communicator", "this rank is outside [0, world)", Severity::error,
       "take the rank from the communicator (ncclCommUserRank)"},
      {PeerRule::lsa_team, "peer.lsa_team", "communicator",
       "not every rank is load/store accessible (the LSA team is smaller than the world)", Severity::error,
       "run every rank on GPUs of one NVLink domain (NCCL's LSA team must span the world)"},
      {PeerRule::null_base, "peer.null_base", "window", "a peer's window has no address in this process",
       Severity::error, "register the window on every rank (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC) first"},
      {PeerRule::window_align, "peer.window_align", "window",
       "a peer's window base is not a multiple of 4096 bytes (NCCL_WIN_REQUIRED_ALIGNMENT)", Severity::error,
       "allocate the window with ncclMemAlloc and register it from its base"},
      {PeerRule::tensor_align, "peer.tensor_align", "tensor",
       "the tensor's address in a peer's window is not a multiple of 16 bytes (TMA's globalAddress)",
       Severity::error, "place the tensor at a window offset that is a multiple of 16 bytes"},
      {PeerRule::window_bounds, "peer.window_bounds", "tensor", "the tensor's last byte lies past the end of the window",
       Severity::error, "register a larger window, or place the tensor at a smaller offset"},
      {PeerRule::plan_refused, "peer.plan", "tile", "the tile plan of the tensor was refused", Severity::error,
       "see the plan issues (tmakit plan explains each)"},
      {PeerRule::rows_divide, "collective.rows_divide", "tile",
       "the rows per rank are not a multiple of the tile's rows", Severity::error,
       "pick tile rows that divide the rows per rank"},
      {PeerRule::cols_divide, "collective.cols_divide", "tile", "the columns are not a multiple of the tile's columns",
       Severity::error, "pick tile columns that divide the columns"},
      {PeerRule::reduce_dtype, "collective.reduce_dtype", "tensor",
       "an element type the collective does not sum (it sums f32 and bf16 by TMA reduce-add)", Severity::error,
       "reduce in f32 or bf16"},
      {PeerRule::blocks_range, "collective.blocks", "launch", "a block count below 1 or above the number of tiles",
       Severity::error, "use 1 to tiles blocks (one SM each)"},
      {PeerRule::stages_smem, "collective.stages", "launch",
       "the pipeline's stages do not fit in shared memory, or its lag is outside 1 .. min(3, stages - 1)",
       Severity::error, "use fewer stages or smaller tiles, and a lag of 1 to 3 below the stages"},
      {PeerRule::gather_rows, "gather.rows_divide", "tensor",
       "the gathered rows are not a multiple of the world times the rows of one row block (each rank owns whole row "
       "blocks)",
       Severity::error, "pad the rows to a multiple of world x block rows"},
      {PeerRule::gather_pullers, "gather.pullers", "launch",
       "a puller count below 1, or above what the launch leaves for it (the SMs less one, and the signal blocks)",
       Severity::error, "use at least one puller and leave SMs for the GEMM (the benchmark sweeps 4, 8 and 16)"},
      {PeerRule::gather_schedule, "collective.schedule", "launch",
       "a store order other than every_peer on something but a pushed all-gather of 2 or more ranks, an unknown "
       "order, or peer_groups with fewer blocks than peers",
       Severity::error, "use every_peer, or push an all-gather with at least world - 1 blocks"},
  }};
}
static_assert(rule_table_well_formed(rule_table(PeerRule{})));
static_assert(rule_count<PeerRule> == static_cast<int>(PeerRule::gather_schedule) + 1);

// One finding: the rule, the peer rank it concerns (-1: none), and two numbers (what each rule's
// explanation says: e.g. peer.window_bounds: a = the tensor's end offset, b = the window's bytes).
struct PeerIssue {
  PeerRule rule = PeerRule::world_size;
  std::int32_t peer = -1;
  std::int64_t a = 0;
  std::int64_t b = 0;
};

using PeerIssues = ViolationList<PeerRule, 16, PeerIssue>;

}  // namespace tmakit

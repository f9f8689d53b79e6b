// The plan of a collective over peer tensors (all-gather, reduce-scatter of 2-D row-major tensors):
// the TMA plans of one tile (the local load, the stores or reduce-adds into every rank's window),
// how tiles are shared among the blocks, and the byte accounting both sides derive from those plans:
// block b of every rank sends bytes_per_peer(b) bytes to each peer, and block b of every rank
// expects exactly that many from each peer. Nothing downstream counts bytes by hand.
//
// Shapes (row-major, `rows` x `cols` per rank, tiles of tile_rows x tile_cols):
//   all-gather      in:  (rows, cols)         at in_offset of the input window (this rank's chunk)
//                   out: (rows, cols, world)  at out_offset of every rank's output window; rank r's
//                                             chunk is slice r (rows x cols, contiguous)
//   reduce-scatter  in:  (rows, cols, world)  slice q: this rank's contribution to rank q's chunk
//                   out: (rows, cols)         rank q's sum, in rank q's window
// Tile t (row tile t / col_tiles, column tile t % col_tiles) goes to block t % blocks.
//
// The kernels (kernels/collectives_sm90) push: a tile is TMA-loaded from local memory into shared
// memory once, then TMA-stored (all-gather: into every rank's output) or TMA reduce-added
// (reduce-scatter: into its owner's output, after the owner stored its own slice there); or, with
// `pull`, TMA-load the peers' tiles (the input plan's peer addresses) and store or reduce-add them
// locally. The byte counts are the same both ways.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/core/reduce_op.hpp"
#include "tmakit/peer/gather_schedule.hpp"
#include "tmakit/peer/peer_plan.hpp"

namespace tmakit {

enum class CollectiveKind : std::uint32_t { all_gather = 0, reduce_scatter = 1 };

TMAKIT_HD constexpr const char* collective_name(CollectiveKind k) {
  return k == CollectiveKind::all_gather ? "all_gather" : "reduce_scatter";
}

// Shared memory one block may use: the H100's 227 KiB opt-in, less room for the stage barriers and
// their watchdog ledgers (static shared memory).
inline constexpr std::uint64_t kCollectiveSmemLimit = 227 * 1024 - 4096;

struct CollectiveShape {
  CollectiveKind kind = CollectiveKind::all_gather;
  DataType dtype = DataType::bfloat16;
  std::int64_t rows = 0;        // rows of one rank's chunk
  std::int64_t cols = 0;
  std::int32_t tile_rows = 64;
  std::int32_t tile_cols = 256;
  std::int32_t blocks = 16;     // one per SM
  std::int32_t stages = 6;      // shared-memory tiles per block
  std::int32_t lag = 1;         // groups still reading shared memory when a stage is refilled (1 to 3)
  bool pull = false;            // read the peers' memory (TMA loads) instead of writing it (stores)
  // Pushed all-gather only: the order of the stores (gather_schedule.hpp); the default is the
  // only one the others (pull, reduce-scatter) take.
  GatherSchedule schedule = GatherSchedule::every_peer;
  std::uint64_t in_offset = 0;  // the tensors' offsets in their windows
  std::uint64_t out_offset = 0;
};

struct CollectivePlan {
  CollectiveShape shape{};
  PeerPlan input{};    // load plan of the input tile (this rank's window; peers' addresses for reference)
  PeerPlan output{};   // all-gather: store plan; reduce-scatter: reduce-add plan (every rank's output)
  PeerPlan own{};      // reduce-scatter: store plan of this rank's own slice into its output
  std::int64_t row_tiles = 0, col_tiles = 0, tiles = 0;  // tiles of one chunk
  std::uint32_t tile_bytes = 0;    // bytes one tile's copy moves (output plan: instructions x box bytes)
  std::uint32_t stage_bytes = 0;   // shared bytes of one stage (tile span, rounded to its alignment)
  std::uint32_t smem_bytes = 0;    // dynamic shared memory of a block: stages + alignment slack
  PeerIssues issues{};
  PlanIssues plan_issues{};        // the planner's findings behind peer.plan
  TMAKIT_HD constexpr bool ok() const { return issues.empty(); }

  // Tiles of block b (tiles b, b + blocks, ...).
  TMAKIT_HD constexpr std::int64_t tiles_of_block(std::int32_t b) const {
    const std::int64_t n = shape.blocks;
    return tiles / n + (b < tiles % n ? 1 : 0);
  }
  // Bytes block b of every rank sends to each peer, and expects from each peer (every_peer).
  TMAKIT_HD constexpr std::uint64_t bytes_per_peer(std::int32_t b) const {
    return static_cast<std::uint64_t>(tiles_of_block(b)) * tile_bytes;
  }
  // Under the shape's schedule: bytes block b of every rank sends to the rank at distance d
  // (1 .. world - 1) after it, and expects from the rank at distance d before it.
  TMAKIT_HD constexpr std::uint64_t bytes_to(std::int32_t b, std::int32_t d) const {
    return static_cast<std::uint64_t>(gather_tiles_to(shape.schedule, b, shape.blocks, tiles, input.world, d)) *
           tile_bytes;
  }
};

namespace collective_detail {
TMAKIT_HD constexpr Layout row_major(std::int64_t rows, std::int64_t cols) {
  return make_layout(IntTuple::make(rows, cols), IntTuple::make(cols, std::int64_t{1}));
}
TMAKIT_HD constexpr Layout row_major_slices(std::int64_t rows, std::int64_t cols, std::int64_t world) {
  return make_layout(IntTuple::make(rows, cols, world), IntTuple::make(cols, std::int64_t{1}, rows * cols));
}
TMAKIT_HD constexpr void take(PeerIssues& into, const PeerPlan& p, PlanIssues& plan_issues) {
  for (const PeerIssue& i : p.issues) {
    if (into.contains(i.rule) && i.rule != PeerRule::tensor_align && i.rule != PeerRule::window_bounds) continue;
    into.add(i);
  }
  if (!p.plan_issues.empty()) plan_issues = p.plan_issues;
}
}  // namespace collective_detail

// The whole plan, or every finding at once. `in` and `out` are the input and output windows as
// this rank sees them (PeerWindow: world, rank, size, every rank's base).
TMAKIT_HD constexpr CollectivePlan plan_collective(const CollectiveShape& s, const PeerWindow& in, const PeerWindow& out) {
  using namespace collective_detail;
  CollectivePlan c;
  c.shape = s;
  const bool ag = s.kind == CollectiveKind::all_gather;
  if (s.tile_rows < 1 || s.rows < 1 || s.rows % s.tile_rows != 0) c.issues.add(PeerRule::rows_divide, -1, s.rows, s.tile_rows);
  if (s.tile_cols < 1 || s.cols < 1 || s.cols % s.tile_cols != 0) c.issues.add(PeerRule::cols_divide, -1, s.cols, s.tile_cols);
  if (!ag && s.dtype != DataType::float32 && s.dtype != DataType::bfloat16)
    c.issues.add(PeerRule::reduce_dtype, -1, static_cast<std::int64_t>(s.dtype), 0);
  if (!c.issues.empty()) return c;
  c.row_tiles = s.rows / s.tile_rows;
  c.col_tiles = s.cols / s.tile_cols;
  c.tiles = c.row_tiles * c.col_tiles;
  const bool blocks_ok = s.blocks >= 1 && s.blocks <= c.tiles;
  if (!blocks_ok) c.issues.add(PeerRule::blocks_range, -1, s.blocks, c.tiles);
  const auto sched = static_cast<std::uint32_t>(s.schedule);
  const bool sched_ok = sched < static_cast<std::uint32_t>(kGatherSchedules) &&
                        (s.schedule == GatherSchedule::every_peer ||
                         (ag && !s.pull && in.world >= 2 && s.blocks >= gather_min_blocks(s.schedule, in.world)));
  if (!sched_ok) c.issues.add(PeerRule::gather_schedule, -1, sched, gather_min_blocks(s.schedule, in.world));

  const std::int64_t world = in.world;
  SwizzledLayout smem{};
  smem.layout = row_major(s.tile_rows, s.tile_cols);
  TileExtents flat{2, {s.tile_rows, s.tile_cols}};
  TileExtents sliced{3, {s.tile_rows, s.tile_cols, 1}};
  GlobalTensor chunk{s.dtype, row_major(s.rows, s.cols), 0, 16};
  GlobalTensor slices{s.dtype, row_major_slices(s.rows, s.cols, world), 0, 16};

  GlobalTensor gin = ag ? chunk : slices;
  gin.address = s.in_offset;
  c.input = plan_peer_tile(in, gin, smem, ag ? flat : sliced);
  GlobalTensor gout = ag ? slices : chunk;
  gout.address = s.out_offset;
  PlanOptions o{};
  o.direction = ag ? PlanDirection::store : PlanDirection::reduce;
  o.reduce_op = ReduceOp::add;
  c.output = plan_peer_tile(out, gout, smem, ag ? sliced : flat, o);
  take(c.issues, c.input, c.plan_issues);
  take(c.issues, c.output, c.plan_issues);
  if (!ag) {
    PlanOptions os{};
    os.direction = PlanDirection::store;
    c.own = plan_peer_tile(out, gout, smem, flat, os);
    take(c.issues, c.own, c.plan_issues);
  }
  if (!c.issues.empty() && c.issues.count > (blocks_ok ? 0 : 1) + (sched_ok ? 0 : 1)) return c;

  c.tile_bytes = c.output.plan.instructions * c.output.plan.tx_bytes_per_instruction;
  const std::uint64_t align = c.input.plan.smem_alignment;
  const std::uint64_t stage = (c.input.plan.smem_bytes + align - 1) / align * align;
  const std::uint64_t total = stage * static_cast<std::uint64_t>(s.stages < 1 ? 1 : s.stages) + align;
  if (s.stages < 2 || total > kCollectiveSmemLimit || s.lag < 1 || s.lag > 3 || s.lag >= s.stages)
    c.issues.add(PeerRule::stages_smem, -1, static_cast<std::int64_t>(total), static_cast<std::int64_t>(kCollectiveSmemLimit));
  c.stage_bytes = static_cast<std::uint32_t>(stage);
  c.smem_bytes = static_cast<std::uint32_t>(total);
  return c;
}

}  // namespace tmakit

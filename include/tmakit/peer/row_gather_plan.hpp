// The plan of an in-place row gather that a consumer on the same GPU reads row block by row block:
// a row-major tensor of `rows` x `cols`, at the same offset of every rank's symmetric window, whose
// rows are sharded over the ranks (rank q owns rows [q rows / W, (q + 1) rows / W), filled in its
// own window). Each rank's pullers copy the other ranks' shards into the same rows of its own
// window, one row block (block_rows rows, the consumer's row tile) at a time, by TMA: a load from
// the owner's window (its peer descriptor) into shared memory, a store into this rank's window.
// After a row block's stores complete, its puller releases the row block's flag; the consumer
// waits on that flag before it reads the rows (kernels/allgather_gemm_sm90: the GEMM's producer).
//
// The tensor is seen as (rows / W, cols, W): slice q is rank q's shard, so ONE load plan (with one
// descriptor per peer, plan_peer_tile) and ONE store plan (this rank's window) cover every shard,
// and tile coordinates are (row tile in the shard, column tile, owner).
//
// Schedule (RowGatherSchedule, the same functions on the host and in the kernel): the remote row
// blocks of rank r in the order they are pulled, j = 0, 1, ...: first every row block of rank
// r + 1's shard, then r + 2's, ... (rotating: the ranks do not all read one peer at once); puller
// j % pullers pulls remote row block j. Bytes each puller reads from each peer follow from it (the
// signals at the end of a call count exactly those).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"
#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/peer_plan.hpp"
#include "tmakit/peer/signals.hpp"

namespace tmakit {

struct RowGatherShape {
  DataType dtype = DataType::bfloat16;
  std::int64_t rows = 0;           // of the gathered tensor (every rank's shard)
  std::int64_t cols = 0;
  std::int32_t block_rows = 128;   // rows per flag: the consumer's row tile
  std::int32_t tile_rows = 64;     // one TMA copy: tile_rows x tile_cols (block_rows a multiple of tile_rows)
  std::int32_t tile_cols = 256;
  std::int32_t pullers = 8;        // CTAs that pull (one thread each)
  std::int32_t max_pullers = 16;   // what the launch leaves for them (gather.pullers)
  std::int32_t stages = 6;         // shared-memory tiles per puller
  std::uint64_t offset = 0;        // the tensor's offset in the window (the same on every rank)
  std::uint64_t smem_limit = kCollectiveSmemLimit;  // shared bytes a puller may use
};

// Which remote row block goes where: plain numbers, passed to the kernel as they are.
struct RowGatherSchedule {
  std::int32_t world = 1, rank = 0;
  std::int32_t shard_blocks = 0;   // row blocks per shard
  std::int32_t pullers = 1;

  TMAKIT_HD constexpr std::int32_t remote_blocks() const { return (world - 1) * shard_blocks; }
  // Remote row block j: its owner, and its row block index in the gathered tensor.
  TMAKIT_HD constexpr std::int32_t owner(std::int32_t j) const { return (rank + 1 + j / shard_blocks) % world; }
  TMAKIT_HD constexpr std::int32_t row_block(std::int32_t j) const {
    return owner(j) * shard_blocks + j % shard_blocks;
  }
  // The consumer's order of the gathered tensor's row blocks: this rank's own first, then the
  // remote ones in pull order. Row block m of that order -> its index in the tensor.
  TMAKIT_HD constexpr std::int32_t consumer_row_block(std::int32_t m) const {
    const std::int32_t all = world * shard_blocks;
    const std::int32_t b = m + rank * shard_blocks;
    return b < all ? b : b - all;
  }
  // The puller of the row block at index b of the tensor (-1: this rank's own, nobody pulls it).
  TMAKIT_HD constexpr std::int32_t puller_of(std::int32_t b) const {
    const std::int32_t q = b / shard_blocks;
    if (q == rank) return -1;
    const std::int32_t j = ((q - rank - 1 + world) % world) * shard_blocks + b % shard_blocks;
    return j % pullers;
  }
  // Row blocks puller `b` pulls from rank `q` (q != rank), and those puller b of rank q pulls from
  // this rank: what the end-of-call signals count (times the bytes of a row block).
  TMAKIT_HD constexpr std::int64_t blocks_between(std::int32_t b, std::int32_t first_remote) const {
    // remote row blocks j in [first_remote, first_remote + shard_blocks) with j % pullers == b
    const std::int64_t lo = first_remote, hi = first_remote + shard_blocks;
    auto below = [&](std::int64_t x) { return x <= b ? std::int64_t{0} : (x - 1 - b) / pullers + 1; };
    return below(hi) - below(lo);
  }
  TMAKIT_HD constexpr std::int64_t blocks_read_from(std::int32_t b, std::int32_t q) const {
    return blocks_between(b, ((q - rank - 1 + world) % world) * shard_blocks);
  }
  TMAKIT_HD constexpr std::int64_t blocks_read_by(std::int32_t b, std::int32_t q) const {
    return blocks_between(b, ((rank - q - 1 + world) % world) * shard_blocks);
  }
};

struct RowGatherPlan {
  RowGatherShape shape{};
  PeerPlan load{};                 // tile of (rows / W, cols, W) from rank q's window (descriptor q)
  PeerPlan store{};                // the same tile into this rank's window
  RowGatherSchedule schedule{};
  std::int32_t col_tiles = 0;      // tiles per row of tiles
  std::int32_t block_tiles = 0;    // tiles per row block: block_rows / tile_rows x col_tiles
  std::uint32_t tile_bytes = 0;    // bytes one tile's copy moves (the store plan's)
  std::uint64_t block_bytes = 0;   // block_tiles x tile_bytes
  std::uint32_t stage_bytes = 0;   // shared bytes of one stage (rounded to the load plan's alignment)
  std::uint32_t smem_bytes = 0;    // stages + alignment slack
  PeerIssues issues{};
  PlanIssues plan_issues{};
  TMAKIT_HD constexpr bool ok() const { return issues.empty(); }
  // Bytes puller b reads from rank q, and rank q's puller b reads from this rank.
  TMAKIT_HD constexpr std::uint64_t bytes_read_from(std::int32_t b, std::int32_t q) const {
    return static_cast<std::uint64_t>(schedule.blocks_read_from(b, q)) * block_bytes;
  }
  TMAKIT_HD constexpr std::uint64_t bytes_read_by(std::int32_t b, std::int32_t q) const {
    return static_cast<std::uint64_t>(schedule.blocks_read_by(b, q)) * block_bytes;
  }
};

// The whole plan, or every finding at once. `w`: the window holding the tensor, as this rank sees it.
TMAKIT_HD constexpr RowGatherPlan plan_row_gather(const RowGatherShape& s, const PeerWindow& w) {
  using collective_detail::row_major;
  using collective_detail::row_major_slices;
  RowGatherPlan g;
  g.shape = s;
  const std::int64_t world = w.world < 1 ? 1 : w.world;
  const std::int64_t unit = world * s.block_rows;
  if (s.block_rows < 1 || s.rows < 1 || s.rows % unit != 0) g.issues.add(PeerRule::gather_rows, -1, s.rows, unit);
  if (s.tile_rows < 1 || s.block_rows % s.tile_rows != 0)
    g.issues.add(PeerRule::rows_divide, -1, s.block_rows, s.tile_rows);
  if (s.tile_cols < 1 || s.cols < 1 || s.cols % s.tile_cols != 0) g.issues.add(PeerRule::cols_divide, -1, s.cols, s.tile_cols);
  if (s.pullers < 1 || s.pullers > s.max_pullers || s.pullers > static_cast<std::int32_t>(kMaxSignalBlocks))
    g.issues.add(PeerRule::gather_pullers, -1, s.pullers,
                 s.max_pullers < static_cast<std::int32_t>(kMaxSignalBlocks) ? s.max_pullers
                                                                             : static_cast<std::int32_t>(kMaxSignalBlocks));
  if (!g.issues.empty()) return g;

  const std::int64_t shard_rows = s.rows / world;
  SwizzledLayout smem{};
  smem.layout = row_major(s.tile_rows, s.tile_cols);
  const TileExtents tile{3, {s.tile_rows, s.tile_cols, 1}};
  GlobalTensor t{s.dtype, row_major_slices(shard_rows, s.cols, world), 0, 16};
  t.address = s.offset;
  g.load = plan_peer_tile(w, t, smem, tile);
  PlanOptions o{};
  o.direction = PlanDirection::store;
  g.store = plan_peer_tile(w, t, smem, tile, o);
  collective_detail::take(g.issues, g.load, g.plan_issues);
  if (g.load.ok()) collective_detail::take(g.issues, g.store, g.plan_issues);  // the same tensor: the same window findings
  if (!g.issues.empty()) return g;

  g.schedule = {w.world, w.rank, static_cast<std::int32_t>(shard_rows / s.block_rows), s.pullers};
  g.col_tiles = static_cast<std::int32_t>(s.cols / s.tile_cols);
  g.block_tiles = s.block_rows / s.tile_rows * g.col_tiles;
  g.tile_bytes = g.store.plan.instructions * g.store.plan.tx_bytes_per_instruction;
  g.block_bytes = static_cast<std::uint64_t>(g.block_tiles) * g.tile_bytes;
  const std::uint64_t align = g.load.plan.smem_alignment;
  const std::uint64_t stage = (g.load.plan.smem_bytes + align - 1) / align * align;
  const std::uint64_t total = stage * static_cast<std::uint64_t>(s.stages < 1 ? 1 : s.stages) + align;
  if (s.stages < 2 || total > s.smem_limit)
    g.issues.add(PeerRule::stages_smem, -1, static_cast<std::int64_t>(total), static_cast<std::int64_t>(s.smem_limit));
  g.stage_bytes = static_cast<std::uint32_t>(stage);
  g.smem_bytes = static_cast<std::uint32_t>(total);
  return g;
}

}  // namespace tmakit

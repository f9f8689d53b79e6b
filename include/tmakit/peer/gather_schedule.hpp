// The order in which a pushed all-gather's blocks store their tiles into the ranks' outputs (the
// schedule), and what follows from it: which tiles a block walks, where each of its stores goes,
// and how many tiles it writes into each peer (the byte accounting both sides take from here).
//
// Ranks are named by their distance from this one: distance d is rank (rank + d) % world; d = 0
// is this rank's own output. Tile t is block b's i-th tile when t = first + i * step (TileStride).
//
//   every_peer     (the default) tile t of block t % blocks: one load, then a store into every
//                  rank's output, distance 0 first, then 1, 2, ...
//   rotated        as every_peer, but block b's i-th tile starts at distance (1 + b + i) % world:
//                  at one moment the blocks start at different ranks, and so do a block's
//                  successive tiles (keyed by the tile number t alone, a block's tiles would all
//                  start at the same rank whenever the world divides the block count)
//   peer_groups    the blocks are split into world - 1 groups (block b in group b % (world - 1));
//                  group g walks every tile of the chunk (among its own blocks) and stores only
//                  into the rank at distance 1 + g; the own output's store of tile t is made by
//                  group t % (world - 1)
//   peers_in_turn  every block walks its tiles (as every_peer) world times: into distance 1 for
//                  all of them, then distance 2, ..., then its own output (distance 0, last);
//                  one load per store
//
// The schedules other than every_peer exist to find where a 4-GPU all-gather loses bandwidth
// (docs/collectives.md, "Probe"); they move the same bytes into the same places.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

enum class GatherSchedule : std::uint32_t { every_peer = 0, rotated = 1, peer_groups = 2, peers_in_turn = 3 };

inline constexpr int kGatherSchedules = 4;

TMAKIT_HD constexpr const char* gather_schedule_name(GatherSchedule s) {
  switch (s) {
    case GatherSchedule::every_peer: return "every_peer";
    case GatherSchedule::rotated: return "rotated";
    case GatherSchedule::peer_groups: return "peer_groups";
    case GatherSchedule::peers_in_turn: return "peers_in_turn";
  }
  return "?";
}

// The tiles one block handles: first, first + step, ... (count of them).
struct TileStride {
  std::int64_t first = 0;
  std::int64_t step = 1;
  std::int64_t count = 0;
};

// Block b's group under peer_groups: group b % groups, the index among its group's blocks, and
// how many blocks the group has.
struct BlockGroup {
  std::int32_t group = 0;
  std::int32_t index = 0;
  std::int32_t blocks = 0;
};

TMAKIT_HD constexpr BlockGroup block_group(std::int32_t block, std::int32_t blocks, std::int32_t groups) {
  BlockGroup g;
  g.group = block % groups;
  g.index = block / groups;
  g.blocks = blocks / groups + (g.group < blocks % groups ? 1 : 0);
  return g;
}

// Tiles first, first + step, ... below `tiles`, for the block at `index` of `walkers` blocks.
TMAKIT_HD constexpr TileStride strided_walk(std::int64_t index, std::int64_t walkers, std::int64_t tiles) {
  return {index, walkers, tiles / walkers + (index < tiles % walkers ? 1 : 0)};
}

// The groups of peer_groups: one per peer.
TMAKIT_HD constexpr std::int32_t gather_groups(std::int32_t world) { return world > 1 ? world - 1 : 1; }

// The smallest block count a schedule runs with (peer_groups: a block per group).
TMAKIT_HD constexpr std::int32_t gather_min_blocks(GatherSchedule s, std::int32_t world) {
  return s == GatherSchedule::peer_groups ? gather_groups(world) : 1;
}

TMAKIT_HD constexpr TileStride gather_walk(GatherSchedule s, std::int32_t block, std::int32_t blocks, std::int64_t tiles,
                                         std::int32_t world) {
  if (s == GatherSchedule::peer_groups) {
    const BlockGroup g = block_group(block, blocks, gather_groups(world));
    return strided_walk(g.index, g.blocks, tiles);
  }
  return strided_walk(block, blocks, tiles);
}

// every_peer and rotated: the distance of the k-th store (k = 0 .. world - 1) of block b's i-th tile.
TMAKIT_HD constexpr std::int32_t gather_store_distance(GatherSchedule s, std::int32_t world, std::int32_t block,
                                                       std::int64_t i, std::int32_t k) {
  if (s != GatherSchedule::rotated) return k;
  return static_cast<std::int32_t>((1 + block + i + k) % world);
}

// peers_in_turn: the distance of turn `turn` (0 .. world - 1): 1, 2, ..., world - 1, then 0.
TMAKIT_HD constexpr std::int32_t gather_turn_distance(std::int32_t world, std::int32_t turn) {
  return (1 + turn) % world;
}

// peer_groups: the one peer distance of a block's group, and whether it also stores tile t into
// this rank's own output.
TMAKIT_HD constexpr std::int32_t gather_group_distance(std::int32_t block, std::int32_t world) {
  return 1 + block % gather_groups(world);
}
TMAKIT_HD constexpr bool gather_group_stores_own(std::int32_t block, std::int64_t tile, std::int32_t world) {
  const std::int32_t groups = gather_groups(world);
  return tile % groups == block % groups;
}

// Tiles block b of every rank writes into the rank at distance d (1 .. world - 1) after it; block
// b of a rank expects as many from the rank at distance d before it.
TMAKIT_HD constexpr std::int64_t gather_tiles_to(GatherSchedule s, std::int32_t block, std::int32_t blocks,
                                                 std::int64_t tiles, std::int32_t world, std::int32_t d) {
  const TileStride w = gather_walk(s, block, blocks, tiles, world);
  if (s == GatherSchedule::peer_groups && d != gather_group_distance(block, world)) return 0;
  return w.count;
}

}  // namespace tmakit

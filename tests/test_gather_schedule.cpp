// The store orders of a pushed all-gather (tmakit/peer/gather_schedule.hpp): every schedule
// delivers every tile of every rank into every rank's output exactly once, the byte counts a block
// signals are the stores it makes, and each order is the one it names. The stores are replayed on
// the host the way the kernel (kernels/collectives_sm90/kernel.cuh) issues them, from the same
// functions. Host only.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/explain.hpp"
#include "tmakit/peer/gather_schedule.hpp"
#include "peer_test_util.hpp"

namespace {

using namespace tmakit;

constexpr GatherSchedule kAll[] = {GatherSchedule::every_peer, GatherSchedule::rotated, GatherSchedule::peer_groups,
                                   GatherSchedule::peers_in_turn};

// One store: block `block` of rank `from` writes its tile `tile` into rank `to`'s output; `seq` is
// its position in the block's issue order.
struct Store {
  std::int32_t from, block, to;
  std::int64_t tile;
  std::int64_t seq;
};

// The stores of block b of rank r, in the kernel's order.
std::vector<Store> block_stores(GatherSchedule s, std::int32_t r, std::int32_t b, std::int32_t blocks,
                                std::int64_t tiles, std::int32_t world) {
  std::vector<Store> out;
  const TileStride w = gather_walk(s, b, blocks, tiles, world);
  auto tile = [&](std::int64_t i) { return w.first + i * w.step; };
  auto put = [&](std::int32_t d, std::int64_t i) {
    out.push_back({r, b, (r + d) % world, tile(i), static_cast<std::int64_t>(out.size())});
  };
  if (s == GatherSchedule::peers_in_turn) {
    for (std::int64_t j = 0; j < w.count * world; ++j)
      put(gather_turn_distance(world, static_cast<std::int32_t>(j / w.count)), j % w.count);
  } else if (s == GatherSchedule::peer_groups) {
    for (std::int64_t i = 0; i < w.count; ++i) {
      put(gather_group_distance(b, world), i);
      if (gather_group_stores_own(b, tile(i), world)) put(0, i);
    }
  } else {
    for (std::int64_t i = 0; i < w.count; ++i)
      for (std::int32_t k = 0; k < world; ++k) put(gather_store_distance(s, world, b, i, k), i);
  }
  return out;
}

struct Case {
  std::int32_t world, blocks;
  std::int64_t tiles;
};
const Case kCases[] = {{2, 1, 5}, {2, 16, 256}, {3, 4, 9}, {4, 3, 7}, {4, 16, 256}, {4, 24, 1024},
                       {4, 7, 100}, {4, 48, 2048}, {8, 7, 64}, {8, 132, 4096}};

std::string name(GatherSchedule s, const Case& c) {
  return std::string(gather_schedule_name(s)) + " world " + std::to_string(c.world) + " blocks " +
         std::to_string(c.blocks) + " tiles " + std::to_string(c.tiles);
}

TEST(GatherSchedule, EveryTileReachesEveryRankOnce) {
  for (GatherSchedule s : kAll)
    for (const Case& c : kCases) {
      std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, int> seen;  // (to, from, tile)
      for (std::int32_t r = 0; r < c.world; ++r)
        for (std::int32_t b = 0; b < c.blocks; ++b)
          for (const Store& st : block_stores(s, r, b, c.blocks, c.tiles, c.world)) {
            ASSERT_GE(st.tile, 0) << name(s, c);
            ASSERT_LT(st.tile, c.tiles) << name(s, c);
            ++seen[{st.to, st.from, st.tile}];
          }
      ASSERT_EQ(seen.size(), static_cast<std::size_t>(c.world * c.world) * static_cast<std::size_t>(c.tiles))
          << name(s, c);
      for (const auto& [key, n] : seen) ASSERT_EQ(n, 1) << name(s, c);
    }
}

// What block b of rank r signals to each peer is what it stored there, and what block b of the
// receiver expects from r is the same number (the counts of every rank come from one function).
TEST(GatherSchedule, ByteCountsAreTheStores) {
  for (GatherSchedule s : kAll)
    for (const Case& c : kCases)
      for (std::int32_t r = 0; r < c.world; ++r)
        for (std::int32_t b = 0; b < c.blocks; ++b) {
          std::vector<std::int64_t> stored(c.world, 0);
          for (const Store& st : block_stores(s, r, b, c.blocks, c.tiles, c.world)) ++stored[st.to];
          for (std::int32_t d = 1; d < c.world; ++d) {
            const std::int32_t p = (r + d) % c.world;
            EXPECT_EQ(gather_tiles_to(s, b, c.blocks, c.tiles, c.world, d), stored[p]) << name(s, c) << " d " << d;
            // the receiver p expects from r, at distance (p - r) = d before it
            EXPECT_EQ(gather_tiles_to(s, b, c.blocks, c.tiles, c.world, (p - r + c.world) % c.world), stored[p]);
          }
        }
}

TEST(GatherSchedule, PeerGroupsSplitTheBlocks) {
  EXPECT_EQ(gather_groups(4), 3);
  EXPECT_EQ(gather_groups(2), 1);
  // 16 blocks in 3 groups: 6, 5, 5; block 7 is the third of group 1.
  const BlockGroup g = block_group(7, 16, 3);
  EXPECT_EQ(g.group, 1);
  EXPECT_EQ(g.index, 2);
  EXPECT_EQ(g.blocks, 5);
  EXPECT_EQ(block_group(0, 16, 3).blocks, 6);
  EXPECT_EQ(block_group(2, 16, 3).blocks, 5);
  // Each block writes into one peer only (and maybe its own output); group g's peer is at distance 1 + g.
  for (std::int32_t b = 0; b < 24; ++b) {
    std::set<std::int32_t> peers;
    for (const Store& st : block_stores(GatherSchedule::peer_groups, 1, b, 24, 1024, 4))
      if (st.to != 1) peers.insert(st.to);
    EXPECT_EQ(peers, (std::set<std::int32_t>{(1 + 1 + b % 3) % 4})) << b;
  }
  // Under every_peer a block writes into all three.
  std::set<std::int32_t> all;
  for (const Store& st : block_stores(GatherSchedule::every_peer, 1, 0, 24, 1024, 4)) all.insert(st.to);
  EXPECT_EQ(all.size(), 4u);
  // Group g's blocks walk every tile of the chunk among themselves.
  std::int64_t walked = 0;
  for (std::int32_t b = 0; b < 16; b += 3) walked += gather_walk(GatherSchedule::peer_groups, b, 16, 1000, 4).count;
  EXPECT_EQ(walked, 1000);
}

TEST(GatherSchedule, RotationSpreadsTheFirstStores) {
  // every_peer: every block's every tile starts with this rank's own output, then distance 1.
  for (std::int32_t b = 0; b < 16; ++b)
    for (std::int64_t i = 0; i < 8; ++i) {
      EXPECT_EQ(gather_store_distance(GatherSchedule::every_peer, 4, b, i, 0), 0);
      EXPECT_EQ(gather_store_distance(GatherSchedule::every_peer, 4, b, i, 1), 1);
    }
  // rotated: at one moment (i fixed), 16 blocks start at each of the 4 distances 4 times; one
  // block's successive tiles start at successive distances (even though 4 divides 16).
  std::map<std::int32_t, int> first;
  for (std::int32_t b = 0; b < 16; ++b) ++first[gather_store_distance(GatherSchedule::rotated, 4, b, 3, 0)];
  EXPECT_EQ(first, (std::map<std::int32_t, int>{{0, 4}, {1, 4}, {2, 4}, {3, 4}}));
  for (std::int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(gather_store_distance(GatherSchedule::rotated, 4, 5, i, 0), (1 + 5 + i) % 4) << i;
  // block 0's first tile starts at distance 1 (rank + 1), not at this rank's own output.
  EXPECT_EQ(gather_store_distance(GatherSchedule::rotated, 4, 0, 0, 0), 1);
  // The world distances of one tile are each used once.
  std::set<std::int32_t> ds;
  for (std::int32_t k = 0; k < 4; ++k) ds.insert(gather_store_distance(GatherSchedule::rotated, 4, 9, 2, k));
  EXPECT_EQ(ds.size(), 4u);
}

TEST(GatherSchedule, PeersInTurnFinishOnePeerBeforeTheNext) {
  const std::vector<Store> st = block_stores(GatherSchedule::peers_in_turn, 2, 3, 16, 256, 4);
  ASSERT_EQ(st.size(), 4u * 16u);
  // rank 2: all 16 tiles into rank 3, then rank 0, then rank 1, then its own output.
  const std::int32_t order[] = {3, 0, 1, 2};
  for (std::size_t j = 0; j < st.size(); ++j) EXPECT_EQ(st[j].to, order[j / 16]) << j;
}

PeerWindow window(std::int32_t world, std::int32_t rank, std::uint64_t bytes) {
  return tmakit_test::peer_window(world, rank, bytes);
}

CollectiveShape gather(std::int64_t rows, GatherSchedule s, std::int32_t blocks) {
  CollectiveShape c;
  c.kind = CollectiveKind::all_gather;
  c.rows = rows;
  c.cols = 4096;
  c.blocks = blocks;
  c.schedule = s;
  return c;
}

TEST(GatherSchedule, PlanCountsBytesUnderTheSchedule) {
  const PeerWindow in = window(4, 1, 64 << 20), out = window(4, 1, 256 << 20);
  const CollectivePlan c = plan_collective(gather(1024, GatherSchedule::peer_groups, 24), in, out);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c.tiles, 256);
  // Block 4 is in group 1 (index 1 of 8): tiles 1, 9, ... (32 of them) into distance 2 only.
  EXPECT_EQ(c.bytes_to(4, 2), 32u * c.tile_bytes);
  EXPECT_EQ(c.bytes_to(4, 1), 0u);
  EXPECT_EQ(c.bytes_to(4, 3), 0u);
  // Over the blocks, every peer still gets the whole chunk.
  for (std::int32_t d = 1; d < 4; ++d) {
    std::uint64_t sum = 0;
    for (std::int32_t b = 0; b < 24; ++b) sum += c.bytes_to(b, d);
    EXPECT_EQ(sum, 1024u * 4096u * 2u) << d;
  }
  // every_peer: bytes_to is bytes_per_peer at every distance.
  const CollectivePlan e = plan_collective(gather(1024, GatherSchedule::every_peer, 24), in, out);
  ASSERT_TRUE(e.ok());
  for (std::int32_t b = 0; b < 24; ++b)
    for (std::int32_t d = 1; d < 4; ++d) EXPECT_EQ(e.bytes_to(b, d), e.bytes_per_peer(b));
}

TEST(GatherSchedule, RefusedWhereItDoesNotApply) {
  const PeerWindow in = window(4, 0, 64 << 20), out = window(4, 0, 256 << 20);
  auto ids = [](const CollectivePlan& c) {
    std::vector<std::string> v;
    for (const PeerIssue& i : c.issues) v.push_back(rule_id(i.rule));
    return v;
  };
  const std::vector<std::string> refused{"collective.schedule"};
  CollectiveShape pulled = gather(1024, GatherSchedule::rotated, 16);
  pulled.pull = true;
  EXPECT_EQ(ids(plan_collective(pulled, in, out)), refused);
  CollectiveShape rs = gather(1024, GatherSchedule::peers_in_turn, 16);
  rs.kind = CollectiveKind::reduce_scatter;
  EXPECT_EQ(ids(plan_collective(rs, window(4, 0, 256 << 20), window(4, 0, 64 << 20))), refused);
  // peer_groups needs a block per peer: 2 blocks for 3 peers.
  const CollectivePlan few = plan_collective(gather(1024, GatherSchedule::peer_groups, 2), in, out);
  EXPECT_EQ(ids(few), refused);
  EXPECT_EQ(explain(few.issues.items[0]),
            "error [collective.schedule] store order peer_groups applies to a pushed all-gather of 2 or more ranks "
            "with at least 3 block(s); fix: use every_peer, or push an all-gather with at least world - 1 blocks");
  EXPECT_TRUE(plan_collective(gather(1024, GatherSchedule::peer_groups, 3), in, out).ok());
  // An unknown order, and one on a single rank.
  EXPECT_EQ(ids(plan_collective(gather(1024, static_cast<GatherSchedule>(7), 16), in, out)), refused);
  EXPECT_EQ(ids(plan_collective(gather(1024, GatherSchedule::rotated, 16), window(1, 0, 64 << 20),
                                window(1, 0, 64 << 20))),
            refused);
  // Found together with the other launch findings.
  CollectiveShape both = gather(64, GatherSchedule::peer_groups, 100);  // 16 tiles
  both.pull = true;
  EXPECT_EQ(ids(plan_collective(both, in, out)), (std::vector<std::string>{"collective.blocks", "collective.schedule"}));
}

}  // namespace

// The in-place row gather's plan (tmakit/peer/row_gather_plan.hpp): one load and one store plan
// over every rank's window, the schedule (each remote row block pulled exactly once, in rotating
// owner order, by puller j % P), the consumer's order (own rows first), byte counts that agree
// between every pair of ranks (what the end-of-call signals compare), and the refusals with their
// rule ids. Host only (no GPU, no NCCL).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tmakit/peer/explain.hpp"
#include "tmakit/peer/row_gather_plan.hpp"
#include "tmakit/tensor_map/validate.hpp"
#include "peer_test_util.hpp"

namespace {

using namespace tmakit;

PeerWindow window(std::int32_t world, std::int32_t rank, std::uint64_t bytes) {
  return tmakit_test::peer_window(world, rank, bytes);
}

RowGatherShape shape(std::int64_t rows, std::int64_t cols, std::int32_t pullers) {
  RowGatherShape s;
  s.rows = rows;
  s.cols = cols;
  s.pullers = pullers;
  s.max_pullers = 131;
  return s;
}

std::vector<std::string> ids(const PeerIssues& issues) {
  std::vector<std::string> out;
  for (const PeerIssue& i : issues) out.push_back(rule_id(i.rule));
  return out;
}

TEST(RowGatherPlan, PlansOneTileOverEveryShard) {
  // M = 8192, K = 8192, 4 ranks: 16 row blocks of 128 rows per shard, tiles of 64 x 256.
  const PeerWindow w = window(4, 1, 8192ull * 8192 * 2);
  const RowGatherPlan g = plan_row_gather(shape(8192, 8192, 8), w);
  ASSERT_TRUE(g.ok()) << (g.issues.count ? explain(g.issues.items[0]) : "");
  EXPECT_EQ(g.schedule.shard_blocks, 16);
  EXPECT_EQ(g.schedule.remote_blocks(), 48);
  EXPECT_EQ(g.col_tiles, 32);
  EXPECT_EQ(g.block_tiles, 64);           // 2 rows of tiles x 32
  EXPECT_EQ(g.tile_bytes, 64u * 256 * 2);
  EXPECT_EQ(g.block_bytes, 128ull * 8192 * 2);  // a row block: 128 rows of K
  EXPECT_EQ(g.load.plan.expect_tx_bytes, g.tile_bytes);
  EXPECT_EQ(g.store.plan.direction, PlanDirection::store);
  EXPECT_EQ(g.stage_bytes, 32768u);
  for (int p = 0; p < 4; ++p) {
    const TensorMapParams q = peer_params(g.load, p);
    EXPECT_EQ(q.address, w.base[p]);
    EXPECT_TRUE(validate(q).ok()) << p;
    EXPECT_EQ(q.dims[0], 8192u);  // K
    EXPECT_EQ(q.dims[1], 2048u);  // rows of a shard
    EXPECT_EQ(q.dims[2], 4u);     // shards
  }
  EXPECT_EQ(peer_params(g.store, 1).address, w.base[1]);
}

TEST(RowGatherPlan, EveryRemoteRowBlockOnceInRotatingOrder) {
  for (int world : {2, 3, 4, 8})
    for (int pullers : {1, 3, 4, 16})
      for (int rank = 0; rank < world; ++rank) {
        const RowGatherPlan g = plan_row_gather(shape(world * 5 * 128, 512, pullers), window(world, rank, 64 << 20));
        ASSERT_TRUE(g.ok()) << world << " " << pullers;
        const RowGatherSchedule& s = g.schedule;
        std::set<int> seen;
        int last_owner_step = 0;
        for (int j = 0; j < s.remote_blocks(); ++j) {
          const int b = s.row_block(j), owner = s.owner(j);
          EXPECT_NE(owner, rank);
          EXPECT_EQ(b / s.shard_blocks, owner);
          EXPECT_TRUE(seen.insert(b).second) << "row block " << b << " pulled twice";
          EXPECT_EQ(s.puller_of(b), j % pullers);
          const int step = (owner - rank + world) % world;  // rank + 1 first, then rank + 2, ...
          EXPECT_GE(step, last_owner_step);
          last_owner_step = step;
        }
        EXPECT_EQ(static_cast<int>(seen.size()), (world - 1) * 5);
        for (int b = rank * 5; b < rank * 5 + 5; ++b) EXPECT_EQ(s.puller_of(b), -1) << "own rows are not pulled";
        // The consumer's order: a permutation, this rank's row blocks first, then pull order.
        std::set<int> order;
        for (int m = 0; m < world * 5; ++m) {
          const int b = s.consumer_row_block(m);
          EXPECT_TRUE(order.insert(b).second);
          if (m < 5) EXPECT_EQ(b / 5, rank);
          else EXPECT_EQ(b, s.row_block(m - 5));
        }
      }
}

TEST(RowGatherPlan, BytesAgreeBetweenEveryPairOfRanks) {
  for (int world : {2, 4, 8})
    for (int pullers : {1, 3, 8, 16}) {
      std::vector<RowGatherPlan> plans;
      for (int r = 0; r < world; ++r) plans.push_back(plan_row_gather(shape(world * 7 * 128, 1024, pullers), window(world, r, 64 << 20)));
      for (int r = 0; r < world; ++r)
        for (int q = 0; q < world; ++q) {
          if (q == r) continue;
          std::uint64_t from_q = 0;
          for (int b = 0; b < pullers; ++b) {
            // what puller b of r reads from q is what q's puller b expects to have been read by r
            EXPECT_EQ(plans[r].bytes_read_from(b, q), plans[q].bytes_read_by(b, r)) << world << " " << pullers;
            from_q += plans[r].bytes_read_from(b, q);
          }
          EXPECT_EQ(from_q, 7 * plans[r].block_bytes);  // q's whole shard, once
        }
    }
}

TEST(RowGatherPlan, RefusalsNameTheirRules) {
  const PeerWindow w = window(4, 0, 64 << 20);
  // 1000 rows: not a multiple of 4 x 128; 300 columns: not of 256; no pullers.
  RowGatherPlan g = plan_row_gather(shape(1000, 300, 0), w);
  EXPECT_EQ(ids(g.issues), (std::vector<std::string>{"gather.rows_divide", "collective.cols_divide", "gather.pullers"}));
  EXPECT_EQ(explain(g.issues.items[0]),
            "error [gather.rows_divide] 1000 gathered rows, not a multiple of 512 (world x block rows); fix: pad the rows "
            "to a multiple of world x block rows");
  RowGatherShape s = shape(4096, 4096, 200);
  s.max_pullers = 131;
  EXPECT_EQ(ids(plan_row_gather(s, w).issues), (std::vector<std::string>{"gather.pullers"}));
  s = shape(4096, 4096, 8);
  s.stages = 8;  // 8 x 32 KiB + alignment: more than the puller's share of shared memory
  s.smem_limit = 200 * 1024;
  EXPECT_EQ(ids(plan_row_gather(s, w).issues), (std::vector<std::string>{"collective.stages"}));
  s = shape(8192, 8192, 8);  // 128 MiB of A in a 64 MiB window
  EXPECT_EQ(ids(plan_row_gather(s, w).issues), (std::vector<std::string>{"peer.window_bounds"}));
  s = shape(3840, 4096, 8);
  s.block_rows = 96;  // not a multiple of the 64-row tile
  EXPECT_EQ(ids(plan_row_gather(s, w).issues), (std::vector<std::string>{"collective.rows_divide"}));
}

}  // namespace

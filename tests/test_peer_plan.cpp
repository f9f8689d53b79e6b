// Peer tensors and collective plans (tmakit/peer): one plan, one address per peer, the window and
// alignment rules naming the peer they concern, and the byte accounting every rank derives from
// the same plan. Host only (no GPU, no NCCL).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/explain.hpp"
#include "tmakit/peer/peer_plan.hpp"
#include "tmakit/tensor_map/validate.hpp"
#include "peer_test_util.hpp"

namespace {

using namespace tmakit;

PeerWindow window(std::int32_t world, std::int32_t rank, std::uint64_t bytes) {
  return tmakit_test::peer_window(world, rank, bytes);
}

constexpr CollectiveShape all_gather_shape(std::int64_t rows, std::int64_t cols) {
  CollectiveShape s;
  s.kind = CollectiveKind::all_gather;
  s.dtype = DataType::bfloat16;
  s.rows = rows;
  s.cols = cols;
  return s;
}

std::string first_message(const PeerIssues& issues) { return issues.count ? explain(issues.items[0]) : ""; }

TEST(PeerPlan, OnePlanOneAddressPerPeer) {
  const PeerWindow w = window(4, 2, 64 << 20);
  GlobalTensor g{DataType::bfloat16, make_layout(IntTuple::make(512, 4096), IntTuple::make(4096, 1)), 4096, 16};
  SwizzledLayout smem{};
  smem.layout = make_layout(IntTuple::make(64, 256), IntTuple::make(256, 1));
  const PeerPlan pp = plan_peer_tile(w, g, smem, TileExtents{2, {64, 256}}, PlanOptions{});
  ASSERT_TRUE(pp.ok()) << first_message(pp.issues);
  EXPECT_EQ(pp.world, 4);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(pp.address[p], w.base[p] + 4096) << p;
    const TensorMapParams q = peer_params(pp, p);
    EXPECT_EQ(q.address, w.base[p] + 4096);
    EXPECT_TRUE(validate(q).ok()) << p;
    // Everything but the address is the one plan's.
    EXPECT_EQ(q.box[0], 256u);
    EXPECT_EQ(q.box[1], 64u);
    EXPECT_EQ(q.dims[0], 4096u);
    EXPECT_EQ(q.dims[1], 512u);
  }
  EXPECT_EQ(pp.plan.params.address, w.base[2] + 4096);  // this rank's own tensor
  EXPECT_EQ(pp.plan.expect_tx_bytes, 64u * 256u * 2u);
}

TEST(PeerPlan, WindowRulesNameThePeer) {
  PeerWindow w = window(4, 0, 1 << 20);
  w.base[3] = 0;
  w.base[1] += 256;
  GlobalTensor g{DataType::float32, make_layout(IntTuple::make(64, 256), IntTuple::make(256, 1)), 0, 16};
  SwizzledLayout smem{};
  smem.layout = make_layout(IntTuple::make(64, 256), IntTuple::make(256, 1));
  const PeerPlan pp = plan_peer_tile(w, g, smem, TileExtents{2, {64, 256}});
  ASSERT_EQ(pp.issues.count, 2);
  EXPECT_EQ(pp.issues.items[0].rule, PeerRule::window_align);
  EXPECT_EQ(pp.issues.items[0].peer, 1);
  EXPECT_EQ(pp.issues.items[0].a, 256);
  EXPECT_EQ(pp.issues.items[1].rule, PeerRule::null_base);
  EXPECT_EQ(pp.issues.items[1].peer, 3);
  EXPECT_EQ(explain(pp.issues.items[0]),
            "error [peer.window_align] peer 1: the window base is 256 B past a 4096 B boundary; fix: allocate the "
            "window with ncclMemAlloc and register it from its base");
  EXPECT_EQ(explain(pp.issues.items[1]).rfind("error [peer.null_base] peer 3: ", 0), 0u);
}

TEST(PeerPlan, TensorMustLieInsideTheWindowAndBeAligned) {
  const PeerWindow w = window(2, 1, 1 << 20);
  SwizzledLayout smem{};
  smem.layout = make_layout(IntTuple::make(64, 256), IntTuple::make(256, 1));
  // 512 x 1024 f32 = 2 MiB in a 1 MiB window.
  GlobalTensor big{DataType::float32, make_layout(IntTuple::make(512, 1024), IntTuple::make(1024, 1)), 0, 16};
  PeerPlan pp = plan_peer_tile(w, big, smem, TileExtents{2, {64, 256}});
  ASSERT_EQ(pp.issues.count, 1);
  EXPECT_EQ(pp.issues.items[0].rule, PeerRule::window_bounds);
  EXPECT_EQ(pp.issues.items[0].a, 2 << 20);
  EXPECT_EQ(pp.issues.items[0].b, 1 << 20);
  EXPECT_EQ(first_message(pp.issues).rfind("error [peer.window_bounds] the tensor ends at byte 2097152 of a "
                                           "1048576-byte window",
                                           0),
            0u);
  // The exact fit is accepted; one element more is not.
  GlobalTensor fit{DataType::float32, make_layout(IntTuple::make(256, 1024), IntTuple::make(1024, 1)), 0, 16};
  EXPECT_TRUE(plan_peer_tile(w, fit, smem, TileExtents{2, {64, 256}}).ok());
  fit.address = 4;
  pp = plan_peer_tile(w, fit, smem, TileExtents{2, {64, 256}});
  ASSERT_GE(pp.issues.count, 3);
  EXPECT_EQ(pp.issues.items[0].rule, PeerRule::window_bounds);
  EXPECT_EQ(pp.issues.items[1].rule, PeerRule::tensor_align);  // one per peer
  EXPECT_EQ(pp.issues.items[1].peer, 0);
  EXPECT_EQ(pp.issues.items[2].rule, PeerRule::tensor_align);
  EXPECT_EQ(pp.issues.items[2].peer, 1);
}

TEST(PeerPlan, CommunicatorRules) {
  PeerWindow w = window(2, 0, 1 << 20);
  w.lsa_ranks = 1;
  w.rank = 5;
  PeerIssues issues;
  check_window(w, issues);
  ASSERT_EQ(issues.count, 2);
  EXPECT_EQ(issues.items[0].rule, PeerRule::rank_range);
  EXPECT_EQ(issues.items[1].rule, PeerRule::lsa_team);
  EXPECT_EQ(explain(issues.items[1]).rfind("error [peer.lsa_team] only 1 of the 2 ranks are load/store accessible", 0),
            0u);
  PeerIssues too_many;
  check_window(window(9, 0, 1 << 20), too_many);
  ASSERT_EQ(too_many.count, 1);
  EXPECT_EQ(too_many.items[0].rule, PeerRule::world_size);
}

TEST(CollectivePlan, AllGatherBytesComeFromThePlan) {
  const PeerWindow in = window(4, 1, 64 << 20), out = window(4, 1, 256 << 20);
  CollectiveShape s = all_gather_shape(1024, 4096);  // 8 MiB per rank
  s.blocks = 16;
  const CollectivePlan c = plan_collective(s, in, out);
  ASSERT_TRUE(c.ok()) << first_message(c.issues);
  EXPECT_EQ(c.row_tiles, 16);
  EXPECT_EQ(c.col_tiles, 16);
  EXPECT_EQ(c.tiles, 256);
  EXPECT_EQ(c.tile_bytes, 64u * 256u * 2u);
  EXPECT_EQ(c.input.plan.direction, PlanDirection::load);
  EXPECT_EQ(c.output.plan.direction, PlanDirection::store);
  EXPECT_EQ(c.input.plan.expect_tx_bytes, c.tile_bytes);  // what lands in shared memory is what leaves it
  // The output is (rows, cols, world): slice r is rank r's chunk; one descriptor per peer.
  EXPECT_EQ(c.output.plan.params.rank, 3u);
  EXPECT_EQ(c.output.plan.params.dims[2], 4u);
  EXPECT_EQ(c.output.plan.params.box[2], 1u);
  for (int p = 0; p < 4; ++p) EXPECT_EQ(c.output.address[p], out.base[p]);
  std::uint64_t sum = 0;
  for (int b = 0; b < s.blocks; ++b) sum += c.bytes_per_peer(b);
  EXPECT_EQ(sum, 1024u * 4096u * 2u);  // every byte of the chunk, once per peer
  EXPECT_EQ(c.stage_bytes, 32768u);
  EXPECT_EQ(c.smem_bytes, 6u * 32768u + c.input.plan.smem_alignment);
}

TEST(CollectivePlan, UnevenTilesPerBlock) {
  CollectiveShape s = all_gather_shape(192, 512);  // 3 x 2 = 6 tiles
  s.blocks = 4;
  const CollectivePlan c = plan_collective(s, window(2, 0, 16 << 20), window(2, 0, 16 << 20));
  ASSERT_TRUE(c.ok()) << first_message(c.issues);
  EXPECT_EQ(c.tiles, 6);
  EXPECT_EQ(c.tiles_of_block(0), 2);
  EXPECT_EQ(c.tiles_of_block(1), 2);
  EXPECT_EQ(c.tiles_of_block(2), 1);
  EXPECT_EQ(c.tiles_of_block(3), 1);
  EXPECT_EQ(c.bytes_per_peer(3), c.tile_bytes);
}

TEST(CollectivePlan, ReduceScatterPlansStoreAndReduce) {
  CollectiveShape s;
  s.kind = CollectiveKind::reduce_scatter;
  s.dtype = DataType::float32;
  s.rows = 256;
  s.cols = 1024;
  s.tile_rows = 32;
  s.blocks = 8;
  const PeerWindow in = window(2, 0, 16 << 20), out = window(2, 0, 16 << 20);
  const CollectivePlan c = plan_collective(s, in, out);
  ASSERT_TRUE(c.ok()) << first_message(c.issues);
  EXPECT_EQ(c.input.plan.params.rank, 3u);  // (rows, cols, world): slice q goes to rank q
  EXPECT_EQ(c.output.plan.direction, PlanDirection::reduce);
  EXPECT_EQ(c.output.plan.reduce_op, ReduceOp::add);
  EXPECT_EQ(c.own.plan.direction, PlanDirection::store);
  EXPECT_EQ(c.tile_bytes, 32u * 256u * 4u);
  // f16 is not summed by the collective.
  s.dtype = DataType::float16;
  const CollectivePlan h = plan_collective(s, in, out);
  ASSERT_EQ(h.issues.count, 1);
  EXPECT_EQ(h.issues.items[0].rule, PeerRule::reduce_dtype);
}

TEST(CollectivePlan, RefusalsAllAtOnce) {
  CollectiveShape s = all_gather_shape(100, 1000);
  const CollectivePlan c = plan_collective(s, window(2, 0, 16 << 20), window(2, 0, 16 << 20));
  ASSERT_EQ(c.issues.count, 2);
  EXPECT_EQ(c.issues.items[0].rule, PeerRule::rows_divide);
  EXPECT_EQ(c.issues.items[1].rule, PeerRule::cols_divide);
  EXPECT_EQ(explain(c.issues.items[0]),
            "error [collective.rows_divide] 100 rows per rank, tiles of 64 rows; fix: pick tile rows that divide the "
            "rows per rank");

  CollectiveShape b = all_gather_shape(128, 512);  // 4 tiles
  b.blocks = 5;
  b.stages = 8;  // 8 x 32 KiB + alignment > 226 KiB
  const CollectivePlan d = plan_collective(b, window(2, 0, 16 << 20), window(2, 0, 16 << 20));
  ASSERT_EQ(d.issues.count, 2);
  EXPECT_EQ(d.issues.items[0].rule, PeerRule::blocks_range);
  EXPECT_EQ(d.issues.items[1].rule, PeerRule::stages_smem);

  // The output window of a rank too small for the gathered tensor: named by the output plan.
  CollectiveShape e = all_gather_shape(1024, 4096);
  const CollectivePlan f = plan_collective(e, window(2, 0, 16 << 20), window(2, 0, 8 << 20));
  ASSERT_EQ(f.issues.count, 1);
  EXPECT_EQ(f.issues.items[0].rule, PeerRule::window_bounds);
  EXPECT_EQ(f.issues.items[0].a, 2 * 1024 * 4096 * 2);
}

// Tiles of whole rows: the planner cuts a 4096-element row into 16 pieces of 256, and the tile is
// still one contiguous box, one instruction, the same bytes on both sides.
TEST(CollectivePlan, WholeRowTilesAreOneBox) {
  CollectiveShape s = all_gather_shape(2048, 4096);
  s.tile_rows = 4;
  s.tile_cols = 4096;
  const CollectivePlan c = plan_collective(s, window(4, 1, 64 << 20), window(4, 1, 256 << 20));
  ASSERT_TRUE(c.ok()) << first_message(c.issues);
  EXPECT_EQ(c.input.plan.instructions, 1u);
  EXPECT_EQ(c.input.plan.params.rank, 3u);
  EXPECT_EQ(c.input.plan.params.box[0], 256u);
  EXPECT_EQ(c.input.plan.params.box[1], 16u);
  EXPECT_EQ(c.input.plan.params.box[2], 4u);
  EXPECT_EQ(c.output.plan.instructions, 1u);
  EXPECT_EQ(c.output.plan.params.rank, 4u);  // and the world's slices
  EXPECT_EQ(c.tile_bytes, 4u * 4096u * 2u);
  EXPECT_EQ(c.input.plan.expect_tx_bytes, c.tile_bytes);
  EXPECT_EQ(c.tiles, 512);
}

TEST(CollectivePlan, IsAConstantExpression) {
  constexpr PeerWindow w = [] {
    PeerWindow x;
    x.world = 2;
    x.rank = 0;
    x.lsa_ranks = 2;
    x.bytes = 64 << 20;
    x.base[0] = 0x100000000ull;
    x.base[1] = 0x200000000ull;
    return x;
  }();
  constexpr CollectivePlan c = plan_collective(all_gather_shape(256, 1024), w, w);
  static_assert(c.ok());
  static_assert(c.tile_bytes == 32768);
  static_assert(c.output.address[1] == 0x200000000ull);
  SUCCEED();
}

}  // namespace

// The row gather behind the all-gather fused into the GEMM (docs/collectives.md), on the host: A of
// 8192 x 8192 bf16 over 4 ranks, as rank 1 sees its window, 8 pullers; then two refusals. No GPU,
// no NCCL: the window bases are what ncclGetLsaPointer would give (one base per rank, 4 GiB apart).
// Exit status 1 if a plan is not what the docs say.
#include <cinttypes>
#include <cstdio>

#include "tmakit/peer/explain.hpp"
#include "tmakit/peer/row_gather_plan.hpp"

using namespace tmakit;

int main() {
  PeerWindow w;
  w.world = 4;
  w.rank = 1;
  w.lsa_ranks = 4;
  w.bytes = 128ull << 20;  // A, gathered in place
  for (int p = 0; p < 4; ++p) w.base[p] = 0x7f0000000000ull + (std::uint64_t(p) << 32);
  RowGatherShape s;
  s.rows = 8192;
  s.cols = 8192;
  s.pullers = 8;
  const RowGatherPlan g = plan_row_gather(s, w);
  if (!g.ok()) {
    for (const std::string& line : explain_all(g.issues)) std::printf("%s\n", line.c_str());
    return 1;
  }
  const RowGatherSchedule& sc = g.schedule;
  std::printf("rank 1 of 4: %d row blocks of %d rows per shard, %d to pull, %" PRIu64 " B each (%d tiles of %dx%d)\n",
              sc.shard_blocks, s.block_rows, sc.remote_blocks(), g.block_bytes, g.block_tiles, s.tile_rows, s.tile_cols);
  std::printf("the GEMM's order: own row blocks %d..%d first, then", sc.consumer_row_block(0),
              sc.consumer_row_block(sc.shard_blocks - 1));
  for (int j = 0; j < sc.remote_blocks(); j += sc.shard_blocks)
    std::printf(" %d..%d (rank %d)", sc.row_block(j), sc.row_block(j + sc.shard_blocks - 1), sc.owner(j));
  std::printf("\n");
  for (int b = 0; b < 2; ++b)
    std::printf("puller %d: row blocks %d, %d, ...; reads %" PRIu64 " B from rank 2, rank 2's puller %d reads %" PRIu64
                " B here\n",
                b, sc.row_block(b), sc.row_block(b + sc.pullers), g.bytes_read_from(b, 2), b, g.bytes_read_by(b, 2));

  RowGatherShape odd = s;
  odd.rows = 8000;
  odd.pullers = 0;
  const RowGatherPlan r = plan_row_gather(odd, w);
  for (const std::string& line : explain_all(r.issues)) std::printf("%s\n", line.c_str());
  const bool as_documented = sc.shard_blocks == 16 && sc.remote_blocks() == 48 && g.block_bytes == 2097152 &&
                             sc.row_block(0) == 32 && sc.owner(47) == 0 && g.bytes_read_from(0, 2) == 2 * 2097152 &&
                             r.issues.count == 2 && r.issues.items[0].rule == PeerRule::gather_rows &&
                             r.issues.items[1].rule == PeerRule::gather_pullers;
  return as_documented ? 0 : 1;
}

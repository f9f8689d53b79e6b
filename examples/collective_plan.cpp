// A collective's plan on the host (docs/collectives.md): an all-gather of a 1024 x 4096 bf16
// chunk per rank over 4 ranks, as rank 1 sees the windows, and two refusals. No GPU, no NCCL: the
// window bases are what ncclGetLsaPointer would give (NCCL's flat layout: one base per rank, 4 GiB
// apart). Exit status 1 if a plan is not what the docs say.
#include <cinttypes>
#include <cstdio>

#include "tmakit/peer/collective_plan.hpp"
#include "tmakit/peer/explain.hpp"

using namespace tmakit;

int main() {
  PeerWindow in, out;
  in.world = out.world = 4;
  in.rank = out.rank = 1;
  in.lsa_ranks = out.lsa_ranks = 4;
  in.bytes = 8ull << 20;    // one rank's chunk
  out.bytes = 32ull << 20;  // the gathered tensor
  for (int p = 0; p < 4; ++p) {
    in.base[p] = 0x7f0000000000ull + (std::uint64_t(p) << 32);
    out.base[p] = 0x7f4000000000ull + (std::uint64_t(p) << 32);
  }
  CollectiveShape s;
  s.kind = CollectiveKind::all_gather;
  s.dtype = DataType::bfloat16;
  s.rows = 1024;
  s.cols = 4096;
  s.blocks = 16;
  const CollectivePlan c = plan_collective(s, in, out);
  if (!c.ok()) {
    for (const std::string& line : explain_all(c.issues)) std::printf("%s\n", line.c_str());
    return 1;
  }
  std::printf("all-gather, 4 ranks, rank 1: %" PRId64 " tiles of %dx%d, %u B each, %d blocks, %u B of shared memory\n",
              c.tiles, s.tile_rows, s.tile_cols, c.tile_bytes, s.blocks, c.smem_bytes);
  std::printf("load: box %ux%u from this rank's input, expect_tx %u B\n", c.input.plan.params.box[0],
              c.input.plan.params.box[1], c.input.plan.expect_tx_bytes);
  for (int p = 0; p < 4; ++p)
    std::printf("store into rank %d: descriptor at 0x%" PRIx64 " (rank 1's slice starts %" PRIu64 " B in)\n", p,
                peer_params(c.output, p).address, std::uint64_t{1} * 1024 * 4096 * 2);
  std::printf("block 0 sends %" PRIu64 " B to each peer and expects as many from each\n", c.bytes_per_peer(0));

  // Refused: the output window of a rank is too small; tiles that do not divide the rows.
  PeerWindow small = out;
  small.bytes = 16ull << 20;
  const CollectivePlan r1 = plan_collective(s, in, small);
  CollectiveShape odd = s;
  odd.rows = 1000;
  const CollectivePlan r2 = plan_collective(odd, in, out);
  for (const std::string& line : explain_all(r1.issues)) std::printf("%s\n", line.c_str());
  for (const std::string& line : explain_all(r2.issues)) std::printf("%s\n", line.c_str());
  const bool as_documented = c.tiles == 256 && c.tile_bytes == 32768 && c.bytes_per_peer(0) == 16 * 32768 &&
                             r1.issues.count == 1 && r1.issues.items[0].rule == PeerRule::window_bounds &&
                             r2.issues.count == 1 && r2.issues.items[0].rule == PeerRule::rows_divide;
  return as_documented ? 0 : 1;
}

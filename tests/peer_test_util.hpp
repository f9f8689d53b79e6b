// Shared by the host tests of tmakit/peer (test_peer_plan.cpp, test_row_gather_plan.cpp): a
// symmetric window as a rank sees it, without NCCL.
#pragma once

#include <cstdint>

#include "tmakit/peer/peer_plan.hpp"

namespace tmakit_test {

// `world` ranks, this one `rank`, windows of `bytes`; NCCL's flat LSA layout: rank p's window at a
// 4 GiB stride from rank 0's.
inline tmakit::PeerWindow peer_window(std::int32_t world, std::int32_t rank, std::uint64_t bytes) {
  tmakit::PeerWindow w;
  w.world = world;
  w.rank = rank;
  w.lsa_ranks = world;
  w.bytes = bytes;
  for (std::int32_t p = 0; p < world && p < tmakit::kMaxPeers; ++p)
    w.base[p] = 0x7f0000000000ull + static_cast<std::uint64_t>(p) * (std::uint64_t{4} << 30);
  return w;
}

}  // namespace tmakit_test

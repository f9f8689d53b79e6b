// The GEMM's tuning table: which kernel form the launcher takes for a shape when GemmArgs leaves
// the choice to it (cluster_m = 0, splits = 0). Each rule cites the measurement it rests on
// (docs/lab/gemm.md, by date and time); the kernel itself holds no tuning choice.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tmakit::gemm_sm90 {

// CTAs per cluster along M. Two wherever M has two tiles to pair: the pair shares each B tile by
// multicast, halving B's traffic from L2 (2026-12-01 20:41: 0.96-1.03x cuBLASLt on the large
// shapes in clusters of two, against 0.92-1.01x with one CTA per cluster).
inline int automatic_cluster_m(std::int64_t tiles_m) { return tiles_m >= 2 ? 2 : 1; }

// Split K: only where the output tiles alone would leave more than half of the resident clusters
// idle (the skinny shapes), into as many slices as fill them, each slice at least kMinSplitBlocks K
// blocks long (a slice also pays a pipeline fill and an fp32 epilogue).
inline constexpr std::int64_t kMinSplitBlocks = 8, kMaxSplits = 16;
inline std::int64_t automatic_splits(std::int64_t cluster_tiles, std::int64_t resident_clusters, std::int64_t k_blocks) {
  if (cluster_tiles * 2 > resident_clusters) return 1;
  return std::max<std::int64_t>(1, std::min({resident_clusters / cluster_tiles, k_blocks / kMinSplitBlocks, kMaxSplits}));
}

}  // namespace tmakit::gemm_sm90

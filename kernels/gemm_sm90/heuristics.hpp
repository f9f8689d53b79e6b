// The GEMM's tuning table: which kernel form the launcher takes for a shape when GemmArgs leaves
// the choice to it (cluster_m = 0, splits = 0). Each rule cites the measurement it rests on
// (docs/lab/gemm.md, by date and time); the kernel itself holds no tuning choice.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tmakit::gemm_sm90 {

// CTAs per cluster along M. Two wherever M has two tiles to pair: the pair shares each B tile by
// multicast, halving B's traffic from L2 (faster on every large shape: docs/lab/gemm.md,
// 2026-12-01 20:41).
inline int automatic_cluster_m(std::int64_t tiles_m) { return tiles_m >= 2 ? 2 : 1; }

// Split K: only where the output tiles alone would leave more than half of the resident clusters
// idle (the skinny shapes), into as many slices as fill them, each slice at least kMinSplitBlocks K
// blocks long (a slice also pays a pipeline fill and an fp32 epilogue).
inline constexpr std::int64_t kMinSplitBlocks = 8, kMaxSplits = 16;
inline std::int64_t automatic_splits(std::int64_t cluster_tiles, std::int64_t resident_clusters, std::int64_t k_blocks) {
  if (cluster_tiles * 2 > resident_clusters) return 1;
  return std::max<std::int64_t>(1, std::min({resident_clusters / cluster_tiles, k_blocks / kMinSplitBlocks, kMaxSplits}));
}

// Split K: the K blocks the first slice gives to the last (GemmArgs::split_lead), so that the
// slice that stores its sums first is done with them while the last still multiplies: three, or
// an eighth of a slice where that is less (the lead of the sweep at 256 x 2112 x 7168 that ran
// fastest: docs/lab/gemm.md, 2026-12-02 06:54).
inline std::int32_t automatic_split_lead(std::int64_t split_blocks) {
  return static_cast<std::int32_t>(std::min<std::int64_t>(3, split_blocks / 8));
}

// The persistent grid, in clusters: the fewest that run `units` work units in as many waves as
// `resident` clusters would (a unit per cluster per wave), so that no SM holds a partial last wave
// it only waits through (steadier and faster on the large shapes, level with fast.cu's grid at
// 8192^3: docs/lab/gemm.md, 2026-12-02 13:38).
inline std::int64_t grid_clusters(std::int64_t units, std::int64_t resident) {
  const std::int64_t waves = (units + resident - 1) / resident;
  return (units + waves - 1) / waves;
}

// The form the launcher takes: tile width, CTAs per cluster (two only where M has two tiles to
// pair), K slices. A GemmArgs value other than 0 (automatic) is taken as given.
struct FormChoice {
  int tile_m = 128;  // rows per tile: 128, or 64 (promoted FP8 where M fits in one: choose_tile_m)
  int tile_n = 256, cluster_m = 1;
  std::int64_t splits = 1;
  bool swapped = false;  // 128 x 64 tiles with one consumer warpgroup (tiles.cuh)
  bool pingpong = false; // consumer warpgroups on tiles of their own, in turn (tiles.cuh)
};

// How evenly `units` work units spread over `resident` clusters: the fraction of cluster-turns busy.
inline double fill(std::int64_t units, std::int64_t resident) {
  const std::int64_t waves = (units + resident - 1) / resident;
  return static_cast<double>(units) / static_cast<double>(waves * resident);
}

// Tile width: the widest tile (the most work per byte loaded) whose tiles keep at least 3/4 of the
// cluster-turns busy; where none does (skinny problems), the one that keeps the most busy, with
// its tiles split along K to fill the GPU (docs/lab/gemm.md, 2026-12-01 20:59: the sweep of widths,
// clusters and slices on the skinny shapes). An unswapped form that splits K runs one CTA per cluster
// when the cluster size is left to the launcher: with the slices summed inside the kernel, every such
// form of the sweep ran faster so (docs/lab/gemm.md, 2026-12-02 00:44). Promoted FP8 forms, per-tensor
// or block-scaled, take the same widths (their 256-column tiles add two 128-column slices per K block:
// faster than 128-column tiles on every large shape, docs/lab/gemm.md, 2026-12-07 10:26 and 10:37).
inline FormChoice choose_form_in(std::int64_t tiles_m, std::int64_t n, std::int64_t batch, std::int64_t k_blocks, int sms,
                                 int tile_n, int cluster_m, int splits) {
  FormChoice c;
  c.cluster_m = cluster_m == 2 && tiles_m >= 2 ? 2 : 1;
  const std::int64_t resident = std::max(1, sms / c.cluster_m);
  auto cluster_tiles = [&](int w) { return (tiles_m + c.cluster_m - 1) / c.cluster_m * ((n + w - 1) / w) * batch; };
  if (tile_n != 0) {
    c.tile_n = tile_n;
  } else {
    c.tile_n = 0;
    for (int w : {256, 128, 64})
      if (fill(cluster_tiles(w), resident) >= 0.75) {
        c.tile_n = w;
        break;
      }
    if (c.tile_n == 0) {
      double best = -1;
      for (int w : {256, 128, 64})
        if (const double f = fill(cluster_tiles(w), resident); f > best + 1e-9) {
          best = f;
          c.tile_n = w;
        }
    }
  }
  c.splits = splits != 0 ? splits : automatic_splits(cluster_tiles(c.tile_n), resident, k_blocks);
  return c;
}
// A 64-column tile is a swapped one (one warpgroup of m64n128k16 instead of two of m64n64k16) unless
// GemmArgs says otherwise: faster at 256 x 2112 x 7168, as fast at 128 x 8192 x 8192 (docs/lab/gemm.md,
// 2026-12-02 04:17). A swapped tile that splits K keeps its clusters of two (faster so, same entry).
inline bool automatic_swapped(int swapped, int tile_n) { return swapped == 1 || (swapped == 0 && tile_n == 64); }
// A 192-column tile in place of the automatic choice where K is not split: whichever form's waves of
// cluster tiles take less time, a wave timed by its tile's area, the narrower tile's counted at
// 1 / speed of it.
//   ping-pong 128 x 192 (tiles.cuh; 16-bit and fast-accumulating FP8), in place of 128 x 256: no
//     epilogue stops its multiplies; kPingPongSpeed ranks the two forms as they measured on every
//     large shape of the benchmark set, where the narrower tile's extra waves decide
//     (docs/lab/gemm.md, 2026-12-06 06:18 and 06:33).
//   promoted FP8 128 x 192 (Tile192, per-tensor or block-scaled), in place of 128 x 256: its K
//     block's second group is issued before the first is added, where the 256-column tile waits
//     for each; kPromotedNarrowSpeed is the two tiles' cycle ratio under ncu at 8192^3 (with one
//     n192 group per K block; two n96 groups ran faster still: 2026-12-07 17:54), and ranks them as
//     they measured on the benchmark set: the narrower at 6144^3 and up, the wider at 4096^3 and
//     512 x 8192 x 8192 (docs/lab/gemm.md, 2026-12-07 14:46 and 14:57). In place of 128 x 128 at a
//     speed of 1: only where its waves cover fewer columns (block-scaled 4096 x 2112 x 7168: 3
//     waves against 5, 1.3 times as fast, 2026-12-07 17:54).
inline constexpr int kPingPongTileN = 192;
inline constexpr double kPingPongSpeed = 1.02;
inline constexpr int kPromotedNarrowTileN = 192;
inline constexpr double kPromotedNarrowSpeed = 1.06;
inline bool narrower_is_faster(std::int64_t tiles_m, std::int64_t n, std::int64_t batch, int cluster_m, int sms,
                               int narrow_n, double speed, int wide_n = 256) {
  const std::int64_t resident = std::max(1, sms / cluster_m);
  auto waves = [&](int w) {
    const std::int64_t units = (tiles_m + cluster_m - 1) / cluster_m * ((n + w - 1) / w) * batch;
    return (units + resident - 1) / resident;
  };
  return static_cast<double>(waves(narrow_n) * narrow_n) / speed < static_cast<double>(waves(wide_n) * wide_n);
}
inline bool pingpong_is_faster(std::int64_t tiles_m, std::int64_t n, std::int64_t batch, int cluster_m, int sms) {
  return narrower_is_faster(tiles_m, n, batch, cluster_m, sms, kPingPongTileN, kPingPongSpeed);
}
// pingpong -1: the form has no ping-pong tiles (promoted FP8); swapped -1: no swapped ones
// (block-scaled FP8). promoted: promoted FP8, per-tensor or block-scaled, whose 192-column tile is
// cooperative (tile_n 192 asks for it; the other forms' 192-column tiles are ping-pong).
inline FormChoice choose_form(std::int64_t tiles_m, std::int64_t n, std::int64_t batch, std::int64_t k_blocks, int sms,
                              int tile_n, int cluster_m, int splits, int swapped, int pingpong, bool promoted = false) {
  if (!promoted && (pingpong == 1 || tile_n == kPingPongTileN)) {
    FormChoice c = choose_form_in(tiles_m, n, batch, k_blocks, sms, kPingPongTileN,
                                  cluster_m != 0 ? cluster_m : automatic_cluster_m(tiles_m), 1);
    c.pingpong = true;
    return c;
  }
  FormChoice c = choose_form_in(tiles_m, n, batch, k_blocks, sms, tile_n,
                                cluster_m != 0 ? cluster_m : automatic_cluster_m(tiles_m), splits);
  c.swapped = automatic_swapped(swapped, c.tile_n);
  if (cluster_m == 0 && c.cluster_m == 2 && c.splits > 1 && !c.swapped) {
    c = choose_form_in(tiles_m, n, batch, k_blocks, sms, tile_n, 1, splits);
    c.swapped = automatic_swapped(swapped, c.tile_n);
  }
  if (pingpong == 0 && tile_n == 0 && c.tile_n == 256 && c.splits == 1 && swapped != 1 &&
      pingpong_is_faster(tiles_m, n, batch, c.cluster_m, sms)) {
    c.tile_n = kPingPongTileN;
    c.pingpong = true;
  }
  if (promoted && tile_n == 0 && c.splits == 1 && !c.swapped &&
      ((c.tile_n == 256 &&
        narrower_is_faster(tiles_m, n, batch, c.cluster_m, sms, kPromotedNarrowTileN, kPromotedNarrowSpeed)) ||
       (c.tile_n == 128 && narrower_is_faster(tiles_m, n, batch, c.cluster_m, sms, kPromotedNarrowTileN, 1.0, 128))))
    c.tile_n = kPromotedNarrowTileN;
  return c;
}

// Rows per tile. 128, but 64 for promoted FP8 whose M fits in one 64-row tile and whose form took
// 64-column tiles in clusters of one, unswapped (block-scaled; per-tensor FP8 there takes swapped
// tiles): the 128-row tile loads a half of zeros there, and with 24 KiB stages its ring of 7 held
// HBM at half its bandwidth, the consumers waiting for full stages (ncu at 64 x 7168 x 16384:
// docs/lab/gemm.md, 2026-12-07 17:54); the 64 x 64 tile's 16 KiB stages make it 12 deep, 1.15-1.54
// times as fast on the five of DeepGEMM's M = 64 shapes that take 64-column tiles, and slower on
// five of its six M = 128 shapes, where two row tiles make twice the tiles of half the work
// (2026-12-07 23:36). A GemmArgs::tile_m
// other than 0 is taken as given (Gemm checks it against the rest: gemm.tile_m).
inline constexpr int kShortTileM = 64;
inline int choose_tile_m(std::int64_t m, int tile_m, bool promoted, const FormChoice& c) {
  if (tile_m != 0) return tile_m;
  return promoted && m <= kShortTileM && c.tile_n == 64 && c.cluster_m == 1 && !c.swapped && !c.pingpong ? kShortTileM : 128;
}

}  // namespace tmakit::gemm_sm90

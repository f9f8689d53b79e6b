// The GEMM's compiled kernel forms and how the launcher picks one: every run-time choice (input and
// output types, operand majors, cluster size, split K, tile shape) becomes a template argument, one
// level at a time. gemm.cu instantiates the 16-bit forms, gemm_fp8.cu the FP8 ones (two translation
// units, so that they compile side by side).
#pragma once

#include "kernels/gemm_sm90/heuristics.hpp"
#include "kernels/gemm_sm90/kernel.cuh"

namespace tmakit::gemm_sm90 {

using KernelFn = void (*)(KernelParams);

// One compiled kernel form and what the launcher needs to know of it: the shapes its copy programs
// were compiled from (for the check of the plans it makes), A's and B's shared layouts and A's scale
// column's, the tile's rows, the K block in elements, its shared memory.
struct KernelForm {
  KernelFn kernel = nullptr;
  const TmaPlan* a_shape = nullptr;
  const TmaPlan* b_shape = nullptr;
  const TmaPlan* c_shape = nullptr;
  const TmaPlan* d_shape = nullptr;
  const TmaPlan* sa_shape = nullptr;
  const SwizzledLayout* a_tile = nullptr;
  const SwizzledLayout* b_tile = nullptr;
  const SwizzledLayout* sa_tile = nullptr;
  std::size_t smem = 0;
  int tile_m = 0, tile_n = 0, tile_k = 0, stages = 0, threads = 0;
};

template <Inputs In, DataType Out, bool AMn, bool BMn, int ClusterM, bool SplitK, class Tile, bool Promote,
          bool BlockScales = false>
KernelForm form_of() {
  constexpr int kIn = input_bytes(In);
  constexpr int kRows = Tile::kTileRows;
  return {&gemm_kernel<In, Out, AMn, BMn, ClusterM, SplitK, Tile, Promote, BlockScales>,
          &kAShape<In, AMn, kRows>,
          &kBShape<In, BMn, Tile::kTileN, ClusterM>,
          &kCShape<Out>,
          &kDShape<Out>,
          &kScaleShape<kRows>,
          &kATile<AMn, kIn, kRows>.tile,
          &kBTile<BMn, Tile::kTileN, kIn>.tile,
          &kScaleColumnLayout<kRows>,
          kDynamicSmem<Tile, BlockScales>,
          kRows,
          Tile::kTileN,
          kTileK<kIn>,
          Tile::kStages,
          Tile::kThreads};
}
// Ping-pong tiles have no split-K form (kernel.cuh); promoted FP8 forms are not ping-pong (their
// block registers beside the accumulators: their 192-column tile is cooperative); block-scaled ones
// are not swapped; 64-row tiles are promoted FP8's, one CTA per cluster.
template <Inputs In, DataType Out, bool AMn, bool BMn, int ClusterM, bool SplitK, bool Promote, bool BlockScales>
KernelForm form_by_tile(const FormChoice& c) {
  if constexpr (Promote && ClusterM == 1) {
    if (c.tile_m == kShortTileM) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile64Rows, Promote, BlockScales>();
  }
  if constexpr (!SplitK && !Promote) {
    if (c.pingpong) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, PingPongTile, Promote>();
  }
  if constexpr (!BlockScales) {
    if (c.swapped) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, SwappedTile, Promote>();
  }
  if constexpr (BlockScales) {
    if (c.tile_n == 64) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile64Scaled, Promote, BlockScales>();
    if (c.tile_n == 256) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, WideTileScaled, Promote, BlockScales>();
    if (c.tile_n == kPromotedNarrowTileN) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile192, Promote, BlockScales>();
    return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile128Scaled, Promote, BlockScales>();
  }
  if (c.tile_n == 64) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile64, Promote>();
  if constexpr (Promote) {
    if (c.tile_n == 256) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, WideTile, Promote>();
    if (c.tile_n == kPromotedNarrowTileN) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile192, Promote>();
    return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile128, Promote>();
  } else {
    if (c.tile_n == 128) return form_of<In, Out, AMn, BMn, ClusterM, SplitK, Tile128, Promote>();
    return form_of<In, Out, AMn, BMn, ClusterM, SplitK, WideTile, Promote>();
  }
}
template <Inputs In, DataType Out, bool AMn, bool BMn, int ClusterM, bool Promote, bool BlockScales>
KernelForm form_by_split(bool split_k, const FormChoice& c) {
  return split_k ? form_by_tile<In, Out, AMn, BMn, ClusterM, true, Promote, BlockScales>(c)
                 : form_by_tile<In, Out, AMn, BMn, ClusterM, false, Promote, BlockScales>(c);
}
template <Inputs In, DataType Out, bool AMn, bool BMn, bool Promote = false, bool BlockScales = false>
KernelForm form_by_cluster(bool split_k, const FormChoice& c) {
  return c.cluster_m == 2 ? form_by_split<In, Out, AMn, BMn, 2, Promote, BlockScales>(split_k, c)
                          : form_by_split<In, Out, AMn, BMn, 1, Promote, BlockScales>(split_k, c);
}

// The 16-bit forms (gemm.cu): A, B, C and D of type t (bf16 or f16), either major for A and B.
KernelForm pick_form_16bit(DataType t, bool a_mn, bool b_mn, bool split_k, const FormChoice& c);
// The FP8 forms (gemm_fp8.cu): A e4m3, B e4m3 or e5m2, both K-major; C and D bf16; promoted or not,
// scaled per block (promoted) or not.
KernelForm pick_form_fp8(Inputs in, bool promote, bool block_scales, bool split_k, const FormChoice& c);
// The FP8 input pairs compiled (the others are refused: gemm.fp8_inputs).
inline constexpr bool has_fp8_form(Inputs in) { return in == Inputs::e4m3_e4m3 || in == Inputs::e4m3_e5m2; }

}  // namespace tmakit::gemm_sm90

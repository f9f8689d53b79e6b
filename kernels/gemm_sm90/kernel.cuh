// The GEMM kernel: persistent, warp-specialized, one 128 x TileN output tile per CTA at a time (a
// promoted FP8 form's 64-row tile: 64 x 64, one consumer warpgroup, where M fits in one).
//
//   warpgroup 0  thread 0 (producer): per K block, waits until a ring stage is free, arms its
//                `full` barrier with the stage's bytes and issues the A and B copies
//   warpgroup 1, 2 (consumers): each multiplies its 64 rows of the tile with m64nNk16 WGMMA,
//                hands each stage back as soon as the WGMMAs reading it completed, then writes
//                its rows out through shared memory with TMA stores
//   (a swapped tile, tiles.cuh: one consumer warpgroup multiplies the whole 128 x 64 tile with
//                m64n128k16, WGMMA's M along the tile's columns, and writes it out transposed;
//    a ping-pong tile: each consumer warpgroup multiplies and writes out a whole 128 x 192 tile,
//                the two taking the CTA's tiles in turn, one's epilogue under the other's multiplies)
//
// CTAs run in clusters of ClusterM (1 or 2) along M: the CTAs of a cluster compute vertically
// adjacent tiles, which share their B tile. Each loads its own A and one slice of B, multicast to
// every CTA of the cluster (the B copy program is planned for that cluster). The stages are
// device/ring.cuh's Ring: a producer waits for its stage's releases from every CTA its copies land
// in, then arms its own barrier and issues.
//
// Nothing here computes a byte count, a box, a coordinate or a shared offset by hand:
//   - the A, B, C, D and W copies are compile-time copy programs (programs.cuh): the shapes of
//     fixed-shape plan_tile plans of each operand layout, so that a K block's copies are one TMA
//     instruction each, with constant boxes and offsets; gemm.cu plans the caller's tensors, checks
//     that each plan has the compiled shape and passes only the descriptors;
//   - each stage is armed with the copy programs' own bytes (kStageBytes);
//   - the operands' shared layouts are gmma_operand's canonical WGMMA layouts (tiles.cuh), the same
//     objects the plans are made from, and the WGMMA descriptors are read off them;
//   - the accumulators reach shared memory through a plan_smem_store plan (stmatrix into the
//     128-byte-swizzled D chunk that the D program's TMA store reads).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

#include "kernels/gemm_sm90/programs.cuh"
#include "kernels/gemm_sm90/tiles.cuh"
#include "tmakit/device/cluster.cuh"
#include "tmakit/device/copy_program.cuh"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/grid_dependency.cuh"
#include "tmakit/device/named_barrier.cuh"
#include "tmakit/device/registers.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/split_turns.cuh"
#include "tmakit/device/tile_scheduler.cuh"
#include "tmakit/device/wgmma.cuh"

namespace tmakit::gemm_sm90 {

// Everything the kernel reads from the host, as one __grid_constant__ parameter: the descriptors
// of plans whose shapes are the compiled ones, and the problem's extents in tiles.
struct KernelParams {
  // w_*: the split-K workspace W (used when splits > 1), one descriptor per direction
  CUtensorMap a_map, b_map, c_map, d_map, w_store_map, w_add_map, w_load_map;
  std::int32_t tiles_m = 0, tiles_n = 0, batch = 1, k_blocks = 0, group_m = 8;
  // Split K: each cluster tile is `splits` work units, unit s taking K blocks
  // [s * split_blocks - lead, min(k_blocks, (s + 1) * split_blocks - lead)), where lead is
  // split_lead but 0 at the first slice's start and at the last's end (that one ends at k_blocks);
  // 1: one unit per tile. 0 <= split_lead < split_blocks. The slices of a tile share meet at its
  // counters (device/split_turns.cuh): one per (CTA tile, consumer).
  std::int32_t splits = 1, split_blocks = 0, split_lead = 0;
  device::SplitCounters* split_counters = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  // Per-tensor scales of FP8 inputs (device pointers, one float each; nullptr: 1): D = alpha *
  // scale_a * scale_b * A B + beta C.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  std::int32_t read_c = 0;
  // Block scales (forms with BlockScales): A's scale columns (tiles.cuh) and B's per-block scales,
  // b_scales[nb * b_scales_ld + kb] for B's columns [128 nb, 128 nb + 128) and K block kb, nb <
  // b_scale_rows.
  CUtensorMap sa_map;
  const float* b_scales = nullptr;
  std::int32_t b_scales_ld = 0, b_scale_rows = 0;
};

// What the accumulators are multiplied by on their way to D: alpha and the inputs' scales, read from
// global memory where the caller gives them (once per tile: a load L1 serves after the first).
__device__ __forceinline__ float output_scale(const KernelParams& p) {
  return p.alpha * (p.scale_a ? *p.scale_a : 1.0f) * (p.scale_b ? *p.scale_b : 1.0f);
}
// Split K's counters count M tiles in multiples of this (the largest cluster along M), so that every
// CTA of a cluster, one past M included, has counters of its own.
inline constexpr std::int32_t kSplitRowsPadding = 2;

// Which CTAs of the grid run the GEMM, where the persistent loop's row tiles lie in A and D, and
// what the producer waits for before its first load of a row tile of A. The GEMM alone (WholeGrid):
// every CTA, rows in order, nothing to wait for. A kernel that runs this GEMM inside a grid of its
// own passes another type with the same three members (kernels/allgather_gemm_sm90: its first CTAs
// pull A's rows from the peers; the GEMM CTAs start on this rank's rows and wait for each pulled
// row block's flag before loading it).
struct WholeGrid {
  __device__ __forceinline__ std::int32_t first_cta() const { return 0; }
  __device__ __forceinline__ std::int32_t row_tile(std::int32_t m) const { return m; }
  __device__ __forceinline__ void before_rows(std::int32_t) const {}
};

// ---- the persistent loop's work units
//
// The loop walks cluster tiles: ClusterM vertically adjacent output tiles, one per CTA of a
// cluster, in device::GroupedRaster order (groups of group_m cluster-tile rows, so that clusters
// running at the same time share A rows and B columns in L2). Split K: unit u is K slice u / tiles
// of cluster tile u % tiles, so that the units running at once cover different tiles' first slices
// before any tile's second. SplitK is a kernel form of its own: one kernel with both epilogues
// behind a run-time branch measured slower on the large shapes (docs/lab/gemm.md, 2026-11-27).
struct WorkUnit {
  device::TileIndex pos;          // in tiles of this CTA
  std::int32_t kb_begin, kb_end;  // K blocks [kb_begin, kb_end)
};

template <int ClusterM, bool SplitK, class Grid>
struct WorkUnits {
  device::GroupedRaster raster;
  std::int32_t first, step, count, rank;
  const KernelParams& p;
  const Grid& g;

  __device__ WorkUnits(const KernelParams& params, const Grid& grid, std::int32_t cluster_rank)
      : raster{(params.tiles_m + ClusterM - 1) / ClusterM, params.tiles_n, params.batch, params.group_m},
        first((static_cast<std::int32_t>(blockIdx.x) - grid.first_cta()) / ClusterM),
        // unsigned: a shift, not a signed division's correction
        step(static_cast<std::int32_t>((gridDim.x - static_cast<std::uint32_t>(grid.first_cta())) / ClusterM)),
        count(raster.tiles() * (SplitK ? params.splits : 1)),
        rank(cluster_rank),
        p(params),
        g(grid) {}

  __device__ __forceinline__ WorkUnit at(std::int32_t u) const {
    WorkUnit w;
    std::int32_t tile = u, begin = 0, end = p.k_blocks;
    if constexpr (SplitK) {
      const std::int32_t slice = u / raster.tiles();
      tile = u - slice * raster.tiles();
      begin = slice == 0 ? 0 : slice * p.split_blocks - p.split_lead;
      end = slice == p.splits - 1 ? p.k_blocks : min(p.k_blocks, (slice + 1) * p.split_blocks - p.split_lead);
    }
    w.pos = raster.at(tile);
    w.pos.m = g.row_tile(w.pos.m * ClusterM + rank);
    w.kb_begin = begin;
    w.kb_end = end;
    return w;
  }
};

template <int ClusterM>
__device__ __forceinline__ std::int32_t cluster_rank() {
  if constexpr (ClusterM == 1) return 0;
  else return static_cast<std::int32_t>(device::cluster_rank());
}

// One kernel form: input and output element types, operand majors, cluster size, split K, tile
// shape, whether the K blocks' products are promoted (Promote: FP8 only, mainloop below), and
// whether they are scaled per block as they are (BlockScales: promoted FP8 only).
template <Inputs In_, DataType Out_, bool AMn_, bool BMn_, int ClusterM_, bool SplitK_, class Tile_, bool Promote_ = false,
          bool BlockScales_ = false>
struct Form {
  static constexpr Inputs In = In_;
  static constexpr bool Promote = Promote_;
  static constexpr bool BlockScales = BlockScales_;
  static constexpr DataType Out = Out_;
  static constexpr int kInBytes = input_bytes(In);
  static constexpr bool AMn = AMn_, BMn = BMn_, SplitK = SplitK_;
  static constexpr int ClusterM = ClusterM_;
  using Tile = Tile_;
  using P = Programs<In, Out, AMn, BMn, Tile::kTileN, ClusterM, BlockScales, Tile::kTileRows>;
  using Storage = SharedStorage<Tile, BlockScales>;
  using State = device::RingState<Tile::kStages>;
  using Release = device::RingRelease<Tile::kStages, ClusterM>;
  static constexpr int kStages = Tile::kStages;
  static constexpr int kTileN = Tile::kTileN;
  static constexpr int kAcc = Tile::kAccumulators;
  static constexpr int kConsumers = Tile::kConsumers;
  static_assert(ClusterM == 1 || ClusterM == kSplitRowsPadding, "clusters of 1 or 2 CTAs along M");
  static_assert(!is_fp8(In) || (!AMn && !BMn), "WGMMA reads FP8 operands K-major only");
  static_assert(!Promote || (is_fp8(In) && !Tile::kPingPong),
                "promoted FP8 tiles hold block registers beside their accumulators: not ping-pong");
  static_assert(Out == DataType::bfloat16 || Out == DataType::float16, "C and D are bf16 or f16");
  static_assert(!BlockScales || (Promote && !Tile::kSwapped),
                "block scales are applied as each K block is promoted, on unswapped tiles");
  static_assert(!(SplitK && Tile::kPingPong), "split K meets its slices per (tile, warpgroup): not in ping-pong tiles");
  static_assert(Tile::kTileRows == kTileM || (Promote && ClusterM == 1),
                "64-row tiles: promoted FP8 where M fits in one tile, no cluster to pair");
};

// Where chunk c of consumer wg's share of tile pos lies in D (in 64 x 64 chunks) and in W (in
// 64 x 32 chunks: rows x columns of the workspace, which a swapped tile holds transposed). A tile is
// kConsumers 64-row shares tall (a 64-row tile one), a ping-pong or swapped one 128 rows.
struct ChunkAt {
  std::int32_t row, col;
};
template <class F>
__device__ __forceinline__ ChunkAt d_chunk(const device::TileIndex& pos, int wg, int c) {
  constexpr int kPerRow = F::Tile::kChunksPerRow;
  if constexpr (F::Tile::kSwapped) return {2 * pos.m + c, pos.n};
  else if constexpr (F::Tile::kPingPong) return {2 * pos.m + c / kPerRow, kPerRow * pos.n + c % kPerRow};
  else return {F::kConsumers * pos.m + wg, kPerRow * pos.n + c};
}
template <class F>
__device__ __forceinline__ ChunkAt w_chunk(const device::TileIndex& pos, int wg, int c) {
  if constexpr (F::Tile::kSwapped) return {pos.n, F::Tile::kChunksF32 * pos.m + c};
  else return {F::kConsumers * pos.m + wg, F::Tile::kChunksF32 * pos.n + c};
}

// ---- producer: one thread walks the same units as the consumers; per K block it waits until the
// stage is free in every CTA its copies land in (the ring's releases), arms its own stage with
// every byte that lands there, and issues its A copies and its slice of B (the cluster's B tile:
// the same for every CTA of the cluster). Before a unit's first load, the grid's before_rows says
// its rows of A are there.
template <class F, class Grid>
__device__ __forceinline__ void produce(const KernelParams& p, typename F::Storage& s, const Grid& g) {
  using P = typename F::P;
  const WorkUnits<F::ClusterM, F::SplitK, Grid> units(p, g, cluster_rank<F::ClusterM>());
  const typename P::A::Share a_share = P::A::share();
  const typename P::B::Share b_share = P::B::share();
  device::prefetch_tensor_map(&p.a_map);
  device::prefetch_tensor_map(&p.b_map);
  if constexpr (F::BlockScales) device::prefetch_tensor_map(&p.sa_map);
  typename F::State st;
  for (std::int32_t u = units.first; u < units.count; u += units.step) {
    const WorkUnit w = units.at(u);
    g.before_rows(w.pos.m);
    for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb, ++st) {
      s.ring.wait_free(st);
      device::Barrier& full = s.ring.arm(st, P::kStageBytes);
      P::A::issue(&p.a_map, s.a[st.index], full, a_share, w.pos.m, kb, w.pos.batch);
      P::B::issue(&p.b_map, s.b[st.index], full, b_share, w.pos.n, kb, w.pos.batch);
      if constexpr (F::BlockScales)
        P::SA::issue(&p.sa_map, s.scales.a[st.index], full, typename P::SA::Share{}, w.pos.m, kb, w.pos.batch);
    }
  }
  device::allow_dependent_grids();  // every load issued: the next grid on the stream may start its prologue
}

// ---- consumers: warpgroup `wg` (0 or 1) owns rows [64 wg, 64 wg + 64) of every tile (a ping-pong
// consumer: the whole of every other tile).

// Named barriers: 1 + wg, each consumer's epilogue (its 128 threads); kTurnBarrier + wg, ping-pong's
// hand-over of the ring to consumer wg (both consumers' 256 threads).
inline constexpr std::uint32_t kTurnBarrier = 3;

// The WGMMA descriptors of a consumer's operands in every stage, built once: stage 0's (its 64-row
// share of A, the whole B tile) from the operands' layouts; stage i's are stage 0's advanced by i
// stage sizes and k16 step kk's by a constant (wgmma_descriptor_advance: one add, no field packing
// per K block). Everything in it is the same in every lane of the warpgroup, so the compiler keeps
// it in uniform registers, where WGMMA reads its descriptors.
template <class F>
struct StageDescriptors {
  static constexpr int kIn = F::kInBytes;
  static constexpr int kRows = F::Tile::kTileRows;
  static constexpr std::uint32_t kABytes = F::Tile::kABytes;
  static_assert(kAFields<F::AMn, kIn, kRows>.ok && kBFields<F::BMn, F::kTileN, kIn>.ok,
                "the operand tiles must be canonical WGMMA layouts");
  static_assert(kAStart<F::AMn, kIn, 0, 0, kRows> == 0 && kBStart<F::BMn, F::kTileN, kIn, 0> == 0, "K step 0 starts the tile");
  std::uint64_t a0, b0;

  __device__ __forceinline__ StageDescriptors(typename F::Storage& s, int wg) {
    constexpr WgmmaDescriptorFields kAF = kAFields<F::AMn, kIn, kRows>;
    constexpr WgmmaDescriptorFields kBF = kBFields<F::BMn, F::kTileN, kIn>;
    std::uint32_t a_start = 0;  // the warpgroup's first row of A (a 64-row tile's one consumer: row 0)
    if constexpr (kRows > 64) {
      const int uniform_wg = __shfl_sync(0xffffffffu, wg, 0);  // lane 0's: the compiler sees one value per warp
      a_start = uniform_wg == 0 ? kAStart<F::AMn, kIn, 0, 0, kRows> : kAStart<F::AMn, kIn, 1, 0, kRows>;
    }
    a0 = wgmma_descriptor(device::shared_address(s.a[0]) + a_start, kAF);
    b0 = wgmma_descriptor(device::shared_address(s.b[0]), kBF);
  }
  template <int Kk>
  __device__ __forceinline__ std::uint64_t a(std::uint32_t stage) const {
    return wgmma_descriptor_advance(a0, stage * kABytes + kAStart<F::AMn, kIn, 0, Kk, kRows>);
  }
  // A ping-pong consumer's (built with wg 0): the 64-row half `Half` of the whole tile's A.
  template <int Half, int Kk>
  __device__ __forceinline__ std::uint64_t a_half(std::uint32_t stage) const {
    return wgmma_descriptor_advance(a0, stage * kABytes + kAStart<F::AMn, kIn, Half, Kk>);
  }
  template <int Kk>
  __device__ __forceinline__ std::uint64_t b(std::uint32_t stage) const {
    return wgmma_descriptor_advance(b0, stage * kBBytes<F::kTileN> + kBStart<F::BMn, F::kTileN, kIn, Kk>);
  }
};

// Registers [Half * N / 2, (Half + 1) * N / 2) of a ping-pong consumer's accumulators: the
// m64nNk16 accumulator of the tile's 64-row half `Half`.
template <int Half, int R>
__device__ __forceinline__ float (&accumulator_half(float (&acc)[R]))[R / 2] {
  return *reinterpret_cast<float(*)[R / 2]>(&acc[Half * (R / 2)]);
}

// One WGMMA instruction of the form's input types: m64nNk16 of 16-bit inputs (TransA / TransB: the
// operands' majors) or m64nNk32 of FP8 ones (K-major both; `Swapped`: B's tile is the instruction's
// A operand and A's its B, so the two FP8 types change places too).
template <Inputs In, int N, int TransA, int TransB, bool Swapped = false>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, bool accumulate) {
  using device::wgmma::Fp8;
  if constexpr (In == Inputs::bf16) {
    device::wgmma::mma<DataType::bfloat16, N, TransA, TransB>(d, desc_a, desc_b, accumulate);
  } else if constexpr (In == Inputs::f16) {
    device::wgmma::mma<DataType::float16, N, TransA, TransB>(d, desc_a, desc_b, accumulate);
  } else {
    constexpr Fp8 kA = In == Inputs::e5m2_e4m3 || In == Inputs::e5m2_e5m2 ? Fp8::e5m2 : Fp8::e4m3;
    constexpr Fp8 kB = In == Inputs::e4m3_e5m2 || In == Inputs::e5m2_e5m2 ? Fp8::e5m2 : Fp8::e4m3;
    device::wgmma::mma_fp8<Swapped ? kB : kA, Swapped ? kA : kB, N>(d, desc_a, desc_b, accumulate);
  }
}

// One K block: four m64nNk16 (FP8: m64nNk32) WGMMAs on a stage, accumulating unless `first`; in a
// swapped tile four m64n128k16 (k32) with the operands' roles exchanged (B's 64 x 64 tile as A, A's 128 x 64 tile as B); in
// a ping-pong tile eight, the two halves' in turn (each k16 step's B read by both).
template <class F>
__device__ __forceinline__ void multiply_stage(float (&acc)[F::kAcc], const StageDescriptors<F>& desc,
                                               std::uint32_t stage, bool first) {
  device::wgmma::fence();
  device::wgmma::fence_operands(acc);
  [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
    if constexpr (F::Tile::kPingPong)
      ((mma<F::In, F::kTileN, F::AMn ? 1 : 0, F::BMn ? 1 : 0>(
            accumulator_half<0>(acc), desc.template a_half<0, Kk>(stage), desc.template b<Kk>(stage), !first || Kk > 0),
        mma<F::In, F::kTileN, F::AMn ? 1 : 0, F::BMn ? 1 : 0>(
            accumulator_half<1>(acc), desc.template a_half<1, Kk>(stage), desc.template b<Kk>(stage), !first || Kk > 0)),
       ...);
    else if constexpr (F::Tile::kSwapped)
      ((mma<F::In, kTileM, F::BMn ? 1 : 0, F::AMn ? 1 : 0, true>(acc, desc.template b<Kk>(stage),
                                                                          desc.template a<Kk>(stage), !first || Kk > 0)),
       ...);
    else
      ((mma<F::In, F::kTileN, F::AMn ? 1 : 0, F::BMn ? 1 : 0>(acc, desc.template a<Kk>(stage),
                                                                            desc.template b<Kk>(stage), !first || Kk > 0)),
       ...);
  }(std::make_integer_sequence<int, kKSteps>{});
  device::wgmma::commit_group();
  device::wgmma::fence_operands(acc);
}

// ---- the promoted FP8 mainloop (F::Promote)
//
// The tensor cores add FP8 products with fewer bits than fp32 (about 14: DeepSeek-V3's report), so
// that a long K loses precision in one accumulator. A promoted form multiplies each K block of its
// share into block registers starting from zero and adds them to the fp32 accumulators once its
// WGMMAs have completed: each accumulator register then holds sums of 128 bytes of K at a time.
//
// A K block goes through the block registers in column slices (tiles.cuh's promoted_slice_n), a
// WGMMA group each. With two sets of block registers (Promoted::kSets) the slices take them in
// turn: slice j is issued before slice j - 1 is waited for and added, so the tensor cores hold this
// warpgroup's next slice while its CUDA cores add the last one; the K block's last slice is added
// once it has completed, and its stage goes back to the producers. With one set each slice is
// waited for before the next is issued. Either way the other consumer's groups run meanwhile.
//
// No group is in flight from one K block (a turn of the loop) into the next: ptxas counts WGMMA
// groups exactly only in straight-line code, and an accumulator register read after a wait for a
// group issued in an earlier turn (measured: with every path into the loop alike) makes it
// serialize every WGMMA of the kernel (C7514; tests/tools/ptxas_report_check.py fails on it).
template <class F>
struct Promoted {
  static constexpr int kSliceN = promoted_slice_n(F::kTileN, F::Tile::kSwapped);
  static constexpr int kSlices = (F::Tile::kSwapped ? kTileM : F::kTileN) / kSliceN;  // groups per K block
  static constexpr int kBlock = kSliceN / 2;  // registers of an m64nN group
  // (A block-scaled form that splits K keeps one set: beside its scales' registers, split K's
  // epilogue spills with two.)
  static constexpr int kSets =
      kSlices > 1 && F::kAcc + 2 * kBlock <= kPromotedRegisters && !(F::BlockScales && F::SplitK) ? 2 : 1;
  static_assert(kSlices * kBlock == F::kAcc, "the slices cover the share");
  static_assert(F::kAcc + kSets * kBlock <= kPromotedRegisters, "the accumulators and block registers fit");
};

// Block scales: which of B's 128 x 128 scale blocks a tile's columns take. A tile starts at column
// n0 = TileN pos.n, so a 128- or 256-column tile starts on a block's edge and a 64-column one lies
// within one block; a 192-column tile starts on an edge or 64 columns past one (odd pos.n), and
// its middle 64 columns [64, 128) then belong to its second block, not its first. The consumers
// read kBlocks of B's scales per K block, the tile's first block's and the next; a 64-column group
// of the tile's columns takes block G / 2, the middle group of a 192-column tile the one chosen at
// run time.
template <class F>
struct ScaleBlocks {
  static constexpr int kGroups = F::kTileN / 64;  // 64-column groups of the tile
  static constexpr bool kMiddleVaries = F::kTileN % kScaleBlock != 0 && kGroups > 1;
  static constexpr int kBlocks = (F::kTileN + (kMiddleVaries ? 64 : 0) + kScaleBlock - 1) / kScaleBlock;
  static_assert(!kMiddleVaries || kGroups == 3, "only a 192-column tile starts between blocks and spans three groups");
};

// Slice J of a stage's K block into `block` (m64nN products starting from zero): the stage's B rows
// [J N, J N + N) against the consumer's A; in a swapped tile, B's tile (WGMMA's A) against A's rows
// [J N, J N + N).
template <class F, int J>
__device__ __forceinline__ void multiply_slice(float (&block)[Promoted<F>::kBlock], const StageDescriptors<F>& desc,
                                               std::uint32_t stage) {
  static_assert(!F::BMn && !F::AMn && !F::Tile::kPingPong, "FP8: K-major operands, one share per consumer");
  constexpr int kN = Promoted<F>::kSliceN;
  constexpr std::uint32_t kSliceBytes = J * kN * kTileKBytes;  // N K-major rows of the sliced operand
  device::wgmma::fence();
  device::wgmma::fence_operands(block);
  [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
    if constexpr (F::Tile::kSwapped)
      ((mma<F::In, kN, 0, 0, true>(block, desc.template b<Kk>(stage),
                                   wgmma_descriptor_advance(desc.template a<Kk>(stage), kSliceBytes), Kk > 0)),
       ...);
    else
      ((mma<F::In, kN, 0, 0>(block, desc.template a<Kk>(stage),
                             wgmma_descriptor_advance(desc.template b<Kk>(stage), kSliceBytes), Kk > 0)),
       ...);
  }(std::make_integer_sequence<int, kKSteps>{});
  device::wgmma::commit_group();
  device::wgmma::fence_operands(block);
}

// A block-scaled K block's factors: A's scales of the thread's two rows in the stage's K block (slot v
// of m64nN holds row 16 warp + lane / 4 + 8 ((v / 2) % 2) of the warpgroup's 64) times B's scale
// of the K block and one block of the tile's columns, read while the stage is held. Per-tensor
// forms: 1 (their scales are applied once, in the epilogue).
template <class F>
struct RowScales {
  float v[2] = {1.0f, 1.0f};
  __device__ __forceinline__ static RowScales read(typename F::Storage& s, std::uint32_t stage, int row, float scale_b) {
    RowScales r;
    if constexpr (F::BlockScales) {
      r.v[0] = s.scales.a[stage][row] * scale_b;
      r.v[1] = s.scales.a[stage][row + 8] * scale_b;
    }
    return r;
  }
};
// The factors of a K block for each 64-column group of the tile (ScaleBlocks).
template <class F>
struct GroupScales {
  using SB = ScaleBlocks<F>;
  RowScales<F> block[SB::kBlocks];
  RowScales<F> middle;  // a 192-column tile's group 1: its first block's or its second's
  __device__ __forceinline__ static GroupScales read(typename F::Storage& s, std::uint32_t stage, int row,
                                                     const float (&scale_b)[SB::kBlocks], bool middle_in_second) {
    GroupScales g;
#pragma unroll
    for (int h = 0; h < SB::kBlocks; ++h) g.block[h] = RowScales<F>::read(s, stage, row, scale_b[h]);
    if constexpr (SB::kMiddleVaries) g.middle = middle_in_second ? g.block[1] : g.block[0];
    return g;
  }
  // (g: a constant once promote's loop is unrolled)
  __device__ __forceinline__ const RowScales<F>& group(int g) const {
    return SB::kMiddleVaries && g == 1 ? middle : block[g / 2];
  }
};

// Slice J's products added into its slots of `acc` (m64nN slots [J N / 2, (J + 1) N / 2): a slice
// of WGMMA's N is a run of slots; slot v of the slice holds column J N + 8 (v / 4) + ...), scaled
// per row and column group where the form has block scales.
template <class F, int J>
__device__ __forceinline__ void promote(float (&acc)[F::kAcc], float (&block)[Promoted<F>::kBlock],
                                        const GroupScales<F>& scale) {
  constexpr int kBase = J * Promoted<F>::kBlock;
  device::wgmma::fence_operands(block);
#pragma unroll
  for (int i = 0; i < Promoted<F>::kBlock; ++i) {
    if constexpr (F::BlockScales)
      acc[kBase + i] += block[i] * scale.group((J * Promoted<F>::kSliceN + 8 * (i / 4)) / 64).v[(i / 2) % 2];
    else
      acc[kBase + i] += block[i];
  }
}

template <class F, class AllFull>
__device__ __forceinline__ void mainloop_promoted(float (&acc)[F::kAcc], const KernelParams& p, typename F::Storage& s,
                                                  const WorkUnit& w, const StageDescriptors<F>& desc,
                                                  typename F::State& st, const typename F::Release& rel,
                                                  AllFull&& all_full) {
  using Pr = Promoted<F>;
  using SB = ScaleBlocks<F>;
  constexpr int kS = Pr::kSlices;
  float block[Pr::kSets][Pr::kBlock];
  const int t = threadIdx.x % 128;
  const int row = 64 * (static_cast<int>(threadIdx.x) / 128 - 1) + 16 * (t / 32) + (t % 32) / 4;
  // Block scales: B's scale row of each block the tile's columns meet (one past N: the last row,
  // for columns D never receives).
  const float* b_rows[SB::kBlocks] = {};
  const bool middle_in_second = SB::kMiddleVaries && (w.pos.n * F::kTileN) % kScaleBlock != 0;
  if constexpr (F::BlockScales)
#pragma unroll
    for (int h = 0; h < SB::kBlocks; ++h)
      b_rows[h] = p.b_scales + min(w.pos.n * F::kTileN / kScaleBlock + h, p.b_scale_rows - 1) * p.b_scales_ld;
  device::wgmma::zero_operands(acc);  // (not acc[i] = 0: wgmma.cuh)
  for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb, ++st) {
    float scale_b[SB::kBlocks];
#pragma unroll
    for (int h = 0; h < SB::kBlocks; ++h) scale_b[h] = F::BlockScales ? __ldg(b_rows[h] + kb) : 1.0f;
    s.ring.wait_full(st);
    const GroupScales<F> scale = GroupScales<F>::read(s, st.index, row, scale_b, middle_in_second);
    [&]<int... J>(std::integer_sequence<int, J...>) {
      (
          [&] {
            if constexpr (Pr::kSets == 1) {
              multiply_slice<F, J>(block[0], desc, st.index);
              device::wgmma::wait_group<0>();
              if constexpr (J == kS - 1) rel.release(s.ring, st);
              promote<F, J>(acc, block[0], scale);
            } else {
              multiply_slice<F, J>(block[J % 2], desc, st.index);
              if constexpr (J > 0) {
                device::wgmma::wait_group<1>();  // slice J - 1 has completed
                promote<F, J - 1>(acc, block[(J - 1) % 2], scale);
              }
              if constexpr (J == kS - 1) {
                device::wgmma::wait_group<0>();
                rel.release(s.ring, st);
                promote<F, J>(acc, block[J % 2], scale);
              }
            }
          }(),
          ...);
    }(std::make_integer_sequence<int, kS>{});
  }
  all_full();
}

// The mainloop of one unit: one stage per K block; the WGMMAs of block kb run while block kb + 1's
// are issued, and a stage goes back to its producers once the WGMMAs reading it have completed
// (wait_group<1>: the previous block's). `all_full()` runs once every stage of the unit has been
// waited for (before the last WGMMAs complete).
template <class F, class AllFull>
__device__ __forceinline__ void mainloop(float (&acc)[F::kAcc], typename F::Storage& s, const WorkUnit& w,
                                         const StageDescriptors<F>& desc, typename F::State& st,
                                         const typename F::Release& rel, AllFull&& all_full) {
  typename F::State prev = st;
  for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb) {
    s.ring.wait_full(st);
    multiply_stage<F>(acc, desc, st.index, kb == w.kb_begin);
    device::wgmma::wait_group<1>();
    if (kb > w.kb_begin) rel.release(s.ring, prev);
    prev = st;
    ++st;
  }
  all_full();
  device::wgmma::wait_group<0>();
  device::wgmma::fence_operands(acc);
  rel.release(s.ring, prev);
}

// Epilogue: the share's 64 x 64 chunks, each converted, stored into a swizzled shared chunk by the
// store plan and written to global memory by one TMA store (the D program), two buffers taking
// turns. Unrolled: the accumulators are registers only while every index into them is a constant.
// Chunk c of a tile uses buffer (buf + c) % 2 and C's phase of parity (c_phase + c) % 2; both
// change from tile to tile only where a tile has an odd number of chunks (Tile64's one), so in
// every other form they stay 0 and cost no register across the mainloop.
template <class F>
__device__ __forceinline__ void epilogue_store(const float (&acc)[F::kAcc], const KernelParams& p, typename F::Storage& s,
                                               const device::TileIndex& pos, int wg, int& buf, device::Phase& c_phase) {
  using P = typename F::P;
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;  // named barrier of this warpgroup's 128 threads
  const float alpha = output_scale(p);
#pragma unroll
  for (int c = 0; c < F::Tile::kChunks; ++c) {
    unsigned char* chunk = s.d[wg][(buf + c) % 2];
    if (t == 0) device::wait_group_read<1>();  // the store that read this buffer last is done with it
    device::named_barrier_sync(barrier_id, 128);
    const ChunkAt at = d_chunk<F>(pos, wg, c);
    std::uint16_t bits[kChunkN / 2];
    if (p.read_c) {
      if (t == 0) {
        device::Barrier& f = s.c_full[wg];
        device::arrive_expect_tx(f, P::C::kBytes);
        P::C::issue(&p.c_map, chunk, f, typename P::C::Share{}, at.row, at.col, pos.batch);
      }
      device::Phase phase{(c_phase.parity + c) % 2};
      device::wait(s.c_full[wg], phase);
      // C, element for element where D goes, read in pairs (one 4-byte load each where the two
      // are adjacent) and folded in at once: beside a 128 x 192 tile's 192 accumulators there is
      // room for half a chunk's C values, not a whole one's.
      [&]<int... V>(std::integer_sequence<int, V...>) {
        auto fold = [&]<int W>(std::uint32_t pair) {
          const int slot = c * (kChunkN / 2) + 2 * W;
          bits[2 * W] = device::to_bits<F::Out>(alpha * acc[slot] + p.beta * device::from_bits<F::Out>(static_cast<std::uint16_t>(pair)));
          bits[2 * W + 1] = device::to_bits<F::Out>(alpha * acc[slot + 1] +
                                                  p.beta * device::from_bits<F::Out>(static_cast<std::uint16_t>(pair >> 16)));
        };
        if constexpr (F::Tile::kSwapped)
          (fold.template operator()<V>(device::load_element_pair<kChunkSrc, kChunkDstT, 2 * V>(chunk, t)), ...);
        else
          (fold.template operator()<V>(device::load_element_pair<kChunkSrc, kChunkDst, 2 * V>(chunk, t)), ...);
      }(std::make_integer_sequence<int, kChunkN / 4>{});
      device::named_barrier_sync(barrier_id, 128);  // every C value read before D overwrites it
    } else {
#pragma unroll
      for (int v = 0; v < kChunkN / 2; ++v) bits[v] = device::to_bits<F::Out>(alpha * acc[c * (kChunkN / 2) + v]);
    }
    if constexpr (F::Tile::kSwapped) device::store_planned<kChunkStoreT, kChunkSrc, kChunkDstT>(chunk, t, bits);
    else device::store_planned<kChunkStore, kChunkSrc, kChunkDst>(chunk, t, bits);
    device::fence_smem_writes_for_async();
    device::named_barrier_sync(barrier_id, 128);
    if (t == 0) {
      P::D::store(&p.d_map, chunk, at.row, at.col, pos.batch);
      device::commit_group();
    }
  }
  if constexpr (F::Tile::kChunks % 2 == 1) {
    buf ^= 1;
    if (p.read_c) c_phase.advance();
  }
}

// Split K, every slice but the last: the share's 64 x 32 fp32 chunks of partial sums, each stored
// into a swizzled shared chunk by its store plan and written into the workspace by one TMA store
// (the tile's first slice) or reduction (the others: the WStore and WAdd programs).
template <class F, bool First>
__device__ __forceinline__ void epilogue_partial(const float (&acc)[F::kAcc], const KernelParams& p,
                                                 typename F::Storage& s, const device::TileIndex& pos, int wg, int buf) {
  static_assert(F::Tile::kChunksF32 % 2 == 0, "an even number of chunks: the buffers' turn is as it was after them");
  using P = typename F::P;
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;
#pragma unroll
  for (int c = 0; c < F::Tile::kChunksF32; ++c) {
    unsigned char* chunk = s.d[wg][(buf + c) % 2];
    if (t == 0) device::wait_group_read<1>();
    device::named_barrier_sync(barrier_id, 128);
    float vals[kChunkNF32 / 2];
#pragma unroll
    for (int v = 0; v < kChunkNF32 / 2; ++v) vals[v] = acc[c * (kChunkNF32 / 2) + v];
    device::store_planned<kChunkStoreF32, kChunkSrcF32, kChunkDstF32>(chunk, t, vals);
    device::fence_smem_writes_for_async();
    device::named_barrier_sync(barrier_id, 128);
    if (t == 0) {
      const ChunkAt at = w_chunk<F>(pos, wg, c);
      if constexpr (First) P::WStore::store(&p.w_store_map, chunk, at.row, at.col, pos.batch);
      else P::WAdd::template reduce<ReduceOp::add>(&p.w_add_map, chunk, at.row, at.col, pos.batch);
      device::commit_group();
    }
  }
}

// Split K, the last slice: the other slices' sums (W's chunks, two in flight through the share's
// two buffers) added to the accumulators, which then leave as an unsplit tile's do.
template <class F>
__device__ __forceinline__ void add_workspace(float (&acc)[F::kAcc], const KernelParams& p, typename F::Storage& s,
                                              const device::TileIndex& pos, int wg, device::Phase (&w_phase)[2]) {
  using P = typename F::P;
  constexpr int kChunks = F::Tile::kChunksF32;
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;
  auto load = [&](int c) {  // thread 0: chunk c into buffer c % 2
    device::Barrier& f = s.w_full[wg][c % 2];
    device::arrive_expect_tx(f, P::WLoad::kBytes);
    const ChunkAt at = w_chunk<F>(pos, wg, c);
    P::WLoad::issue(&p.w_load_map, s.d[wg][c % 2], f, typename P::WLoad::Share{}, at.row, at.col, pos.batch);
  };
  if (t == 0) {
    device::wait_group_read<0>();  // no earlier store still reads the buffers
    load(0);
    if (kChunks > 1) load(1);
  }
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    device::wait(s.w_full[wg][c % 2], w_phase[c % 2]);
    float vals[kChunkNF32 / 2];
    device::load_elements<kChunkSrcF32, kChunkDstF32>(s.d[wg][c % 2], t, vals);
#pragma unroll
    for (int v = 0; v < kChunkNF32 / 2; ++v) acc[c * (kChunkNF32 / 2) + v] += vals[v];
    if (c + 2 < kChunks) {
      device::named_barrier_sync(barrier_id, 128);  // every thread has read the buffer
      if (t == 0) load(c + 2);
    }
  }
  device::named_barrier_sync(barrier_id, 128);  // the buffers are the D chunks' next
}

// Split K: this slice's turn at the tile share (thread 0 takes it, the warpgroup learns it through
// shared memory), then its part: the first stores its sums into W, the middle ones add theirs once
// the first has published, the last waits for all of them, adds W and writes D.
template <class F>
__device__ __forceinline__ void epilogue_split(float (&acc)[F::kAcc], const KernelParams& p, typename F::Storage& s,
                                               const device::TileIndex& pos, int wg, int& buf, device::Phase& c_phase,
                                               device::Phase (&w_phase)[2]) {
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;
  // One counter pair per (tile, consumer); the rows counted as the clusters cover them (a cluster's
  // CTA past M has a tile of its own, not the next batch's first).
  const std::int64_t rows = kSplitRowsPadding * ((p.tiles_m + kSplitRowsPadding - 1) / kSplitRowsPadding);
  device::SplitCounters* counters =
      p.split_counters + ((pos.batch * rows + pos.m) * p.tiles_n + pos.n) * kConsumers + wg;
  if (t == 0) s.turn[wg] = device::take_turn(counters);
  device::named_barrier_sync(barrier_id, 128);
  const std::uint32_t turn = s.turn[wg];
  const std::uint32_t last = static_cast<std::uint32_t>(p.splits - 1);
  if (turn < last) {
    if (turn == 0) {
      epilogue_partial<F, true>(acc, p, s, pos, wg, buf);
    } else {
      if (t == 0) device::wait_published(counters, 1);  // the first slice's store is in W
      device::named_barrier_sync(barrier_id, 128);
      epilogue_partial<F, false>(acc, p, s, pos, wg, buf);
    }
    if (t == 0) {
      device::wait_group<0>();  // the copies have written W
      device::publish(counters);
    }
    return;
  }
  if (t == 0) {
    device::wait_published(counters, last);
    device::reset(counters);
  }
  device::named_barrier_sync(barrier_id, 128);
  add_workspace<F>(acc, p, s, pos, wg, w_phase);
  epilogue_store<F>(acc, p, s, pos, wg, buf, c_phase);
}

template <class F, class Grid>
__device__ __forceinline__ void consume(const KernelParams& p, typename F::Storage& s, int wg, const Grid& g) {
  const int t = threadIdx.x % 128;
  float acc[F::kAcc];
#pragma unroll
  for (int i = 0; i < F::kAcc; ++i) acc[i] = 0.0f;
  const WorkUnits<F::ClusterM, F::SplitK, Grid> units(p, g, cluster_rank<F::ClusterM>());
  const typename F::Release rel(s.ring, static_cast<std::uint32_t>(t));
  typename F::State st;
  device::Phase c_phase, w_phase[2];
  int buf = 0;
  if constexpr (F::Tile::kPingPong) {
    // This CTA's units in turn: warpgroup wg takes its units wg, wg + 2, ..., and walks past the
    // ring's rounds of the other's units (the producer fills them in the units' order). A unit's
    // first wait starts only once the other warpgroup has waited for every stage of the unit before
    // it (named barrier kTurnBarrier + wg: the other arrives, this one syncs): a parity wait tells
    // only this phase from the one before, so no round may be waited for while the round a ring's
    // length earlier may still be incomplete. The multiplies of the two never overlap for long, and
    // one writes its tile out while the other multiplies.
    auto rounds = [&](std::int32_t u) {
      const WorkUnit o = units.at(u);
      return static_cast<std::uint32_t>(o.kb_end - o.kb_begin);
    };
    std::int32_t u = units.first + wg * units.step;
    if (wg == 1 && units.first < units.count) st += rounds(units.first);
    for (; u < units.count; u += 2 * units.step) {
      const WorkUnit w = units.at(u);
      // built per unit (the whole tile's A: wg 0's): nothing of it held through the epilogue, where
      // 192 accumulators leave no register spare
      const StageDescriptors<F> desc(s, 0);
      if (u != units.first) device::named_barrier_sync(kTurnBarrier + wg, 256);
      const bool next = u + units.step < units.count;
      mainloop<F>(acc, s, w, desc, st, rel, [&] {
        if (next) device::named_barrier_arrive(kTurnBarrier + (1 - wg), 256);
      });
      epilogue_store<F>(acc, p, s, w.pos, wg, buf, c_phase);
      if (next) st += rounds(u + units.step);
    }
  } else {
    const StageDescriptors<F> desc(s, wg);
    for (std::int32_t u = units.first; u < units.count; u += units.step) {
      const WorkUnit w = units.at(u);
      if constexpr (F::Promote) mainloop_promoted<F>(acc, p, s, w, desc, st, rel, [] {});
      else mainloop<F>(acc, s, w, desc, st, rel, [] {});
      if constexpr (F::SplitK) epilogue_split<F>(acc, p, s, w.pos, wg, buf, c_phase, w_phase);
      else epilogue_store<F>(acc, p, s, w.pos, wg, buf, c_phase);
    }
  }
  if (t == 0) device::wait_group<0>();  // every store has completed before the CTA's shared memory goes
}

// One CTA of the GEMM (Tile::kThreads threads; `dyn`: the dynamic shared memory, kDynamicSmem<Tile>
// bytes). gemm_kernel runs it in every CTA; a kernel of its own may run it in some (Grid).
template <class F, class Grid>
__device__ __forceinline__ void gemm_cta(const KernelParams& p, unsigned char* dyn, const Grid& g) {
  const std::uint32_t base = device::shared_address(dyn);
  auto& s = *reinterpret_cast<typename F::Storage*>(dyn + ((1024 - base % 1024) % 1024));
  // A stage of this CTA is written by the producer of every CTA of the cluster (B's slices), so it
  // is free once the warpgroups reading it in every CTA released it: kReaders x ClusterM arrivals.
  // Initialized in every CTA before any peer arrives on it or copies into it (a cluster barrier,
  // taken by all threads; it also publishes c_full).
  device::cluster_init_ring(s.ring, F::Tile::kReaders * F::ClusterM, [&] {
    for (int i = 0; i < F::kConsumers; ++i) {
      device::init(s.c_full[i], 1);
      device::init(s.w_full[i][0], 1);
      device::init(s.w_full[i][1], 1);
    }
  });

  // Launched with early start (Gemm::launch), the CTA got here while the grid before it may still
  // run: nothing above touched global memory, nothing below may before that grid has finished.
  device::wait_for_prior_grids();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    device::setmaxnreg_dec<F::Tile::kProducerRegisters>();
    if (threadIdx.x == 0) produce<F>(p, s, g);
  } else {
    device::setmaxnreg_inc<F::Tile::kConsumerRegisters>();
    consume<F>(p, s, wg - 1, g);
  }
  // No CTA leaves while a peer may still arrive on its barriers or copy into its shared memory.
  device::cluster_sync();
}

template <Inputs In, DataType Out, bool AMn, bool BMn, int ClusterM, bool SplitK, class Tile, bool Promote, bool BlockScales>
__global__ void __launch_bounds__(Tile::kThreads, 1) gemm_kernel(const __grid_constant__ KernelParams p) {
  extern __shared__ unsigned char dyn[];
  gemm_cta<Form<In, Out, AMn, BMn, ClusterM, SplitK, Tile, Promote, BlockScales>>(p, dyn, WholeGrid{});
}

}  // namespace tmakit::gemm_sm90

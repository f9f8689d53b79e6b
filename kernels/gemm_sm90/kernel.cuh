// The GEMM kernel: persistent, warp-specialized, one 128 x 256 output tile per CTA at a time.
//
//   warpgroup 0  thread 0 (producer): per K block, waits until a ring stage is free, arms its
//                `full` barrier with the stage's bytes and issues the A and B copies
//   warpgroup 1, 2 (consumers): each multiplies its 64 rows of the tile with m64n256k16 WGMMA,
//                hands each stage back as soon as the WGMMAs reading it completed, then writes
//                its rows out through shared memory with TMA stores
//
// CTAs run in clusters of ClusterM (1 or 2) along M: the CTAs of a cluster compute vertically
// adjacent tiles, which share their B tile. Each loads its own A and one slice of B, multicast to
// every CTA of the cluster (the B copy program is planned for that cluster). The stages are
// device/ring.cuh's Ring: a producer waits for its stage's releases from every CTA its copies land
// in, then arms its own barrier and issues.
//
// Nothing here computes a byte count, a box, a coordinate or a shared offset by hand:
//   - the A, B, C, D and W copies are compile-time copy programs (device/copy_program.cuh): the
//     shapes of plan_tile plans made for representative tensors of each operand layout
//     (fixed-shape plans, PlanOptions::fixed_shape), so that a K block's copies are one TMA
//     instruction each, with constant boxes and offsets; gemm.cu plans the caller's tensors, checks
//     that each plan has the compiled shape (shape_difference) and passes only the descriptors;
//   - each stage is armed with the copy programs' own bytes (kStageBytes);
//   - the operands' shared layouts are gmma_operand's canonical WGMMA layouts, the same objects the
//     plans are made from, and the WGMMA descriptors are read off them (wgmma_descriptor_fields,
//     wgmma_start_offset);
//   - the accumulators reach shared memory through a plan_smem_store plan (stmatrix into the
//     128-byte-swizzled D chunk that the D program's TMA store reads).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/copy_program.cuh"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/named_barrier.cuh"
#include "tmakit/device/registers.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/tile_scheduler.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/plan/copy_shape.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit::gemm_sm90 {

// ---- the tile and its shared-memory layouts (compile time; gemm.cu plans against the same objects)
inline constexpr int kTileM = 128, kTileN = 256, kTileK = 64;
inline constexpr int kStages = 4;
inline constexpr int kConsumers = 2;                 // warpgroups, kTileM / 64 rows each
inline constexpr int kThreads = 128 * (1 + kConsumers);
inline constexpr int kChunkN = 64;                   // the epilogue writes 64 x 64 pieces of D
inline constexpr int kChunks = kTileN / kChunkN;
inline constexpr int kElemBytes = 2;
// Registers per thread after setmaxnreg: the producer warpgroup gives what the consumers' 128
// accumulators and their operands need (384 threads x 168 at launch = 64,512 = 40 x 128 + 2 x 232 x 128).
inline constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
static_assert(kProducerRegisters * 128 + kConsumers * kConsumerRegisters * 128 <= 65536, "the register file");

// A as 128 x 64 (M x K), B as 256 x 64 (N x K): K-major when the operand's K is contiguous in
// global memory, MN-major otherwise (WGMMA reads either; imm-trans says which).
constexpr StoreDestination operand_tile(bool mn_major, int mn) {
  return gmma_operand(mn_major ? OperandMajor::mn : OperandMajor::k, Swizzle::b128, kElemBytes, mn, kTileK).value;
}
template <bool MnMajor>
inline constexpr StoreDestination kATile = operand_tile(MnMajor, kTileM);
template <bool MnMajor>
inline constexpr StoreDestination kBTile = operand_tile(MnMajor, kTileN);

// An epilogue chunk: 64 rows x `cols` columns, row-major, 128B swizzle (rows of 128 bytes: 64 bf16
// or f16 values, 32 fp32 ones).
constexpr SwizzledLayout chunk_layout(int cols) {
  SwizzledLayout s;
  s.swizzle = swizzle_for(Swizzle::b128);
  s.layout = make_layout(IntTuple::make(64, cols), IntTuple::make(cols, 1));
  return s;
}
// The D (and C) chunk: 64 x 64.
inline constexpr SwizzledLayout kChunkLayout = chunk_layout(kChunkN);
inline constexpr StoreDestination kChunkDst = smem_destination(kChunkLayout, kElemBytes, 64, kChunkN);
inline constexpr StoreSource kChunkSrc = wgmma_accumulator(kChunkN);  // columns [64c, 64c + 64) of m64n256
inline constexpr SmemStorePlan kChunkStore = plan_smem_store(kChunkSrc, kChunkDst);
static_assert(kChunkStore.ok, "the accumulator chunk must have a store plan (tmakit smem-store explains a refusal)");
static_assert(device::smem_store_impl::XorAddressMap<kChunkSrc, kChunkDst>::kLinear,
              "the chunk's addresses are XOR-linear: no layout is evaluated on the GPU");

// Split K: each of a tile's K slices adds its fp32 partial sums into a workspace W (m x n fp32)
// with TMA reductions (.add), in 64 x 32 chunks (128-byte rows, 128B swizzle: the same 8 KiB
// buffers); a second kernel (finalize.cuh) writes D = alpha * W + beta * C.
inline constexpr int kChunkNF32 = 32;
inline constexpr int kChunksF32 = kTileN / kChunkNF32;
inline constexpr SwizzledLayout kChunkLayoutF32 = chunk_layout(kChunkNF32);
inline constexpr StoreDestination kChunkDstF32 = smem_destination(kChunkLayoutF32, 4, 64, kChunkNF32);
inline constexpr StoreSource kChunkSrcF32 = wgmma_accumulator(kChunkNF32);  // columns [32c, 32c + 32)
inline constexpr SmemStorePlan kChunkStoreF32 = plan_smem_store(kChunkSrcF32, kChunkDstF32);
static_assert(kChunkStoreF32.ok, "the fp32 partial chunk must have a store plan");
static_assert(device::smem_store_impl::XorAddressMap<kChunkSrcF32, kChunkDstF32>::kLinear,
              "the fp32 chunk's addresses are XOR-linear");

// Where a warpgroup's wgmma operands start inside a stage, before the swizzle (scalar constants:
// device code never evaluates a layout at run time): the first row of warpgroup w's 64-row share of
// A, and the first column of k16 step kk of A and of B.
template <bool AMn, int Wg, int Kk>
inline constexpr std::uint32_t kAStart = wgmma_start_offset(kATile<AMn>, 64 * Wg, 16 * Kk);
template <bool BMn, int Kk>
inline constexpr std::uint32_t kBStart = wgmma_start_offset(kBTile<BMn>, 0, 16 * Kk);
template <bool MnMajor>
inline constexpr WgmmaDescriptorFields kAFields = wgmma_descriptor_fields(kATile<MnMajor>);
template <bool MnMajor>
inline constexpr WgmmaDescriptorFields kBFields = wgmma_descriptor_fields(kBTile<MnMajor>);

inline constexpr std::uint32_t kABytes = kTileM * kTileK * kElemBytes;
inline constexpr std::uint32_t kBBytes = kTileN * kTileK * kElemBytes;
inline constexpr std::uint32_t kChunkBytes = 64 * kChunkN * kElemBytes;

// ---- the operands as the planner sees them, and the copy programs compiled from them

// An operand's global tensor as (rows, cols, batch) in elements: `rows` is the mode the tile's first
// shared mode covers (M of A, N of B, M of C, D and W), `cols` the second (K, K, N, N, N).
// `rows_contiguous`: element (r + 1, c) follows (r, c) in memory; `ld` is then the stride of a
// column, else of a row. A batch of one has no stride of its own: its mode gets the matrix's extent.
TMAKIT_HD constexpr GlobalTensor operand_tensor(DataType t, std::uint64_t address, std::int64_t rows, std::int64_t cols,
                                                std::int64_t batch, std::int64_t ld, std::int64_t batch_stride,
                                                bool rows_contiguous) {
  GlobalTensor g;
  g.dtype = t;
  g.address = address;
  g.base_alignment = known_alignment(address);
  const std::int64_t rs = rows_contiguous ? 1 : ld;
  const std::int64_t cs = rows_contiguous ? ld : 1;
  const std::int64_t bs = batch > 1 ? batch_stride : (rows_contiguous ? ld * cols : ld * rows);
  g.layout = make_layout(IntTuple::make(rows, cols, batch), IntTuple::make(rs, cs, bs));
  return g;
}

// How each operand is planned: fixed shapes (so one compiled program fits every tensor of the
// layout), operand loads asking L2 for 256-byte promotion (a tile row is one or two 128-byte lines;
// measured faster than none: docs/lab/gemm.md), B planned for the cluster it is multicast in.
TMAKIT_HD constexpr PlanOptions operand_options(int multicast_ctas) {
  PlanOptions o;
  o.fixed_shape = true;
  o.l2 = L2Promotion::b256;
  o.cluster[0] = static_cast<std::uint32_t>(multicast_ctas);
  o.multicast_dim = multicast_ctas > 1 ? 0 : -1;
  return o;
}
TMAKIT_HD constexpr PlanOptions chunk_options(PlanDirection direction) {
  PlanOptions o;
  o.fixed_shape = true;
  o.direction = direction;
  o.reduce_op = ReduceOp::add;
  return o;
}
TMAKIT_HD constexpr TileExtents tile_extents(std::int64_t rows, std::int64_t cols) {
  TileExtents t;
  t.modes = 3;
  t.extent[0] = rows;
  t.extent[1] = cols;
  t.extent[2] = 1;
  return t;
}

// The plan of a representative tensor of each layout (any extents and strides the rules accept;
// with fixed_shape the shape does not depend on them), reduced to its shape.
constexpr TmaPlan compiled_shape(DataType t, bool rows_contiguous, const SwizzledLayout& smem, std::int64_t rows,
                                 std::int64_t cols, const PlanOptions& o) {
  constexpr std::int64_t kExtent = 4096;
  const GlobalTensor g = operand_tensor(t, std::uint64_t{1} << 20, kExtent, kExtent, 2, kExtent, kExtent * kExtent,
                                        rows_contiguous);
  const PlanResult r = plan_tile(g, smem, tile_extents(rows, cols), o);
  return r.ok() ? plan_shape(r.plan) : TmaPlan{};
}
template <DataType T, bool MnMajor>
inline constexpr TmaPlan kAShape = compiled_shape(T, MnMajor, kATile<MnMajor>.tile, kTileM, kTileK, operand_options(1));
template <DataType T, bool MnMajor, int ClusterM>
inline constexpr TmaPlan kBShape =
    compiled_shape(T, MnMajor, kBTile<MnMajor>.tile, kTileN, kTileK, operand_options(ClusterM));
template <DataType T>
inline constexpr TmaPlan kCShape = compiled_shape(T, false, kChunkLayout, 64, kChunkN, chunk_options(PlanDirection::load));
template <DataType T>
inline constexpr TmaPlan kDShape = compiled_shape(T, false, kChunkLayout, 64, kChunkN, chunk_options(PlanDirection::store));
inline constexpr TmaPlan kWShape =
    compiled_shape(DataType::float32, false, kChunkLayoutF32, 64, kChunkNF32, chunk_options(PlanDirection::reduce));

// The copy programs of one kernel form.
template <DataType T, bool AMn, bool BMn, int ClusterM>
struct Programs {
  using A = device::CopyProgram<kAShape<T, AMn>>;
  using B = device::CopyProgram<kBShape<T, BMn, ClusterM>>;
  using C = device::CopyProgram<kCShape<T>>;
  using D = device::CopyProgram<kDShape<T>>;
  using W = device::CopyProgram<kWShape>;
  // Every byte that lands in a stage of one CTA: its A tile and the whole B tile (each slice, its
  // own and its peers' multicasts).
  static constexpr std::uint32_t kStageBytes = A::kBytes + B::kBytes;
  static_assert(A::kBytes == kABytes && B::kBytes == kBBytes, "the plans fill the stage buffers exactly");
  static_assert(D::kShape.smem_bytes <= kChunkBytes && W::kShape.smem_bytes <= kChunkBytes, "chunks fit their buffers");
  static_assert(B::kSharers == static_cast<std::uint32_t>(ClusterM), "B is shared by the cluster's CTAs");
};

struct alignas(1024) SharedStorage {
  unsigned char a[kStages][kABytes];
  unsigned char b[kStages][kBBytes];
  unsigned char d[kConsumers][2][kChunkBytes];  // two chunks per consumer: one fills while one stores
  device::Ring<kStages> ring;
  device::Barrier c_full[kConsumers];
};

// Everything the kernel reads from the host, as one __grid_constant__ parameter: the descriptors
// of plans whose shapes are the compiled ones, and the problem's extents in tiles.
struct KernelParams {
  CUtensorMap a_map, b_map, c_map, d_map, w_map;  // w: the split-K workspace (used when splits > 1)
  std::int32_t tiles_m = 0, tiles_n = 0, batch = 1, k_blocks = 0, group_m = 8;
  // Split K: each cluster tile is `splits` work units, unit s taking K blocks
  // [s * split_blocks, min(k_blocks, (s + 1) * split_blocks)); 1: one unit per tile.
  std::int32_t splits = 1, split_blocks = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::int32_t read_c = 0;
};

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
// before any tile's second. SplitK is a kernel form of its own (measured: one kernel with both
// epilogues behind a run-time branch ran the large shapes at 0.76-0.78x cuBLAS instead of
// 0.85-0.88x, docs/lab/gemm.md).
struct WorkUnit {
  device::TileCoord pos;          // in tiles of this CTA
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
        step((static_cast<std::int32_t>(gridDim.x) - grid.first_cta()) / ClusterM),
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
      begin = slice * p.split_blocks;
      end = min(p.k_blocks, begin + p.split_blocks);
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

// ---- producer: one thread walks the same units as the consumers; per K block it waits until the
// stage is free in every CTA its copies land in (the ring's releases), arms its own stage with
// every byte that lands there, and issues its A copies and its slice of B. Before a unit's first
// load, the grid's before_rows says its rows of A are there.
template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void produce(const KernelParams& p, SharedStorage& s, const Grid& g) {
  using P = Programs<T, AMn, BMn, ClusterM>;
  const WorkUnits<ClusterM, SplitK, Grid> units(p, g, cluster_rank<ClusterM>());
  const typename P::A::Share a_share = P::A::share();
  const typename P::B::Share b_share = P::B::share();
  device::prefetch_tensor_map(&p.a_map);
  device::prefetch_tensor_map(&p.b_map);
  device::RingState<kStages> st;
  for (std::int32_t u = units.first; u < units.count; u += units.step) {
    const WorkUnit w = units.at(u);
    g.before_rows(w.pos.m);
    const std::int32_t b_n = w.pos.n;  // the cluster's B tile: the same for every CTA of the cluster
    for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb, ++st) {
      s.ring.wait_free(st);
      device::Barrier& full = s.ring.arm(st, P::kStageBytes);
      P::A::issue(&p.a_map, s.a[st.index], full, a_share, w.pos.m, kb, w.pos.batch);
      P::B::issue(&p.b_map, s.b[st.index], full, b_share, b_n, kb, w.pos.batch);
    }
  }
}

// ---- consumers: warpgroup `wg` (0 or 1) owns rows [64 wg, 64 wg + 64) of every tile.

// One K block: four m64n256k16 WGMMAs on stage `stage`, accumulating unless `first`.
template <DataType T, bool AMn, bool BMn>
__device__ __forceinline__ void multiply_stage(float (&acc)[kTileN / 2], std::uint32_t a0, std::uint32_t b0, bool first) {
  constexpr WgmmaDescriptorFields kAF = kAFields<AMn>;
  constexpr WgmmaDescriptorFields kBF = kBFields<BMn>;
  static_assert(kAF.ok && kBF.ok, "the operand tiles must be canonical WGMMA layouts");
  device::wgmma::fence();
  device::wgmma::fence_operands(acc);
  [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
    ((device::wgmma::mma<T, kTileN, AMn ? 1 : 0, BMn ? 1 : 0>(
         acc, wgmma_descriptor(a0 + kAStart<AMn, 0, Kk>, kAF), wgmma_descriptor(b0 + kBStart<BMn, Kk>, kBF),
         !first || Kk > 0)),
     ...);
  }(std::make_integer_sequence<int, kTileK / 16>{});
  device::wgmma::commit_group();
  device::wgmma::fence_operands(acc);
}

// The mainloop of one unit: one stage per K block; the WGMMAs of block kb run while block kb + 1's
// are issued, and a stage goes back to its producers once the WGMMAs reading it have completed
// (wait_group<1>: the previous block's).
template <DataType T, bool AMn, bool BMn, int ClusterM>
__device__ __forceinline__ void mainloop(float (&acc)[kTileN / 2], SharedStorage& s, const WorkUnit& w, int wg,
                                         device::RingState<kStages>& st, const device::RingRelease<kStages, ClusterM>& rel) {
  const std::uint32_t a_row0 = wg == 0 ? kAStart<AMn, 0, 0> : kAStart<AMn, 1, 0>;
  device::RingState<kStages> prev = st;
  for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb) {
    s.ring.wait_full(st);
    multiply_stage<T, AMn, BMn>(acc, device::shared_address(s.a[st.index]) + a_row0, device::shared_address(s.b[st.index]),
                                kb == w.kb_begin);
    device::wgmma::wait_group<1>();
    if (kb > w.kb_begin) rel.release(prev);
    prev = st;
    ++st;
  }
  device::wgmma::wait_group<0>();
  device::wgmma::fence_operands(acc);
  rel.release(prev);
}

// Epilogue: four 64 x 64 chunks, each converted, stored into a swizzled shared chunk by the store
// plan and written to global memory by one TMA store (the D program). Unrolled: the accumulators
// are registers only while every index into them is a constant.
template <DataType T, bool AMn, bool BMn, int ClusterM>
__device__ __forceinline__ void epilogue_store_chunks(const float (&acc)[kTileN / 2], const KernelParams& p, SharedStorage& s,
                                           const device::TileCoord& pos, int wg, int& buf, device::Phase& c_phase) {
  using P = Programs<T, AMn, BMn, ClusterM>;
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;  // named barrier of this warpgroup's 128 threads
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    unsigned char* chunk = s.d[wg][buf];
    if (t == 0) device::wait_group_read<1>();  // the store that read this buffer last is done with it
    device::named_barrier_sync(barrier_id, 128);
    const std::int32_t cm = 2 * pos.m + wg, cn = kChunks * pos.n + c;
    std::uint16_t bits[kChunkN / 2];
    if (p.read_c) {
      if (t == 0) {
        device::Barrier& f = s.c_full[wg];
        device::arrive_expect_tx(f, P::C::kBytes);
        P::C::issue(&p.c_map, chunk, f, typename P::C::Share{}, cm, cn, pos.batch);
      }
      device::wait(s.c_full[wg], c_phase);
      device::load_elements<kChunkSrc, kChunkDst>(chunk, t, bits);  // C, element for element where D goes
#pragma unroll
      for (int v = 0; v < kChunkN / 2; ++v)
        bits[v] = device::to_bits<T>(p.alpha * acc[c * (kChunkN / 2) + v] + p.beta * device::from_bits<T>(bits[v]));
      device::named_barrier_sync(barrier_id, 128);  // every C value read before D overwrites it
    } else {
#pragma unroll
      for (int v = 0; v < kChunkN / 2; ++v) bits[v] = device::to_bits<T>(p.alpha * acc[c * (kChunkN / 2) + v]);
    }
    device::store_planned<kChunkStore, kChunkSrc, kChunkDst>(chunk, t, bits);
    device::fence_smem_writes_for_async();
    device::named_barrier_sync(barrier_id, 128);
    if (t == 0) {
      P::D::store(&p.d_map, chunk, cm, cn, pos.batch);
      device::commit_group();
    }
    buf ^= 1;
  }
}

// Split K: eight 64 x 32 fp32 chunks of partial sums, each stored into a swizzled shared chunk by
// its store plan and added into the workspace by one TMA reduction (the W program).
template <DataType T, bool AMn, bool BMn, int ClusterM>
__device__ __forceinline__ void epilogue_reduce(const float (&acc)[kTileN / 2], const KernelParams& p, SharedStorage& s,
                                            const device::TileCoord& pos, int wg, int& buf) {
  using P = Programs<T, AMn, BMn, ClusterM>;
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;
#pragma unroll
  for (int c = 0; c < kChunksF32; ++c) {
    unsigned char* chunk = s.d[wg][buf];
    if (t == 0) device::wait_group_read<1>();
    device::named_barrier_sync(barrier_id, 128);
    float vals[kChunkNF32 / 2];
#pragma unroll
    for (int v = 0; v < kChunkNF32 / 2; ++v) vals[v] = acc[c * (kChunkNF32 / 2) + v];
    device::store_planned<kChunkStoreF32, kChunkSrcF32, kChunkDstF32>(chunk, t, vals);
    device::fence_smem_writes_for_async();
    device::named_barrier_sync(barrier_id, 128);
    if (t == 0) {
      P::W::template reduce<ReduceOp::add>(&p.w_map, chunk, 2 * pos.m + wg, kChunksF32 * pos.n + c, pos.batch);
      device::commit_group();
    }
    buf ^= 1;
  }
}

template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void consume(const KernelParams& p, SharedStorage& s, int wg, const Grid& g) {
  const int t = threadIdx.x % 128;
  float acc[kTileN / 2];
#pragma unroll
  for (int i = 0; i < kTileN / 2; ++i) acc[i] = 0.0f;
  const WorkUnits<ClusterM, SplitK, Grid> units(p, g, cluster_rank<ClusterM>());
  const device::RingRelease<kStages, ClusterM> rel(s.ring, static_cast<std::uint32_t>(t));
  device::RingState<kStages> st;
  device::Phase c_phase;
  int buf = 0;
  for (std::int32_t u = units.first; u < units.count; u += units.step) {
    const WorkUnit w = units.at(u);
    mainloop<T, AMn, BMn, ClusterM>(acc, s, w, wg, st, rel);
    if constexpr (SplitK) epilogue_reduce<T, AMn, BMn, ClusterM>(acc, p, s, w.pos, wg, buf);
    else epilogue_store_chunks<T, AMn, BMn, ClusterM>(acc, p, s, w.pos, wg, buf, c_phase);
  }
  if (t == 0) device::wait_group<0>();  // every store has completed before the CTA's shared memory goes
}

// One CTA of the GEMM (kThreads threads; `dyn`: the dynamic shared memory, sizeof(SharedStorage)
// + 1024 bytes). gemm_kernel runs it in every CTA; a kernel of its own may run it in some (Grid).
template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void gemm_cta(const KernelParams& p, unsigned char* dyn, const Grid& g) {
  static_assert(ClusterM == 1 || ClusterM == 2, "clusters of 1 or 2 CTAs along M");
  const std::uint32_t base = device::shared_address(dyn);
  SharedStorage& s = *reinterpret_cast<SharedStorage*>(dyn + ((1024 - base % 1024) % 1024));
  // A stage of this CTA is written by the producer of every CTA of the cluster (B's slices), so it
  // is free once both consumer warpgroups of every CTA released it: kConsumers x ClusterM arrivals.
  // Initialized in every CTA before any peer arrives on it or copies into it (a cluster barrier,
  // taken by all threads; it also publishes c_full).
  device::cluster_init_ring(s.ring, kConsumers * ClusterM, [&] {
    for (int i = 0; i < kConsumers; ++i) device::init(s.c_full[i], 1);
  });

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    device::setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) produce<T, AMn, BMn, ClusterM, SplitK>(p, s, g);
  } else {
    device::setmaxnreg_inc<kConsumerRegisters>();
    consume<T, AMn, BMn, ClusterM, SplitK>(p, s, wg - 1, g);
  }
  // No CTA leaves while a peer may still arrive on its barriers or copy into its shared memory.
  device::cluster_sync();
}

template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK>
__global__ void __launch_bounds__(kThreads, 1) gemm_kernel(const __grid_constant__ KernelParams p) {
  extern __shared__ unsigned char dyn[];
  gemm_cta<T, AMn, BMn, ClusterM, SplitK>(p, dyn, WholeGrid{});
}

}  // namespace tmakit::gemm_sm90

// The GEMM kernel: persistent, warp-specialized, one 128 x 256 output tile per CTA at a time.
//
//   warpgroup 0  thread 0 (producer) issues the TMA loads of A and B into a ring of stages;
//                thread 32 (releaser) arms each stage and hands it back to the producers
//   warpgroup 1, 2 (consumers) each multiplies its 64 rows of the tile with m64n256k16 WGMMA, then
//                              writes them out through shared memory with TMA stores
//
// CTAs run in clusters of ClusterM (1 or 2) along M: the CTAs of a cluster compute vertically
// adjacent tiles, which share their B tile. Each loads its own A and one slice of B, multicast to
// every CTA of the cluster (the B plan is planned for that cluster; walk_tile picks this CTA's slice
// and issue_walk issues it). The stages are device/multicast.cuh's warp-specialized MulticastPipeline
// (ARM-BEFORE-ISSUE): a releaser thread in warpgroup 0 waits until this CTA's consumer warps left a
// stage, arms its barrier with the plans' bytes (StageRole::expect_bytes: this CTA's A tile and the
// whole B tile, every slice of which lands here), and frees the stage in every CTA of the cluster;
// a producer issues once every CTA it copies into has done so.
//
// Nothing here computes a byte count, a box, a coordinate or a shared offset by hand:
//   - the A, B, C and D tiles' descriptors, instructions and expected bytes are tmakit plans
//     (plan_tile, made on the host in gemm.cu) that issue_walk / store_tile execute, and the bytes
//     each stage is armed with are the plans' own (gemm.cu sums them into the StageRole);
//   - the operands' shared layouts are gmma_operand's canonical WGMMA layouts, the same objects the
//     plans were made from, and the WGMMA descriptors are read off them (wgmma_descriptor_fields,
//     wgmma_start_offset);
//   - the accumulators reach shared memory through a plan_smem_store plan (stmatrix into the
//     128-byte-swizzled D tile that the D plan's TMA store reads).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/load_tile.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/device/ptx_raw.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/store_tile.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/plan/tma_plan.hpp"
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

struct alignas(1024) SharedStorage {
  unsigned char a[kStages][kABytes];
  unsigned char b[kStages][kBBytes];
  unsigned char d[kConsumers][2][kChunkBytes];  // two chunks per consumer: one fills while one stores
  device::MulticastPipeline<kStages> pipe;
  device::Barrier c_full[kConsumers];
};

// Everything the kernel reads from the host, as one __grid_constant__ parameter.
struct KernelParams {
  TmaPlan a, b, c, d, w;  // w: the split-K workspace's reduce plan (used when splits > 1)
  CUtensorMap a_map, b_map, c_map, d_map, w_map;
  std::int32_t tiles_m = 0, tiles_n = 0, batch = 1, k_blocks = 0, group_m = 8;
  // Split K: each cluster tile is `splits` work units, unit s taking K blocks
  // [s * split_blocks, min(k_blocks, (s + 1) * split_blocks)); 1: one unit per tile.
  std::int32_t splits = 1, split_blocks = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::int32_t read_c = 0;
  StageRole role{};  // this CTA's stage accounting: the bytes to arm, the CTAs it sends to and hears from
};

// The persistent loop walks cluster tiles: ClusterM vertically adjacent output tiles, one per CTA of
// a cluster. Cluster tile t -> (m, n, batch) in tile units of this CTA (rank: its place in the
// cluster). Cluster tiles are visited in groups of group_m rows, column by column within a group, so
// that clusters running at the same time share A rows and B columns in L2.
struct TilePos {
  std::int32_t m, n, l;
};
template <int ClusterM>
__device__ __forceinline__ std::int32_t cluster_tiles_m(const KernelParams& p) {
  return (p.tiles_m + ClusterM - 1) / ClusterM;
}
template <int ClusterM>
__device__ __forceinline__ std::int32_t cluster_tiles(const KernelParams& p) {
  return cluster_tiles_m<ClusterM>(p) * p.tiles_n * p.batch;
}
template <int ClusterM>
__device__ __forceinline__ TilePos tile_position(std::int32_t t, const KernelParams& p, std::int32_t rank) {
  const std::int32_t tiles_m = cluster_tiles_m<ClusterM>(p);
  const std::int32_t per_batch = tiles_m * p.tiles_n;
  const std::int32_t l = t / per_batch;
  const std::int32_t r = t - l * per_batch;
  const std::int32_t group = p.group_m * p.tiles_n;
  const std::int32_t g = r / group;
  const std::int32_t first_m = g * p.group_m;
  const std::int32_t rows = min(tiles_m - first_m, p.group_m);
  const std::int32_t in = r - g * group;
  return {(first_m + in % rows) * ClusterM + rank, in / rows, l};
}
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

// This CTA's cluster, and how many clusters run the GEMM.
template <int ClusterM, class Grid>
__device__ __forceinline__ std::int32_t cluster_id(const Grid& g) {
  return (static_cast<std::int32_t>(blockIdx.x) - g.first_cta()) / ClusterM;
}
template <int ClusterM, class Grid>
__device__ __forceinline__ std::int32_t cluster_count(const Grid& g) {
  return (static_cast<std::int32_t>(gridDim.x) - g.first_cta()) / ClusterM;
}
template <int ClusterM>
__device__ __forceinline__ std::int32_t cluster_rank() {
  if constexpr (ClusterM == 1) return 0;
  else return static_cast<std::int32_t>(device::cluster_rank());
}

// The persistent loop walks work units: unit u is K slice u / tiles of cluster tile u % tiles, so
// that the units running at once cover different tiles' first slices before any tile's second.
// SplitK: the kernel form whose epilogue adds fp32 partial sums into the workspace (p.splits > 1);
// the other form is the plain GEMM, a unit per tile (measured: one kernel with both epilogues
// behind a run-time branch ran the large shapes at 0.76-0.78x cuBLAS instead of 0.85-0.88x).
template <int ClusterM, bool SplitK>
__device__ __forceinline__ std::int32_t work_units(const KernelParams& p) {
  if constexpr (SplitK) return cluster_tiles<ClusterM>(p) * p.splits;
  else return cluster_tiles<ClusterM>(p);
}
struct WorkUnit {
  TilePos pos;
  std::int32_t kb_begin, kb_end;  // K blocks [kb_begin, kb_end)
};
template <int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ WorkUnit work_unit(std::int32_t u, const KernelParams& p, std::int32_t rank, const Grid& g) {
  WorkUnit w;
  if constexpr (SplitK) {
    const std::int32_t tiles = cluster_tiles<ClusterM>(p);
    const std::int32_t slice = u / tiles;
    const std::int32_t begin = slice * p.split_blocks;
    w = {tile_position<ClusterM>(u - slice * tiles, p, rank), begin, min(p.k_blocks, begin + p.split_blocks)};
  } else {
    w = {tile_position<ClusterM>(u, p, rank), 0, p.k_blocks};
  }
  w.pos.m = g.row_tile(w.pos.m);
  return w;
}


// The rounds (stages filled) this CTA's loop runs: one per K block of each work unit it visits.
template <int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ std::uint32_t rounds(const KernelParams& p, const Grid& g) {
  const std::int32_t units = work_units<ClusterM, SplitK>(p), first = cluster_id<ClusterM>(g), step = cluster_count<ClusterM>(g);
  if constexpr (!SplitK) {
    const std::int32_t visits = first < units ? (units - first + step - 1) / step : 0;
    return static_cast<std::uint32_t>(visits) * static_cast<std::uint32_t>(p.k_blocks);
  }
  std::uint32_t n = 0;
  for (std::int32_t u = first; u < units; u += step) {
    const WorkUnit w = work_unit<ClusterM, SplitK>(u, p, 0, g);
    n += static_cast<std::uint32_t>(w.kb_end - w.kb_begin);
  }
  return n;
}

// ---- producer: one thread walks the same tiles as the consumers and fills round k's stage once
// every CTA it copies into has armed it (and, before a tile's first load, once the grid's
// before_rows says its rows of A are there).
template <int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void produce(const KernelParams& p, SharedStorage& s, const Grid& g) {
  std::uint32_t k = 0;
  const std::int32_t units = work_units<ClusterM, SplitK>(p), rank = cluster_rank<ClusterM>();
  device::prefetch_tensor_map(&p.a_map);
  device::prefetch_tensor_map(&p.b_map);
  // Tile coordinates hold every entry the plans may read (kMaxTileModes) with constant indices only,
  // so they live in registers. The K loop walks each tile's copies (TileWalk): additions only.
  const std::int32_t k_step[kMaxTileModes] = {0, 1, 0};
  for (std::int32_t u = cluster_id<ClusterM>(g); u < units; u += cluster_count<ClusterM>(g)) {
    const WorkUnit w = work_unit<ClusterM, SplitK>(u, p, rank, g);
    g.before_rows(w.pos.m);
    const std::int32_t ca[kMaxTileModes] = {w.pos.m, 0, w.pos.l};
    const std::int32_t cb[kMaxTileModes] = {w.pos.n, 0, w.pos.l};
    const device::TileWalk a = device::walk_tile(p.a, ca, k_step), b = device::walk_tile(p.b, cb, k_step);
    for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb, ++k) {
      device::wait_receivers_armed(s.pipe, p.role, k);
      device::Barrier& full = s.pipe.full[k % kStages];
      device::issue_walk(p.a, &p.a_map, s.a[k % kStages], full, a, kb);
      device::issue_walk(p.b, &p.b_map, s.b[k % kStages], full, b, kb);
    }
  }
}

// ---- consumer: warpgroup `wg` (0 or 1) owns rows [64 wg, 64 wg + 64) of every tile.
template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void consume(const KernelParams& p, SharedStorage& s, int wg, const Grid& g) {
  constexpr WgmmaDescriptorFields kAF = kAFields<AMn>;
  constexpr WgmmaDescriptorFields kBF = kBFields<BMn>;
  static_assert(kAF.ok && kBF.ok, "the operand tiles must be canonical WGMMA layouts");
  const int t = threadIdx.x % 128;
  const std::uint32_t barrier_id = 1 + wg;  // named barrier of this warpgroup's 128 threads
  const std::uint32_t a_row0 = wg == 0 ? kAStart<AMn, 0, 0> : kAStart<AMn, 1, 0>;

  float acc[kTileN / 2];
#pragma unroll
  for (int i = 0; i < kTileN / 2; ++i) acc[i] = 0.0f;

  std::uint32_t k = 0;  // the round: stage k % kStages
  device::Phase c_phase;
  int buf = 0;
  const std::int32_t units = work_units<ClusterM, SplitK>(p), rank = cluster_rank<ClusterM>();
  for (std::int32_t u = cluster_id<ClusterM>(g); u < units; u += cluster_count<ClusterM>(g)) {
    const WorkUnit w = work_unit<ClusterM, SplitK>(u, p, rank, g);
    const TilePos pos = w.pos;

    // Mainloop: one stage per K block; the WGMMAs of block kb run while block kb + 1's wait, and a
    // stage is handed back once the WGMMAs reading it have completed (wait_group<1>).
    for (std::int32_t kb = w.kb_begin; kb < w.kb_end; ++kb, ++k) {
      device::wait_round(s.pipe, k);
      const std::uint32_t a0 = device::shared_address(s.a[k % kStages]) + a_row0;
      const std::uint32_t b0 = device::shared_address(s.b[k % kStages]);
      device::wgmma::fence();
      device::wgmma::fence_operands(acc);
      [&]<int... Kk>(std::integer_sequence<int, Kk...>) {
        ((device::wgmma::mma<T, kTileN, AMn ? 1 : 0, BMn ? 1 : 0>(
             acc, wgmma_descriptor(a0 + kAStart<AMn, 0, Kk>, kAF), wgmma_descriptor(b0 + kBStart<BMn, Kk>, kBF),
             kb > w.kb_begin || Kk > 0)),
         ...);
      }(std::make_integer_sequence<int, kTileK / 16>{});
      device::wgmma::commit_group();
      device::wgmma::fence_operands(acc);
      device::wgmma::wait_group<1>();
      if (kb > w.kb_begin) device::consumer_done(s.pipe, k - 1);  // every warp: round k - 1's stage is read
    }
    device::wgmma::wait_group<0>();
    device::wgmma::fence_operands(acc);
    device::consumer_done(s.pipe, k - 1);

    if constexpr (SplitK) {
      // Split K: eight 64 x 32 fp32 chunks of partial sums, each stored into a swizzled shared chunk
      // by its store plan and added into the workspace by one TMA reduction (the W plan).
#pragma unroll
      for (int c = 0; c < kChunksF32; ++c) {
        unsigned char* chunk = s.d[wg][buf];
        if (t == 0) device::wait_group_read<1>();
        device::ptx_raw::named_barrier_sync(barrier_id, 128);
        const std::int32_t wc[kMaxTileModes] = {2 * pos.m + wg, kChunksF32 * pos.n + c, pos.l};
        std::uint32_t bits[kChunkNF32 / 2];
#pragma unroll
        for (int v = 0; v < kChunkNF32 / 2; ++v) bits[v] = __float_as_uint(acc[c * (kChunkNF32 / 2) + v]);
        device::store_planned<kChunkStoreF32, kChunkSrcF32, kChunkDstF32>(chunk, t, bits);
        device::fence_smem_writes_for_async();
        device::ptx_raw::named_barrier_sync(barrier_id, 128);
        if (t == 0) {
          device::reduce_tile<ReduceOp::add>(p.w, &p.w_map, chunk, wc);
          device::commit_group();
        }
        buf ^= 1;
      }
    } else {
      // Epilogue: four 64 x 64 chunks, each converted, stored into a swizzled shared chunk by the
      // store plan and written to global memory by one TMA store (the D plan). Unrolled: the
      // accumulators are registers only while every index into them is a constant.
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        unsigned char* chunk = s.d[wg][buf];
        if (t == 0) device::wait_group_read<1>();  // the store that read this buffer last is done with it
        device::ptx_raw::named_barrier_sync(barrier_id, 128);
        const std::int32_t dc[kMaxTileModes] = {2 * pos.m + wg, kChunks * pos.n + c, pos.l};
        std::uint16_t bits[kChunkN / 2];
        if (p.read_c) {
          if (t == 0) device::load_tile(p.c, &p.c_map, chunk, s.c_full[wg], dc);
          device::wait(s.c_full[wg], c_phase);
          device::load_elements<kChunkSrc, kChunkDst>(chunk, t, bits);  // C, element for element where D goes
#pragma unroll
          for (int v = 0; v < kChunkN / 2; ++v)
            bits[v] = device::to_bits<T>(p.alpha * acc[c * (kChunkN / 2) + v] + p.beta * device::from_bits<T>(bits[v]));
          device::ptx_raw::named_barrier_sync(barrier_id, 128);  // every C value read before D overwrites it
        } else {
#pragma unroll
          for (int v = 0; v < kChunkN / 2; ++v) bits[v] = device::to_bits<T>(p.alpha * acc[c * (kChunkN / 2) + v]);
        }
        device::store_planned<kChunkStore, kChunkSrc, kChunkDst>(chunk, t, bits);
        device::fence_smem_writes_for_async();
        device::ptx_raw::named_barrier_sync(barrier_id, 128);
        if (t == 0) {
          device::store_tile(p.d, &p.d_map, chunk, dc);
          device::commit_group();
        }
        buf ^= 1;
      }
    }
  }
  if (t == 0) device::wait_group<0>();  // every store has completed before the CTA's shared memory goes
}

// One CTA of the GEMM (kThreads threads; `dyn`: the dynamic shared memory, sizeof(SharedStorage)
// + 1024 bytes). gemm_kernel runs it in every CTA; a kernel of its own may run it in some (Grid).
template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK, class Grid>
__device__ __forceinline__ void gemm_cta(const KernelParams& p, unsigned char* dyn, const Grid& g) {
  static_assert(ClusterM == 1 || ClusterM == 2, "clusters of 1 or 2 CTAs along M");
  static_assert(!SplitK || ClusterM == 1, "split K runs with one CTA per cluster");
  const std::uint32_t base = device::shared_address(dyn);
  SharedStorage& s = *reinterpret_cast<SharedStorage*>(dyn + ((1024 - base % 1024) % 1024));
  if (threadIdx.x == 0)
    for (int i = 0; i < kConsumers; ++i) device::init(s.c_full[i], 1);
  // full: the releaser's one arm; consumed: every consumer warp; empty: the releaser of each CTA
  // this CTA copies into. Initialized in every CTA before any peer arrives on them or copies into
  // them (a cluster barrier, taken by all threads; it also publishes c_full).
  device::pipeline_init(s.pipe, p.role, /*consumer warps*/ 4 * kConsumers);

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    device::ptx_raw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) produce<ClusterM, SplitK>(p, s, g);
    if (threadIdx.x == 32) device::run_releaser(s.pipe, p.role, rounds<ClusterM, SplitK>(p, g));  // another warp than the producer's
  } else {
    device::ptx_raw::setmaxnreg_inc<232>();
    consume<T, AMn, BMn, ClusterM, SplitK>(p, s, wg - 1, g);
  }
  // No CTA leaves while a peer may still arrive on its barriers or copy into its shared memory.
  device::pipeline_teardown();
}

template <DataType T, bool AMn, bool BMn, int ClusterM, bool SplitK>
__global__ void __launch_bounds__(kThreads, 1) gemm_kernel(const __grid_constant__ KernelParams p) {
  extern __shared__ unsigned char dyn[];
  gemm_cta<T, AMn, BMn, ClusterM, SplitK>(p, dyn, WholeGrid{});
}

}  // namespace tmakit::gemm_sm90

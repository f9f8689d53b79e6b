// A Hopper (sm_90a) GEMM built only from tmakit:  D = alpha * A * B + beta * C,
// A: m x k, B: k x n, C and D: m x n, each of `batch` matrices; bf16 or f16 inputs and outputs, or
// FP8 inputs (e4m3 / e5m2, K-major, with per-tensor scales: a_type, b_type, scale_a, scale_b) and
// bf16 or f16 outputs; fp32 accumulation. Every operand may be row- or column-major with any leading dimension whose
// byte stride is a multiple of 16 (TMA's rule; the launcher refuses others with the planner's rule
// id and fix). M, N and K need not be multiples of the tile: TMA fills the loads past the end with
// zeros and clips the stores.
//
//   tmakit::gemm_sm90::GemmArgs g;
//   g.m = M; g.n = N; g.k = K;
//   g.a = {dA, Order::row_major, K};  g.b = {dB, Order::col_major, K};  g.d = {dD, Order::row_major, N};
//   const GemmStatus s = tmakit::gemm_sm90::gemm(g, stream);   // s.ok, or s.errors says why not
//
// How it is built (kernel.cuh): every descriptor, box, transaction byte count and shared offset
// comes from a tmakit plan (plan_tile for A, B, C and D; plan_smem_store for the accumulators'
// way into shared memory; gmma_operand for the WGMMA operand layouts and descriptors).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/status.hpp"
#include "tmakit/core/dtype.hpp"

namespace tmakit::gemm_sm90 {

struct KernelParams;  // kernel.cuh

enum class Order { row_major, col_major };

// One operand: a batch of matrices in global memory. ld: elements between consecutive rows
// (row-major) or columns (column-major); batch_stride: elements between consecutive matrices
// (ignored when batch == 1).
struct Matrix {
  const void* data = nullptr;
  Order order = Order::row_major;
  std::int64_t ld = 0;
  std::int64_t batch_stride = 0;
};

// The element type of an operand A or B: `same` (GemmArgs::dtype's) or FP8, one byte per element:
// e4m3 (4 exponent bits, 3 mantissa bits) or e5m2 (5 and 2), as __nv_fp8_e4m3 / __nv_fp8_e5m2 and
// torch.float8_e4m3fn / float8_e5m2 store them.
enum class Input : std::uint8_t { same, e4m3, e5m2 };

struct GemmArgs {
  DataType dtype = DataType::bfloat16;  // of C and D, and of A and B unless they are FP8: bfloat16 or float16
  // FP8 inputs: both operands FP8 (any pair of e4m3 and e5m2) or neither. WGMMA reads FP8 operands
  // K-major only: A row-major and B column-major (the layout torch._scaled_mm and cuBLASLt's FP8
  // GEMM take); other orders are refused (gemm.fp8_order).
  Input a_type = Input::same, b_type = Input::same;
  // Per-tensor scales (device pointers to one float each, as torch._scaled_mm and cuBLASLt take
  // them; nullptr: 1): D = alpha * scale_a * scale_b * A * B + beta * C. Read by the kernel.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // FP8: false (default) adds each K block's products (128 of K) into fp32 registers once its
  // WGMMAs have completed, as cuBLASLt's default and torch._scaled_mm's use_fast_accum=False do: the
  // tensor cores keep fewer bits than fp32 when they add FP8 products, which a long K accumulates.
  // Promoted tiles are 64, 128, 192 or 256 columns wide, not ping-pong (kernel.cuh). true: one
  // accumulation in the tensor cores over all of K (cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM),
  // with every tile shape.
  bool fast_accumulation = false;
  // FP8 block scales (DeepSeek-V3's recipe), instead of per-tensor ones: fp32 device arrays, A's per
  // row and K block of 128, B's per 128 x 128 block, applied as each K block is promoted:
  //   a_scales[kb * a_scales_ld + i]   row i of A, K block kb (M contiguous: a_scales_ld >= m, a
  //                                    multiple of 4, DeepGEMM's "TMA-aligned, transposed" layout)
  //   b_scales[nb * b_scales_ld + kb]  columns [128 nb, 128 nb + 128) of B, K block kb
  //                                    (b_scales_ld >= ceil(k / 128))
  // Both or neither; not with scale_a / scale_b or fast_accumulation; batch 1; not swapped
  // (gemm.block_scales); tiles of 64, 128 or 256 columns (a 256-column tile's halves take one block
  // of B's scales each).
  const float* a_scales = nullptr;
  std::int64_t a_scales_ld = 0;
  const float* b_scales = nullptr;
  std::int64_t b_scales_ld = 0;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  Matrix a, b;
  Matrix c;  // read only when beta != 0
  Matrix d;  // written (data is the output buffer)
  float alpha = 1.0f, beta = 0.0f;
  // CTAs per cluster along M. 0: the launcher decides (heuristics.hpp); 1: one; 2: pairs of
  // vertically adjacent tiles share each B tile by multicast (where M has two tiles to pair).
  int cluster_m = 0;
  // Split K: each output tile's K extent cut into this many slices, computed by different CTAs and
  // summed in an fp32 workspace inside the kernel (the tile's last slice adds the others' sums and
  // writes D: device/split_turns.cuh). 0: the
  // launcher decides (split where the tiles alone would leave most SMs idle: skinny problems); 1:
  // never; n > 1: n slices (at most one per K block: 64 16-bit or 128 FP8 elements).
  int splits = 0;
  // Split K: K blocks the tile's first slice gives to its last, so that the slice that takes the
  // first turn (device/split_turns.cuh) has stored its sums into the workspace while the others still
  // multiply; the last, which waits for them, is that much longer. -1: the launcher decides (heuristics.hpp); 0: slices of equal length; n > 0:
  // n blocks (less than a slice).
  int split_lead = -1;
  // Columns of D per tile: 0: the launcher decides (heuristics.hpp: narrower tiles where the wide
  // ones would leave most SMs idle); 64, 128, 192 (ping-pong tiles: pingpong below; promoted FP8,
  // per-tensor or block-scaled: a cooperative 128 x 192 tile) or 256.
  int tile_n = 0;
  // Rows of D per tile: 0: the launcher decides (heuristics.hpp: 64 for promoted FP8 whose M fits in
  // one 64-row tile, else 128); 128; 64 (promoted FP8 only: 64 x 64 tiles, one consumer warpgroup,
  // a deeper ring; not with clusters of two, swapped or ping-pong tiles).
  int tile_m = 0;
  // Swapped tiles (kernels/gemm_sm90/tiles.cuh): 128 x 64 tiles multiplied by one consumer warpgroup
  // with WGMMA's M along N (m64n128k16), where the unswapped 128 x 64 tile takes two warpgroups of
  // m64n64k16. 0: the launcher decides (heuristics.hpp); 1: swapped (tile_n 0 or 64); -1: never.
  int swapped = 0;
  // Ping-pong tiles (kernels/gemm_sm90/tiles.cuh): each consumer warpgroup owns a whole 128 x 192
  // tile and the two take turns, one writing its tile out while the other multiplies (the tensor
  // cores never wait for an epilogue). 0: the launcher decides (heuristics.hpp; tile_n 192 asks
  // for them); 1: ping-pong (not with split K or swapped tiles); -1: never.
  int pingpong = 0;
  // Early start (programmatic dependent launch): the kernel's CTAs may begin, and set up their
  // barriers, while the kernel before it on the stream is still finishing; they read and write
  // global memory only once it has completed (device/grid_dependency.cuh). false: a plain launch.
  bool early_start = true;
};

// Tile shape and pipeline the launcher chose (reported for benchmarks and the docs).
struct GemmConfig {
  int tile_m = 128, tile_n = 0, tile_k = 64;
  int stages = 0;          // ring stages (kernel.cuh's kStages)
  int cluster_m = 1;       // CTAs per cluster along M (2: they share each B tile by multicast)
  int splits = 1;          // K slices per output tile (GemmArgs::splits)
  int split_lead = 0;      // K blocks the first slice gives to the last (GemmArgs::split_lead)
  bool swapped = false;    // 128 x 64 tiles with one consumer warpgroup (GemmArgs::swapped)
  bool pingpong = false;   // consumer warpgroups on tiles of their own, in turn (GemmArgs::pingpong)
  bool early_start = true; // launched with early start (GemmArgs::early_start)
  bool promoted = false;   // FP8: each K block's products promoted into fp32 (GemmArgs::fast_accumulation false)
  bool block_scales = false;  // FP8: scaled per block as they are promoted (GemmArgs::a_scales, b_scales)
  int ctas = 0;            // persistent grid: CTAs launched
  int tiles = 0;           // output tiles of all batches
  std::size_t smem_bytes = 0;
};

// ok, every refusal (gemm.*, kernel.cuda, an operand's planner refusals: docs/rules.md), the CUDA
// error, the config (kernels/common/status.hpp).
using GemmStatus = kernels::KernelStatus<GemmConfig>;

// A GEMM planned once and launched any number of times (planning, encoding the descriptors and the
// occupancy query are host work: a caller that launches the same problem repeatedly keeps one).
// A split-K GEMM owns an fp32 workspace of m x n x batch (allocated here, freed with the object):
// its launches must not overlap one another (launch them on one stream).
class Gemm {
 public:
  explicit Gemm(const GemmArgs& args);  // plans and encodes; status() says whether it can launch
  const GemmStatus& status() const { return status_; }
  cudaError_t launch(cudaStream_t stream = nullptr) const;  // asynchronous
  // The planned kernel parameter (kernel.cuh), for a kernel that runs this GEMM's CTAs inside a
  // grid of its own (gemm_cta with its own Grid: kernels/allgather_gemm_sm90); nullptr unless
  // status().ok. Plan such a GEMM with splits = 1 and cluster_m = 1.
  const KernelParams* kernel_params() const;
  struct Prepared;

 private:
  GemmStatus status_;
  std::shared_ptr<const Prepared> prepared_;
};

// Plans, encodes and launches on `stream` in one call. Returns after the launch (asynchronous),
// except with split K: the workspace is freed on return, which waits for the device.
GemmStatus gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace tmakit::gemm_sm90

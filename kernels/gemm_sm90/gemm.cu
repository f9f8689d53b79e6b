// Host side of the GEMM: the four tile plans (A, B, C, D) from the operands' global layouts and the
// kernel's shared layouts, their descriptors, and the persistent launch. Refusals come back as
// lines with a rule id and a fix (gemm.* and kernel.cuda: kernels/common/rules.hpp; the planner's
// own words for an operand TMA cannot copy), never as a launch that fails or hangs.
#include "kernels/gemm_sm90/gemm.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common/planned_tile.hpp"
#include "kernels/gemm_sm90/forms.cuh"
#include "tmakit/device/launch.cuh"

namespace tmakit::gemm_sm90 {
namespace {

GlobalTensor global_tensor(DataType t, const Matrix& mx, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                           bool rows_contiguous) {
  return operand_tensor(t, reinterpret_cast<std::uint64_t>(mx.data), rows, cols, batch, mx.ld, mx.batch_stride,
                        rows_contiguous);
}

using Planned = kernels::PlannedTile;
using kernels::cuda_refusal;
using kernels::KernelRule;
using kernels::refusal;

// Plans one operand's (rows x cols x 1) tile, encodes its descriptor and checks the plan against
// the kernel's compiled copy program (kernels/common/planned_tile.hpp).
bool plan_operand(const char* name, const GlobalTensor& g, const SwizzledLayout& smem, std::int64_t tile_rows,
                  std::int64_t tile_cols, const std::vector<std::string>& mode_names, const PlanOptions& options,
                  const TmaPlan& compiled, Planned& out, std::vector<std::string>& errors) {
  return kernels::plan_compiled_tile(name, g, smem, tile_extents(tile_rows, tile_cols), mode_names, options, compiled,
                                     KernelRule::gemm_plan_shape, out, errors);
}

}  // namespace

template <DataType T>
KernelForm form_by_layout(bool a_mn, bool b_mn, bool split_k, const FormChoice& c) {
  constexpr Inputs kIn = T == DataType::bfloat16 ? Inputs::bf16 : Inputs::f16;
  if (!a_mn && !b_mn) return form_by_cluster<kIn, T, false, false>(split_k, c);
  if (!a_mn && b_mn) return form_by_cluster<kIn, T, false, true>(split_k, c);
  if (a_mn && !b_mn) return form_by_cluster<kIn, T, true, false>(split_k, c);
  return form_by_cluster<kIn, T, true, true>(split_k, c);
}
KernelForm pick_form_16bit(DataType t, bool a_mn, bool b_mn, bool split_k, const FormChoice& c) {
  return t == DataType::bfloat16 ? form_by_layout<DataType::bfloat16>(a_mn, b_mn, split_k, c)
                                 : form_by_layout<DataType::float16>(a_mn, b_mn, split_k, c);
}

struct Gemm::Prepared {
  KernelParams params{};
  KernelFn kernel = nullptr;
  int cluster_m = 1;
  int ctas = 0, threads = 0;
  bool early_start = true;  // GemmArgs::early_start
  std::size_t smem = 0;
  // Split K (params.splits > 1): the fp32 workspace the slices meet in and their counters (one
  // per tile share; zero between launches: device/split_turns.cuh). cudaFree waits for the work
  // queued on the device, so no launch outlives them.
  float* workspace = nullptr;
  device::SplitCounters* counters = nullptr;
  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared() {
    if (workspace) cudaFree(workspace);
    if (counters) cudaFree(counters);
  }
};

namespace {

// Split K's workspace (no zeroing: a tile's first slice overwrites its part), its store, reduce
// and load plans and descriptors, and the tile shares' counters (zeroed once).
bool prepare_split_k(const GemmArgs& g, bool swapped, Gemm::Prepared& prep, std::vector<std::string>& errors,
                     GemmStatus& st) {
  // W is m x n, or n x m for a swapped tile (its accumulator rows are D's columns)
  const std::int64_t w_rows = swapped ? g.n : g.m, w_cols = swapped ? g.m : g.n;
  const std::int64_t ldw = (w_cols + 3) / 4 * 4;  // 16-byte rows of four (TMA's stride rule)
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(ldw * w_rows * g.batch);
  const KernelParams& p = prep.params;
  const std::size_t rows = (p.tiles_m + kSplitRowsPadding - 1) / kSplitRowsPadding * kSplitRowsPadding;
  const std::size_t shares = rows * p.tiles_n * p.batch * kConsumers;
  if ((st.cuda = cudaMalloc(&prep.workspace, bytes)) != cudaSuccess ||
      (st.cuda = cudaMalloc(&prep.counters, sizeof(device::SplitCounters) * shares)) != cudaSuccess ||
      (st.cuda = cudaMemset(prep.counters, 0, sizeof(device::SplitCounters) * shares)) != cudaSuccess) {
    errors.push_back(cuda_refusal("the split-K workspace (" + std::to_string(bytes) + " bytes) and counters", st.cuda));
    return false;
  }
  const Matrix wm{prep.workspace, Order::row_major, ldw, ldw * w_rows};
  const GlobalTensor gw = global_tensor(DataType::float32, wm, w_rows, w_cols, g.batch, false);
  const std::vector<std::string> names = swapped ? std::vector<std::string>{"N", "M", "batch"}
                                                 : std::vector<std::string>{"M", "N", "batch"};
  Planned ws, wa, wl;
  if (!plan_operand("W", gw, kChunkLayoutF32, 64, kChunkNF32, names, chunk_options(PlanDirection::store),
                    kWShape<PlanDirection::store>, ws, errors) ||
      !plan_operand("W", gw, kChunkLayoutF32, 64, kChunkNF32, names, chunk_options(PlanDirection::reduce),
                    kWShape<PlanDirection::reduce>, wa, errors) ||
      !plan_operand("W", gw, kChunkLayoutF32, 64, kChunkNF32, names, chunk_options(PlanDirection::load),
                    kWShape<PlanDirection::load>, wl, errors))
    return false;
  prep.params.w_store_map = ws.map;
  prep.params.w_add_map = wa.map;
  prep.params.w_load_map = wl.map;
  prep.params.split_counters = prep.counters;
  return true;
}

// What A and B hold as the kernel multiplies them, from dtype, a_type and b_type (check_inputs has
// refused every combination without a compiled form).
Inputs inputs_of(const GemmArgs& g) {
  if (g.a_type == Input::same) return g.dtype == DataType::bfloat16 ? Inputs::bf16 : Inputs::f16;
  return g.b_type == Input::e5m2 ? Inputs::e4m3_e5m2 : Inputs::e4m3_e4m3;
}
// Whether the kernel promotes (kernel.cuh's mainloop_promoted): FP8 inputs without fast
// accumulation. Its 192-column tile is cooperative, where the other forms' is ping-pong.
bool promotes(const GemmArgs& g) { return g.a_type != Input::same && !g.fast_accumulation; }

// The element types: C and D's, and FP8 inputs (a pair that is built, K-major, bf16 out).
void check_inputs(const GemmArgs& g, std::vector<std::string>& errors) {
  auto name = [](Input t) {
    return t == Input::same ? std::string("same") : t == Input::e4m3 ? std::string("e4m3") : t == Input::e5m2 ? std::string("e5m2") : "Input(" + std::to_string(static_cast<int>(t)) + ")";
  };
  const bool a_fp8 = g.a_type != Input::same, b_fp8 = g.b_type != Input::same;
  if (g.dtype != DataType::bfloat16 && g.dtype != DataType::float16)
    errors.push_back(refusal(KernelRule::gemm_dtype, "the element type must be bf16 or f16"));
  else if ((a_fp8 || b_fp8) && g.dtype != DataType::bfloat16)
    errors.push_back(refusal(KernelRule::gemm_dtype, "with FP8 inputs, C and D must be bf16", "give dtype DataType::bfloat16"));
  if (g.a_type > Input::e5m2 || g.b_type > Input::e5m2 || a_fp8 != b_fp8 || (a_fp8 && g.a_type != Input::e4m3)) {
    errors.push_back(refusal(KernelRule::gemm_fp8_inputs, "A " + name(g.a_type) + " with B " + name(g.b_type) +
                                                              " is not built (FP8: A e4m3 with B e4m3 or e5m2)"));
    return;
  }
  if (promotes(g) && g.pingpong == 1)
    errors.push_back(refusal(KernelRule::gemm_tile_n,
                             "promoted FP8 tiles are not ping-pong (their 192-column tile is cooperative); pingpong 1 "
                             "asks for them",
                             "give pingpong 0 (tile_n 192 for the cooperative 192-column tile), or fast_accumulation = true"));
  if (a_fp8 && (g.a.order != Order::row_major || g.b.order != Order::col_major))
    errors.push_back(refusal(KernelRule::gemm_fp8_order,
                             std::string("FP8 operands must be K-major: A row-major (got ") +
                                 (g.a.order == Order::row_major ? "row" : "column") + "-major), B column-major (got " +
                                 (g.b.order == Order::col_major ? "column" : "row") + "-major)"));
}

// FP8 block scales: both, with FP8 inputs, promoted, alone (no per-tensor scales), batch 1, unswapped
// tiles, leading dimensions the scales fit.
void check_block_scales(const GemmArgs& g, std::vector<std::string>& errors) {
  const bool a = g.a_scales != nullptr, b = g.b_scales != nullptr;
  if (!a && !b) return;
  auto refuse = [&](const std::string& what) { errors.push_back(refusal(KernelRule::gemm_block_scales, what)); };
  if (a != b) refuse(std::string("only ") + (a ? "a_scales" : "b_scales") + " given: block scales come in pairs");
  if (g.a_type == Input::same) refuse("block scales need FP8 inputs (a_type, b_type)");
  if (g.scale_a || g.scale_b) refuse("block scales and per-tensor scales together");
  if (g.fast_accumulation) refuse("block scales are applied as each K block is promoted: not with fast_accumulation");
  if (g.batch != 1) refuse("block scales with batch " + std::to_string(g.batch) + " (one matrix only)");
  if (g.swapped == 1) refuse("block-scaled tiles are not swapped (swapped 1)");
  const std::int64_t k_blocks = (g.k + kScaleBlock - 1) / kScaleBlock;
  if (a && (g.a_scales_ld < g.m || g.a_scales_ld % 4 != 0))
    refuse("a_scales_ld " + std::to_string(g.a_scales_ld) + ": at least m (" + std::to_string(g.m) +
           ") and a multiple of 4 (16-byte rows)");
  if (b && g.b_scales_ld < k_blocks)
    refuse("b_scales_ld " + std::to_string(g.b_scales_ld) + ": at least the K blocks (" + std::to_string(k_blocks) + ")");
}

// The arguments' own rules that need no device (every reason at once): the element types, the
// extents and pointers, then (where those hold) the choices of tile, cluster and split.
void check_problem(const GemmArgs& g, std::vector<std::string>& errors) {
  check_inputs(g, errors);
  check_block_scales(g, errors);
  if (g.m < 1 || g.n < 1 || g.k < 1 || g.batch < 1)
    errors.push_back(refusal(KernelRule::gemm_extent, "m, n, k and batch must be at least 1 (got m=" + std::to_string(g.m) +
                                                          " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
                                                          " batch=" + std::to_string(g.batch) + ")"));
  if (!g.a.data || !g.b.data || !g.d.data || (g.beta != 0.0f && !g.c.data))
    errors.push_back(refusal(KernelRule::gemm_null, "A, B and D (and C when beta != 0) need a device pointer"));
}

void check_choices(const GemmArgs& g, std::vector<std::string>& errors) {
  const std::string tile_n = std::to_string(g.tile_n);
  const bool promoted = promotes(g);  // tile_n 192 is a cooperative tile (check_inputs refuses its ping-pong)
  if (g.cluster_m < 0 || g.cluster_m > 2)
    errors.push_back(refusal(KernelRule::gemm_cluster_m, "0 (automatic), 1 or 2, got " + std::to_string(g.cluster_m)));
  if (g.split_lead < -1)
    errors.push_back(refusal(KernelRule::gemm_split_lead,
                             "-1 (automatic), 0 (equal slices) or K blocks, got " + std::to_string(g.split_lead)));
  if (g.splits < 0)
    errors.push_back(refusal(KernelRule::gemm_splits,
                             "0 (automatic), 1 (no split) or the number of K slices, got " + std::to_string(g.splits)));
  if (g.pingpong < -1 || g.pingpong > 1)
    errors.push_back(refusal(KernelRule::gemm_pingpong,
                             "0 (automatic), 1 (ping-pong tiles) or -1 (never), got " + std::to_string(g.pingpong)));
  if (g.tile_n != 0 && g.tile_n != 64 && g.tile_n != 128 && g.tile_n != 192 && g.tile_n != 256)
    errors.push_back(refusal(KernelRule::gemm_tile_n,
                             "0 (automatic), 64, 128, 192 (ping-pong tiles; promoted FP8: cooperative) or 256, got " + tile_n));
  else if (g.pingpong == 1 && g.tile_n != 0 && g.tile_n != 192)
    errors.push_back(refusal(KernelRule::gemm_pingpong,
                             "ping-pong tiles are 192 columns wide; tile_n " + tile_n + " asks for another",
                             "leave tile_n 0 or give 192"));
  else if (g.pingpong == -1 && g.tile_n == 192 && !promoted)
    errors.push_back(refusal(KernelRule::gemm_pingpong,
                             "192-column tiles are ping-pong tiles, and pingpong = -1 rules them out",
                             "give tile_n 256, 128 or 64, or leave pingpong 0"));
  const bool pingpong = g.pingpong == 1 || (g.tile_n == 192 && !promoted);
  if (pingpong && (g.swapped == 1 || g.splits > 1))
    errors.push_back(refusal(KernelRule::gemm_pingpong, "ping-pong tiles are neither swapped nor split along K",
                             "leave swapped and splits 0, or give swapped = -1 and splits = 1"));
  if (g.swapped < -1 || g.swapped > 1)
    errors.push_back(refusal(KernelRule::gemm_swapped,
                             "0 (automatic), 1 (swapped 128 x 64 tiles) or -1 (never), got " + std::to_string(g.swapped)));
  if (g.swapped == 1 && g.tile_n != 0 && g.tile_n != 64)
    errors.push_back(refusal(KernelRule::gemm_swapped,
                             "a swapped tile is 64 columns wide; tile_n " + tile_n + " asks for another",
                             "leave tile_n 0 or give 64"));
  if (g.d.order == Order::col_major || (g.beta != 0.0f && g.c.order == Order::col_major))
    errors.push_back(refusal(KernelRule::gemm_d_order, "C and D must be row-major"));
  if (g.tile_m != 0 && g.tile_m != kShortTileM && g.tile_m != kTileM)
    errors.push_back(refusal(KernelRule::gemm_tile_m, "0 (automatic), 64 or 128, got " + std::to_string(g.tile_m)));
  if (g.tile_m == kShortTileM) {
    auto refuse = [&](const std::string& what) {
      errors.push_back(refusal(KernelRule::gemm_tile_m, "64-row tiles " + what));
    };
    if (!promoted) refuse("are promoted FP8's (FP8 inputs without fast_accumulation)");
    if (g.tile_n != 0 && g.tile_n != 64) refuse("are 64 columns wide; tile_n " + tile_n + " asks for another");
    if (g.cluster_m == 2) refuse("run in clusters of one (cluster_m 2)");
    if (g.swapped == 1) refuse("are not swapped (swapped 1)");
    if (g.pingpong == 1) refuse("are not ping-pong tiles (pingpong 1)");
  }
}

}  // namespace

Gemm::Gemm(const GemmArgs& g) {
  GemmStatus& st = status_;
  std::vector<std::string>& errors = st.errors;
  check_problem(g, errors);
  if (!errors.empty()) return;
  check_choices(g, errors);
  if (!errors.empty()) return;

  // A (M x K): K-major when row-major. B (K x N) seen as N x K: K-major when column-major.
  auto prep = std::make_shared<Prepared>();
  const bool a_mn = g.a.order == Order::col_major;
  const bool b_mn = g.b.order == Order::row_major;

  // The kernel form: tile shape, cluster size and split count, the automatic ones from
  // heuristics.hpp. Clusters of two need two M tiles to pair. 64-row tiles asked for (tile_m 64)
  // are 64 columns wide, unswapped, in clusters of one; taken automatically, they leave the tile
  // count as it was (M fits in one tile of either height).
  const bool short_rows = g.tile_m == kShortTileM;
  const std::int64_t rows = short_rows ? kShortTileM : kTileM;
  const std::int64_t tiles_m = (g.m + rows - 1) / rows;
  const Inputs in = inputs_of(g);
  const std::int64_t tile_k = kTileKBytes / input_bytes(in);
  const std::int64_t k_blocks = (g.k + tile_k - 1) / tile_k;
  int device = 0, sms = 0;
  if ((st.cuda = cudaGetDevice(&device)) != cudaSuccess ||
      (st.cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) {
    errors.push_back(cuda_refusal("the device's multiprocessor count", st.cuda));
    return;
  }
  const bool promote = promotes(g);
  const bool block_scales = g.a_scales != nullptr;
  FormChoice choice = choose_form(tiles_m, g.n, g.batch, k_blocks, sms, g.swapped == 1 || short_rows ? 64 : g.tile_n,
                                  short_rows ? 1 : g.cluster_m, g.splits, block_scales || short_rows ? -1 : g.swapped,
                                  promote ? -1 : g.pingpong, promote);
  choice.tile_m = choose_tile_m(g.m, g.tile_m, promote, choice);
  const bool swapped = choice.swapped;
  prep->cluster_m = choice.cluster_m;
  prep->early_start = g.early_start;
  auto pick_form = [&](bool split_k) {
    return is_fp8(in) ? pick_form_fp8(in, promote, block_scales, split_k, choice)
                      : pick_form_16bit(g.dtype, a_mn, b_mn, split_k, choice);
  };
  KernelForm form = pick_form(false);

  Planned a, b, c, d;
  const std::vector<std::string> a_names = {"M", "K", "batch"}, b_names = {"N", "K", "batch"},
                                 d_names = {"M", "N", "batch"};
  const GlobalTensor ga = global_tensor(tma_type(in), g.a, g.m, g.k, g.batch, a_mn);
  const GlobalTensor gb = global_tensor(tma_type(in), g.b, g.n, g.k, g.batch, b_mn);
  const GlobalTensor gd = global_tensor(g.dtype, g.d, g.m, g.n, g.batch, false);
  bool ok = plan_operand("A", ga, *form.a_tile, form.tile_m, form.tile_k, a_names, operand_options(1),
                         *form.a_shape, a, errors);
  ok &= plan_operand("B", gb, *form.b_tile, form.tile_n, form.tile_k, b_names, operand_options(prep->cluster_m), *form.b_shape,
                     b, errors);
  ok &= plan_operand("D", gd, kChunkLayout, 64, kChunkN, d_names, chunk_options(PlanDirection::store), *form.d_shape, d,
                     errors);
  const bool read_c = g.beta != 0.0f;
  if (read_c) {
    const GlobalTensor gc = global_tensor(g.dtype, g.c, g.m, g.n, g.batch, false);
    ok &= plan_operand("C", gc, kChunkLayout, 64, kChunkN, d_names, chunk_options(PlanDirection::load), *form.c_shape, c,
                       errors);
  }
  Planned sa;
  if (block_scales) {
    // A's scales as a (rows of A) x (K blocks) fp32 tensor, rows contiguous: one column per stage
    const GlobalTensor gs = operand_tensor(DataType::float32, reinterpret_cast<std::uint64_t>(g.a_scales), g.m,
                                           (g.k + kScaleBlock - 1) / kScaleBlock, 1, g.a_scales_ld, 0, true);
    ok &= plan_operand("a_scales", gs, *form.sa_tile, form.tile_m, 1, {"M", "K block", "batch"}, operand_options(1),
                       *form.sa_shape, sa, errors);
  }
  if (!ok) return;

  KernelParams& p = prep->params;
  p.a_map = a.map;
  p.b_map = b.map;
  if (block_scales) {
    p.sa_map = sa.map;
    p.b_scales = g.b_scales;
    p.b_scales_ld = static_cast<std::int32_t>(g.b_scales_ld);
    p.b_scale_rows = static_cast<std::int32_t>((g.n + kScaleBlock - 1) / kScaleBlock);
  }
  p.c_map = read_c ? c.map : d.map;
  p.d_map = d.map;
  p.tiles_m = static_cast<std::int32_t>((g.m + form.tile_m - 1) / form.tile_m);
  p.tiles_n = static_cast<std::int32_t>((g.n + form.tile_n - 1) / form.tile_n);
  p.batch = static_cast<std::int32_t>(g.batch);
  p.k_blocks = static_cast<std::int32_t>(k_blocks);
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.scale_a = g.scale_a;
  p.scale_b = g.scale_b;
  p.read_c = read_c ? 1 : 0;

  const std::int64_t tiles = std::int64_t{p.tiles_m} * p.tiles_n * p.batch;
  if (tiles > 0x7fffffff) {
    errors.push_back(refusal(KernelRule::gemm_tiles, "more than 2^31 - 1 output tiles (" + std::to_string(tiles) + ")"));
    return;
  }
  // Persistent grid: at most as many clusters as can be resident at once (heuristics.hpp).
  const ClusterShape shape{static_cast<std::uint32_t>(prep->cluster_m), 1, 1};
  int resident = 0;
  if ((st.cuda = device::max_active_clusters(form.kernel, shape, dim3(form.threads), form.smem, &resident)) != cudaSuccess ||
      resident < 1) {
    errors.push_back(cuda_refusal("no cluster of this kernel fits on the device", st.cuda));
    return;
  }
  const std::int64_t cluster_tiles = (p.tiles_m + prep->cluster_m - 1) / prep->cluster_m * std::int64_t{p.tiles_n} * p.batch;
  // Split K: slices of equal length (the last may be shorter), none empty.
  std::int64_t splits = std::max<std::int64_t>(1, std::min<std::int64_t>(choice.splits, p.k_blocks));
  const std::int64_t split_blocks = (p.k_blocks + splits - 1) / splits;
  splits = (p.k_blocks + split_blocks - 1) / split_blocks;
  if (cluster_tiles * splits > 0x7fffffff) {
    errors.push_back(refusal(KernelRule::gemm_splits, "more than 2^31 - 1 work units (" +
                                                          std::to_string(cluster_tiles * splits) + ": cluster tiles x slices)"));
    return;
  }
  p.splits = static_cast<std::int32_t>(splits);
  p.split_blocks = static_cast<std::int32_t>(split_blocks);
  // The lead stays below the first slice's length, so no slice is empty.
  p.split_lead = splits > 1 ? static_cast<std::int32_t>(std::min<std::int64_t>(
                                  g.split_lead >= 0 ? g.split_lead : automatic_split_lead(split_blocks), split_blocks - 1))
                            : 0;
  if (splits > 1) {
    if (!prepare_split_k(g, swapped, *prep, errors, st)) return;
    form = pick_form(true);  // same threads and shared memory
    if ((st.cuda = device::set_cluster_attributes(form.kernel, shape, form.smem)) != cudaSuccess) {
      errors.push_back(cuda_refusal("the split-K kernel's attributes", st.cuda));
      return;
    }
  }
  prep->kernel = form.kernel;
  prep->smem = form.smem;
  prep->threads = form.threads;
  prep->ctas = static_cast<int>(grid_clusters(cluster_tiles * splits, resident)) * prep->cluster_m;
  st.config.tile_m = form.tile_m;
  st.config.tile_n = form.tile_n;
  st.config.stages = form.stages;
  st.config.swapped = swapped;
  st.config.pingpong = choice.pingpong;
  st.config.early_start = g.early_start;
  st.config.promoted = promote;
  st.config.block_scales = block_scales;
  st.config.cluster_m = prep->cluster_m;
  st.config.splits = static_cast<int>(splits);
  st.config.split_lead = p.split_lead;
  st.config.ctas = prep->ctas;
  st.config.tiles = static_cast<int>(tiles);
  st.config.smem_bytes = prep->smem;
  st.ok = true;
  prepared_ = std::move(prep);
}

cudaError_t Gemm::launch(cudaStream_t stream) const {
  if (!status_.ok || !prepared_) return cudaErrorInvalidValue;
  const Prepared& q = *prepared_;
  const ClusterShape shape{static_cast<std::uint32_t>(q.cluster_m), 1, 1};
  device::ClusterLaunchConfig l(shape, dim3(static_cast<unsigned>(q.ctas)), dim3(static_cast<unsigned>(q.threads)), q.smem);
  l.cfg.stream = stream;
  if (q.early_start) l.allow_early_start();
  const cudaError_t e = cudaLaunchKernelEx(&l.cfg, q.kernel, q.params);
  return e;
}

const KernelParams* Gemm::kernel_params() const { return status_.ok && prepared_ ? &prepared_->params : nullptr; }

GemmStatus gemm(const GemmArgs& args, cudaStream_t stream) {
  const Gemm g(args);
  GemmStatus st = g.status();
  if (!st.ok) return st;
  st.cuda = g.launch(stream);
  if (st.cuda != cudaSuccess) {
    st.ok = false;
    st.errors.push_back(kernels::cuda_refusal("the launch", st.cuda));
  }
  return st;
}

}  // namespace tmakit::gemm_sm90

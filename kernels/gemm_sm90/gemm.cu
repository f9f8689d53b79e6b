// Host side of the GEMM: the four tile plans (A, B, C, D) from the operands' global layouts and the
// kernel's shared layouts, their descriptors, and the persistent launch. Refusals come back as the
// planner's own words (rule id + fix), never as a launch that fails or hangs.
#include "kernels/gemm_sm90/gemm.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/gemm_sm90/kernel.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/explain.hpp"

namespace tmakit::gemm_sm90 {
namespace {

// The global tensor of an operand seen as (rows, cols, batch) in elements: `rows` is the mode the
// tile's first shared mode covers (M of A, N of B, M of C and D), `cols` the second (K, K, N, N).
// `rows_contiguous`: element (r + 1, c) follows (r, c) in memory.
GlobalTensor global_tensor(DataType t, const Matrix& mx, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                           bool rows_contiguous) {
  GlobalTensor g;
  g.dtype = t;
  g.address = reinterpret_cast<std::uint64_t>(mx.data);
  g.base_alignment = known_alignment(g.address);
  const std::int64_t rs = rows_contiguous ? 1 : mx.ld;
  const std::int64_t cs = rows_contiguous ? mx.ld : 1;
  // A batch of one has no batch stride of its own: give the mode the matrix's extent (it is never stepped).
  const std::int64_t bs = batch > 1 ? mx.batch_stride : (rows_contiguous ? mx.ld * cols : mx.ld * rows);
  g.layout = make_layout(IntTuple::make(rows, cols, batch), IntTuple::make(rs, cs, bs));
  return g;
}

struct Planned {
  TmaPlan plan{};
  CUtensorMap map{};
};

// Plans one operand's tile and encodes its descriptor; on refusal appends every reason to `errors`.
bool plan_operand(const char* name, const GlobalTensor& g, const SwizzledLayout& smem, std::int64_t tile_rows,
                  std::int64_t tile_cols, const std::vector<std::string>& mode_names, Planned& out,
                  std::vector<std::string>& errors, const PlanOptions& options = {}) {
  TileExtents t;
  t.modes = 3;
  t.extent[0] = tile_rows;
  t.extent[1] = tile_cols;
  t.extent[2] = 1;
  const PlanResult r = plan_tile(g, smem, t, options);
  if (!r.ok()) {
    for (const PlanDiagnostic& d : explain_plan(r.issues, r.problem, mode_names))
      errors.push_back(std::string(name) + ": " + d.message());
    return false;
  }
  const EncodeResult e = encode(r.plan.params);
  if (!e.ok()) {
    for (const Diagnostic& x : explain(r.plan.params, e.violations))
      errors.push_back(std::string(name) + ": descriptor: " + x.message());
    return false;
  }
  out.plan = r.plan;
  static_assert(sizeof(out.map) == sizeof(e.map));
  std::memcpy(&out.map, &e.map, sizeof out.map);
  return true;
}

template <DataType T, bool AMn, bool BMn, int ClusterM>
auto* kernel_for() {
  return &gemm_kernel<T, AMn, BMn, ClusterM>;
}

template <DataType T, int ClusterM>
auto* kernel_for_layouts(bool a_mn, bool b_mn) {
  if (!a_mn && !b_mn) return kernel_for<T, false, false, ClusterM>();
  if (!a_mn && b_mn) return kernel_for<T, false, true, ClusterM>();
  if (a_mn && !b_mn) return kernel_for<T, true, false, ClusterM>();
  return kernel_for<T, true, true, ClusterM>();
}

using KernelFn = void (*)(KernelParams);

KernelFn pick_kernel(DataType t, bool a_mn, bool b_mn, int cluster_m) {
  if (t == DataType::bfloat16)
    return cluster_m == 2 ? kernel_for_layouts<DataType::bfloat16, 2>(a_mn, b_mn)
                          : kernel_for_layouts<DataType::bfloat16, 1>(a_mn, b_mn);
  return cluster_m == 2 ? kernel_for_layouts<DataType::float16, 2>(a_mn, b_mn)
                        : kernel_for_layouts<DataType::float16, 1>(a_mn, b_mn);
}

}  // namespace

struct Gemm::Prepared {
  KernelParams params{};
  KernelFn kernel = nullptr;
  int cluster_m = 1;
  int ctas = 0;
  std::size_t smem = 0;
};

Gemm::Gemm(const GemmArgs& g) {
  GemmStatus& st = status_;
  std::vector<std::string>& errors = st.errors;
  if (g.dtype != DataType::bfloat16 && g.dtype != DataType::float16)
    errors.push_back("gemm.dtype: the element type must be bf16 or f16");
  if (g.m < 1 || g.n < 1 || g.k < 1 || g.batch < 1)
    errors.push_back("gemm.extent: m, n, k and batch must be at least 1 (got m=" + std::to_string(g.m) +
                     " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) + " batch=" + std::to_string(g.batch) + ")");
  if (!g.a.data || !g.b.data || !g.d.data || (g.beta != 0.0f && !g.c.data))
    errors.push_back("gemm.null: A, B and D (and C when beta != 0) need a device pointer");
  if (!errors.empty()) return;

  // A (M x K): K-major when row-major. B (K x N) seen as N x K: K-major when column-major.
  auto prep = std::make_shared<Prepared>();
  const bool a_mn = g.a.order == Order::col_major;
  const bool b_mn = g.b.order == Order::row_major;
  // Clusters of two along M (when asked for) share each B tile by multicast where there are two M
  // tiles to pair.
  const std::int64_t tiles_m = (g.m + kTileM - 1) / kTileM;
  // Automatic choice: one CTA per cluster. Clusters of two share each B tile by multicast, which
  // halves B's traffic from L2 and lets the loads alone run faster (1.24x against 0.89x cuBLAS at
  // 8192^3 on an H200), but the whole kernel measured the same in both forms (docs/lab/gemm.md,
  // 2026-11-27 02:50), so they stay an option.
  prep->cluster_m = g.cluster_m == 2 && tiles_m >= 2 ? 2 : 1;
  if (g.cluster_m < 0 || g.cluster_m > 2) {
    errors.push_back("gemm.cluster_m: 0 (automatic), 1 or 2, got " + std::to_string(g.cluster_m));
    return;
  }
  // Operand loads ask L2 for 256-byte promotion (a tile row is one or two 128-byte lines; measured
  // faster than none at 8192^3: docs/lab/gemm.md).
  PlanOptions a_options;
  a_options.l2 = L2Promotion::b256;
  PlanOptions b_options = a_options;
  a_options.box_pieces = static_cast<std::uint32_t>(std::max(1, g.a_box_pieces));
  b_options.box_pieces = static_cast<std::uint32_t>(std::max(1, g.b_box_pieces));
  b_options.cluster[0] = static_cast<std::uint32_t>(prep->cluster_m);
  b_options.multicast_dim = prep->cluster_m > 1 ? 0 : -1;
  if (g.d.order == Order::col_major || (g.beta != 0.0f && g.c.order == Order::col_major))
    errors.push_back("gemm.d_order: C and D must be row-major (a column-major D is D^T = B^T A^T: swap the operands)");
  if (!errors.empty()) return;

  Planned a, b, c, d;
  const std::vector<std::string> a_names = {"M", "K", "batch"}, b_names = {"N", "K", "batch"},
                                 d_names = {"M", "N", "batch"};
  const GlobalTensor ga = global_tensor(g.dtype, g.a, g.m, g.k, g.batch, a_mn);
  const GlobalTensor gb = global_tensor(g.dtype, g.b, g.n, g.k, g.batch, b_mn);
  const GlobalTensor gd = global_tensor(g.dtype, g.d, g.m, g.n, g.batch, false);
  bool ok = plan_operand("A", ga, (a_mn ? kATile<true> : kATile<false>).tile, kTileM, kTileK, a_names, a, errors, a_options);
  ok &= plan_operand("B", gb, (b_mn ? kBTile<true> : kBTile<false>).tile, kTileN, kTileK, b_names, b, errors, b_options);
  PlanOptions d_options;  // D leaves shared memory through store_tile: a store plan
  d_options.direction = PlanDirection::store;
  ok &= plan_operand("D", gd, kChunkLayout, 64, kChunkN, d_names, d, errors, d_options);
  const bool read_c = g.beta != 0.0f;
  if (read_c) {
    const GlobalTensor gc = global_tensor(g.dtype, g.c, g.m, g.n, g.batch, false);
    ok &= plan_operand("C", gc, kChunkLayout, 64, kChunkN, d_names, c, errors);
  }
  if (!ok) return;
  // One source of truth: the kernel arms its stages with the plans' bytes, and its shared buffers
  // are sized for these tiles; a plan that needs more would be a defect here, not a user error.
  if (a.plan.expect_tx_bytes != kABytes || b.plan.expect_tx_bytes != kBBytes || d.plan.smem_bytes > kChunkBytes) {
    errors.push_back("gemm.internal: a tile plan does not match the kernel's stage buffers");
    return;
  }

  KernelParams& p = prep->params;
  p.a = a.plan;
  p.b = b.plan;
  p.c = read_c ? c.plan : d.plan;
  p.d = d.plan;
  p.a_map = a.map;
  p.b_map = b.map;
  p.c_map = read_c ? c.map : d.map;
  p.d_map = d.map;
  p.tiles_m = static_cast<std::int32_t>((g.m + kTileM - 1) / kTileM);
  p.tiles_n = static_cast<std::int32_t>((g.n + kTileN - 1) / kTileN);
  p.batch = static_cast<std::int32_t>(g.batch);
  p.k_blocks = static_cast<std::int32_t>((g.k + kTileK - 1) / kTileK);
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.read_c = read_c ? 1 : 0;
  // Every CTA of a cluster receives its own A tile and every CTA's slice of B, and sends into every
  // CTA (its B slice; only itself for A): the stage accounting is the same for each, with the bytes
  // to arm taken from the plans.
  const std::uint16_t cluster_mask = static_cast<std::uint16_t>((1u << prep->cluster_m) - 1u);
  p.role.expect_bytes = a.plan.expect_tx_bytes + b.plan.expect_tx_bytes;
  p.role.senders = cluster_mask;
  p.role.receivers = cluster_mask;

  const std::int64_t tiles = std::int64_t{p.tiles_m} * p.tiles_n * p.batch;
  if (tiles > 0x7fffffff) {
    errors.push_back("gemm.tiles: more than 2^31 - 1 output tiles");
    return;
  }
  prep->kernel = pick_kernel(g.dtype, a_mn, b_mn, prep->cluster_m);
  prep->smem = sizeof(SharedStorage) + 1024;  // + the alignment the kernel rounds its base up to
  // Persistent grid: as many clusters as can be resident at once, or one per cluster tile if fewer.
  const ClusterShape shape{static_cast<std::uint32_t>(prep->cluster_m), 1, 1};
  int resident = 0;
  if ((st.cuda = device::max_active_clusters(prep->kernel, shape, dim3(kThreads), prep->smem, &resident)) != cudaSuccess ||
      resident < 1) {
    errors.push_back(std::string("cuda: no cluster of this kernel fits on the device: ") + cudaGetErrorString(st.cuda));
    return;
  }
  const std::int64_t cluster_tiles = (p.tiles_m + prep->cluster_m - 1) / prep->cluster_m * std::int64_t{p.tiles_n} * p.batch;
  prep->ctas = static_cast<int>(std::min<std::int64_t>(cluster_tiles, resident)) * prep->cluster_m;
  st.config.cluster_m = prep->cluster_m;
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
  device::ClusterLaunchConfig l(shape, dim3(static_cast<unsigned>(q.ctas)), dim3(kThreads), q.smem);
  l.cfg.stream = stream;
  return cudaLaunchKernelEx(&l.cfg, q.kernel, q.params);
}

GemmStatus gemm(const GemmArgs& args, cudaStream_t stream) {
  const Gemm g(args);
  GemmStatus st = g.status();
  if (!st.ok) return st;
  st.cuda = g.launch(stream);
  if (st.cuda != cudaSuccess) {
    st.ok = false;
    st.errors.push_back(std::string("cuda: ") + cudaGetErrorString(st.cuda));
  }
  return st;
}

}  // namespace tmakit::gemm_sm90

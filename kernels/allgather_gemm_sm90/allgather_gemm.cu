// Host side of the all-gather fused into the GEMM: the GEMM's plan (a plain gemm_sm90::Gemm on
// this rank's gathered A), the row gather's plan over A's window (plan_row_gather: one descriptor
// per peer), the row blocks' flags, and the launch. Built twice (CMakeLists.txt): with the watchdog
// (checked) and without (release).
#include "kernels/allgather_gemm_sm90/allgather_gemm.hpp"

#include <algorithm>
#include <string>

#include "kernels/allgather_gemm_sm90/kernel.cuh"
#include "kernels/gemm_sm90/gemm.hpp"
#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/peer/explain.hpp"
#include "tmakit/plan/explain.hpp"

namespace tmakit::allgather_gemm {

struct AllGatherGemm::Prepared {
  FusedParams params{};
  int grid = 0;
  std::size_t smem = 0;
  std::uint64_t* flags = nullptr;
  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared() {
    if (flags) cudaFree(flags);  // waits for the work queued on the device
  }
};

namespace {

using gemm_sm90::kThreads;
using gemm_sm90::kTileM;
using kernels::cuda_refusal;
using kernels::KernelRule;
using kernels::refusal;

auto* const kKernel = &allgather_gemm_kernel<false>;

// What the GEMM CTAs need of the dynamic shared memory (gemm_cta: SharedStorage + its alignment);
// the pullers use the same bytes for their stages and, after them, their ring's full barriers (one
// per stage; the ring is freed by the puller's own bulk groups, so it has no empty barriers).
constexpr std::size_t kSmem = gemm_sm90::kDynamicSmem<detail::GemmTile>;
constexpr std::size_t kPullerBarrierBytes = collectives::kMaxStages * sizeof(device::Barrier);

}  // namespace

AllGatherGemm::AllGatherGemm(const collectives::Communicator& comm, const AllGatherGemmArgs& g) {
  AllGatherGemmStatus& st = status_;
  std::vector<std::string>& errors = st.errors;
  const int world = comm.world(), rank = comm.rank();
  if (!g.a || !g.a->ptr)
    errors.push_back(
        refusal(KernelRule::allgather_gemm_window, "A needs a registered window (Communicator::alloc_window)"));
  if (!g.b || !g.d) errors.push_back(refusal(KernelRule::allgather_gemm_null, "B and D need a device pointer"));
  if (g.stages < 2 || g.stages > static_cast<int>(collectives::kMaxStages))
    errors.push_back(refusal(PeerRule::stages_smem, std::to_string(g.stages) + " stages per puller",
                             "use 2 to " + std::to_string(collectives::kMaxStages)));
  if (g.withhold_rank >= world || g.withhold_rank == rank)
    errors.push_back(refusal(KernelRule::allgather_gemm_withhold_rank,
                             "the planted fault names a peer rank (or -1), got " + std::to_string(g.withhold_rank)));
  int device = 0, sms = 0;
  if ((st.cuda = cudaGetDevice(&device)) != cudaSuccess ||
      (st.cuda = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) {
    errors.push_back(cuda_refusal("the device's multiprocessor count", st.cuda));
    return;
  }
  if (!errors.empty()) return;

  // The row gather: A seen as (m / W, k, W) in its window, 64 x 256 tiles, row blocks of the GEMM's
  // 128-row tile; the pullers' stages and barriers within the GEMM's shared memory.
  RowGatherShape rs;
  rs.dtype = DataType::bfloat16;
  rs.rows = g.m;
  rs.cols = g.k;
  rs.block_rows = kTileM;
  rs.pullers = g.pullers;
  rs.max_pullers = sms - 1;
  rs.stages = g.stages;
  rs.offset = g.a_offset;
  rs.smem_limit = kSmem - kPullerBarrierBytes;
  plan_ = plan_row_gather(rs, g.a->view);
  if (!plan_.ok()) {
    errors = explain_all(plan_.issues);
    for (const PlanDiagnostic& d : explain_plan(plan_.plan_issues, TileProblem{})) errors.push_back(d.message());
  }

  // The GEMM on the gathered A (this rank's window), one CTA per cluster, no split K, the fused
  // kernel's tile shape.
  gemm_sm90::GemmArgs ga;
  ga.dtype = DataType::bfloat16;
  ga.m = g.m;
  ga.n = g.n;
  ga.k = g.k;
  ga.a = {g.a ? static_cast<const unsigned char*>(g.a->ptr) + g.a_offset : nullptr, gemm_sm90::Order::row_major, g.k, 0};
  ga.b = {g.b, gemm_sm90::Order::col_major, g.ldb, 0};
  ga.d = {g.d, gemm_sm90::Order::row_major, g.ldd, 0};
  ga.cluster_m = 1;
  ga.splits = 1;
  ga.tile_n = detail::GemmTile::kTileN;
  const gemm_sm90::Gemm gemm(ga);
  for (const std::string& e : gemm.status().errors) errors.push_back("GEMM: " + e);
  if (!errors.empty()) return;
  const gemm_sm90::KernelParams& kp = *gemm.kernel_params();
  if (kp.tiles_m != plan_.schedule.world * plan_.schedule.shard_blocks) {
    errors.push_back(refusal(KernelRule::allgather_gemm_internal));
    return;
  }

  auto prep = std::make_unique<Prepared>();
  prep->smem = kSmem;
  if ((st.cuda = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem))) !=
      cudaSuccess) {
    errors.push_back(cuda_refusal("the fused kernel's shared memory", st.cuda));
    return;
  }
  int per_sm = 0;
  if ((st.cuda = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kKernel, kThreads, kSmem)) != cudaSuccess ||
      per_sm < 1) {
    errors.push_back(cuda_refusal("no CTA of the fused kernel fits on an SM", st.cuda));
    return;
  }
  // Every CTA resident at once (the GEMM CTAs wait for the pullers): at most one per SM.
  const std::int64_t tiles = std::int64_t{kp.tiles_m} * kp.tiles_n;
  const int gemm_ctas = static_cast<int>(std::min<std::int64_t>(tiles, sms - g.pullers));
  prep->grid = g.pullers + gemm_ctas;

  FusedParams& f = prep->params;
  f.gemm = kp;
  bool encoded = true;
  for (int q = 0; q < world; ++q) encoded = encoded && device::encode_cu_tensor_map(peer_params(plan_.load, q), &f.a_peer[q]);
  encoded = encoded && device::encode_cu_tensor_map(peer_params(plan_.store, rank), &f.a_store);
  if (!encoded) {
    errors.push_back(refusal(PeerRule::plan_refused, "a planned descriptor did not encode", kernels::kUnencodedFix));
    return;
  }
  const std::size_t flag_bytes = sizeof(std::uint64_t) * static_cast<std::size_t>(kp.tiles_m);
  if ((st.cuda = cudaMalloc(&prep->flags, flag_bytes)) != cudaSuccess ||
      (st.cuda = cudaMemset(prep->flags, 0, flag_bytes)) != cudaSuccess) {
    errors.push_back(cuda_refusal("the row blocks' flags", st.cuda));
    return;
  }
  f.load = plan_.load.plan;
  f.store = plan_.store.plan;
  f.schedule = plan_.schedule;
  f.signals = comm.signals();
  f.flags = prep->flags;
  f.col_tiles = plan_.col_tiles;
  f.block_tiles = plan_.block_tiles;
  f.block_tile_rows = rs.block_rows / rs.tile_rows;
  f.block_rows = rs.block_rows;
  f.stage_bytes = plan_.stage_bytes;
  f.stages = static_cast<std::uint32_t>(rs.stages);
  f.block_bytes = plan_.block_bytes;
  f.withhold_rank = g.withhold_rank;

  st.config.pullers = g.pullers;
  st.config.gemm_ctas = gemm_ctas;
  st.config.grid = prep->grid;
  st.config.row_blocks = kp.tiles_m;
  st.config.remote_blocks = plan_.schedule.remote_blocks();
  st.config.block_bytes = plan_.block_bytes;
  st.config.smem_bytes = kSmem;
  st.ok = true;
  prepared_ = std::move(prep);
}

AllGatherGemm::~AllGatherGemm() = default;

cudaError_t AllGatherGemm::launch(collectives::Communicator& comm, cudaStream_t stream) {
  if (!status_.ok || !prepared_) return cudaErrorInvalidValue;
  Prepared& q = *prepared_;
  q.params.call = comm.next_call();
  device::ClusterLaunchConfig l(ClusterShape{1, 1, 1}, dim3(static_cast<unsigned>(q.grid)), dim3(kThreads), q.smem);
  l.cfg.stream = stream;
  return cudaLaunchKernelEx(&l.cfg, kKernel, q.params);
}

cudaError_t set_watchdog_bound_ns(unsigned long long ns) {
#if TMAKIT_WATCHDOG
  const cudaError_t e = cudaMemcpyToSymbol(detail::row_wait_bound_ns, &ns, sizeof ns);
  if (e != cudaSuccess) return e;
  return device::watchdog::set_bound_ns(2 * ns);
#else
  (void)ns;
  return cudaSuccess;
#endif
}

bool watchdog_compiled_in() { return TMAKIT_WATCHDOG != 0; }

}  // namespace tmakit::allgather_gemm

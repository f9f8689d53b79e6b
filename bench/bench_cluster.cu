// Cluster copies, side by side in one run (a benchmark, not a test):
//  1. multicast vs unicast DELIVERED shared-memory fill bandwidth = bytes landing in the shared
//     memory of all receiving CTAs / kernel time (every CTA counts the whole tile it receives each
//     round, whoever issued it). Every CTA streams tiles through a tmakit MulticastPipeline
//     (device/multicast.cuh). Unicast: cluster 1, each CTA loads its own tile. Multicast c2 / c4:
//     the CTAs of a cluster share the tile, each loads 1/C and multicasts it (sliced plan).
//     Working set in L2 (4 MiB tensor, tiles reused) and in HBM (1 GiB tensor). One CTA per SM
//     (>= 116 KiB dynamic smem) and ONE WAVE: the grid is min(SMs / C, cudaOccupancyMaxActiveClusters)
//     clusters (a GPC holds whole clusters only: on an H100 fewer than 132 / 4 clusters of 4 fit).
//       ws     tmakit's warp-specialized pipeline (the default form): 4 consumer warps
//              (wait_round / consumer_done), a producer thread (produce), a releaser thread
//              (run_releaser: arms, then one relaxed arrival per sender)
//       pipe   the first form: thread 0 arms, waits for its receivers and issues between the
//              consumers' __syncthreads(); "before" = it on the all-SM grid
//       burst  arm all stages, one cluster barrier, issue all, wait all, cluster barrier
//       exp0-2 hand-back experiments on the same helpers (per-warp release.cluster, per-warp relaxed,
//              releaser + release.cluster): what the per-tile handshake costs
//     plus one cluster alone and a grid sweep (per-SM delivered rate vs number of clusters), which
//     separate the per-SM fill limit from the L2 limit. Shapes: stages x tile (4/12/14 x 16 KiB,
//     6/7 x 32 KiB, 3 x 64 KiB), rows of 256 B.
//  2. DSMEM copy: CTA pairs (cluster 2, whole GPU) exchange a buffer every iteration (arm ->
//     release -> copy -> wait): bulk (one cp.async.bulk), st.async (16 B), mapa + st.shared::cluster
//     (16 B), and a round trip through global memory; bytes/s (all pairs) and ns per exchange.
// Watchdog off (TMAKIT_WATCHDOG 0): release-mode barriers.
//   bench_cluster [out.csv]
//   bench_cluster - one <ws|pipe|burst|exp0..2> <C> <4x16KiB|12x16KiB|14x16KiB|6x32KiB|7x32KiB|3x64KiB> <L2|HBM> [clusters]
//     (one launch of one configuration, for ncu)
#define TMAKIT_WATCHDOG 0
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/dsmem.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "check.hpp"

namespace td = tmakit::device;
using namespace tmakit;

namespace {

constexpr DataType kFillType = DataType::uint32;  // the fill tensor's elements
constexpr std::uint32_t kFillElemBytes = element_bits(kFillType) / 8;
constexpr std::uint32_t kCols = 64;  // default tile rows of 256 B: 16 KiB (64 rows), 32 KiB (128 rows), 64 KiB (256)

// Clusters are 1-D here (c CTAs along x).
template <class... KArgs, class... Args>
cudaError_t launch_cluster(void (*kernel)(KArgs...), std::uint32_t c, std::uint32_t grid, std::uint32_t block,
                           std::size_t smem, Args... args) {
  return td::launch_cluster(kernel, ClusterShape{c, 1, 1}, dim3(grid), dim3(block), smem, args...);
}

// The fill kernels' stage buffers: aligned for the map's TMA copies (tma_smem_alignment).
__device__ inline std::uint8_t* stage_buffers(std::uint8_t* dyn, const MulticastPlan& plan) {
  return td::align_smem(dyn, static_cast<std::uint32_t>(tma_smem_alignment(plan.spec.box.swizzle)));
}

// ---------------------------------------------------------------------------------------------
// 1. fill bandwidth

template <int kStages>
__global__ void fill_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                            std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = stage_buffers(dyn, plan);
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  td::pipeline_init(pipe, role);
  auto produce = [&](std::uint32_t k) {
    td::arm_round(pipe, role, k);
    if (!c.issues) return;  // (leader broadcast: only the leader of each sharer set issues)
    const std::uint32_t tile = (cluster_id * rounds + k) % tiles;
    td::produce(pipe, role, &map, buf + (k % kStages) * kTileBytes + c.issue.smem_offset, c.issue.mask, c.issue.bytes,
                k, 0, static_cast<int>(tile * tile_rows + c.issue.coord_offset));
  };
  if (threadIdx.x == 0)
    for (std::uint32_t k = 0; k < kStages && k < rounds; ++k) produce(k);
  unsigned acc = 0;
  for (std::uint32_t k = 0; k < rounds; ++k) {
    td::wait_round(pipe, k);
    acc += buf[(k % kStages) * kTileBytes + threadIdx.x * 4];
    __syncthreads();
    if (threadIdx.x == 0 && k + kStages < rounds) produce(k + kStages);
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  td::pipeline_teardown();
}

// Warp-specialized (tmakit's helpers): warps 0..W-1 consume (wait_round / consumer_done), warp W
// is the producer (one thread: produce), warp W+1 the releaser (one thread: run_releaser).
template <int kStages>
__global__ void ws_fill_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                               std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = stage_buffers(dyn, plan);
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const std::uint32_t warp = threadIdx.x / 32, consumers = blockDim.x / 32 - 2;
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  td::pipeline_init(pipe, role, consumers);
  unsigned acc = 0;
  if (warp == consumers) {
    if (threadIdx.x % 32 == 0 && c.issues)
      for (std::uint32_t k = 0; k < rounds; ++k) {
        const std::uint32_t tile = (cluster_id * rounds + k) % tiles;
        td::produce(pipe, role, &map, buf + (k % kStages) * kTileBytes + c.issue.smem_offset, c.issue.mask, c.issue.bytes,
                    k, 0, static_cast<int>(tile * tile_rows + c.issue.coord_offset));
      }
  } else if (warp == consumers + 1) {
    if (threadIdx.x % 32 == 0) td::run_releaser(pipe, role, rounds);
  } else {
    for (std::uint32_t k = 0; k < rounds; ++k) {
      td::wait_round(pipe, k);
      acc += buf[(k % kStages) * kTileBytes + threadIdx.x * 4];
      td::consumer_done(pipe, k);
    }
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  td::pipeline_teardown();
}

// Handshake experiments on tmakit's helpers (what does the per-tile hand-back cost?):
//   var 0: no releaser; every consumer warp frees the stage itself: warp 0 arms (arm_stage), then
//          lane 0 of each warp arrives release.cluster on every sender's empty barrier
//          (release_to_senders<true>; the first warp-specialized form tried)
//   var 1: var 0 with relaxed.cluster arrivals (release_to_senders<false>)
//   var 2: tmakit's releaser warp but with a release.cluster arrival (run_releaser<true>)
template <int kStages, int kVar>
__global__ void exp_fill_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                                std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  constexpr bool kReleaser = kVar == 2;
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = stage_buffers(dyn, plan);
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const std::uint32_t warp = threadIdx.x / 32, consumers = blockDim.x / 32 - (kReleaser ? 2 : 1);
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  // Without a releaser every consumer warp arrives on the senders' empty barriers: W arrivals
  // per receiver and phase.
  td::pipeline_init(pipe, role, consumers, kReleaser ? 1u : consumers);
  auto hand_back = [&](std::uint32_t next, bool arms) {
    if (arms) td::arm_stage(pipe, role, next);
    td::release_to_senders<kVar != 1>(pipe, role, static_cast<int>(next % kStages));
  };
  unsigned acc = 0;
  if (warp == consumers) {
    if (threadIdx.x % 32 == 0 && c.issues)
      for (std::uint32_t k = 0; k < rounds; ++k) {
        const std::uint32_t tile = (cluster_id * rounds + k) % tiles;
        td::produce(pipe, role, &map, buf + (k % kStages) * kTileBytes + c.issue.smem_offset, c.issue.mask,
                    c.issue.bytes, k, 0, static_cast<int>(tile * tile_rows + c.issue.coord_offset));
      }
  } else if (kReleaser && warp == consumers + 1) {
    if (threadIdx.x % 32 == 0) td::run_releaser<true>(pipe, role, rounds);
  } else {
    if (!kReleaser)
      for (std::uint32_t k = 0; k < kStages && k < rounds; ++k) {
        __syncwarp();
        if (threadIdx.x % 32 == 0) hand_back(k, warp == 0);
      }
    for (std::uint32_t k = 0; k < rounds; ++k) {
      td::wait_round(pipe, k);
      acc += buf[(k % kStages) * kTileBytes + threadIdx.x * 4];
      if (kReleaser) {
        td::consumer_done(pipe, k);
      } else {
        __syncwarp();
        if (threadIdx.x % 32 == 0 && k + kStages < rounds) hand_back(k + kStages, warp == 0);
      }
    }
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  td::pipeline_teardown();
}

// Burst variant (no buffer reuse inside a batch): every CTA arms all stages, one cluster barrier
// (ARM-BEFORE-ISSUE in its plainest form), every issuer issues all stages, everyone waits for all,
// a second cluster barrier, next batch. One cross-CTA synchronization per kStages tiles instead of
// one per tile: separates the multicast delivery rate from the pipeline's per-tile handshake.
template <int kStages>
__global__ void burst_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                             std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = stage_buffers(dyn, plan);
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  td::pipeline_init(pipe, role);
  unsigned acc = 0;
  for (std::uint32_t b = 0; b * kStages < rounds; ++b) {
    if (threadIdx.x == 0)
      for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(kStages); ++s) td::arm_stage(pipe, role, b * kStages + s);
    td::cluster_sync();
    if (threadIdx.x == 0 && c.issues)
      for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(kStages); ++s) {
        const std::uint32_t k = b * kStages + s, tile = (cluster_id * rounds + k) % tiles;
        td::issue_multicast(pipe, &map, buf + s * kTileBytes + c.issue.smem_offset, c.issue.mask, c.issue.bytes, k, 0,
                            static_cast<int>(tile * tile_rows + c.issue.coord_offset));
      }
    for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(kStages); ++s) {
      td::wait_round(pipe, b * kStages + s);
      acc += buf[s * kTileBytes + threadIdx.x * 4];
    }
    td::cluster_sync();
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  td::pipeline_teardown();
}

struct FillResult {
  double gbps, ms;
  std::uint32_t ctas;
};

enum class Kernel : int { ws = 0, pipe = 1, burst = 2, exp0 = 10, exp1 = 11, exp2 = 12 };

struct FillConfig {
  Kernel kernel = Kernel::ws;
  std::uint32_t csize = 1;
  int stages = 6;               // 4, 12 (16 KiB), 6 (32 KiB), 3 (64 KiB)
  std::uint32_t tile_rows = 128;
  MulticastMode mode = MulticastMode::sliced;
  std::uint32_t clusters = 0;   // 0: one full wave (min(SMs / C, max active clusters)); ~0u: SMs / C (all SMs)
  std::uint32_t consumer_warps = 4;
  std::uint32_t cols = kCols;   // u32 per tensor row (box inner dimension)
  int reps = 4;
};

template <int kStages>
auto kernel_of(Kernel k) {
  switch (k) {
    case Kernel::pipe: return fill_kernel<kStages>;
    case Kernel::burst: return burst_kernel<kStages>;
    case Kernel::exp0: return exp_fill_kernel<kStages, 0>;
    case Kernel::exp1: return exp_fill_kernel<kStages, 1>;
    case Kernel::exp2: return exp_fill_kernel<kStages, 2>;
    default: return ws_fill_kernel<kStages>;
  }
}
constexpr bool is_ws(Kernel k) { return k == Kernel::ws || static_cast<int>(k) >= 10; }
// Threads per CTA: W consumer warps + a producer warp (+ a releaser warp).
constexpr std::uint32_t block_of(Kernel k, std::uint32_t w) {
  return !is_ws(k) ? 128u : 32u * (w + (k == Kernel::ws || k == Kernel::exp2 ? 2u : 1u));
}

// Clusters of `c` CTAs of this kernel (this smem) that can be resident at once.
template <int kStages>
std::uint32_t max_active_clusters(Kernel k, std::uint32_t c, std::uint32_t block, std::size_t smem) {
  int n = 0;
  CK(td::max_active_clusters(kernel_of<kStages>(k), ClusterShape{c, 1, 1}, dim3(block), smem, &n));
  return static_cast<std::uint32_t>(n);
}

constexpr std::size_t kOneCtaPerSmSmem = 116 * 1024;  // > 228 KiB / 2: one CTA per SM whatever the stages

template <int kStages>
FillResult run_fill_t(const FillConfig& f, const std::uint32_t* tensor, std::uint64_t tensor_rows, std::uint32_t sms,
                      unsigned* sink) {
  MulticastSpec s;
  s.cluster = ClusterShape{f.csize, 1, 1};
  s.share[0] = true;
  s.mode = f.mode;
  s.box.dtype = kFillType;
  s.box.rank = 2;
  s.box.address = reinterpret_cast<std::uint64_t>(tensor);
  tensor_rows = tensor_rows * kCols / f.cols;  // the same bytes, rows of f.cols u32
  s.box.dims[0] = f.cols;
  s.box.dims[1] = tensor_rows;
  s.box.strides[0] = f.cols * kFillElemBytes;
  s.box.box[0] = f.cols;
  s.box.box[1] = f.tile_rows * kCols / f.cols;
  const MulticastPlan plan = plan_multicast(s);
  if (!plan.ok()) {
    std::fprintf(stderr, "plan failed for cluster %u\n", f.csize);
    std::exit(1);
  }
  CUtensorMap map;
  if (!td::encode_cu_tensor_map(plan.issue_params(0), &map)) std::exit(1);
  const std::uint32_t kTileBytes = plan.tile_bytes;
  const std::uint32_t rounds = (32u << 20) / kTileBytes / kStages * kStages;  // ~32 MiB delivered per CTA
  const std::uint32_t tiles = static_cast<std::uint32_t>(tensor_rows / s.box.box[1]);
  const std::size_t smem =
      std::max<std::size_t>(kStages * kTileBytes + tma_smem_alignment(s.box.swizzle), kOneCtaPerSmSmem);  // + stage_buffers' pad
  const std::uint32_t block = block_of(f.kernel, f.consumer_warps);
  std::uint32_t clusters = f.clusters;
  if (clusters == 0) clusters = std::min(sms / f.csize, max_active_clusters<kStages>(f.kernel, f.csize, block, smem));
  if (clusters == ~0u) clusters = sms / f.csize;
  const std::uint32_t grid = clusters * f.csize;
  auto* fn = kernel_of<kStages>(f.kernel);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int rep = 0; rep < f.reps; ++rep) {
    CK(cudaEventRecord(a));
    CK(launch_cluster(fn, f.csize, grid, block, smem, plan, map, rounds, tiles, sink));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0 || f.reps == 1) best = std::min(best, ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  const double delivered = double(grid) * rounds * kTileBytes;  // every CTA receives every round's whole tile
  return {delivered / (best * 1e-3) / 1e9, best, grid};
}

FillResult run_fill(const FillConfig& f, const std::uint32_t* tensor, std::uint64_t rows, std::uint32_t sms, unsigned* sink) {
  switch (f.stages) {
    case 4: return run_fill_t<4>(f, tensor, rows, sms, sink);
    case 12: return run_fill_t<12>(f, tensor, rows, sms, sink);
    case 14: return run_fill_t<14>(f, tensor, rows, sms, sink);
    case 7: return run_fill_t<7>(f, tensor, rows, sms, sink);
    case 3: return run_fill_t<3>(f, tensor, rows, sms, sink);
    default: return run_fill_t<6>(f, tensor, rows, sms, sink);
  }
}

struct Shape {
  int stages;
  std::uint32_t rows;
  const char* name;
};
constexpr Shape kShapes[] = {{4, 64, "4x16KiB"},  {12, 64, "12x16KiB"}, {14, 64, "14x16KiB"},
                             {6, 128, "6x32KiB"}, {7, 128, "7x32KiB"},   {3, 256, "3x64KiB"}};

// ---------------------------------------------------------------------------------------------
// 2. DSMEM exchange

enum class Path : int { bulk = 0, st_async = 1, st_cluster = 2, global_round_trip = 3 };

__global__ void exchange_kernel(const __grid_constant__ DsmemPlan plan, int path, std::uint32_t iters,
                                std::uint8_t* gscratch, unsigned* sink) {
  __shared__ td::Barrier bar, ready;
  extern __shared__ __align__(128) std::uint8_t dyn[];
  const std::uint32_t bytes = plan.total_bytes;
  std::uint8_t* src = dyn;
  std::uint8_t* dst = dyn + bytes;
  const std::uint32_t rank = td::cluster_rank(), peer = rank ^ 1u;
  const Path p = static_cast<Path>(path);
  const std::uint32_t init_count = p == Path::global_round_trip ? 1 + blockDim.x : plan.receiver_init_count();
  for (std::uint32_t i = threadIdx.x; i < bytes; i += blockDim.x) src[i] = static_cast<std::uint8_t>(i + rank);
  td::fence_smem_writes_for_async();
  td::init_cluster_barriers([&] {
    td::init(bar, init_count);
    td::init(ready, 1);
  });
  td::Phase ph, rph;
  // gscratch: per CTA pair slot, one buffer per sender
  std::uint8_t* gmine = gscratch + (std::size_t(blockIdx.x)) * bytes;
  std::uint8_t* gpeer = gscratch + (std::size_t(blockIdx.x ^ 1u)) * bytes;
  for (std::uint32_t it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      if (p != Path::global_round_trip) {
        td::dsmem_arm_and_release(bar, ready, plan, static_cast<std::uint16_t>(1u << peer));
      } else {  // the baseline: the receiver's own arrival (no bytes), then the same release
        td::arrive(bar);
        td::arrive_remote(ready, peer);
      }
    }
    td::dsmem_wait_released(ready, rph);
    if (p == Path::global_round_trip) {
      for (std::uint32_t i = threadIdx.x * 16; i < bytes; i += blockDim.x * 16)
        *reinterpret_cast<uint4*>(gmine + i) = *reinterpret_cast<const uint4*>(src + i);
      td::arrive_remote(bar, peer);  // release.cluster after the global stores
    } else {
      td::dsmem_copy(plan, src, dst, peer, bar, it);
    }
    td::wait_cluster(bar, ph);
    if (p == Path::global_round_trip)
      for (std::uint32_t i = threadIdx.x * 16; i < bytes; i += blockDim.x * 16)
        *reinterpret_cast<uint4*>(dst + i) = *reinterpret_cast<const uint4*>(gpeer + i);
    __syncthreads();
  }
  if (dst[threadIdx.x % bytes] == 0xAB && src[0] == 0xCD) sink[0] = 1;
  td::cluster_sync();
}

struct XResult {
  double gbps, ns;
};

XResult run_exchange(Path path, std::uint32_t bytes, std::uint32_t sms, std::uint8_t* gscratch, unsigned* sink) {
  DsmemSpec s;
  s.elem_bytes = 4;
  s.src = compact_region(4, bytes / 4);
  s.dst = compact_region(4, bytes / 4);
  s.threads = 128;
  s.prefer = path == Path::st_async ? DsmemPrefer::elementwise : path == Path::st_cluster ? DsmemPrefer::st_cluster
                                                                                          : DsmemPrefer::automatic;
  const DsmemPlan plan = plan_dsmem_copy(s);
  const std::uint32_t grid = sms / 2 * 2, iters = 2000;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int rep = 0; rep < 4; ++rep) {
    CK(cudaEventRecord(a));
    CK(launch_cluster(exchange_kernel, 2, grid, 128, 2 * bytes, plan, static_cast<int>(path), iters, gscratch, sink));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0) best = std::min(best, ms);
  }
  return {double(grid) * iters * bytes / (best * 1e-3) / 1e9, best * 1e6 / iters};
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv = argc > 1 && std::string(argv[1]) != "-" ? argv[1] : nullptr;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  const std::uint32_t sms = static_cast<std::uint32_t>(prop.multiProcessorCount);
  std::printf("device: %s, %u SMs, L2 %d MiB, driver %d\n", prop.name, sms, prop.l2CacheSize >> 20, driver);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a hang shows where it happened
  FILE* out = csv ? std::fopen(csv, "w") : nullptr;
  if (out) std::setvbuf(out, nullptr, _IOLBF, 0);
  if (out) std::fprintf(out, "section,variant,working_set,size,gbps,time,ctas\n");
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 16));

  // 1. fill bandwidth
  // HBM set: 5 GiB, more than the 132 x 32 MiB = 4.2 GiB all CTAs receive, so no two clusters read
  // the same tile (a 1 GiB tensor made clusters c, c+32, ... read one tile in the same round: L2 hits).
  const std::uint64_t l2_rows = (4ull << 20) / (kCols * kFillElemBytes), hbm_rows = (5ull << 30) / (kCols * kFillElemBytes);
  std::uint32_t* tensor = nullptr;
  CK(cudaMalloc(&tensor, hbm_rows * kCols * kFillElemBytes));
  CK(cudaMemset(tensor, 1, hbm_rows * kCols * kFillElemBytes));
  auto shape_of = [](const std::string& n) {
    for (const Shape& sh : kShapes)
      if (n == sh.name) return sh;
    std::fprintf(stderr, "unknown pipeline shape %s\n", n.c_str());
    std::exit(2);
  };
  if (argc > 2 && std::string(argv[2]) == "one") {  // one launch of one configuration (ncu)
    if (argc < 7) return 2;
    FillConfig f;
    const std::string kn = argv[3];
    f.kernel = kn == "pipe" ? Kernel::pipe : kn == "burst" ? Kernel::burst
             : kn.rfind("exp", 0) == 0 ? static_cast<Kernel>(10 + std::atoi(kn.c_str() + 3)) : Kernel::ws;
    f.csize = static_cast<std::uint32_t>(std::atoi(argv[4]));
    const Shape sh = shape_of(argv[5]);
    f.stages = sh.stages;
    f.tile_rows = sh.rows;
    if (argc > 7) f.clusters = static_cast<std::uint32_t>(std::atoi(argv[7]));
    f.reps = 1;
    const FillResult r = run_fill(f, tensor, std::string(argv[6]) == "L2" ? l2_rows : hbm_rows, sms, sink);
    std::printf("one %s c%u %s %s: %u CTAs, %.1f GB/s delivered, %.3f ms\n", argv[3], f.csize, sh.name, argv[6], r.ctas, r.gbps, r.ms);
    return 0;
  }
  const std::uint32_t ws_block = block_of(Kernel::ws, 4);
  std::printf("\nmax active clusters (one CTA per SM, ws kernel): c1 %u, c2 %u, c4 %u\n",
              max_active_clusters<6>(Kernel::ws, 1, ws_block, kOneCtaPerSmSmem),
              max_active_clusters<6>(Kernel::ws, 2, ws_block, kOneCtaPerSmSmem),
              max_active_clusters<6>(Kernel::ws, 4, ws_block, kOneCtaPerSmSmem));
  std::printf("\n1. delivered smem fill bandwidth (bytes landing in all receiving CTAs' smem / time; 32 MiB per CTA; "
              "sliced multicast; one wave; ws = tmakit's warp-specialized pipeline)\n");
  std::printf("%-8s %-16s %-5s %-9s %5s %10s %9s %9s %7s\n", "kernel", "variant", "set", "pipeline", "CTAs", "GB/s",
              "GB/s/SM", "ms", "ratio");
  auto row = [&](const char* section, const char* kname, const FillConfig& f, const char* set, const char* shape,
                 const std::string& name, double base) {
    const FillResult r = run_fill(f, tensor, std::string(set) == "L2" ? l2_rows : hbm_rows, sms, sink);
    std::printf("%-8s %-16s %-5s %-9s %5u %10.1f %9.2f %9.3f %7.2f\n", kname, name.c_str(), set, shape, r.ctas, r.gbps,
                r.gbps / r.ctas, r.ms, base > 0 ? r.gbps / base : 1.0);
    if (out) std::fprintf(out, "%s,%s,%s,%s,%.2f,%.4f,%u\n", section, name.c_str(), set, shape, r.gbps, r.ms, r.ctas);
    return r.gbps;
  };
  auto kname = [](Kernel k) {
    return k == Kernel::ws ? std::string("ws") : k == Kernel::pipe ? std::string("pipe") : k == Kernel::burst ? std::string("burst")
                                                                    : "exp" + std::to_string(static_cast<int>(k) - 10);
  };
  // c = 1, 2, 4 side by side; ratio to c = 1 of the same kernel and shape.
  auto trio = [&](const char* section, Kernel k, const Shape& sh, const char* set, const std::string& prefix,
                  std::uint32_t clusters = 0) {
    double base = 0;
    for (std::uint32_t c : {1u, 2u, 4u}) {
      FillConfig f;
      f.kernel = k;
      f.csize = c;
      f.stages = sh.stages;
      f.tile_rows = sh.rows;
      f.clusters = clusters;
      const std::string name = prefix + (c == 1 ? "unicast" : "mcast_c" + std::to_string(c));
      const double g = row(section, kname(k).c_str(), f, set, sh.name, name, base);
      if (c == 1) base = g;
    }
  };
  for (const Shape& sh : kShapes)
    for (const char* set : {"L2", "HBM"}) trio("fill", Kernel::ws, sh, set, "");
  const Shape s632 = kShapes[3], s732 = kShapes[4];
  std::printf("\nvariants (L2 set): leader broadcast and 1 consumer warp (ratio to ws unicast of the shape)\n");
  for (const Shape& sh : {s632, s732}) {
    FillConfig f;
    f.stages = sh.stages;
    f.tile_rows = sh.rows;
    const double base = row("fill_variant", "ws", f, "L2", sh.name, "ws_unicast", 0);
    for (std::uint32_t c : {2u, 4u}) {
      f.csize = c;
      f.mode = MulticastMode::leader_broadcast;
      f.consumer_warps = 4;
      row("fill_variant", "ws", f, "L2", sh.name, "leader_c" + std::to_string(c), base);
      f.mode = MulticastMode::sliced;
      f.consumer_warps = 1;
      row("fill_variant", "ws", f, "L2", sh.name, "ws1w_c" + std::to_string(c), base);
    }
  }
  std::printf("\nhandshake forms (L2 set, 6x32KiB): before = the first pipeline (thread 0 arms and issues between "
              "__syncthreads) on the all-SM grid, pipe = the same in one wave, burst, exp0 = per-warp release.cluster "
              "hand-back, exp1 = per-warp relaxed, exp2 = releaser warp + release.cluster, ws = releaser + relaxed\n");
  trio("fill_exp", Kernel::pipe, s632, "L2", "before_", ~0u);
  for (Kernel k : {Kernel::pipe, Kernel::burst, Kernel::exp0, Kernel::exp1, Kernel::exp2, Kernel::ws})
    trio("fill_exp", k, s632, "L2", kname(k) + "_");
  std::printf("\none cluster alone (L2 set): the per-SM rate without L2 contention\n");
  for (Kernel k : {Kernel::pipe, Kernel::burst, Kernel::exp0, Kernel::ws}) trio("fill_n1", k, s632, "L2", kname(k) + "_n1_", 1);
  trio("fill_n1", Kernel::ws, s732, "L2", "ws_n1_", 1);
  trio("fill_n1", Kernel::ws, kShapes[2], "L2", "ws_n1_", 1);
  std::printf("\ngrid sweep (ws, 7x32KiB, L2 set): per-SM delivered rate vs clusters\n");
  for (std::uint32_t c : {1u, 2u, 4u})
    for (std::uint32_t n : {1u, 4u, 8u, 16u, 24u, 33u, 48u, 66u, 99u, 132u}) {
      if (n * c > sms || n > max_active_clusters<7>(Kernel::ws, c, ws_block, kOneCtaPerSmSmem)) continue;
      FillConfig f;
      f.csize = c;
      f.clusters = n;
      f.stages = s732.stages;
      f.tile_rows = s732.rows;
      row("fill_sweep", "ws", f, "L2", s732.name, "c" + std::to_string(c) + "_n" + std::to_string(n), 0);
    }
  CK(cudaFree(tensor));

  // 2. DSMEM exchange
  std::uint8_t* scratch = nullptr;
  CK(cudaMalloc(&scratch, std::size_t(sms) * 32768));
  std::printf("\n2. DSMEM exchange between the 2 CTAs of each cluster (%u CTAs, 2000 exchanges)\n", sms / 2 * 2);
  std::printf("%-18s %8s %12s %12s\n", "path", "bytes", "GB/s", "ns/exchange");
  const char* names[] = {"bulk", "st_async", "st_cluster", "global_round_trip"};
  for (std::uint32_t bytes : {256u, 4096u, 32768u}) {
    for (int p = 0; p < 4; ++p) {
      const XResult r = run_exchange(static_cast<Path>(p), bytes, sms, scratch, sink);
      std::printf("%-18s %8u %12.1f %12.1f\n", names[p], bytes, r.gbps, r.ns);
      if (out) std::fprintf(out, "dsmem,%s,smem,%u,%.2f,%.1f,%u\n", names[p], bytes, r.gbps, r.ns, sms / 2 * 2);
    }
  }
  CK(cudaFree(scratch));
  if (out) std::fclose(out);
  return 0;
}

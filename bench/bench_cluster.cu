// Cluster copies, side by side in one run (a benchmark, not a test):
//  1. multicast vs unicast DELIVERED shared-memory fill bandwidth: every CTA of the grid streams
//     tiles through a tmakit MulticastPipeline (device/multicast.cuh; 4 x 16 KiB, 8 x 16 KiB and
//     6 x 32 KiB stages) and counts the bytes that land in ITS shared memory. Unicast: cluster 1,
//     each CTA loads its own tile. Multicast c2 / c4: the CTAs of a cluster share the tile, each loads 1/C and multicasts it
//     (sliced plan). Working set in L2 (4 MiB tensor, tiles reused) and in HBM (1 GiB tensor,
//     every tile read once per cluster). Variants (6 x 32 KiB, L2): leader broadcast, and "burst"
//     (arm all stages, one cluster barrier, issue all, wait all): one handshake per batch instead
//     of one per tile.
//  2. DSMEM copy: CTA pairs (cluster 2, whole GPU) exchange a buffer every iteration (arm ->
//     release -> copy -> wait): bulk (one cp.async.bulk), st.async (16 B), mapa + st.shared::cluster
//     (16 B), and a round trip through global memory; bytes/s (all pairs) and ns per exchange.
// Watchdog off (TMAKIT_WATCHDOG 0): release-mode barriers.
//   bench_cluster [out.csv]
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

#include "tmakit/device/dsmem.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/plan/cluster_multicast.hpp"
#include "tmakit/plan/dsmem_copy.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace td = tmakit::device;
using namespace tmakit;

#define CK(x)                                                                                        \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));        \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

namespace {

constexpr std::uint32_t kCols = 64;  // tile rows of 256 B: 16 KiB (64 rows) or 32 KiB (128 rows)

template <class... KArgs, class... Args>
cudaError_t launch_cluster(void (*kernel)(KArgs...), std::uint32_t c, std::uint32_t grid, std::uint32_t block,
                           std::size_t smem, Args... args) {
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = c;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

// ---------------------------------------------------------------------------------------------
// 1. fill bandwidth

template <int kStages>
__global__ void fill_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                            std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = dyn + (1024u - static_cast<std::uint32_t>(__cvta_generic_to_shared(dyn)) % 1024u) % 1024u;
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  td::pipeline_init(pipe, role);
  auto produce = [&](std::uint32_t k) {
    td::arm_round(pipe, role, k);
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

// Burst variant (no buffer reuse inside a batch): every CTA arms all stages, one cluster barrier
// (ARM-BEFORE-ISSUE in its plainest form), every issuer issues all stages, everyone waits for all,
// a second cluster barrier, next batch. One cross-CTA synchronization per kStages tiles instead of
// one per tile: separates the multicast delivery rate from the pipeline's per-tile handshake.
template <int kStages>
__global__ void burst_kernel(const __grid_constant__ MulticastPlan plan, const __grid_constant__ CUtensorMap map,
                             std::uint32_t rounds, std::uint32_t tiles, unsigned* sink) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = dyn + (1024u - static_cast<std::uint32_t>(__cvta_generic_to_shared(dyn)) % 1024u) % 1024u;
  const std::uint32_t kTileBytes = plan.tile_bytes, tile_rows = plan.spec.box.box[1];
  const std::uint32_t rank = td::cluster_rank(), csize = td::cluster_size();
  const StageRole role = stage_role(&plan, 1, rank);
  const MulticastCta& c = plan.cta[rank];
  const std::uint32_t cluster_id = blockIdx.x / csize;
  td::pipeline_init(pipe, role);
  unsigned acc = 0;
  for (std::uint32_t b = 0; b * kStages < rounds; ++b) {
    if (threadIdx.x == 0)
      for (int s = 0; s < kStages; ++s) td::arrive_expect_tx(pipe.full[s], role.expect_bytes);
    td::cluster_sync();
    if (threadIdx.x == 0 && c.issues)
      for (int s = 0; s < kStages; ++s) {
        const std::uint32_t k = b * kStages + s, tile = (cluster_id * rounds + k) % tiles;
        td::issue_multicast(pipe, &map, buf + s * kTileBytes + c.issue.smem_offset, c.issue.mask, c.issue.bytes,
                            static_cast<std::uint32_t>(s) + b * kStages, 0, static_cast<int>(tile * tile_rows + c.issue.coord_offset));
      }
    for (int s = 0; s < kStages; ++s) {
      td::watchdog::wait_parity(pipe.full[s], b & 1u, td::watchdog::bound_ns());
      acc += buf[s * kTileBytes + threadIdx.x * 4];
    }
    td::cluster_sync();
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
  td::pipeline_teardown();
}

struct FillResult {
  double gbps, ms;
};

template <int kStages>
FillResult run_fill(std::uint32_t csize, std::uint32_t tile_rows, const std::uint32_t* tensor, std::uint64_t tensor_rows,
                    std::uint32_t sms, unsigned* sink, MulticastMode mode = MulticastMode::sliced, bool burst = false) {
  MulticastSpec s;
  s.cluster = ClusterShape{csize, 1, 1};
  s.share[0] = true;
  s.mode = mode;
  s.box.dtype = DataType::uint32;
  s.box.rank = 2;
  s.box.address = reinterpret_cast<std::uint64_t>(tensor);
  s.box.dims[0] = kCols;
  s.box.dims[1] = tensor_rows;
  s.box.strides[0] = kCols * 4;
  s.box.box[0] = kCols;
  s.box.box[1] = tile_rows;
  const MulticastPlan plan = plan_multicast(s);
  if (!plan.ok()) {
    std::fprintf(stderr, "plan failed for cluster %u\n", csize);
    std::exit(1);
  }
  TensorMapParams mp = plan.issue_params(0);
  TensorMapBytes bytes{};
  if (!encode_into(mp, bytes)) std::exit(1);
  CUtensorMap map;
  std::memcpy(&map, &bytes, sizeof map);
  const std::uint32_t grid = sms / csize * csize;
  const std::uint32_t kTileBytes = plan.tile_bytes;
  const std::uint32_t rounds = (32u << 20) / kTileBytes / kStages * kStages;  // ~32 MiB delivered per CTA
  const std::uint32_t tiles = static_cast<std::uint32_t>(tensor_rows / tile_rows);
  const std::size_t smem = kStages * kTileBytes + 1024;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int rep = 0; rep < 4; ++rep) {
    CK(cudaEventRecord(a));
    if (burst) CK(launch_cluster(burst_kernel<kStages>, csize, grid, 128, smem, plan, map, rounds, tiles, sink));
    else CK(launch_cluster(fill_kernel<kStages>, csize, grid, 128, smem, plan, map, rounds, tiles, sink));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0) best = std::min(best, ms);
  }
  const double delivered = double(grid) * rounds * kTileBytes;
  return {delivered / (best * 1e-3) / 1e9, best};
}

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
  if (threadIdx.x == 0) {
    td::init(bar, init_count);
    td::init(ready, 1);
    td::fence_init_cluster();
  }
  for (std::uint32_t i = threadIdx.x; i < bytes; i += blockDim.x) src[i] = static_cast<std::uint8_t>(i + rank);
  td::fence_smem_writes_for_async();
  td::cluster_sync();
  td::Phase ph, rph;
  // gscratch: per CTA pair slot, one buffer per sender
  std::uint8_t* gmine = gscratch + (std::size_t(blockIdx.x)) * bytes;
  std::uint8_t* gpeer = gscratch + (std::size_t(blockIdx.x ^ 1u)) * bytes;
  for (std::uint32_t it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      if (p == Path::global_round_trip) td::arrive(bar);
      else td::dsmem_arm(bar, plan);
      td::arrive_remote(ready, peer);
    }
    td::wait_cluster(ready, rph);
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
  const char* csv = argc > 1 ? argv[1] : nullptr;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  const std::uint32_t sms = static_cast<std::uint32_t>(prop.multiProcessorCount);
  std::printf("device: %s, %u SMs, L2 %d MiB, driver %d\n", prop.name, sms, prop.l2CacheSize >> 20, driver);
  FILE* out = csv ? std::fopen(csv, "w") : nullptr;
  if (out) std::fprintf(out, "section,variant,working_set,size,gbps,time\n");
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 16));

  // 1. fill bandwidth
  const std::uint64_t l2_rows = (4ull << 20) / (kCols * 4), hbm_rows = (1ull << 30) / (kCols * 4);
  std::uint32_t* tensor = nullptr;
  CK(cudaMalloc(&tensor, hbm_rows * kCols * 4));
  CK(cudaMemset(tensor, 1, hbm_rows * kCols * 4));
  std::printf("\n1. delivered smem fill bandwidth (%u CTAs, 1 per SM, 32 MiB delivered per CTA; sliced multicast)\n", sms);
  std::printf("%-10s %-5s %-12s %12s %10s %10s %8s\n", "variant", "set", "pipeline", "GB/s", "GB/s/SM", "ms", "ratio");
  for (int cfg = 0; cfg < 3; ++cfg) {
    const std::uint32_t tile_rows = cfg == 2 ? 128 : 64;
    const char* pipe = cfg == 0 ? "4x16KiB" : cfg == 1 ? "8x16KiB" : "6x32KiB";
    for (const char* set : {"L2", "HBM"}) {
      const std::uint64_t rows = std::string(set) == "L2" ? l2_rows : hbm_rows;
      double base = 0;
      for (std::uint32_t c : {1u, 2u, 4u}) {
        const FillResult r = cfg == 0   ? run_fill<4>(c, tile_rows, tensor, rows, sms, sink)
                             : cfg == 1 ? run_fill<8>(c, tile_rows, tensor, rows, sms, sink)
                                        : run_fill<6>(c, tile_rows, tensor, rows, sms, sink);
        if (c == 1) base = r.gbps;
        const std::string name = c == 1 ? "unicast" : "mcast_c" + std::to_string(c);
        std::printf("%-10s %-5s %-12s %12.1f %10.2f %10.3f %8.2f\n", name.c_str(), set, pipe, r.gbps, r.gbps / (sms / c * c),
                    r.ms, r.gbps / base);
        if (out) std::fprintf(out, "fill,%s,%s,%s,%.2f,%.4f\n", name.c_str(), set, pipe, r.gbps, r.ms);
      }
    }
  }
  // Variants at 6 x 32 KiB, L2 set: leader broadcast (one issuer per cluster) and the burst protocol.
  std::printf("\nvariants (6x32KiB, L2 set): leader = one issuer broadcasts the whole tile; burst = arm all stages, "
              "cluster barrier, issue all, wait all, cluster barrier\n");
  {
    double base = 0;
    for (int v = 0; v < 7; ++v) {
      const std::uint32_t c = v == 0 || v == 3 ? 1u : (v == 1 || v == 4 || v == 6) ? 2u : 4u;
      const bool burst = v >= 3 && v <= 5;
      const MulticastMode mode = v == 6 ? MulticastMode::leader_broadcast : MulticastMode::sliced;
      const FillResult r = run_fill<6>(c, 128, tensor, l2_rows, sms, sink, mode, burst);
      if (v == 0 || v == 3) base = r.gbps;
      const std::string name = std::string(burst ? "burst_" : v == 6 ? "leader_" : "pipe_") + (c == 1 ? "unicast" : "c" + std::to_string(c));
      std::printf("%-16s %12.1f GB/s %10.2f GB/s/SM %10.3f ms  ratio %5.2f\n", name.c_str(), r.gbps, r.gbps / (sms / c * c),
                  r.ms, r.gbps / base);
      if (out) std::fprintf(out, "fill_variant,%s,L2,6x32KiB,%.2f,%.4f\n", name.c_str(), r.gbps, r.ms);
    }
    const FillResult l4 = run_fill<6>(4, 128, tensor, l2_rows, sms, sink, MulticastMode::leader_broadcast, false);
    std::printf("%-16s %12.1f GB/s %10.2f GB/s/SM %10.3f ms\n", "leader_c4", l4.gbps, l4.gbps / (sms / 4 * 4), l4.ms);
    if (out) std::fprintf(out, "fill_variant,leader_c4,L2,6x32KiB,%.2f,%.4f\n", l4.gbps, l4.ms);
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
      if (out) std::fprintf(out, "dsmem,%s,smem,%u,%.2f,%.1f\n", names[p], bytes, r.gbps, r.ns);
    }
  }
  CK(cudaFree(scratch));
  if (out) std::fclose(out);
  return 0;
}

// Streaming device-to-device copy, side by side: a persistent, pipelined TMA copy (1-D bulk
// copies global -> shared -> global, one issuing thread per CTA, S stages), cudaMemcpyAsync D2D,
// and a plain 16-byte vectorized load/store kernel. Sizes 1 MiB .. 4 GiB (powers of two).
// Bandwidth counts read + write bytes (2 x size / time); median over repeats, CUDA events.
//   bench_stream_copy [out.csv] [max_mib] [sweep|busy|probe|once [filter]]
//   (busy: is cudaMemcpyAsync D2D done by SM kernels or by the copy engines? Each copy of max_mib
//   alone and while a kernel holds every SM.
//   probe: the hypotheses of stream_copy_probe.cuh, each variant beside cudaMemcpyAsync at max_mib / 4
//   and max_mib, every copy verified.
//   once: one launch each of the TMA copy and the vec16 kernel at max_mib, and of every probe variant
//   whose name contains `filter`, nothing else after the fill (for ncu: scripts/stream_copy_ncu.sh))
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "tmakit/device/ring.cuh"
#include "tmakit/device/tma.cuh"
#include "check.hpp"
#include "stream_copy_probe.cuh"

namespace td = tmakit::device;
using stream_copy::min_u64;

// Persistent TMA copy: chunks of kChunk bytes, CTA b takes chunks b, b + grid, ... One thread
// issues everything; the data never enters registers. The device ring (ring.cuh), freed by that
// thread's own bulk groups: chunk k's load -> (stage k's full barrier) -> store; the stage is
// refilled once the store that read it has finished reading (run_bulk_ring, lag 1).
// kContiguous: CTA b takes one contiguous run of chunks instead of chunks b, b + grid, ...
// kEvictFirst: loads and stores carry an L2 evict_first cache policy (the data is touched once).
// kPrefetchAhead = D > 0: before loading its k-th chunk the CTA prefetches its (k + D)-th chunk into
// L2 (cp.async.bulk.prefetch.L2), so DRAM reads run D chunks ahead of the loads.
template <std::uint32_t kStages, std::uint32_t kChunk, bool kContiguous = false, bool kEvictFirst = false,
          std::uint32_t kPrefetchAhead = 0>
__global__ void __launch_bounds__(32) tma_copy(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                                               std::uint64_t bytes) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ td::Ring<kStages> ring;
  if (threadIdx.x != 0) return;
  const std::uint64_t nchunks = (bytes + kChunk - 1) / kChunk;
  if (blockIdx.x >= nchunks) return;
  const std::uint64_t per = (nchunks + gridDim.x - 1) / gridDim.x;  // contiguous runs
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * per;
  if (kContiguous && first >= nchunks) return;
  const std::uint64_t mine =
      kContiguous ? min_u64(per, nchunks - first) : (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
  ring.init_full();
  td::fence_smem_writes_for_async();  // barrier init visible to the async proxy
  const std::uint64_t policy = kEvictFirst ? td::policy_evict_first() : 0;
  auto chunk_of = [&](std::uint64_t k) { return kContiguous ? first + k : blockIdx.x + k * gridDim.x; };
  auto size_of = [&](std::uint64_t off) { return static_cast<std::uint32_t>(min_u64(kChunk, bytes - off)); };
  td::RingState<kStages> st;
  td::run_bulk_ring<1>(
      ring, st, mine,
      [&](std::uint64_t k, const td::RingState<kStages>& r) {
        const std::uint64_t off = chunk_of(k) * kChunk;
        const std::uint32_t n = size_of(off);
        if constexpr (kPrefetchAhead > 0) {
          if (k + kPrefetchAhead < mine) {
            const std::uint64_t ahead = chunk_of(k + kPrefetchAhead) * kChunk;
            td::bulk_prefetch_l2(src + ahead, size_of(ahead));
          }
        }
        td::Barrier& full = ring.arm(r, n);
        if constexpr (kEvictFirst) td::bulk_load_hint(smem + r.index * kChunk, src + off, n, full, policy);
        else td::bulk_load(smem + r.index * kChunk, src + off, n, full);
      },
      [&](std::uint64_t k, std::uint32_t s) {
        td::fence_smem_writes_for_async();  // conservative: order the observed completion before the async read
        const std::uint64_t off = chunk_of(k) * kChunk;
        const std::uint32_t n = size_of(off);
        if constexpr (kEvictFirst) td::bulk_store_hint(dst + off, smem + s * kChunk, n, policy);
        else td::bulk_store(dst + off, smem + s * kChunk, n);
      });
  td::wait_group<0>();
}

__global__ void read_timer(unsigned long long* out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *out = t;
}

__global__ void vec_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__global__ void fill(uint4* p, std::uint64_t n, std::uint32_t salt) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto v = static_cast<std::uint32_t>(i * 2654435761u) ^ salt;
    p[i] = make_uint4(v, v + 1, v + 2, static_cast<std::uint32_t>(i >> 32) ^ salt);
  }
}

__global__ void count_diff(const uint4* a, const uint4* b, std::uint64_t n, unsigned long long* bad) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = a[i], y = b[i];
    local += (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
  }
  if (local) atomicAdd(bad, local);
}

namespace {

constexpr std::uint32_t kStages = 4;
constexpr std::uint32_t kChunk = 48 * 1024;  // 4 x 48 KiB = 192 KiB smem, one CTA per SM

int g_sms = 0;

void run_tma(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  const std::uint64_t nchunks = (bytes + kChunk - 1) / kChunk;
  const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(g_sms)));
  tma_copy<kStages, kChunk><<<grid, 32, kStages * kChunk, st>>>(s, d, bytes);
}
void run_vec(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  const std::uint64_t n = bytes / 16;
  const auto grid = static_cast<unsigned>(std::min<std::uint64_t>((n + 255) / 256, static_cast<std::uint64_t>(g_sms) * 8));
  vec_copy<<<grid, 256, 0, st>>>(reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d), n);
}
void run_memcpy(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  CK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, st));
}

using Runner = void (*)(const unsigned char*, unsigned char*, std::uint64_t, cudaStream_t);

// Pipeline shapes for the sweep (argv[3] = "sweep"): stages x chunk bytes, CTAs per SM.
// (PerSm / SmDiv CTAs per SM: SmDiv > 1 leaves SMs idle; Pf: tma_copy's kPrefetchAhead.)
template <std::uint32_t S, std::uint32_t C, int PerSm, bool Contig = false, bool Evict = false, std::uint32_t Pf = 0,
          int SmDiv = 1>
void run_tma_v(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  static const bool attr_set = cudaFuncSetAttribute(tma_copy<S, C, Contig, Evict, Pf>,
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize, S * C) == cudaSuccess;
  (void)attr_set;
  const std::uint64_t nchunks = (bytes + C - 1) / C;
  const auto grid =
      static_cast<unsigned>(std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(g_sms) * PerSm / SmDiv));
  tma_copy<S, C, Contig, Evict, Pf><<<grid, 32, S * C, st>>>(s, d, bytes);
}
struct Variant {
  const char* name;
  Runner run;
};
const Variant kVariants[] = {
    {"4 x 48 KiB, 1 CTA/SM", run_tma_v<4, 48 * 1024, 1>},  {"8 x 24 KiB, 1 CTA/SM", run_tma_v<8, 24 * 1024, 1>},
    {"16 x 12 KiB, 1 CTA/SM", run_tma_v<16, 12 * 1024, 1>}, {"4 x 24 KiB, 2 CTA/SM", run_tma_v<4, 24 * 1024, 2>},
    {"8 x 12 KiB, 2 CTA/SM", run_tma_v<8, 12 * 1024, 2>},  {"6 x 16 KiB, 2 CTA/SM", run_tma_v<6, 16 * 1024, 2>},
    {"4 x 12 KiB, 4 CTA/SM", run_tma_v<4, 12 * 1024, 4>},  {"8 x 8 KiB, 3 CTA/SM", run_tma_v<8, 8 * 1024, 3>},
    {"contig 4 x 48 KiB, 1/SM", run_tma_v<4, 48 * 1024, 1, true>},
    {"contig 8 x 12 KiB, 2/SM", run_tma_v<8, 12 * 1024, 2, true>},
    {"contig 4 x 12 KiB, 4/SM", run_tma_v<4, 12 * 1024, 4, true>},
    {"evict_first 4 x 48 KiB, 1/SM", run_tma_v<4, 48 * 1024, 1, false, true>},
    {"evict_first 8 x 12 KiB, 2/SM", run_tma_v<8, 12 * 1024, 2, false, true>},
};

// ---------------------------------------------------------------------------------------------
// Probe (argv[3] = "probe"): new hypotheses for the ~0.92x plateau, kernels in stream_copy_probe.cuh.
namespace sc = stream_copy;
using sc::VecLoad;
using sc::VecStore;

unsigned long long* g_sync = nullptr;  // tma_phased lockstep: [0] arrivals (never reset), [1] timed out
unsigned long long g_sync_base = 0;    // arrivals earlier launches left in g_sync[0]

template <std::uint32_t S, std::uint32_t C, int PerSm, bool Lockstep = false, bool EvictStores = false>
void run_phased(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  static const bool attr_set = cudaFuncSetAttribute(sc::tma_phased<S, C, Lockstep, EvictStores>,
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize, S * C) == cudaSuccess;
  (void)attr_set;
  const std::uint64_t nchunks = (bytes + C - 1) / C;
  const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(g_sms) * PerSm));
  sc::tma_phased<S, C, Lockstep, EvictStores><<<grid, 32, S * C, st>>>(s, d, bytes, g_sync, g_sync_base);
  if (Lockstep) g_sync_base += sc::lockstep_arrivals(bytes, S, C, grid);
}
template <int Th, int B, int D, VecLoad L, VecStore St>
void run_wave(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  sc::vec_wave<Th, B, D, L, St><<<g_sms * B, Th, 0, st>>>(reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d),
                                                          bytes / 16);
}
// OnePerBlock: a grid of one block per span (each block copies one span and exits).
template <int Th, int B, int D, std::uint32_t Span, VecLoad L, VecStore St, bool OnePerBlock = false>
void run_span(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  const std::uint64_t nspans = (bytes + Span - 1) / Span;
  const auto grid =
      static_cast<unsigned>(OnePerBlock ? nspans : std::min<std::uint64_t>(nspans, static_cast<std::uint64_t>(g_sms) * B));
  sc::vec_span<Th, B, D, Span, L, St><<<grid, Th, 0, st>>>(reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d),
                                                           bytes / 16);
}
template <int Th, std::uint32_t Tile, VecStore St>
void run_load_stg(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  static const bool attr_set =
      cudaFuncSetAttribute(sc::tma_load_stg<Th, Tile, St>, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile) == cudaSuccess;
  (void)attr_set;
  const auto grid = static_cast<unsigned>((bytes + Tile - 1) / Tile);
  sc::tma_load_stg<Th, Tile, St><<<grid, Th, Tile, st>>>(s, d, bytes);
}

constexpr std::uint32_t KiB = 1024;
constexpr std::uint64_t kMaxDstOffset = 8ull << 20;  // slack after dst for the dst-offset rows

struct ProbeVariant {
  const char* name;
  Runner run;
  std::uint64_t dst_offset = 0;  // memcpy and the variant both write dst + dst_offset
};
// clang-format off
const ProbeVariant kProbe[] = {
    // reference: the two kernels of the default mode
    {"ref: TMA ring 4x48K 1/SM", run_tma},
    {"ref: vec16 x4 256thr 8/SM", run_vec},
    // 1. read/write phasing (DRAM read-write turnaround)
    {"phased 4x48K 1/SM", run_phased<4, 48 * KiB, 1>},
    {"phased 2x96K 1/SM", run_phased<2, 96 * KiB, 1>},
    {"phased 4x24K 2/SM", run_phased<4, 24 * KiB, 2>},
    {"phased 8x12K 2/SM", run_phased<8, 12 * KiB, 2>},
    {"phased lockstep 4x48K 1/SM", run_phased<4, 48 * KiB, 1, true>},
    {"phased lockstep ef-store 4x48K 1/SM", run_phased<4, 48 * KiB, 1, true, true>},
    // 2. L2 prefetch D chunks ahead of the loads
    {"ring+L2pf D=2 4x48K 1/SM", run_tma_v<4, 48 * KiB, 1, false, false, 2>},
    {"ring+L2pf D=4 4x48K 1/SM", run_tma_v<4, 48 * KiB, 1, false, false, 4>},
    {"ring+L2pf D=4 8x12K 2/SM", run_tma_v<8, 12 * KiB, 2, false, false, 4>},
    {"ring+L2pf D=16 8x12K 2/SM", run_tma_v<8, 12 * KiB, 2, false, false, 16>},
    // 3. vectors: more bytes in flight, streaming hints, 1024-thread blocks, contiguous spans
    {"vec x8 256thr 4/SM", run_wave<256, 4, 8, VecLoad::plain, VecStore::plain>},
    {"vec x8 nc.noalloc 256thr 4/SM", run_wave<256, 4, 8, VecLoad::nc_noalloc, VecStore::plain>},
    {"vec x8 nc.noalloc.L2_256B 256thr 4/SM", run_wave<256, 4, 8, VecLoad::nc_noalloc_256B, VecStore::plain>},
    {"vec x8 ldcs/stcs 256thr 4/SM", run_wave<256, 4, 8, VecLoad::cs, VecStore::cs>},
    {"vec x8 nc.noalloc/stcs 256thr 4/SM", run_wave<256, 4, 8, VecLoad::nc_noalloc, VecStore::cs>},
    {"vec x8 1024thr 1/SM", run_wave<1024, 1, 8, VecLoad::plain, VecStore::plain>},
    {"vec x8 nc.noalloc/stcs 1024thr 1/SM", run_wave<1024, 1, 8, VecLoad::nc_noalloc, VecStore::cs>},
    {"vec x4 1024thr 2/SM", run_wave<1024, 2, 4, VecLoad::plain, VecStore::plain>},
    {"vec x4 nc.noalloc/stcs 1024thr 2/SM", run_wave<1024, 2, 4, VecLoad::nc_noalloc, VecStore::cs>},
    {"span 64K x4 1024thr 1/SM", run_span<1024, 1, 4, 64 * KiB, VecLoad::plain, VecStore::plain>},
    {"span 64K x4 1024thr 2/SM", run_span<1024, 2, 4, 64 * KiB, VecLoad::plain, VecStore::plain>},
    {"span 256K x8 1024thr 1/SM", run_span<1024, 1, 8, 256 * KiB, VecLoad::plain, VecStore::plain>},
    {"span 256K x8 nc/stcs 1024thr 1/SM", run_span<1024, 1, 8, 256 * KiB, VecLoad::nc_noalloc, VecStore::cs>},
    {"span 64K x8 256thr 4/SM", run_span<256, 4, 8, 64 * KiB, VecLoad::plain, VecStore::plain>},
    {"tile 32K x8 256thr, 1 tile/block", run_span<256, 4, 8, 32 * KiB, VecLoad::plain, VecStore::plain, true>},
    // 4. copy-like mapping: 4 KiB pieces, a full wave reads one contiguous region (TMA; the vec x8
    //    rows above are its vector form)
    {"wave 32x4K TMA 1/SM", run_tma_v<32, 4 * KiB, 1>},
    {"wave 16x4K TMA 2/SM", run_tma_v<16, 4 * KiB, 2>},
    {"wave 8x4K TMA 4/SM", run_tma_v<8, 4 * KiB, 4>},
    // 5. from public sources, and where the addresses land
    {"nvbandwidth-like x12 512thr 1/SM", run_wave<512, 1, 12, VecLoad::plain, VecStore::plain>},
    {"cub-like bulk load+STG 16K tile", run_load_stg<256, 16 * KiB, VecStore::plain>},
    {"cub-like bulk load+STG 32K tile", run_load_stg<256, 32 * KiB, VecStore::plain>},
    {"cub-like bulk load+STG.cs 32K tile", run_load_stg<256, 32 * KiB, VecStore::cs>},
    {"ring 4x48K on 3/4 of SMs", run_tma_v<4, 48 * KiB, 3, false, false, 0, 4>},
    {"ring 4x48K on 1/2 of SMs", run_tma_v<4, 48 * KiB, 1, false, false, 0, 2>},
    {"ring 4x48K, dst +36 KiB", run_tma, 36 * KiB},
    {"vec x8 256thr 4/SM, dst +36 KiB", run_wave<256, 4, 8, VecLoad::plain, VecStore::plain>, 36 * KiB},
    {"ring 4x48K, dst +7 MiB", run_tma, 7ull << 20},
};
// clang-format on

// Whether a lockstep barrier timed out since the last call (then the arrival count no longer
// matches g_sync_base: both start again from 0).
bool sync_timed_out() {
  unsigned long long h = 0;
  CK(cudaMemcpy(&h, g_sync + 1, sizeof(h), cudaMemcpyDeviceToHost));
  if (h == 0) return false;
  CK(cudaMemset(g_sync, 0, 2 * sizeof(h)));
  g_sync_base = 0;
  return true;
}

// Holds every SM: 2 blocks x 1024 threads per SM fill all thread slots (and, at <= 32 registers,
// the register file), spinning until %globaltimer passes `until_ns`.
__global__ void __launch_bounds__(1024, 2) hold_sms(unsigned long long until_ns) {
  unsigned long long t;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t < until_ns);
}

unsigned long long gpu_now_ns() {
  unsigned long long* d = nullptr;
  CK(cudaMalloc(&d, sizeof(*d)));
  read_timer<<<1, 1>>>(d);
  unsigned long long h = 0;
  CK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  return h;
}

double median_ms(Runner r, const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) r(s, d, bytes, st);
  CK(cudaStreamSynchronize(st));
  CK(cudaGetLastError());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, st));
    r(s, d, bytes, st);
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

bool verify(Runner r, const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st,
            unsigned long long* bad) {
  CK(cudaMemsetAsync(d, 0, bytes, st));
  r(s, d, bytes, st);
  CK(cudaMemsetAsync(bad, 0, sizeof(*bad), st));
  count_diff<<<g_sms * 4, 256, 0, st>>>(reinterpret_cast<const uint4*>(s), reinterpret_cast<const uint4*>(d), bytes / 16,
                                       bad);
  unsigned long long h = 0;
  CK(cudaMemcpyAsync(&h, bad, sizeof(h), cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  return h == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv_path = argc > 1 ? argv[1] : nullptr;
  const std::uint64_t max_mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4096;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  g_sms = prop.multiProcessorCount;
  if (prop.major < 9) {
    std::fprintf(stderr, "needs compute capability >= 9.0 (TMA)\n");
    return 1;
  }
  CK(cudaFuncSetAttribute(tma_copy<kStages, kChunk>, cudaFuncAttributeMaxDynamicSharedMemorySize, kStages * kChunk));
  const std::uint64_t max_bytes = max_mib << 20;
  unsigned char *src = nullptr, *dst = nullptr;
  CK(cudaMalloc(&src, max_bytes));
  CK(cudaMalloc(&dst, max_bytes + kMaxDstOffset));
  unsigned long long* bad = nullptr;
  CK(cudaMalloc(&bad, sizeof(*bad)));
  CK(cudaMalloc(&g_sync, 2 * sizeof(*g_sync)));
  CK(cudaMemset(g_sync, 0, 2 * sizeof(*g_sync)));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  fill<<<g_sms * 8, 256, 0, st>>>(reinterpret_cast<uint4*>(src), max_bytes / 16, 0x1234567u);
  CK(cudaStreamSynchronize(st));

  if (argc > 3 && std::strcmp(argv[3], "busy") == 0) {
    // Who runs cudaMemcpyAsync D2D: time it alone, then while a kernel holds every SM for 300 ms.
    // A copy done by SM kernels must wait for the SMs; one done by the copy engines must not.
    const std::uint64_t bytes = max_bytes;
    cudaStream_t hold;
    CK(cudaStreamCreateWithFlags(&hold, cudaStreamNonBlocking));
    std::printf("device %s, %d SMs; %llu MiB D2D copies alone and while every SM is held for 300 ms\n", prop.name,
                g_sms, static_cast<unsigned long long>(max_mib));
    for (const auto& [name, run] : {std::pair<const char*, Runner>{"cudaMemcpyAsync", run_memcpy},
                                    std::pair<const char*, Runner>{"tmakit TMA copy", run_tma},
                                    std::pair<const char*, Runner>{"vec16 kernel", run_vec}}) {
      const double alone = median_ms(run, src, dst, bytes, st, 5);
      cudaEvent_t a, b;
      CK(cudaEventCreate(&a));
      CK(cudaEventCreate(&b));
      const unsigned long long until = gpu_now_ns() + 300'000'000ull;
      hold_sms<<<2 * g_sms, 1024, 0, hold>>>(until);
      CK(cudaEventRecord(a, st));
      run(src, dst, bytes, st);
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      float busy = 0;
      CK(cudaEventElapsedTime(&busy, a, b));
      CK(cudaStreamSynchronize(hold));
      CK(cudaGetLastError());
      std::printf("  %-18s alone %8.3f ms (%7.1f GB/s); with every SM held: %8.3f ms\n", name, alone,
                  2.0 * static_cast<double>(bytes) / (alone * 1e-3) / 1e9, static_cast<double>(busy));
      CK(cudaEventDestroy(a));
      CK(cudaEventDestroy(b));
    }
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[3], "probe") == 0) {
    // Each hypothesis beside cudaMemcpyAsync on the same buffers, at max_mib / 4 and max_mib.
    constexpr int kReps = 15;
    std::printf("device %s, %d SMs, L2 %d MiB; dst - src = %lld MiB; probe, median of %d; GB/s = (read + write) / time\n",
                prop.name, g_sms, prop.l2CacheSize >> 20, static_cast<long long>((dst - src) >> 20), kReps);
    std::printf("%-40s %6s %12s %12s %8s %s\n", "variant", "MiB", "memcpy GB/s", "variant GB/s", "ratio", "check");
    for (const ProbeVariant& v : kProbe) {
      for (std::uint64_t mib : {max_mib / 4, max_mib}) {
        const std::uint64_t bytes = mib << 20;
        unsigned char* d = dst + v.dst_offset;
        const bool ok = verify(v.run, src, d, bytes, st, bad);
        const double m = median_ms(run_memcpy, src, d, bytes, st, kReps);
        const double t = median_ms(v.run, src, d, bytes, st, kReps);
        auto gbps = [&](double ms) { return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9; };
        const bool timed_out = sync_timed_out();
        std::printf("%-40s %6llu %12.1f %12.1f %8.3f %s%s\n", v.name, static_cast<unsigned long long>(mib), gbps(m),
                    gbps(t), m / t, ok ? "ok" : "MISMATCH", timed_out ? " grid-sync-timeout" : "");
        std::fflush(stdout);
      }
    }
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[3], "once") == 0) {
    // One launch of each copy kernel at max_mib and nothing else, for a profiler.
    const char* filter = argc > 4 ? argv[4] : nullptr;
    std::vector<std::pair<const char*, Runner>> runs = {{"tmakit TMA copy", run_tma}, {"vec16 kernel", run_vec}};
    for (const ProbeVariant& v : kProbe)
      if (filter && v.dst_offset == 0 && std::strstr(v.name, filter)) runs.emplace_back(v.name, v.run);
    for (const auto& [name, run] : runs) {
      run(src, dst, max_bytes, st);
      CK(cudaStreamSynchronize(st));
      CK(cudaGetLastError());
      std::printf("ran %s once, %llu MiB\n", name, static_cast<unsigned long long>(max_mib));
    }
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[3], "sweep") == 0) {
    // Pipeline shapes side by side with cudaMemcpyAsync, at the two largest sizes.
    std::printf("device %s, %d SMs; sweep of TMA pipeline shapes; GB/s = (read + write) / time\n", prop.name, g_sms);
    std::printf("%-26s %10s %14s %14s %10s %s\n", "variant", "MiB", "memcpy GB/s", "tma GB/s", "tma/memcpy", "check");
    for (const Variant& v : kVariants) {
      for (std::uint64_t mib : {max_mib / 4, max_mib}) {
        const std::uint64_t bytes = mib << 20;
        const bool ok = verify(v.run, src, dst, bytes, st, bad);
        const double m = median_ms(run_memcpy, src, dst, bytes, st, 9);
        const double t = median_ms(v.run, src, dst, bytes, st, 9);
        auto gbps = [&](double ms) { return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9; };
        std::printf("%-26s %10llu %14.1f %14.1f %10.3f %s\n", v.name, static_cast<unsigned long long>(mib), gbps(m),
                    gbps(t), m / t, ok ? "ok" : "MISMATCH");
      }
    }
    return 0;
  }
  std::printf("device %s, %d SMs; TMA: %u stages x %u KiB bulk chunks, 1 CTA/SM; GB/s = (read + write) / time\n",
              prop.name, g_sms, kStages, kChunk / 1024);
  std::printf("%10s %14s %14s %14s %10s %10s %s\n", "MiB", "memcpy GB/s", "tma GB/s", "vec16 GB/s", "tma/memcpy",
              "vec/memcpy", "check");
  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv) std::fprintf(csv, "bytes,memcpy_ms,tma_ms,vec_ms,memcpy_gbps,tma_gbps,vec_gbps,tma_ratio,vec_ratio,ok\n");
  for (std::uint64_t mib = 1; mib <= max_mib; mib *= 2) {
    const std::uint64_t bytes = mib << 20;
    const int reps = mib <= 64 ? 51 : mib <= 512 ? 21 : 9;
    const bool ok = verify(run_tma, src, dst, bytes, st, bad) && verify(run_vec, src, dst, bytes, st, bad) &&
                    verify(run_memcpy, src, dst, bytes, st, bad);
    const double m = median_ms(run_memcpy, src, dst, bytes, st, reps);
    const double t = median_ms(run_tma, src, dst, bytes, st, reps);
    const double v = median_ms(run_vec, src, dst, bytes, st, reps);
    auto gbps = [&](double ms) { return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9; };
    std::printf("%10llu %14.1f %14.1f %14.1f %10.3f %10.3f %s\n", static_cast<unsigned long long>(mib), gbps(m), gbps(t),
                gbps(v), m / t, m / v, ok ? "ok" : "MISMATCH");
    if (csv)
      std::fprintf(csv, "%llu,%.6f,%.6f,%.6f,%.2f,%.2f,%.2f,%.4f,%.4f,%d\n", static_cast<unsigned long long>(bytes), m, t,
                   v, gbps(m), gbps(t), gbps(v), m / t, m / v, ok ? 1 : 0);
  }
  if (csv) std::fclose(csv);
  CK(cudaFree(src));
  CK(cudaFree(dst));
  CK(cudaFree(bad));
  return 0;
}

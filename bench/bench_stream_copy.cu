// Streaming device-to-device copy, side by side: a persistent, pipelined TMA copy (1-D bulk
// copies global -> shared -> global, one issuing thread per CTA, S stages), cudaMemcpyAsync D2D,
// and a plain 16-byte vectorized load/store kernel. Sizes 1 MiB .. 4 GiB (powers of two).
// Bandwidth counts read + write bytes (2 x size / time); median over repeats, CUDA events.
//   bench_stream_copy [out.csv] [max_mib] [sweep|busy]
//   (busy: is cudaMemcpyAsync D2D done by SM kernels or by the copy engines? Each copy of max_mib
//   alone and while a kernel holds every SM)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "tmakit/device/tma.cuh"
#include "check.hpp"

namespace td = tmakit::device;

__host__ __device__ constexpr std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

// Persistent TMA copy: chunks of kChunk bytes, CTA b takes chunks b, b + grid, ... One thread
// issues everything; the data never enters registers. Stage s: load -> (full[s]) -> store; the
// stage is refilled once the store that read it has finished reading (wait_group_read).
// kContiguous: CTA b takes one contiguous run of chunks instead of chunks b, b + grid, ...
// kEvictFirst: loads and stores carry an L2 evict_first cache policy (the data is touched once).
template <std::uint32_t kStages, std::uint32_t kChunk, bool kContiguous = false, bool kEvictFirst = false>
__global__ void __launch_bounds__(32) tma_copy(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                                               std::uint64_t bytes) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ td::Barrier full[kStages];
  if (threadIdx.x != 0) return;
  const std::uint64_t nchunks = (bytes + kChunk - 1) / kChunk;
  if (blockIdx.x >= nchunks) return;
  const std::uint64_t per = (nchunks + gridDim.x - 1) / gridDim.x;  // contiguous runs
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * per;
  if (kContiguous && first >= nchunks) return;
  const std::uint64_t mine =
      kContiguous ? min_u64(per, nchunks - first) : (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
  for (std::uint32_t s = 0; s < kStages; ++s) td::init(full[s], 1);
  td::fence_smem_writes_for_async();  // barrier init visible to the async proxy
  std::uint32_t parity_bits = 0;      // phase parity per stage
  const std::uint64_t policy = kEvictFirst ? td::policy_evict_first() : 0;
  auto chunk_of = [&](std::uint64_t k) { return kContiguous ? first + k : blockIdx.x + k * gridDim.x; };
  auto issue_load = [&](std::uint64_t k) {
    const std::uint32_t s = static_cast<std::uint32_t>(k % kStages);
    const std::uint64_t off = chunk_of(k) * kChunk;
    const auto n = static_cast<std::uint32_t>(min_u64(kChunk, bytes - off));
    td::arrive_expect_tx(full[s], n);
    if constexpr (kEvictFirst) td::bulk_load_hint(smem + s * kChunk, src + off, n, full[s], policy);
    else td::bulk_load(smem + s * kChunk, src + off, n, full[s]);
  };
  const std::uint64_t pro = min_u64(kStages, mine);
  for (std::uint64_t k = 0; k < pro; ++k) issue_load(k);
  for (std::uint64_t k = 0; k < mine; ++k) {
    const std::uint32_t s = static_cast<std::uint32_t>(k % kStages);
    while (!td::try_wait(full[s], (parity_bits >> s) & 1u)) {
    }
    parity_bits ^= 1u << s;
    td::fence_smem_writes_for_async();  // conservative: order the observed completion before the async read
    const std::uint64_t off = chunk_of(k) * kChunk;
    const auto n = static_cast<std::uint32_t>(min_u64(kChunk, bytes - off));
    if constexpr (kEvictFirst) td::bulk_store_hint(dst + off, smem + s * kChunk, n, policy);
    else td::bulk_store(dst + off, smem + s * kChunk, n);
    td::commit_group();
    // Refill the stage used one iteration ago, once its store has read it (the store just issued
    // may still be reading).
    if (k >= 1 && k - 1 + kStages < mine) {
      td::wait_group_read<1>();
      issue_load(k - 1 + kStages);
    }
  }
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
template <std::uint32_t S, std::uint32_t C, int PerSm, bool Contig = false, bool Evict = false>
void run_tma_v(const unsigned char* s, unsigned char* d, std::uint64_t bytes, cudaStream_t st) {
  static const bool attr_set =
      cudaFuncSetAttribute(tma_copy<S, C, Contig, Evict>, cudaFuncAttributeMaxDynamicSharedMemorySize, S * C) == cudaSuccess;
  (void)attr_set;
  const std::uint64_t nchunks = (bytes + C - 1) / C;
  const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(nchunks, static_cast<std::uint64_t>(g_sms) * PerSm));
  tma_copy<S, C, Contig, Evict><<<grid, 32, S * C, st>>>(s, d, bytes);
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
  CK(cudaMalloc(&dst, max_bytes));
  unsigned long long* bad = nullptr;
  CK(cudaMalloc(&bad, sizeof(*bad)));
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

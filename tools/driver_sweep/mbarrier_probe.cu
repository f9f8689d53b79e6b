// mbarrier_probe: prints the raw 64-bit mbarrier state word after each step of a scripted sequence
// (init, arrive, expect_tx, a bulk copy completing bytes), so the watchdog can read pending
// arrivals, pending transaction bytes and the phase out of it. The PTX ISA leaves this layout
// opaque; this reads it off the hardware. Build for sm_90a.
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace ptx = cuda::ptx;

__device__ unsigned long long g_words[32];
__device__ int g_n;

// Two reads per step: a volatile generic load, and ld.shared.b64 on the shared-window address.
__device__ unsigned long long g_words2[32];
__device__ void snap(uint64_t* bar) {
  g_words[g_n] = *reinterpret_cast<volatile unsigned long long*>(bar);
  unsigned long long v;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile("ld.shared.b64 %0, [%1];" : "=l"(v) : "r"(a) : "memory");
  g_words2[g_n++] = v;
}

__global__ void probe(const int4* src) {
  __shared__ alignas(8) uint64_t bar;
  __shared__ alignas(128) int4 buf[64];
  if (threadIdx.x != 0) return;
  g_n = 0;
  ptx::mbarrier_init(&bar, 3);                         // 0: init count 3
  snap(&bar);
  ptx::mbarrier_arrive(&bar);                          // 1: one arrival
  snap(&bar);
  ptx::mbarrier_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bar, 1000);  // 2: +1000 tx
  snap(&bar);
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 24);  // 3: arrive + 24 tx
  snap(&bar);
  ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, src, 512, &bar);  // 4: complete 512 bytes
  for (int i = 0; i < 100000; ++i) __nanosleep(10);
  snap(&bar);
  ptx::mbarrier_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bar, 500000);  // 5: +500000 tx (the tx-count limit is 2^20 - 1)
  snap(&bar);
  ptx::mbarrier_init(&bar, 1);                         // 6: re-init count 1
  snap(&bar);
  ptx::mbarrier_arrive(&bar);                          // 7: completes phase 0 -> phase 1
  snap(&bar);
  ptx::mbarrier_arrive(&bar);                          // 8: completes phase 1 -> phase 2
  snap(&bar);
  ptx::mbarrier_init(&bar, 1000);                      // 9: count 1000
  snap(&bar);
  ptx::mbarrier_init(&bar, (1u << 20) - 1);            // 10: max count
  snap(&bar);
}

int main() {
  int4* src;
  cudaMalloc(&src, 4096);
  probe<<<1, 32>>>(src);
  if (cudaDeviceSynchronize() != cudaSuccess) return std::printf("kernel failed\n"), 1;
  unsigned long long w[32], w2[32];
  int n;
  cudaMemcpyFromSymbol(w, g_words, sizeof w);
  cudaMemcpyFromSymbol(w2, g_words2, sizeof w2);
  cudaMemcpyFromSymbol(&n, g_n, sizeof n);
  const char* what[] = {"init(3)", "arrive", "expect_tx(1000)", "arrive_expect_tx(24)", "bulk copy 512 B done",
                        "expect_tx(500000)", "init(1)", "arrive (phase 0 done)", "arrive (phase 1 done)",
                        "init(1000)", "init(2^20-1)"};
  for (int i = 0; i < n; ++i) std::printf("%2d %-24s generic 0x%016llx  ld.shared 0x%016llx\n", i, what[i], w[i], w2[i]);
  return 0;
}

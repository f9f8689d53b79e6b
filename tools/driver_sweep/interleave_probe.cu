// interleave_probe: what a TMA tiled load writes into shared memory for interleaved (16B / 32B)
// tensor maps. Global memory holds 32-bit words whose value is (word index + 1), so every 4 bytes of
// shared memory name the global bytes they came from (0 = zero fill). Each case is encoded by the
// driver; one CTA arms its barrier with a count that never completes, issues the load, waits 300 us
// (far longer than the copy), and dumps shared memory (pre-filled with 0xA5A5A5A5).
// Output per case: "case <args> -> enc <r>" then runs "smem_word_start+len=global_word_start" (a run
// of consecutive global words), "Z<len>" for zero words, "?" for untouched words (until the last
// written word).
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a interleave_probe.cu -lcuda -o interleave_probe
// Run:   ./interleave_probe < cases.txt     one case per line:
//   dtype(0..9) il(0..2) sw(0..3) rank  dims[rank]  strides[rank-1]  box[rank]  es[rank]  coords[rank]
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "probe_dump.hpp"

namespace ptx = cuda::ptx;
constexpr int kDumpWords = 16384;  // 64 KiB

__device__ uint32_t g_dump[kDumpWords];

__global__ void probe(const __grid_constant__ CUtensorMap map, int rank, int4 c03, int c4) {
  __shared__ alignas(8) uint64_t bar;
  extern __shared__ __align__(1024) uint32_t smem[];
  for (int i = threadIdx.x; i < kDumpWords; i += blockDim.x) smem[i] = 0xA5A5A5A5u;
  ptx::fence_proxy_async(ptx::space_shared);
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, (1u << 20) - 1);
    const int32_t c[5] = {c03.x, c03.y, c03.z, c03.w, c4};
    switch (rank) {
      case 3: { const int32_t k[3] = {c[0], c[1], c[2]}; ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem, &map, k, &bar); break; }
      case 4: { const int32_t k[4] = {c[0], c[1], c[2], c[3]}; ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem, &map, k, &bar); break; }
      default: ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem, &map, c, &bar); break;
    }
    uint64_t t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { __nanosleep(1000); asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < 300000);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kDumpWords; i += blockDim.x) g_dump[i] = smem[i];
}

int main() {
  cudaFree(nullptr);
  const size_t words = size_t(1) << 24;  // 64 MiB of global memory
  std::vector<uint32_t> host(words);
  for (size_t i = 0; i < words; ++i) host[i] = uint32_t(i + 1);
  uint32_t* d;
  cudaMalloc(&d, words * 4);
  cudaMemcpy(d, host.data(), words * 4, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kDumpWords * 4);
  std::vector<uint32_t> dump(kDumpWords);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    int dt, il, sw, rank;
    in >> dt >> il >> sw >> rank;
    cuuint64_t dims[5] = {}, strides[4] = {};
    cuuint32_t box[5] = {}, es[5] = {};
    int coords[5] = {};
    for (int i = 0; i < rank; ++i) in >> dims[i];
    for (int i = 0; i < rank - 1; ++i) in >> strides[i];
    for (int i = 0; i < rank; ++i) in >> box[i];
    for (int i = 0; i < rank; ++i) in >> es[i];
    for (int i = 0; i < rank; ++i) in >> coords[i];
    CUtensorMap m;
    CUresult r = cuTensorMapEncodeTiled(&m, CUtensorMapDataType(dt), rank, d, dims, strides, box, es,
                                        CUtensorMapInterleave(il), CUtensorMapSwizzle(sw),
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    std::printf("case %s -> enc %d", line.c_str(), int(r));
    if (r != CUDA_SUCCESS) { std::printf("\n"); std::fflush(stdout); continue; }
    probe<<<1, 256, kDumpWords * 4>>>(m, rank, int4{coords[0], coords[1], coords[2], coords[3]}, coords[4]);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf(" KERNEL_ERROR %s\n", cudaGetErrorString(e)); std::fflush(stdout); return 3; }
    cudaMemcpyFromSymbol(dump.data(), g_dump, kDumpWords * 4);
    print_word_runs(dump);
  }
  return 0;
}

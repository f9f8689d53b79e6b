// tma_layout_probe: what a TMA tiled load delivers with element strides != 1 and with interleave.
// For each case (encoded by the driver) it launches one CTA per candidate transaction count: only
// the count equal to the bytes the copy delivers completes the barrier (fewer leave it waiting;
// more drive the count negative, which also never completes). Then it dumps shared memory
// (pre-filled with 0xA5). Values are u16 = the element's linear index in the global tensor.
// Build for sm_90a: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tma_layout_probe.cu -lcuda
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

namespace ptx = cuda::ptx;

struct Case {
  const char* name;
  int rank;
  cuuint64_t dims[3];
  cuuint64_t strides[2];
  cuuint32_t box[3];
  cuuint32_t es[3];
  CUtensorMapInterleave il;
};

__device__ unsigned char g_dump[4096];
__device__ int g_done;

__global__ void probe(const __grid_constant__ CUtensorMap map, int rank, unsigned tx) {
  __shared__ alignas(8) uint64_t bar;
  extern __shared__ __align__(1024) unsigned char smem[];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) smem[i] = 0xA5;
  ptx::fence_proxy_async(ptx::space_shared);
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, tx);
    const int32_t c2[2] = {0, 0};
    const int32_t c3[3] = {0, 0, 0};
    if (rank == 2) ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem, &map, c2, &bar);
    else ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem, &map, c3, &bar);
  }
  int done = 0;
  for (int i = 0; i < 2000 && !done; ++i) {
    done = ptx::mbarrier_test_wait_parity(ptx::sem_acquire, ptx::scope_cta, &bar, 0u);
    __nanosleep(100);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) g_dump[i] = smem[i];
  if (threadIdx.x == 0) g_done = done;
}

int main(int argc, char** argv) {
  cudaFree(nullptr);
  std::vector<uint16_t> host(1 << 16);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint16_t>(i);
  uint16_t* d;
  cudaMalloc(&d, host.size() * 2);
  cudaMemcpy(d, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192);
  const Case cases[] = {
      {"es{1,2} box{32,8}", 2, {64, 8}, {128}, {32, 8}, {1, 2}, CU_TENSOR_MAP_INTERLEAVE_NONE},
      {"es{1,3} box{32,8}", 2, {64, 8}, {128}, {32, 8}, {1, 3}, CU_TENSOR_MAP_INTERLEAVE_NONE},
      {"es{2,1} box{32,4}", 2, {64, 8}, {128}, {32, 4}, {2, 1}, CU_TENSOR_MAP_INTERLEAVE_NONE},
      {"es{2,2} box{32,4}", 2, {64, 8}, {128}, {32, 4}, {2, 2}, CU_TENSOR_MAP_INTERLEAVE_NONE},
      {"il16 box{8,4,2}", 3, {8, 6, 4}, {16, 96}, {8, 4, 2}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 box{16,4,2}", 3, {16, 6, 4}, {32, 192}, {16, 4, 2}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il32 box{16,4,2}", 3, {16, 6, 4}, {32, 192}, {16, 4, 2}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_32B},
      {"il16 es{2,2,1} box{8,4,2}", 3, {8, 6, 4}, {16, 96}, {8, 4, 2}, {2, 2, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
  };
  // `tma_layout_probe il`: interleave 16B cases that vary one box dimension at a time.
  const Case il_cases[] = {
      {"il16 dims{8,16,4} box{8,2,1}", 3, {8, 16, 4}, {16, 256}, {8, 2, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{8,16,4} box{8,4,1}", 3, {8, 16, 4}, {16, 256}, {8, 4, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{8,16,4} box{8,8,1}", 3, {8, 16, 4}, {16, 256}, {8, 8, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{8,16,4} box{8,4,2}", 3, {8, 16, 4}, {16, 256}, {8, 4, 2}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{8,16,4} box{16,4,1}", 3, {8, 16, 4}, {16, 256}, {16, 4, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{8,3,4} box{8,4,1}", 3, {8, 3, 4}, {16, 48}, {8, 4, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{16,16,4} box{8,4,1}", 3, {16, 16, 4}, {32, 512}, {8, 4, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
      {"il16 dims{4,16,4} box{8,4,1}", 3, {4, 16, 4}, {16, 256}, {8, 4, 1}, {1, 1, 1}, CU_TENSOR_MAP_INTERLEAVE_16B},
  };
  const bool il_mode = argc > 1 && std::string(argv[1]) == "il";
  for (const Case& k : il_mode ? std::vector<Case>(std::begin(il_cases), std::end(il_cases))
                               : std::vector<Case>(std::begin(cases), std::end(cases))) {
    CUtensorMap m;
    CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_UINT16, k.rank, d, k.dims, k.strides, k.box, k.es,
                                        k.il, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const unsigned long long stored = reinterpret_cast<const unsigned long long*>(&m)[8];
    std::printf("== %s: encode %d, descriptor boxBytes %llu\n", k.name, int(r), stored);
    if (r != CUDA_SUCCESS) continue;
    // Candidate counts: every product of per-dim counts from {floor, ceil, box} choices, x 2 bytes.
    std::vector<unsigned> cands;
    for (int mask = 0; mask < 27; ++mask) {
      unsigned long long n = 2;
      int mm = mask;
      for (int i = 0; i < 3; ++i, mm /= 3) {
        if (i >= k.rank) continue;
        const unsigned b = k.box[i], e = k.es[i];
        n *= (mm % 3 == 0) ? b / e : (mm % 3 == 1) ? (b + e - 1) / e : b;
      }
      bool dup = false;
      for (unsigned c : cands) dup |= c == n;
      if (!dup && n < (1u << 20)) cands.push_back(static_cast<unsigned>(n));
    }
    int completed_for = -1;
    for (unsigned tx : cands) {
      probe<<<1, 128, 8192>>>(m, k.rank, tx);
      if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("   tx %u: kernel error %s\n", tx, cudaGetErrorString(cudaGetLastError())); return 1; }
      int done = 0;
      cudaMemcpyFromSymbol(&done, g_done, sizeof done);
      std::printf("   tx %5u: %s\n", tx, done ? "COMPLETES" : "no");
      if (done) completed_for = static_cast<int>(tx);
    }
    unsigned char dump[4096];
    cudaMemcpyFromSymbol(dump, g_dump, sizeof dump);  // from the last launch; data is the same
    int last = 4095;
    while (last > 0 && dump[last] == 0xA5) --last;
    std::printf("   delivered (completing tx) = %d; written up to byte %d; u16 values:", completed_for, last);
    for (int i = 0; i <= last && i < 512; i += 2) std::printf("%s%u", (i % 32) ? " " : "\n     ", dump[i] | (dump[i + 1] << 8));
    std::printf("\n");
  }
  return 0;
}

// im2col_probe: what an im2col TMA load (tmakit::device::load_im2col) writes into shared memory.
// Global memory holds 32-bit words whose value is (word index + 1), so each 4 bytes of shared
// memory name the global bytes they came from (0 = zero fill). Each case is encoded by the driver
// (cuTensorMapEncodeIm2col); one CTA arms its barrier with a count that never completes, issues the
// load, waits 300 us, and dumps shared memory (pre-filled with 0xA5A5A5A5). Output per case as
// interleave_probe.cu: "case <line> -> enc <r> written_words N : runs".
// Build: nvcc -std=c++20 --expt-relaxed-constexpr -I include -gencode=arch=compute_90a,code=sm_90a \
//          tools/driver_sweep/im2col_probe.cu -lcuda -o im2col_probe
// Input, one case per line:
//   dtype sw rank dims[rank] strides[rank-1] lower[rank-2] upper[rank-2] channels pixels es[rank]
//   coords[rank] offsets[rank-2]
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "probe_dump.hpp"

#include "tmakit/device.cuh"

namespace td = tmakit::device;
constexpr int kDumpWords = 16384;  // 64 KiB

__device__ uint32_t g_dump[kDumpWords];

__global__ void probe(const __grid_constant__ CUtensorMap map, int rank, int4 c03, int c4, ushort4 off) {
  __shared__ td::Barrier bar;
  extern __shared__ __align__(1024) uint32_t smem[];
  for (int i = threadIdx.x; i < kDumpWords; i += blockDim.x) smem[i] = 0xA5A5A5A5u;
  td::fence_smem_writes_for_async();
  if (threadIdx.x == 0) td::init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, td::kMaxTxBytes);
    if (rank == 3) {
      const std::int32_t c[3] = {c03.x, c03.y, c03.z};
      td::load_im2col(&map, smem, bar, c, off.x);
    } else if (rank == 4) {
      const std::int32_t c[4] = {c03.x, c03.y, c03.z, c03.w};
      td::load_im2col(&map, smem, bar, c, off.x, off.y);
    } else {
      const std::int32_t c[5] = {c03.x, c03.y, c03.z, c03.w, c4};
      td::load_im2col(&map, smem, bar, c, off.x, off.y, off.z);
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
  const size_t words = size_t(1) << 22;  // 16 MiB
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
    int dt, sw, rank;
    in >> dt >> sw >> rank;
    cuuint64_t dims[5] = {}, strides[4] = {};
    int lower[3] = {}, upper[3] = {}, coords[5] = {};
    unsigned offs[3] = {};
    cuuint32_t channels = 0, pixels = 0, es[5] = {};
    for (int i = 0; i < rank; ++i) in >> dims[i];
    for (int i = 0; i < rank - 1; ++i) in >> strides[i];
    for (int i = 0; i < rank - 2; ++i) in >> lower[i];
    for (int i = 0; i < rank - 2; ++i) in >> upper[i];
    in >> channels >> pixels;
    for (int i = 0; i < rank; ++i) in >> es[i];
    for (int i = 0; i < rank; ++i) in >> coords[i];
    for (int i = 0; i < rank - 2; ++i) in >> offs[i];
    CUtensorMap m;
    CUresult r = cuTensorMapEncodeIm2col(&m, CUtensorMapDataType(dt), rank, d, dims, strides, lower, upper, channels,
                                         pixels, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CUtensorMapSwizzle(sw),
                                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    std::printf("case %s -> enc %d", line.c_str(), int(r));
    if (r != CUDA_SUCCESS) { std::printf("\n"); std::fflush(stdout); continue; }
    probe<<<1, 256, kDumpWords * 4>>>(m, rank, int4{coords[0], coords[1], coords[2], coords[3]}, coords[4],
                                      ushort4{(unsigned short)offs[0], (unsigned short)offs[1], (unsigned short)offs[2], 0});
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf(" KERNEL_ERROR %s\n", cudaGetErrorString(e)); std::fflush(stdout); return 3; }
    cudaMemcpyFromSymbol(dump.data(), g_dump, kDumpWords * 4);
    print_word_runs(dump);
  }
  return 0;
}

// Shared by interleave_probe.cu and im2col_probe.cu: one CTA per case issues one TMA load into
// shared memory pre-filled with 0xA5A5A5A5, with its barrier armed for a count that never completes;
// it waits 300 us (far longer than any copy) and dumps shared memory. Global memory holds 32-bit
// words whose value is (word index + 1), so each dumped word names the global bytes it came from
// (0 = out-of-bounds fill). Per case the host prints
//   case <input line> -> enc <CUresult> written_words N : runs
// where runs are "a+n=g" (words a..a+n-1 hold global words g..g+n-1), "aZn" (n zero words) and
// "a?n" (n untouched words), up to the last written word; or "... KERNEL_ERROR <why>" and exits 3
// (the context is gone: probe_run.sh resumes after that case). tests/test_data.hpp reads it back.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tmakit/device.cuh"

namespace probe {

namespace td = tmakit::device;
constexpr int kDumpWords = 16384;  // 64 KiB of shared memory per case
constexpr std::uint32_t kFill = 0xA5A5A5A5u;

__device__ std::uint32_t g_dump[kDumpWords];

// The kernel body: `issue(smem, bar)` issues the load (thread 0, after arming).
template <class Issue>
__device__ void load_and_dump(std::uint32_t* smem, td::Barrier& bar, Issue issue) {
  for (int i = threadIdx.x; i < kDumpWords; i += blockDim.x) smem[i] = kFill;
  td::fence_smem_writes_for_async();
  if (threadIdx.x == 0) td::init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, td::kMaxTxBytes);  // never completes: the dump reads whatever landed
    issue(smem, bar);
    const std::uint64_t t0 = cuda::ptx::get_sreg_globaltimer();
    while (cuda::ptx::get_sreg_globaltimer() - t0 < 300000) __nanosleep(1000);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kDumpWords; i += blockDim.x) g_dump[i] = smem[i];
}

inline void print_word_runs(const std::vector<std::uint32_t>& dump) {
  int last = static_cast<int>(dump.size()) - 1;
  while (last >= 0 && dump[last] == kFill) --last;
  std::printf(" written_words %d :", last + 1);
  for (int i = 0; i <= last;) {
    int j = i + 1;
    if (dump[i] == kFill) {
      while (j <= last && dump[j] == kFill) ++j;
      std::printf(" %d?%d", i, j - i);
    } else if (dump[i] == 0) {
      while (j <= last && dump[j] == 0) ++j;
      std::printf(" %dZ%d", i, j - i);
    } else {
      while (j <= last && dump[j] == dump[j - 1] + 1) ++j;
      std::printf(" %d+%d=%u", i, j - i, dump[i] - 1);
    }
    i = j;
  }
  std::printf("\n");
  std::fflush(stdout);
}

// The host side: a global image of `words` words (word k = k + 1), then one case per stdin line
// ('#' lines and blank lines skipped). encode_and_launch(line, global) encodes the case's map and,
// when that succeeds, launches the kernel; it returns the CUresult of the encode.
template <class F>
int run_cases(std::size_t words, F encode_and_launch) {
  cudaFree(nullptr);
  std::vector<std::uint32_t> host(words);
  for (std::size_t i = 0; i < words; ++i) host[i] = static_cast<std::uint32_t>(i + 1);
  std::uint32_t* d = nullptr;
  if (cudaMalloc(&d, words * 4) != cudaSuccess) return 2;
  cudaMemcpy(d, host.data(), words * 4, cudaMemcpyHostToDevice);
  std::vector<std::uint32_t> dump(kDumpWords);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::printf("case %s -> enc ", line.c_str());
    const CUresult r = encode_and_launch(line, d);
    std::printf("%d", static_cast<int>(r));
    if (r != CUDA_SUCCESS) {
      std::printf("\n");
      std::fflush(stdout);
      continue;
    }
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf(" KERNEL_ERROR %s\n", cudaGetErrorString(e));
      std::fflush(stdout);
      return 3;
    }
    cudaMemcpyFromSymbol(dump.data(), g_dump, kDumpWords * 4);
    print_word_runs(dump);
  }
  cudaFree(d);
  return 0;
}

}  // namespace probe

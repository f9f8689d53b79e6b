// Timing across ranks for the multi-GPU benchmarks (bench_collectives, bench_allgather_gemm; one
// process per GPU): a sample is `iters` launches back to back between CUDA events, started after an
// NCCL all-reduce that lines the ranks up; its time is the slowest rank's (an NCCL max all-reduce of
// the host values), so every rank reports the same number.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "check.hpp"
#include "kernels/collectives_sm90/collectives.hpp"

#define NK(x)                                                                                 \
  do {                                                                                        \
    ncclResult_t r_ = (x);                                                                    \
    if (r_ != ncclSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace tmakit_bench {

struct RankTimer {
  tmakit::collectives::Communicator* comm = nullptr;
  cudaStream_t st{};
  cudaEvent_t e0{}, e1{};
  float* scratch = nullptr;  // one float for the all-reduces

  explicit RankTimer(tmakit::collectives::Communicator* c) : comm(c) {
    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMalloc(&scratch, sizeof(float)));
  }
  RankTimer(const RankTimer&) = delete;
  RankTimer& operator=(const RankTimer&) = delete;
  ~RankTimer() {
    cudaStreamSynchronize(st);
    cudaFree(scratch);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
  }

  // The slowest rank's value.
  double max_over_ranks(double v) {
    float f = static_cast<float>(v);
    CK(cudaMemcpyAsync(scratch, &f, sizeof f, cudaMemcpyHostToDevice, st));
    NK(ncclAllReduce(scratch, scratch, 1, ncclFloat32, ncclMax, comm->nccl(), st));
    CK(cudaMemcpyAsync(&f, scratch, sizeof f, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    return f;
  }

  // Times `iters` launches of op() on st; the slowest rank's microseconds per launch.
  template <class Op>
  double time_sample(int iters, Op op) {
    NK(ncclAllReduce(scratch, scratch, 1, ncclFloat32, ncclMax, comm->nccl(), st));  // line the ranks up
    CK(cudaEventRecord(e0, st));
    for (int i = 0; i < iters; ++i) op();
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return max_over_ranks(1000.0 * ms / iters);
  }
};

// One line: the device, the ranks, driver, NCCL, the date, whether the watchdog is compiled in, and
// NVLink multicast's switch (rank 0 prints it at the top of a benchmark's output).
inline void print_device_line(int world, bool watchdog) {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, nccl = 0;
  cudaDriverGetVersion(&driver);
  ncclGetVersion(&nccl);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  std::printf("device: %s x %d, %d SMs, driver API %d, NCCL %d, %s, watchdog %s, NCCL_NVLS_ENABLE=%s\n", prop.name, world,
              prop.multiProcessorCount, driver, nccl, date, watchdog ? "on" : "off", nvls ? nvls : "(unset)");
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace tmakit_bench

// The all-gather fused into the GEMM (kernels/allgather_gemm_sm90) against the unfused ways, side
// by side in one run, one process per GPU:
//   build/kernels/collectives_sm90/tmakit_ranks N build/bench/bench_allgather_gemm out.csv [samples] [shape filter]
//
// Each rank computes D (M x N) = allgather(A) * B, A (M x K bf16) row-sharded over the N ranks, B
// (K x N, K-major) its own. Per shape, timed alternately sample by sample:
//   gemm          tmakit's GEMM alone on an A already gathered (all SMs; the goal's reference)
//   cublas        cuBLASLt alone on the same A (the best of its heuristic candidates)
//   nccl+gemm     ncclAllGather of the shards, then tmakit's GEMM
//   nccl+cublas   ncclAllGather, then cuBLASLt
//   fused P=4/8/16  one launch: P puller CTAs, the GEMM on the other SMs
// A sample is `iters` launches (pairs of launches for the unfused ways) between CUDA events; its
// time is the slowest rank's; the median of `samples` (default 15) is reported, with TFLOP/s
// (2 M N K per rank) and the ratio to `gemm` (the goal: fused within 1.10x). The SM clock (NVML) is
// read before and after each shape. Each fused form's D is checked once against cuBLASLt's (largest
// difference relative to max |D|). Shapes: M 8192, 16384 x N 2048, 4096, K 8192, and the pull-bound
// M 8192, 16384 x N 256, K 8192.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/nvml.hpp"
#include "bf16_data.cuh"
#include "check.hpp"
#include "cublaslt_gemm.hpp"
#include "kernels/allgather_gemm_sm90/allgather_gemm.hpp"
#include "kernels/gemm_sm90/gemm.hpp"
#include "rank_timer.hpp"

namespace tc = tmakit::collectives;
namespace ag = tmakit::allgather_gemm;
namespace gs = tmakit::gemm_sm90;

namespace {

struct Shape {
  std::int64_t m, n, k;
};

struct Row {
  std::string impl;
  int pullers;
  Shape s;
  double median_us, min_us, max_us, tflops, ratio, rel_diff;
  unsigned mhz0, mhz1;
  int samples;
};

// The largest |x - ref| over max |ref| of two bf16 outputs.
double relative_difference(const void* x, const void* ref, std::size_t n, cudaStream_t st) {
  float* diff = nullptr;
  CK(cudaMalloc(&diff, 8));
  CK(cudaMemsetAsync(diff, 0, 8, st));
  tmakit_bench::max_diff<<<1024, 256, 0, st>>>(static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(ref), n, diff);
  float h[2];
  CK(cudaMemcpyAsync(h, diff, 8, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  cudaFree(diff);
  return h[1] > 0 ? h[0] / h[1] : h[0];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string csv = argc > 1 ? argv[1] : "bench_allgather_gemm.csv";
  const int samples = argc > 2 ? std::max(5, std::atoi(argv[2])) : 15;
  const std::string filter = argc > 3 ? argv[3] : "";
  std::string err;
  auto comm = tc::join_from_env(&err);
  if (!comm) {
    std::fprintf(stderr, "bench_allgather_gemm: %s\n", err.c_str());
    return 1;
  }
  const int w = comm->world(), rank = comm->rank();
  tmakit_bench::RankTimer timer(comm.get());
  cudaStream_t st = timer.st;
  tmakit_bench::Nvml nvml;
  if (rank == 0) tmakit_bench::print_device_line(w, ag::watchdog_compiled_in());

  // The last two are pull-bound: with N = 256 the GEMM alone is short, so the fused call's time is
  // about that of its pull of the other ranks' rows of A (filter "x256x" runs them alone).
  const std::vector<Shape> shapes = {{8192, 2048, 8192}, {8192, 4096, 8192}, {16384, 2048, 8192}, {16384, 4096, 8192},
                                     {8192, 256, 8192},  {16384, 256, 8192}};
  const int puller_counts[] = {4, 8, 16};
  std::int64_t max_a = 0, max_b = 0, max_d = 0;
  for (const Shape& s : shapes) {
    max_a = std::max(max_a, s.m * s.k);
    max_b = std::max(max_b, s.k * s.n);
    max_d = std::max(max_d, s.m * s.n);
  }
  tc::Window a;  // A in place: this rank's rows filled, the fused call gathers the others
  if (!comm->alloc_window(static_cast<std::size_t>(max_a) * 2, &a, &err)) {
    std::fprintf(stderr, "bench_allgather_gemm: %s\n", err.c_str());
    return 1;
  }
  void *a_full = nullptr, *b = nullptr, *d = nullptr, *d_ref = nullptr;  // a_full: NCCL's gathered A
  CK(cudaMalloc(&a_full, static_cast<std::size_t>(max_a) * 2));
  CK(cudaMalloc(&b, static_cast<std::size_t>(max_b) * 2));
  CK(cudaMalloc(&d, static_cast<std::size_t>(max_d) * 2));
  CK(cudaMalloc(&d_ref, static_cast<std::size_t>(max_d) * 2));

  std::vector<Row> rows;
  if (rank == 0)
    std::printf("%-12s %6s %6s %6s %3s %10s %8s %7s %9s %11s\n", "impl", "M", "N", "K", "P", "median us", "TFLOP/s",
                "/gemm", "rel diff", "SM MHz");
  for (const Shape& s : shapes) {
    const std::string name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    const std::int64_t shard = s.m / w;
    auto* own = static_cast<__nv_bfloat16*>(a.ptr) + rank * shard * s.k;
    tmakit_bench::fill_bf16<<<1024, 256, 0, st>>>(own, static_cast<std::size_t>(shard * s.k), 11 + rank);
    tmakit_bench::fill_bf16<<<1024, 256, 0, st>>>(static_cast<__nv_bfloat16*>(b), static_cast<std::size_t>(s.k * s.n), 101);
    auto all_gather = [&] {
      NK(ncclAllGather(own, a_full, static_cast<std::size_t>(shard * s.k), ncclBfloat16, comm->nccl(), st));
    };
    all_gather();
    CK(cudaStreamSynchronize(st));

    gs::GemmArgs g;  // the GEMM's own choices (cluster, split K)
    g.m = s.m;
    g.n = s.n;
    g.k = s.k;
    g.a = {a_full, gs::Order::row_major, s.k, 0};
    g.b = {b, gs::Order::col_major, s.k, 0};
    g.d = {d, gs::Order::row_major, s.n, 0};
    const gs::Gemm gemm(g);
    if (!gemm.status().ok) {
      std::fprintf(stderr, "gemm: %s\n", gemm.status().errors.empty() ? "" : gemm.status().errors[0].c_str());
      return 1;
    }
    tmakit_bench::LtGemm lt;
    lt.setup(s.m, s.n, s.k, gs::Order::row_major, gs::Order::col_major);
    lt.pick(a_full, b, d_ref, st);
    lt.run(a_full, b, d_ref, st);  // the reference D

    struct Impl {
      std::string name;
      int pullers;
      std::function<void()> run;
      double rel_diff;
    };
    std::vector<Impl> impls;
    impls.push_back({"gemm", 0, [&] { CK(gemm.launch(st)); }, -1});
    impls.push_back({"cublas", 0, [&] { lt.run(a_full, b, d, st); }, -1});
    impls.push_back({"nccl+gemm", 0, [&] { all_gather(); CK(gemm.launch(st)); }, -1});
    impls.push_back({"nccl+cublas", 0, [&] { all_gather(); lt.run(a_full, b, d, st); }, -1});
    std::vector<std::unique_ptr<ag::AllGatherGemm>> fused;
    for (int p : puller_counts) {
      ag::AllGatherGemmArgs f;
      f.m = s.m;
      f.n = s.n;
      f.k = s.k;
      f.a = &a;
      f.b = b;
      f.ldb = s.k;
      f.d = d;
      f.ldd = s.n;
      f.pullers = p;
      fused.push_back(std::make_unique<ag::AllGatherGemm>(*comm, f));
      if (!fused.back()->status().ok) {
        if (rank == 0)
          std::printf("skip fused P=%d %s: %s\n", p, name.c_str(),
                      fused.back()->status().errors.empty() ? "" : fused.back()->status().errors[0].c_str());
        fused.pop_back();
        continue;
      }
      ag::AllGatherGemm* op = fused.back().get();
      CK(cudaMemsetAsync(d, 0, static_cast<std::size_t>(s.m * s.n) * 2, st));
      CK(op->launch(*comm, st));
      const double rel = timer.max_over_ranks(relative_difference(d, d_ref, static_cast<std::size_t>(s.m * s.n), st));
      impls.push_back({"fused", p, [op, &comm, st] { CK(op->launch(*comm, st)); }, rel});
    }

    // Launches per sample: about 2 ms of the GEMM alone.
    const double one = timer.time_sample(1, impls[0].run);
    const int iters = std::max(1, static_cast<int>(2000.0 / std::max(one, 1.0)));
    for (Impl& x : impls) timer.time_sample(iters, x.run);  // warm-up
    std::vector<std::vector<double>> t(impls.size());
    const unsigned mhz0 = nvml.sm_mhz();
    for (int smp = 0; smp < samples; ++smp)
      for (std::size_t i = 0; i < impls.size(); ++i) {
        const std::size_t x = (i + static_cast<std::size_t>(smp)) % impls.size();  // rotate which goes first
        t[x].push_back(timer.time_sample(iters, impls[x].run));
      }
    const unsigned mhz1 = nvml.sm_mhz();
    const double flop = 2.0 * s.m * s.n * s.k;
    const double gemm_us = tmakit_bench::median(t[0]);
    for (std::size_t x = 0; x < impls.size(); ++x) {
      const double med = tmakit_bench::median(t[x]);
      rows.push_back({impls[x].name, impls[x].pullers, s, med, *std::min_element(t[x].begin(), t[x].end()),
                      *std::max_element(t[x].begin(), t[x].end()), flop / (med * 1e-6) / 1e12, med / gemm_us,
                      impls[x].rel_diff, mhz0, mhz1, samples});
      const Row& r = rows.back();
      if (rank == 0)
        std::printf("%-12s %6lld %6lld %6lld %3d %10.1f %8.1f %7.3f %9.2e %5u-%-5u\n", r.impl.c_str(),
                    static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), r.pullers,
                    r.median_us, r.tflops, r.ratio, r.rel_diff, mhz0, mhz1);
    }
    if (rank == 0) std::fflush(stdout);
    CK(cudaStreamSynchronize(st));
  }
  if (rank == 0) {
    FILE* f = std::fopen(csv.c_str(), "w");
    if (f) {
      std::fprintf(f, "impl,gpus,m,n,k,pullers,median_us,min_us,max_us,tflops_per_rank,ratio_to_gemm,rel_diff,sm_mhz_before,sm_mhz_after,samples\n");
      for (const Row& r : rows)
        std::fprintf(f, "%s,%d,%lld,%lld,%lld,%d,%.2f,%.2f,%.2f,%.1f,%.4f,%.3e,%u,%u,%d\n", r.impl.c_str(), w,
                     static_cast<long long>(r.s.m), static_cast<long long>(r.s.n), static_cast<long long>(r.s.k), r.pullers,
                     r.median_us, r.min_us, r.max_us, r.tflops, r.ratio, r.rel_diff, r.mhz0, r.mhz1, r.samples);
      std::fclose(f);
      std::printf("wrote %s (%zu rows)\n", csv.c_str(), rows.size());
    }
  }
  CK(cudaStreamSynchronize(st));
  cudaFree(d_ref);
  cudaFree(d);
  cudaFree(b);
  cudaFree(a_full);
  comm->free_window(a);
  return 0;
}

// tmakit's sm_90a GEMM (kernels/gemm_sm90) against cuBLASLt, side by side in one process.
//
// For each shape: random bf16 inputs in [-1, 1]; cuBLASLt gets the best of up to 16 heuristic
// candidates (each timed, the fastest kept); both run on the same stream, alternating, each timed
// sample being a burst of launches long enough (>= 2 ms) for event timing; several buffer sets are
// rotated so that a shape that fits in L2 is read from HBM as in a real model; the median of the
// samples is reported as TFLOP/s = 2 M N K / time. The SM clock and board power (NVML, loaded at run
// time) are read before and after each shape. Both outputs are compared once per shape (the largest
// difference relative to max |D|), so that a fast wrong kernel cannot pass as a result.
//
//   build/bench/bench_gemm [samples=21] [shape filter substring]
//   TMAKIT_GEMM_CLUSTER_M=1|2 forces GemmArgs::cluster_m (clusters of two share B by multicast).
//   TMAKIT_GEMM_SPLITS=n sets GemmArgs::splits (1: no split K; n > 1: n K slices; unset: automatic).
//   TMAKIT_GEMM_TILE_N=n sets GemmArgs::tile_n (64, 128, 192 or 256; unset: automatic).
//   TMAKIT_GEMM_TILE_M=n sets GemmArgs::tile_m (64 or 128; unset: automatic).
//   TMAKIT_GEMM_SWAPPED=1|-1 sets GemmArgs::swapped (1: swapped 128 x 64 tiles; -1: never; unset: automatic).
//   TMAKIT_GEMM_PINGPONG=1|-1 sets GemmArgs::pingpong (1: ping-pong tiles, TILE_N 128 or 192; -1: never).
//   TMAKIT_GEMM_SPLIT_LEAD=n sets GemmArgs::split_lead (K blocks the first slice gives to the last).
//   TMAKIT_GEMM_EARLY_START=0 sets GemmArgs::early_start = false (plain launches, no programmatic
//   dependent launch).
//   TMAKIT_GEMM_FP8=e4m3|e5m2 runs the FP8 GEMM instead (A e4m3, B of the type given, per-tensor
//   scales of 1, D bf16; the shapes with A row-major and B column-major) against cuBLASLt's FP8 GEMM
//   in its default accumulation and, as a third contender (column cublas_fast_tflops), with
//   CUBLASLT_MATMUL_DESC_FAST_ACCUM. TMAKIT_GEMM_FAST_ACCUM=1 sets GemmArgs::fast_accumulation (else
//   tmakit promotes every K block, as cuBLASLt's default does).
//   TMAKIT_GEMM_BLOCK_SCALES=1 (with TMAKIT_GEMM_FP8) runs the block-scaled FP8 GEMM (GemmArgs::a_scales,
//   b_scales: 1 x 128 along K for A, 128 x 128 blocks for B) on DeepGEMM's shapes instead of the set
//   above. Every scale is 1, so that its output is compared with cuBLASLt's per-tensor FP8 GEMM
//   (scales 1), which is timed beside it; the scales are read and applied as with any other values.
//   TMAKIT_BENCH_REFERENCE=lib.so times a third GEMM beside the two, for the shapes it takes (A
//   row-major, B column-major): a shared library exporting
//     extern "C" const char* reference_gemm_name();
//     extern "C" void* reference_gemm_prepare(int m, int n, int k, const void* a, const void* b, void* d);
//         (nullptr: this shape is not taken; D is written column-major, m x n)
//     extern "C" int reference_gemm_run(void* prepared, cudaStream_t stream);   (0: launched)
//   e.g. a public hand-written Hopper kernel built on the GPU machine; its output is compared too.
// Prints one table row per shape and a CSV block (for docs/lab and tools/plot_gemm_bench.py).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/nvml.hpp"
#include "kernels/gemm_sm90/gemm.hpp"
#include "check.hpp"
#include "bf16_data.cuh"
#include "cublaslt_gemm.hpp"

using tmakit::gemm_sm90::GemmArgs;
using tmakit::gemm_sm90::GemmStatus;
using tmakit::gemm_sm90::Matrix;
using tmakit::gemm_sm90::Order;

using tmakit_bench::fill_bf16;
using tmakit_bench::max_diff;

namespace {

struct Shape {
  std::string name;
  std::int64_t m, n, k;
  Order a = Order::row_major, b = Order::col_major;
};

struct Buffers {
  void *a = nullptr, *b = nullptr;  // bf16, or FP8 (TMAKIT_GEMM_FP8)
  __nv_bfloat16* d = nullptr;
};

// The optional third GEMM (TMAKIT_BENCH_REFERENCE), loaded at run time.
struct Reference {
  const char* (*name)() = nullptr;
  void* (*prepare)(int, int, int, const void*, const void*, void*) = nullptr;
  int (*run)(void*, cudaStream_t) = nullptr;
  bool load(const char* path) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "bench_gemm: %s\n", dlerror());
      return false;
    }
    name = reinterpret_cast<const char* (*)()>(dlsym(h, "reference_gemm_name"));
    prepare = reinterpret_cast<void* (*)(int, int, int, const void*, const void*, void*)>(dlsym(h, "reference_gemm_prepare"));
    run = reinterpret_cast<int (*)(void*, cudaStream_t)>(dlsym(h, "reference_gemm_run"));
    return name && prepare && run;
  }
};

// Largest |x - y^T| over an m x n row-major x and a column-major y, and max |y| (device, one block).
__global__ void max_diff_transposed(const __nv_bfloat16* x, const __nv_bfloat16* y, long long m, long long n, float* out) {
  float d = 0.0f, r = 0.0f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / n, col = i % n;
    const float a = __bfloat162float(x[i]), b = __bfloat162float(y[col * m + row]);
    d = fmaxf(d, fabsf(a - b));
    r = fmaxf(r, fabsf(b));
  }
  atomicMax(reinterpret_cast<int*>(out), __float_as_int(d));
  atomicMax(reinterpret_cast<int*>(out) + 1, __float_as_int(r));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::max(5, std::atoi(argv[1])) : 21;
  const std::string filter = argc > 2 ? argv[2] : "";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("device: %s, %d SMs, L2 %d MiB, driver API %d, cuBLASLt %zu\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, driver, cublasLtGetVersion());
  tmakit_bench::Nvml nvml;
  const char* fp8_env = std::getenv("TMAKIT_GEMM_FP8");
  const bool fp8 = fp8_env && *fp8_env;
  const bool b_e5m2 = fp8 && std::strcmp(fp8_env, "e5m2") == 0;
  if (fp8) std::printf("FP8: A e4m3, B %s, per-tensor scales 1, D bf16\n", b_e5m2 ? "e5m2" : "e4m3");
  const std::size_t in_bytes = fp8 ? 1 : 2;
  // FP8: scale_a = scale_b = 1, each in an allocation of its own, as torch's scale tensors are
  // (cuBLASLt refused every FP8 candidate with the two 4 bytes apart: docs/lab/gemm.md, 2026-12-07 07:48)
  float* unit_scales[2] = {nullptr, nullptr};
  for (int i = 0; fp8 && i < 2; ++i) {
    const float one = 1.0f;
    CK(cudaMalloc(&unit_scales[i], sizeof one));
    CK(cudaMemcpy(unit_scales[i], &one, sizeof one, cudaMemcpyHostToDevice));
  }
  Reference reference;
  if (const char* path = std::getenv("TMAKIT_BENCH_REFERENCE"); path && *path) {
    if (!reference.load(path)) return 1;
    const char* base = std::strrchr(path, '/');
    std::printf("reference: %s (%s)\n", reference.name(), base ? base + 1 : path);
  }

  const char* block_env = std::getenv("TMAKIT_GEMM_BLOCK_SCALES");
  const bool block_scales = fp8 && block_env && std::atoi(block_env) == 1;
  if (block_scales) std::printf("FP8 block scales: A 1 x 128 along K, B 128 x 128 (all 1)\n");
  // DeepGEMM's shapes for its dense FP8 GEMM (its README's table): M x N x K.
  const std::vector<Shape> deepgemm_shapes = {
      {"64x2112x7168", 64, 2112, 7168},     {"64x24576x1536", 64, 24576, 1536},
      {"64x32768x512", 64, 32768, 512},     {"64x7168x16384", 64, 7168, 16384},
      {"64x4096x7168", 64, 4096, 7168},     {"64x7168x2048", 64, 7168, 2048},
      {"128x2112x7168", 128, 2112, 7168},   {"128x24576x1536", 128, 24576, 1536},
      {"128x32768x512", 128, 32768, 512},   {"128x7168x16384", 128, 7168, 16384},
      {"128x4096x7168", 128, 4096, 7168},   {"128x7168x2048", 128, 7168, 2048},
      {"4096x2112x7168", 4096, 2112, 7168}, {"4096x24576x1536", 4096, 24576, 1536},
      {"4096x32768x512", 4096, 32768, 512}, {"4096x7168x16384", 4096, 7168, 16384},
      {"4096x4096x7168", 4096, 4096, 7168}, {"4096x7168x2048", 4096, 7168, 2048},
  };
  const std::vector<Shape> default_shapes = {
      {"4096^3", 4096, 4096, 4096},
      {"6144^3", 6144, 6144, 6144},
      {"8192^3", 8192, 8192, 8192},
      {"16384x8192x8192", 16384, 8192, 8192},
      {"8192x28672x4096", 8192, 28672, 4096},
      {"8192x4096x14336", 8192, 4096, 14336},
      {"128x8192x8192", 128, 8192, 8192},
      {"256x8192x8192", 256, 8192, 8192},
      {"512x8192x8192", 512, 8192, 8192},
      {"256x2112x7168", 256, 2112, 7168},
      {"8192^3 A col", 8192, 8192, 8192, Order::col_major, Order::col_major},
      {"8192^3 B row", 8192, 8192, 8192, Order::row_major, Order::row_major},
      {"8192^3 A col B row", 8192, 8192, 8192, Order::col_major, Order::row_major},
  };
  const std::vector<Shape>& shapes = block_scales ? deepgemm_shapes : default_shapes;

  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::string csv = "shape,m,n,k,a,b,cublas_tflops,tmakit_tflops,ratio,sm_mhz_before,sm_mhz_after,watts_before,watts_after,max_rel_diff,reference_tflops,cublas_fast_tflops,err_tmakit,err_cublas,err_cublas_fast\n";
  std::printf("%-20s %10s %10s %7s %11s %9s %9s\n", "shape", "cuBLASLt", "tmakit", "ratio", "SM MHz", "W", "diff");

  for (const Shape& s : shapes) {
    if (!filter.empty() && s.name.find(filter) == std::string::npos) continue;
    if (fp8 && (s.a != Order::row_major || s.b != Order::col_major)) continue;  // FP8 operands are K-major
    const std::size_t na = s.m * s.k, nb = s.k * s.n, nd = s.m * s.n;
    const std::size_t set_bytes = in_bytes * (na + nb) + 2 * nd;
    const int sets = static_cast<int>(std::min<std::size_t>(8, std::max<std::size_t>(1, (512u << 20) / set_bytes + 1)));
    std::vector<Buffers> buf(sets);
    for (int i = 0; i < sets; ++i) {
      CK(cudaMalloc(&buf[i].a, in_bytes * na));
      CK(cudaMalloc(&buf[i].b, in_bytes * nb));
      CK(cudaMalloc(&buf[i].d, 2 * nd));
      if (!fp8) {
        fill_bf16<<<1024, 256>>>(static_cast<__nv_bfloat16*>(buf[i].a), na, 11 + i);
        fill_bf16<<<1024, 256>>>(static_cast<__nv_bfloat16*>(buf[i].b), nb, 101 + i);
      } else {
        tmakit_bench::fill_fp8<false><<<1024, 256>>>(static_cast<std::uint8_t*>(buf[i].a), na, 11 + i);
        if (b_e5m2) tmakit_bench::fill_fp8<true><<<1024, 256>>>(static_cast<std::uint8_t*>(buf[i].b), nb, 101 + i);
        else tmakit_bench::fill_fp8<false><<<1024, 256>>>(static_cast<std::uint8_t*>(buf[i].b), nb, 101 + i);
      }
    }
    // Block scales of 1: A's (K blocks x M, M contiguous), B's (N blocks x K blocks).
    const std::int64_t k_blocks = (s.k + 127) / 128, n_blocks = (s.n + 127) / 128;
    float *a_scales = nullptr, *b_scales = nullptr;
    if (block_scales) {
      const std::vector<float> ones(static_cast<std::size_t>(std::max(k_blocks * s.m, n_blocks * k_blocks)), 1.0f);
      CK(cudaMalloc(&a_scales, sizeof(float) * k_blocks * s.m));
      CK(cudaMalloc(&b_scales, sizeof(float) * n_blocks * k_blocks));
      CK(cudaMemcpy(a_scales, ones.data(), sizeof(float) * k_blocks * s.m, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(b_scales, ones.data(), sizeof(float) * n_blocks * k_blocks, cudaMemcpyHostToDevice));
    }
    __nv_bfloat16* dref = nullptr;
    CK(cudaMalloc(&dref, 2 * nd));
    CK(cudaDeviceSynchronize());

    tmakit_bench::LtGemm lt, lt_fast;  // lt_fast: FP8 only, with fast accumulation
    if (fp8) {
      const cudaDataType_t b8 = b_e5m2 ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3;
      lt.setup_fp8(s.m, s.n, s.k, CUDA_R_8F_E4M3, b8, unit_scales[0], unit_scales[1], false);
      lt_fast.setup_fp8(s.m, s.n, s.k, CUDA_R_8F_E4M3, b8, unit_scales[0], unit_scales[1], true);
      lt_fast.pick(buf[0].a, buf[0].b, buf[0].d, st);
    } else {
      lt.setup(s.m, s.n, s.k, s.a, s.b);
    }
    lt.pick(buf[0].a, buf[0].b, buf[0].d, st);

    const char* force = std::getenv("TMAKIT_GEMM_CLUSTER_M");  // measurements: force the cluster size
    const char* splits = std::getenv("TMAKIT_GEMM_SPLITS");
    const char* tile_n = std::getenv("TMAKIT_GEMM_TILE_N");
    const char* tile_m = std::getenv("TMAKIT_GEMM_TILE_M");
    const char* swapped = std::getenv("TMAKIT_GEMM_SWAPPED");
    const char* split_lead = std::getenv("TMAKIT_GEMM_SPLIT_LEAD");
    const char* pingpong = std::getenv("TMAKIT_GEMM_PINGPONG");
    const char* early_start = std::getenv("TMAKIT_GEMM_EARLY_START");
    auto args = [&](const Buffers& x) {
      GemmArgs g;
      g.cluster_m = force ? std::atoi(force) : 0;
      g.splits = splits ? std::atoi(splits) : 0;
      g.tile_n = tile_n ? std::atoi(tile_n) : 0;
      g.tile_m = tile_m ? std::atoi(tile_m) : 0;
      g.swapped = swapped ? std::atoi(swapped) : 0;
      g.split_lead = split_lead ? std::atoi(split_lead) : -1;
      g.pingpong = pingpong ? std::atoi(pingpong) : 0;
      g.early_start = !(early_start && std::atoi(early_start) == 0);
      g.m = s.m;
      g.n = s.n;
      g.k = s.k;
      g.a = Matrix{x.a, s.a, s.a == Order::row_major ? s.k : s.m, 0};
      g.b = Matrix{x.b, s.b, s.b == Order::row_major ? s.n : s.k, 0};
      g.d = Matrix{x.d, Order::row_major, s.n, 0};
      if (fp8) {
        g.a_type = tmakit::gemm_sm90::Input::e4m3;
        g.b_type = b_e5m2 ? tmakit::gemm_sm90::Input::e5m2 : tmakit::gemm_sm90::Input::e4m3;
        g.scale_a = unit_scales[0];
        g.scale_b = unit_scales[1];
        const char* fast = std::getenv("TMAKIT_GEMM_FAST_ACCUM");
        g.fast_accumulation = fast && std::atoi(fast) == 1;
        if (block_scales) {
          g.scale_a = g.scale_b = nullptr;
          g.fast_accumulation = false;
          g.a_scales = a_scales;
          g.a_scales_ld = s.m;
          g.b_scales = b_scales;
          g.b_scales_ld = k_blocks;
        }
      }
      return g;
    };
    // One prepared GEMM per buffer set (planned and encoded outside the timed loop, as cuBLASLt's
    // descriptors and heuristic are).
    std::vector<tmakit::gemm_sm90::Gemm> prepared;
    for (const Buffers& x : buf) {
      prepared.emplace_back(args(x));
      if (!prepared.back().status().ok) {
        for (const auto& e : prepared.back().status().errors) std::fprintf(stderr, "tmakit: %s\n", e.c_str());
        std::exit(1);
      }
    }
    auto run_tmakit = [&](const Buffers& x) { CK(prepared[&x - buf.data()].launch(st)); };

    // correctness once: same inputs, both outputs
    lt.run(buf[0].a, buf[0].b, buf[0].d, st);
    CK(cudaMemcpyAsync(dref, buf[0].d, 2 * nd, cudaMemcpyDeviceToDevice, st));
    run_tmakit(buf[0]);
    float* diff = nullptr;
    CK(cudaMalloc(&diff, 8));
    CK(cudaMemsetAsync(diff, 0, 8, st));
    max_diff<<<1024, 256, 0, st>>>(buf[0].d, dref, nd, diff);
    float hd[2];
    CK(cudaMemcpy(hd, diff, 8, cudaMemcpyDeviceToHost));
    cudaFree(diff);
    const double rel = hd[1] > 0 ? hd[0] / hd[1] : hd[0];
    // FP8, per-tensor: each output's error against the exact product on sampled elements (mean, in
    // units of S = sum |a b|), tmakit's, cuBLASLt's and cuBLASLt's with fast accumulation: what the
    // promotion buys, side by side.
    double err[3] = {-1, -1, -1};
    if (fp8 && !block_scales) {
      constexpr int kSamples = 4096;
      float* e = nullptr;
      CK(cudaMalloc(&e, sizeof(float)));
      __nv_bfloat16* dfast = nullptr;
      CK(cudaMalloc(&dfast, 2 * nd));
      lt_fast.run(buf[0].a, buf[0].b, dfast, st);
      const __nv_bfloat16* outs[3] = {static_cast<const __nv_bfloat16*>(buf[0].d), dref, dfast};
      for (int o = 0; o < 3; ++o) {
        CK(cudaMemsetAsync(e, 0, sizeof(float), st));
        const auto* a8 = static_cast<const std::uint8_t*>(buf[0].a);
        const auto* b8 = static_cast<const std::uint8_t*>(buf[0].b);
        if (b_e5m2) tmakit_bench::fp8_sampled_error<true><<<32, 128, 0, st>>>(a8, b8, outs[o], s.m, s.n, s.k, kSamples, e);
        else tmakit_bench::fp8_sampled_error<false><<<32, 128, 0, st>>>(a8, b8, outs[o], s.m, s.n, s.k, kSamples, e);
        float sum = 0;
        CK(cudaMemcpy(&sum, e, sizeof sum, cudaMemcpyDeviceToHost));
        err[o] = sum / kSamples;
      }
      cudaFree(dfast);
      cudaFree(e);
    }

    // The reference GEMM, where it takes the shape: one prepared call per buffer set, its output
    // compared with cuBLASLt's (it writes D column-major).
    std::vector<void*> ref_prepared;
    double ref_rel = -1;
    if (reference.run && !fp8 && s.a == Order::row_major && s.b == Order::col_major) {
      for (const Buffers& x : buf) {
        void* h = reference.prepare(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), x.a, x.b, x.d);
        if (!h) break;
        ref_prepared.push_back(h);
      }
      if (ref_prepared.size() != buf.size()) {
        ref_prepared.clear();
      } else {
        CK(cudaMemsetAsync(buf[0].d, 0xff, 2 * nd, st));  // poisoned: every element must be written
        if (reference.run(ref_prepared[0], st) != 0) std::exit(1);
        CK(cudaGetLastError());
        float* rd = nullptr;
        CK(cudaMalloc(&rd, 8));
        CK(cudaMemsetAsync(rd, 0, 8, st));
        max_diff_transposed<<<1024, 256, 0, st>>>(dref, buf[0].d, s.m, s.n, rd);
        float h2[2];
        CK(cudaMemcpy(h2, rd, 8, cudaMemcpyDeviceToHost));
        cudaFree(rd);
        ref_rel = h2[1] > 0 ? h2[0] / h2[1] : h2[0];
      }
    }
    // The contenders, timed in turn with the order rotating from sample to sample.
    std::vector<std::function<void(int)>> runs = {
        [&](int i) { run_tmakit(buf[i % sets]); },
        [&](int i) { lt.run(buf[i % sets].a, buf[i % sets].b, buf[i % sets].d, st); }};
    if (!ref_prepared.empty())
      runs.push_back([&](int i) {
        if (reference.run(ref_prepared[i % sets], st) != 0) std::exit(1);
      });
    if (fp8) runs.push_back([&](int i) { lt_fast.run(buf[i % sets].a, buf[i % sets].b, buf[i % sets].d, st); });
    const int contenders = static_cast<int>(runs.size());

    // burst length: enough launches for >= 2 ms
    cudaEventRecord(e0, st);
    run_tmakit(buf[0]);
    cudaEventRecord(e1, st);
    CK(cudaEventSynchronize(e1));
    float one = 0;
    cudaEventElapsedTime(&one, e0, e1);
    const int burst = std::max(1, static_cast<int>(2.0f / std::max(one, 1e-3f)));
    for (int w = 0; w < 3; ++w)  // warm-up: clocks and caches settle
      for (int c = 0; c < contenders; ++c)
        for (int i = 0; i < burst; ++i) runs[c](i);
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    const unsigned mhz0 = nvml.sm_mhz(), w0 = nvml.watts();
    std::vector<std::vector<double>> times(contenders);
    for (int smp = 0; smp < samples; ++smp) {
      for (int j = 0; j < contenders; ++j) {
        const int c = (smp + j) % contenders;
        cudaEventRecord(e0, st);
        for (int i = 0; i < burst; ++i) runs[c](smp + i);
        cudaEventRecord(e1, st);
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        times[c].push_back(ms / burst);
      }
    }
    CK(cudaGetLastError());
    const unsigned mhz1 = nvml.sm_mhz(), w1 = nvml.watts();
    const double flop = 2.0 * s.m * s.n * s.k;
    const double tf_tm = flop / (median(times[0]) * 1e-3) / 1e12, tf_lt = flop / (median(times[1]) * 1e-3) / 1e12;
    const double tf_ref = contenders > 2 && !fp8 ? flop / (median(times[2]) * 1e-3) / 1e12 : 0.0;
    const double tf_fast = fp8 ? flop / (median(times[2]) * 1e-3) / 1e12 : 0.0;
    const auto& cfg = prepared[0].status().config;
    char ref_text[160] = "", lead_text[32] = "";
    if (cfg.split_lead > 0) std::snprintf(lead_text, sizeof lead_text, " (lead %d)", cfg.split_lead);
    if (fp8 && err[0] >= 0)
      std::snprintf(ref_text, sizeof ref_text, "  cuBLASLt fast accumulation %.1f (tmakit / it %.3f); error %.2e / %.2e / %.2e S",
                    tf_fast, tf_tm / tf_fast, err[0], err[1], err[2]);
    else if (fp8)
      std::snprintf(ref_text, sizeof ref_text, "  cuBLASLt fast accumulation %.1f (tmakit / it %.3f)", tf_fast, tf_tm / tf_fast);
    else if (contenders > 2)
      std::snprintf(ref_text, sizeof ref_text, "  %s %.1f (tmakit / it %.3f, diff %.2e)", reference.name(), tf_ref,
                    tf_tm / tf_ref, ref_rel);
    std::printf("%-20s %10.1f %10.1f %7.3f %5u-%-5u %4u-%-4u %9.2e  %dx%d tiles%s%s, %d stages, %d CTAs, cluster %d, splits %d%s%s%s\n",
                s.name.c_str(), tf_lt, tf_tm, tf_tm / tf_lt, mhz0, mhz1, w0, w1, rel, cfg.tile_m, cfg.tile_n, cfg.swapped ? " swapped" : cfg.pingpong ? " ping-pong" : "",
                cfg.block_scales ? " block-scaled" : cfg.promoted ? " promoted" : "",
                cfg.stages, cfg.ctas, cfg.cluster_m, cfg.splits, lead_text, cfg.early_start ? "" : ", plain launch", ref_text);
    std::fflush(stdout);
    char line[512];
    std::snprintf(line, sizeof line, "%s,%lld,%lld,%lld,%s,%s,%.1f,%.1f,%.4f,%u,%u,%u,%u,%.3e,%.1f,%.1f,%.3e,%.3e,%.3e\n",
                  s.name.c_str(), static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
                  s.a == Order::row_major ? "row" : "col", s.b == Order::row_major ? "row" : "col", tf_lt, tf_tm,
                  tf_tm / tf_lt, mhz0, mhz1, w0, w1, rel, tf_ref, tf_fast, err[0], err[1], err[2]);
    csv += line;
    for (auto& x : buf) {
      cudaFree(x.a);
      cudaFree(x.b);
      cudaFree(x.d);
    }
    cudaFree(dref);
    cudaFree(a_scales);
    cudaFree(b_scales);
  }
  std::printf("\n%s\n", csv.c_str());  // a blank line closes the CSV block (tools/bench_csv.py)
  return 0;
}

// cuBLASLt's bf16 GEMM as the benchmarks call it (bench_gemm, bench_allgather_gemm): D (m x n,
// row-major) = A (m x k) * B (k x n), A and B row- or column-major, fp32 accumulation, the fastest
// of up to 16 heuristic candidates (each timed on the caller's buffers). With FP8 inputs (use_fp8):
// A row-major and B column-major (cuBLASLt's FP8 "TN" layout), per-tensor scales as device
// pointers, D bf16; fast_accum: CUBLASLT_MATMUL_DESC_FAST_ACCUM (off: cuBLASLt's default, the
// accumulation torch._scaled_mm asks for unless use_fast_accum=True).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "check.hpp"
#include "kernels/gemm_sm90/gemm.hpp"

#define CHECK_LT(x)                                                                               \
  do {                                                                                            \
    cublasStatus_t s_ = (x);                                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, int(s_));      \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace tmakit_bench {

// In column-major terms: D^T (n x m) = op(B^T) (n x k) * op(A^T) (k x m).
struct LtGemm {
  using Order = tmakit::gemm_sm90::Order;
  cublasLtHandle_t h{};
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t la{}, lb{}, ld{};
  cublasLtMatmulAlgo_t algo{};
  void* ws = nullptr;
  std::size_t ws_bytes = 64u << 20;
  float alpha = 1.0f, beta = 0.0f;
  cudaDataType_t a_type = CUDA_R_16BF, b_type = CUDA_R_16BF;

  LtGemm() = default;
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  ~LtGemm() {
    if (ws) cudaFree(ws);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (ld) cublasLtMatrixLayoutDestroy(ld);
    if (op) cublasLtMatmulDescDestroy(op);
    if (h) cublasLtDestroy(h);
  }

  void setup(std::int64_t m, std::int64_t n, std::int64_t k, Order a, Order b) {
    CHECK_LT(cublasLtCreate(&h));
    CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t opb = b == Order::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t opa = a == Order::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb));
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa));
    // first operand B: stored col-major as (n x k) if row-major B, else (k x n)
    const std::int64_t ldb = b == Order::row_major ? n : k, lda = a == Order::row_major ? k : m;
    CHECK_LT(cublasLtMatrixLayoutCreate(&lb, b_type, opb == CUBLAS_OP_N ? n : k, opb == CUBLAS_OP_N ? k : n, ldb));
    CHECK_LT(cublasLtMatrixLayoutCreate(&la, a_type, opa == CUBLAS_OP_N ? k : m, opa == CUBLAS_OP_N ? m : k, lda));
    CHECK_LT(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, m, n));
    CK(cudaMalloc(&ws, ws_bytes));
  }
  // FP8 inputs of the given types (CUDA_R_8F_E4M3 / CUDA_R_8F_E5M2), A row-major, B column-major,
  // with per-tensor scales (device pointers); call instead of setup.
  void setup_fp8(std::int64_t m, std::int64_t n, std::int64_t k, cudaDataType_t a8, cudaDataType_t b8,
                 const float* scale_a, const float* scale_b, bool fast_accum) {
    a_type = a8;
    b_type = b8;
    setup(m, n, k, Order::row_major, Order::col_major);
    // cuBLASLt's A is this GEMM's B (column-major terms: D^T = B^T A^T)
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof scale_b));
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof scale_a));
    const std::int8_t fast = fast_accum ? 1 : 0;
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
  }
  // With the picked algorithm (or `with`).
  void run(const void* a, const void* b, void* d, cudaStream_t st, const cublasLtMatmulAlgo_t* with = nullptr) {
    CHECK_LT(cublasLtMatmul(h, op, &alpha, b, lb, a, la, &beta, d, ld, d, ld, with ? with : &algo, ws, ws_bytes, st));
  }
  // Times every heuristic candidate and keeps the fastest. A candidate the matmul then refuses
  // (cuBLASLt's FP8 heuristic may return some: CUBLAS_STATUS_NOT_SUPPORTED) is skipped, and counted.
  void pick(const void* a, const void* b, void* d, cudaStream_t st) {
    cublasLtMatmulPreference_t pref;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t res[16];
    int n = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(h, op, lb, la, ld, ld, pref, 16, res, &n));
    cublasLtMatmulPreferenceDestroy(pref);
    if (n == 0) {
      std::fprintf(stderr, "cublasLt: no algorithm\n");
      std::exit(1);
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    int refused = 0;
    cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; i < n; ++i) {
      last = cublasLtMatmul(h, op, &alpha, b, lb, a, la, &beta, d, ld, d, ld, &res[i].algo, ws, ws_bytes, st);
      if (last != CUBLAS_STATUS_SUCCESS) {
        ++refused;
        continue;
      }
      cudaEventRecord(e0, st);
      for (int r = 0; r < 5; ++r) run(a, b, d, st, &res[i].algo);
      cudaEventRecord(e1, st);
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (ms < best) {
        best = ms;
        algo = res[i].algo;
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (refused == n) {
      std::fprintf(stderr, "cublasLt: every one of the %d heuristic candidates refused (last status %d)\n", n, int(last));
      std::exit(1);
    }
    if (refused > 0) std::printf("cuBLASLt: %d of %d heuristic candidates refused by cublasLtMatmul, skipped\n", refused, n);
  }
};

}  // namespace tmakit_bench

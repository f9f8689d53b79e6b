// The sm_90a GEMM built from tmakit (kernels/gemm_sm90) against cuBLAS on the same inputs: every
// operand layout, shapes that are and are not multiples of the 128 x 256 x 64 tile, batches,
// alpha/beta, bf16 and f16. The reference is cuBLAS with fp32 output; an element passes when
//   |D - ref| <= rel * |ref| + K * 2^-22 * S,   S = sum_k |A(m,k)| |B(k,n)| (cuBLAS on |A|, |B|)
// rel = 2^-7 for bf16 (D is rounded to 8 significant bits) and 2^-10 for f16; the second term bounds
// the difference of two fp32 accumulation orders. Random inputs in [-1, 1]. FP8 inputs (e4m3 / e5m2,
// per-tensor scales): the same reference on the FP8 values as floats, scaled; the tensor cores add
// FP8 products with fewer bits than fp32 (DeepSeek-V3's report: about 14), so the second term is
// 2^-10 S there (a wrong element, a wrong tile or a lost K block is off by about |ref| ~ sqrt(S)).
//
// GemmSmall.* are small enough to run under compute-sanitizer (scripts/gpu_suite.sh);
// GemmLarge.* are not. Needs compute capability 9.0; skips otherwise.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_util.cuh"
#include "kernels/gemm_sm90/gemm.hpp"
#include "kernels/gemm_sm90/heuristics.hpp"

namespace {

using tmakit::DataType;
using tmakit::gemm_sm90::GemmArgs;
using tmakit::gemm_sm90::GemmStatus;
using tmakit::gemm_sm90::Input;
using tmakit::gemm_sm90::Matrix;
using tmakit::gemm_sm90::Order;
using tmakit_test::DeviceBuffer;

// Fills n 16-bit elements with values in [-1, 1) (exact in bf16 and f16: multiples of 2^-7), and
// the same values as float, and their absolute values as float.
template <DataType T>
__global__ void fill(std::uint16_t* dst, float* as_float, float* abs_float, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = tmakit_test::unit_value(seed, i);
    if constexpr (T == DataType::bfloat16) dst[i] = __bfloat16_as_ushort(__float2bfloat16_rn(v));
    else dst[i] = __half_as_ushort(__float2half_rn(v));
    if (as_float) as_float[i] = v;
    if (abs_float) abs_float[i] = fabsf(v);
  }
}

// The same for FP8 (E5m2: e5m2, else e4m3): one byte per element, its value as float.
template <bool E5m2>
__global__ void fill_fp8(std::uint8_t* dst, float* as_float, float* abs_float, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = tmakit_test::unit_value(seed, i);
    float f;
    if constexpr (E5m2) {
      const __nv_fp8_e5m2 x(v);
      dst[i] = x.__x;
      f = static_cast<float>(x);
    } else {
      const __nv_fp8_e4m3 x(v);
      dst[i] = x.__x;
      f = static_cast<float>(x);
    }
    if (as_float) as_float[i] = f;
    if (abs_float) abs_float[i] = fabsf(f);
  }
}

// Block scales: the FP8 values as floats (A row-major, B column-major) scaled as the GEMM scales them,
// A's row r, K block kb by sa[kb * ld_sa + r], B's column c by sb[(c / 128) * ld_sb + kb]; both the
// values and their magnitudes.
__global__ void apply_block_scales(float* v, float* v_abs, std::int64_t outer, std::int64_t k, std::int64_t ld,
                                   const float* scales, std::int64_t ld_scales, bool per_block_of_rows) {
  const std::int64_t n = outer * k;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t o = i / k, kk = i % k, kb = kk / 128;
    const float sc = per_block_of_rows ? scales[(o / 128) * ld_scales + kb] : scales[kb * ld_scales + o];
    v[o * ld + kk] *= sc;
    v_abs[o * ld + kk] *= sc;
  }
}

struct Case {
  std::int64_t m, n, k, batch = 1;
  Order a = Order::row_major, b = Order::col_major;
  float alpha = 1.0f, beta = 0.0f;
  DataType dtype = DataType::bfloat16;
  std::int64_t pad = 0;  // added to every leading dimension (rounded up to a multiple of 8 elements)
  int cluster_m = 0;     // GemmArgs::cluster_m
  int splits = 0;                  // GemmArgs::splits
  int expect_splits = 0;           // > 0: the K slices the launcher must choose
  int expect_min_ctas = 0;         // > 0: at least this many CTAs launched (the launcher filled the GPU)
  int tile_n = 0;                  // GemmArgs::tile_n
  int expect_tile_n = 0;           // > 0: the tile width the launcher must choose
  int tile_m = 0;                  // GemmArgs::tile_m
  int expect_tile_m = 0;           // > 0: the tile height the launcher must choose
  int launches = 1;                // > 1: one Gemm launched this many times (the workspace is reused)
  int swapped = 0;                 // GemmArgs::swapped (1: the launcher must run swapped tiles)
  int split_lead = -1;             // GemmArgs::split_lead
  int pingpong = 0;                // GemmArgs::pingpong (1: the launcher must run ping-pong tiles)
  int expect_split_lead = -1;      // >= 0: the lead the launcher must report
  Input a_type = Input::same, b_type = Input::same;  // FP8 inputs (with per-tensor scales 0.5 and 4)
  bool fast_accumulation = false;                    // GemmArgs::fast_accumulation
  bool block_scales = false;                         // FP8 block scales (powers of two) instead of per-tensor ones
};

std::string describe(const Case& c) {
  auto o = [](Order x) { return x == Order::row_major ? "row" : "col"; };
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " batch " +
         std::to_string(c.batch) + " A " + o(c.a) + " B " + o(c.b) + " alpha " + std::to_string(c.alpha) + " beta " +
         std::to_string(c.beta) + (c.dtype == DataType::bfloat16 ? " bf16" : " f16") + " splits " +
         std::to_string(c.splits) + " cluster " + std::to_string(c.cluster_m) + " tile_n " + std::to_string(c.tile_n) +
         (c.tile_m != 0 ? " tile_m " + std::to_string(c.tile_m) : "") +
         (c.swapped == 1 ? " swapped" : "") + (c.pingpong == 1 ? " ping-pong" : "") + (c.split_lead >= 0 ? " lead " + std::to_string(c.split_lead) : "") +
         (c.a_type == Input::same ? "" : c.b_type == Input::e5m2 ? " FP8 e4m3 x e5m2" : " FP8 e4m3 x e4m3") +
         (c.a_type != Input::same && c.fast_accumulation ? " fast accumulation" : "") + (c.block_scales ? " block scales" : "");
}

std::int64_t round8(std::int64_t x) { return (x + 7) / 8 * 8; }
std::int64_t round16(std::int64_t x) { return (x + 15) / 16 * 16; }  // FP8 rows: 16-byte strides

// Column-major view for cuBLAS: D^T (n x m) = B^T (n x k) * A^T (k x m). A row-major r x c matrix is
// its transpose in column-major with the same leading dimension.
void reference(cublasHandle_t h, const Case& c, const float* a, const float* b, const float* cin, float* out,
               std::int64_t lda, std::int64_t ldb, std::int64_t ldd, float alpha, float beta) {
  const cublasOperation_t op_b = c.b == Order::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = c.a == Order::row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const long long sa = lda * (c.a == Order::row_major ? c.m : c.k);
  const long long sb = ldb * (c.b == Order::row_major ? c.k : c.n);
  const long long sd = ldd * c.m;
  if (cin && beta != 0.0f) ASSERT_EQ(cudaMemcpy(out, cin, sizeof(float) * sd * c.batch, cudaMemcpyDeviceToDevice), cudaSuccess);
  ASSERT_EQ(cublasSgemmStridedBatched(h, op_b, op_a, static_cast<int>(c.n), static_cast<int>(c.m), static_cast<int>(c.k),
                                      &alpha, b, static_cast<int>(ldb), sb, a, static_cast<int>(lda), sa, &beta, out,
                                      static_cast<int>(ldd), sd, static_cast<int>(c.batch)),
            CUBLAS_STATUS_SUCCESS);
}

// Whether scripts/gpu_suite.sh runs this binary under compute-sanitizer (it sets TMAKIT_SWEEP_STRIDE
// there): the FP8 cases that exist for their size (more tiles than CTAs, 4352 rows) are left to the
// plain run, where racecheck took more than 90 s over them (docs/lab/gpu_suite.md, 2026-12-07
// 19:38); GemmSmall.Fp8FormsOnce covers every FP8 form under the sanitizer.
bool under_sanitizer_sweep() { return tmakit_test::sweep_stride() > 1; }

void run_case(const Case& c) {
  SCOPED_TRACE(describe(c));
  const bool fp8 = c.a_type != Input::same;
  const std::size_t in_bytes = fp8 ? 1 : 2;
  const std::int64_t lda = fp8 ? round16((c.a == Order::row_major ? c.k : c.m) + c.pad) : round8((c.a == Order::row_major ? c.k : c.m) + c.pad);
  const std::int64_t ldb = fp8 ? round16((c.b == Order::row_major ? c.n : c.k) + c.pad) : round8((c.b == Order::row_major ? c.n : c.k) + c.pad);
  const std::int64_t ldd = round8(c.n + c.pad);
  const std::int64_t na = lda * (c.a == Order::row_major ? c.m : c.k), nb = ldb * (c.b == Order::row_major ? c.k : c.n);
  const std::int64_t nd = ldd * c.m;
  const std::size_t ea = na * c.batch, eb = nb * c.batch, ed = nd * c.batch;

  DeviceBuffer a(ea * in_bytes), b(eb * in_bytes), cc(ed * 2), d(ed * 2), scales(2 * sizeof(float));
  DeviceBuffer af(ea * 4), bf(eb * 4), aabs(ea * 4), babs(eb * 4), cf(ed * 4), ref(ed * 4), bound(ed * 4);
  auto fill_as = [&](DeviceBuffer& x, DeviceBuffer* f, DeviceBuffer* ab, std::size_t n, std::uint64_t seed) {
    if (c.dtype == DataType::bfloat16)
      fill<DataType::bfloat16><<<1024, 256>>>(x.as<std::uint16_t>(), f ? f->as<float>() : nullptr,
                                               ab ? ab->as<float>() : nullptr, n, seed);
    else
      fill<DataType::float16><<<1024, 256>>>(x.as<std::uint16_t>(), f ? f->as<float>() : nullptr,
                                              ab ? ab->as<float>() : nullptr, n, seed);
  };
  auto fill_fp8_as = [&](DeviceBuffer& x, DeviceBuffer* f, DeviceBuffer* ab, std::size_t n, std::uint64_t seed, Input t) {
    if (t == Input::e5m2) fill_fp8<true><<<1024, 256>>>(x.as<std::uint8_t>(), f->as<float>(), ab->as<float>(), n, seed);
    else fill_fp8<false><<<1024, 256>>>(x.as<std::uint8_t>(), f->as<float>(), ab->as<float>(), n, seed);
  };
  const float scale[2] = {0.5f, 4.0f};  // powers of two: the reference's alpha carries them exactly
  const std::int64_t k_blocks = (c.k + 127) / 128, ld_sa = (c.m + 3) / 4 * 4, ld_sb = k_blocks;
  const std::size_t n_sa = ld_sa * k_blocks, n_sb = (c.n + 127) / 128 * ld_sb;
  DeviceBuffer sa(sizeof(float) * n_sa), sb(sizeof(float) * n_sb);
  if (fp8) {
    fill_fp8_as(a, &af, &aabs, ea, 1, c.a_type);
    fill_fp8_as(b, &bf, &babs, eb, 2, c.b_type);
    ASSERT_EQ(cudaMemcpy(scales.p, scale, sizeof scale, cudaMemcpyHostToDevice), cudaSuccess);
  } else {
    fill_as(a, &af, &aabs, ea, 1);
    fill_as(b, &bf, &babs, eb, 2);
  }
  fill_as(cc, &cf, nullptr, ed, 3);
  if (c.block_scales) {  // powers of two from 1/4 to 4: the scaled products stay exact in fp32
    auto pattern = [](std::size_t n, unsigned seed) {
      std::vector<float> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = std::ldexp(1.0f, static_cast<int>((i * 7 + seed) % 5) - 2);
      return v;
    };
    const std::vector<float> ha = pattern(n_sa, 1), hb = pattern(n_sb, 3);
    ASSERT_EQ(cudaMemcpy(sa.p, ha.data(), sizeof(float) * n_sa, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(sb.p, hb.data(), sizeof(float) * n_sb, cudaMemcpyHostToDevice), cudaSuccess);
    apply_block_scales<<<1024, 256>>>(af.as<float>(), aabs.as<float>(), c.m, c.k, lda, sa.as<float>(), ld_sa, false);
    apply_block_scales<<<1024, 256>>>(bf.as<float>(), babs.as<float>(), c.n, c.k, ldb, sb.as<float>(), ld_sb, true);
  }
  ASSERT_EQ(cudaMemset(d.p, 0xff, ed * 2), cudaSuccess);  // NaN everywhere: every element must be written
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  GemmArgs g;
  g.dtype = c.dtype;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.batch = c.batch;
  g.a = Matrix{a.p, c.a, lda, na};
  g.b = Matrix{b.p, c.b, ldb, nb};
  g.c = Matrix{cc.p, Order::row_major, ldd, nd};
  g.d = Matrix{d.p, Order::row_major, ldd, nd};
  g.alpha = c.alpha;
  g.beta = c.beta;
  g.cluster_m = c.cluster_m;
  g.tile_n = c.tile_n;
  g.tile_m = c.tile_m;
  g.splits = c.splits;
  g.swapped = c.swapped;
  g.split_lead = c.split_lead;
  g.pingpong = c.pingpong;
  g.a_type = c.a_type;
  g.b_type = c.b_type;
  g.fast_accumulation = c.fast_accumulation;
  if (fp8 && !c.block_scales) {
    g.scale_a = scales.as<float>();
    g.scale_b = scales.as<float>() + 1;
  }
  if (c.block_scales) {
    g.a_scales = sa.as<float>();
    g.a_scales_ld = ld_sa;
    g.b_scales = sb.as<float>();
    g.b_scales_ld = ld_sb;
  }
  GemmStatus s;
  if (c.launches > 1) {
    const tmakit::gemm_sm90::Gemm prepared(g);
    s = prepared.status();
    for (int i = 0; s.ok && i < c.launches; ++i) ASSERT_EQ(prepared.launch(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  } else {
    s = tmakit::gemm_sm90::gemm(g);
  }
  // clusters of two where asked for, if M has two tiles to pair; left to the launcher
  // (heuristics.hpp), also only where it does not split K; 64-row tiles in clusters of one
  if (s.ok) {
    const bool one = s.config.splits > 1 && !s.config.swapped;  // an unswapped split form: one CTA per cluster
    const int want = c.cluster_m == 1 || c.m <= 128 || s.config.tile_m == 64 ? 1 : c.cluster_m == 2 ? 2 : one ? 1 : 2;
    EXPECT_EQ(s.config.cluster_m, want);
  }
  if (s.ok && c.expect_splits > 0) EXPECT_EQ(s.config.splits, c.expect_splits);
  if (s.ok && c.swapped != 0) EXPECT_EQ(s.config.swapped, c.swapped == 1);
  if (s.ok && c.pingpong != 0) EXPECT_EQ(s.config.pingpong, c.pingpong == 1);
  // a 64-column tile is swapped (a block-scaled one never is, as checked below; a 64-row one neither)
  if (s.ok && c.swapped == 0 && !c.block_scales) EXPECT_EQ(s.config.swapped, s.config.tile_n == 64 && s.config.tile_m == 128);
  if (s.ok) EXPECT_EQ(s.config.tile_m, c.tile_m > 0 ? c.tile_m : c.expect_tile_m > 0 ? c.expect_tile_m : 128);
  if (s.ok && s.config.tile_m == 64) EXPECT_EQ(s.config.tile_n, 64);
  if (s.ok && c.expect_split_lead >= 0) EXPECT_EQ(s.config.split_lead, c.expect_split_lead);
  if (s.ok && c.expect_min_ctas > 0) EXPECT_GE(s.config.ctas, c.expect_min_ctas);
  if (s.ok) EXPECT_EQ(s.config.promoted, fp8 && !c.fast_accumulation);
  if (s.ok && s.config.promoted) EXPECT_FALSE(s.config.pingpong);  // promoted 192-column tiles are cooperative
  if (s.ok) EXPECT_EQ(s.config.block_scales, c.block_scales);
  if (s.ok && c.block_scales) EXPECT_FALSE(s.config.swapped);
  if (s.ok) EXPECT_EQ(s.config.tile_n, c.tile_n > 0 ? c.tile_n : c.expect_tile_n > 0 ? c.expect_tile_n : s.config.tile_n);
  std::string why;
  for (const auto& e : s.errors) why += e + "\n";
  ASSERT_TRUE(s.ok) << why;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  cublasHandle_t h;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);  // plain fp32: the reference must not be a TF32 one
  const float scaled_alpha = fp8 && !c.block_scales ? c.alpha * scale[0] * scale[1] : c.alpha;
  reference(h, c, af.as<float>(), bf.as<float>(), cf.as<float>(), ref.as<float>(), lda, ldb, ldd, scaled_alpha, c.beta);
  reference(h, c, aabs.as<float>(), babs.as<float>(), nullptr, bound.as<float>(), lda, ldb, ldd, 1.0f, 0.0f);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cublasDestroy(h);

  std::vector<std::uint16_t> got(ed);
  std::vector<float> want(ed), sum(ed);
  ASSERT_EQ(cudaMemcpy(got.data(), d.p, ed * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(want.data(), ref.p, ed * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(sum.data(), bound.p, ed * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  const double rel = c.dtype == DataType::bfloat16 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -10);
  std::size_t bad = 0, checked = 0;
  double worst = 0;  // FP8: the largest error in units of S (printed: the lab records it)
  std::string first;
  for (std::int64_t l = 0; l < c.batch; ++l)
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.n; ++j) {
        const std::size_t at = l * nd + i * ldd + j;
        float v;
        if (c.dtype == DataType::bfloat16) v = __bfloat162float(__ushort_as_bfloat16(got[at]));
        else v = __half2float(__ushort_as_half(got[at]));
        const double acc_bound = fp8 ? std::ldexp(1.0, -10) : c.k * std::ldexp(1.0, -22);
        const double tol = rel * std::fabs(want[at]) + acc_bound * (sum[at] * std::fabs(scaled_alpha)) +
                           (c.beta != 0.0f ? rel : 0.0);
        if (fp8 && sum[at] > 0) worst = std::max(worst, std::fabs(double{v} - want[at]) / (sum[at] * std::fabs(double{scaled_alpha})));
        ++checked;
        if (!(std::fabs(v - want[at]) <= tol)) {
          if (!bad)
            first = "first at batch " + std::to_string(l) + " (" + std::to_string(i) + ", " + std::to_string(j) +
                    "): got " + std::to_string(v) + ", cuBLAS " + std::to_string(want[at]) + ", bound " + std::to_string(tol);
          ++bad;
        }
      }
  EXPECT_EQ(bad, 0u) << bad << " of " << checked << " elements outside the bound; " << first;
  if (fp8) std::printf("FP8 %s: largest error %.3g S\n", describe(c).c_str(), worst);
}

TEST(GemmSmall, EveryLayoutOnFullTiles) {
  TMAKIT_REQUIRE_GPU();
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) run_case({256, 512, 256, 1, a, b});
}

TEST(GemmSmall, EveryLayoutOnPartialTiles) {
  TMAKIT_REQUIRE_GPU();
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) run_case({200, 300, 136, 1, a, b});
}

TEST(GemmSmall, TinyAndOddShapes) {
  TMAKIT_REQUIRE_GPU();
  run_case({1, 1, 1});
  run_case({1, 64, 8});
  run_case({130, 20, 8});
  run_case({77, 261, 65, 1, Order::col_major, Order::row_major});
}

TEST(GemmSmall, BatchAlphaBeta) {
  TMAKIT_REQUIRE_GPU();
  run_case({192, 320, 96, 3, Order::row_major, Order::col_major, 0.5f, 0.0f});
  run_case({192, 320, 96, 3, Order::row_major, Order::col_major, 1.0f, -1.0f});
  run_case({100, 70, 50, 2, Order::col_major, Order::row_major, 2.0f, 0.25f});
}

TEST(GemmSmall, Float16) {
  TMAKIT_REQUIRE_GPU();
  run_case({256, 256, 128, 1, Order::row_major, Order::col_major, 1.0f, 0.0f, DataType::float16});
  run_case({150, 260, 72, 2, Order::col_major, Order::row_major, 1.0f, 0.5f, DataType::float16});
}

TEST(GemmSmall, PaddedLeadingDimensions) {
  TMAKIT_REQUIRE_GPU();
  run_case({128, 256, 64, 1, Order::row_major, Order::row_major, 1.0f, 0.0f, DataType::bfloat16, 24});
}

// Clusters of two CTAs along M, B multicast to both: every layout, an odd number of M tiles (the
// last cluster's second CTA computes a tile wholly past M), batches and beta.
TEST(GemmSmall, ClustersOfTwoShareB) {
  TMAKIT_REQUIRE_GPU();
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c{384, 512, 192, 1, a, b};
      c.cluster_m = 2;
      run_case(c);
    }
  Case odd{300, 260, 72, 2, Order::row_major, Order::col_major, 1.0f, 0.5f};
  odd.cluster_m = 2;
  run_case(odd);
}

// One CTA per cluster (the launcher takes clusters of two wherever M has two tiles): every layout,
// partial tiles, batches with beta.
TEST(GemmSmall, OneCtaPerCluster) {
  TMAKIT_REQUIRE_GPU();
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c{384, 520, 200, 1, a, b};
      c.cluster_m = 1;
      run_case(c);
    }
  Case odd{300, 260, 72, 2, Order::row_major, Order::col_major, 1.0f, 0.5f};
  odd.cluster_m = 1;
  run_case(odd);
}

// Split K: each tile's K blocks cut into slices that different CTAs add into the fp32 workspace by
// TMA reductions; the tile's last slice writes D. Every layout, a K that the slices do not divide
// (16 blocks in slices of 6, 6 and 4), more slices asked for than K blocks, batches with alpha and
// beta, f16, and one Gemm launched three times (the last slice of each tile must leave its
// counters zeroed for the next launch).
TEST(GemmSmall, SplitK) {
  TMAKIT_REQUIRE_GPU();
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c{200, 300, 1000, 1, a, b};
      c.splits = 3;
      c.expect_splits = 3;
      run_case(c);
    }
  Case few{130, 260, 100, 1};  // 2 K blocks: at most 2 slices
  few.splits = 5;
  few.expect_splits = 2;
  run_case(few);
  Case batched{192, 320, 512, 3, Order::row_major, Order::col_major, 0.5f, -1.0f};
  batched.splits = 4;
  batched.expect_splits = 4;
  run_case(batched);
  Case half{150, 260, 700, 2, Order::col_major, Order::row_major, 2.0f, 0.25f, DataType::float16};
  half.splits = 2;
  half.expect_splits = 2;
  run_case(half);
  Case again{256, 256, 1024, 2, Order::row_major, Order::col_major, 1.0f, 0.5f};
  again.splits = 4;
  again.expect_splits = 4;
  again.launches = 3;
  run_case(again);
  // in clusters of two (B multicast to the pair): every layout, an odd number of M tiles
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c{300, 300, 1000, 1, a, b};
      c.cluster_m = 2;
      c.splits = 3;
      c.expect_splits = 3;
      run_case(c);
    }
  for (int cluster : {1, 2}) {
    Case batched_beta{256, 200, 640, 2, Order::row_major, Order::col_major, 0.5f, 0.75f};
    batched_beta.cluster_m = cluster;
    batched_beta.splits = 5;
    batched_beta.expect_splits = 5;
    batched_beta.launches = 2;
    run_case(batched_beta);
  }
  // a lead: the first slice gives K blocks to the last (16 blocks in slices of 6: 4, 6 and 4 + 2),
  // every layout; a lead past a slice's length stops one block short of it (slices of 1 and 15);
  // swapped tiles in clusters of two with beta, launched twice
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c{200, 300, 1000, 1, a, b};
      c.splits = 3;
      c.expect_splits = 3;
      c.split_lead = 2;
      c.expect_split_lead = 2;
      run_case(c);
    }
  Case long_lead{256, 256, 1024, 1};
  long_lead.splits = 2;
  long_lead.expect_splits = 2;
  long_lead.split_lead = 40;
  long_lead.expect_split_lead = 7;
  run_case(long_lead);
  Case swapped_lead{256, 200, 1400, 2, Order::row_major, Order::col_major, 1.0f, 0.5f};
  swapped_lead.swapped = 1;
  swapped_lead.cluster_m = 2;
  swapped_lead.splits = 2;
  swapped_lead.expect_splits = 2;
  swapped_lead.split_lead = 3;
  swapped_lead.expect_split_lead = 3;
  swapped_lead.launches = 2;
  run_case(swapped_lead);
}

// The persistent grid runs the work units in as few waves as every resident cluster would, with the
// fewest clusters: 1,024 cluster tiles on 66 resident clusters take 16 waves of 64, not 15.5 of 66.
TEST(GemmHeuristics, GridInEvenWaves) {
  using tmakit::gemm_sm90::grid_clusters;
  EXPECT_EQ(grid_clusters(1024, 66), 64);  // 8192^3 in clusters of two
  EXPECT_EQ(grid_clusters(256, 66), 64);   // 4096^3
  EXPECT_EQ(grid_clusters(3584, 66), 66);  // 55 waves: 65.2 clusters a wave, rounded up
  EXPECT_EQ(grid_clusters(66, 66), 66);
  EXPECT_EQ(grid_clusters(33, 66), 33);    // one wave: one cluster per unit
  EXPECT_EQ(grid_clusters(1, 132), 1);
  for (std::int64_t units = 1; units < 2000; ++units) {  // never more waves, never more clusters
    const std::int64_t c = grid_clusters(units, 66), waves = (units + 65) / 66;
    ASSERT_LE(c, std::min<std::int64_t>(units, 66)) << units;
    ASSERT_EQ((units + c - 1) / c, waves) << units;
  }
}

// Where the tiles of every width would leave most SMs idle, the launcher takes the narrowest and
// splits K until the work units fill at least half of the GPU; where the wide tiles fill it, it
// takes them whole.
TEST(GemmSmall, SkinnyShapesFillTheGpu) {
  TMAKIT_REQUIRE_GPU();
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  Case skinny{128, 2048, 4096};  // 32 tiles of 128 x 64, 64 K blocks
  skinny.expect_min_ctas = sms / 2;
  run_case(skinny);
  Case narrow{128, 8192, 1024};  // 128 tiles of 128 x 64: no split needed
  narrow.expect_splits = 1;
  narrow.expect_tile_n = 64;
  narrow.expect_min_ctas = sms / 2;
  run_case(narrow);
  Case full{2048, 4096, 256};  // 128 cluster tiles of 256 x 256: the wide tile, unsplit
  full.expect_splits = 1;
  full.expect_tile_n = 256;
  run_case(full);
}

// Every tile width (128 x 64 with 8 stages, 128 x 128 with 6, 128 x 256 with 4; the 64-column one
// unswapped here, swapped in SwappedTiles), every layout, in clusters of one and two, on partial
// tiles; and split K at each width.
TEST(GemmSmall, EveryTileWidth) {
  TMAKIT_REQUIRE_GPU();
  for (int tile : {64, 128, 256})
    for (int cluster : {1, 2})
      for (Order a : {Order::row_major, Order::col_major})
        for (Order b : {Order::row_major, Order::col_major}) {
          Case c{300, 330, 520, 1, a, b};
          c.tile_n = tile;
          c.cluster_m = cluster;
          c.swapped = -1;
          run_case(c);
        }
  for (int tile : {64, 128, 256}) {
    Case c{260, 200, 1100, 2, Order::col_major, Order::row_major, 1.0f, 0.5f};
    c.tile_n = tile;
    c.swapped = -1;
    c.splits = 3;
    c.expect_splits = 3;
    run_case(c);
  }
}

// Ping-pong tiles (each consumer warpgroup on a 128 x 192 tile of its own, the two in turn over one
// ring): every layout in clusters of one and two on partial tiles; grids where a CTA takes one, two,
// three or more tiles (so that each warpgroup walks past its partner's rounds, with K blocks fewer
// and more than the ring's stages, and hands the ring over at every tile); batches with alpha and
// beta; f16; repeated launches; asked for by pingpong or by tile_n 192; and the forms it refuses.
TEST(GemmSmall, PingPongTiles) {
  TMAKIT_REQUIRE_GPU();
  auto pingpong = [](Case c) {
    c.pingpong = 1;
    c.expect_tile_n = 192;
    return c;
  };
  for (int cluster : {1, 2})
    for (Order a : {Order::row_major, Order::col_major})
      for (Order b : {Order::row_major, Order::col_major}) {
        Case c = pingpong({300, 330, 520, 1, a, b});
        c.cluster_m = cluster;
        run_case(c);
      }
  run_case(pingpong({2100, 2500, 200, 1}));   // 4 K blocks: as many as the stages
  run_case(pingpong({2100, 2500, 130, 1}));   // 3: fewer
  run_case(pingpong({2100, 2500, 1000, 1}));  // 16: more
  run_case(pingpong({1500, 1900, 700, 3, Order::col_major, Order::row_major, 0.5f, -1.0f}));
  run_case(pingpong({700, 900, 300, 2, Order::row_major, Order::row_major, 2.0f, 0.25f, DataType::float16}));
  run_case(pingpong({1, 1, 1, 1}));
  Case again = pingpong({1100, 1300, 450, 4, Order::col_major, Order::col_major, 1.0f, 0.5f});
  again.launches = 2;
  run_case(again);
  Case by_width{2000, 3000, 600, 1, Order::row_major, Order::col_major, 1.0f, 0.5f};
  by_width.tile_n = 192;  // pingpong left automatic: 192 columns are ping-pong tiles
  by_width.pingpong = 0;
  run_case(by_width);

  GemmArgs g;
  g.m = g.n = g.k = 256;
  DeviceBuffer x(256 * 256 * 2);
  g.a = Matrix{x.p, Order::row_major, 256, 0};
  g.b = Matrix{x.p, Order::col_major, 256, 0};
  g.d = Matrix{x.p, Order::row_major, 256, 0};
  using Change = void (*)(GemmArgs&);
  for (Change refuse : {+[](GemmArgs& a) { a.pingpong = 1, a.tile_n = 256; }, +[](GemmArgs& a) { a.pingpong = 1, a.tile_n = 128; },
                        +[](GemmArgs& a) { a.pingpong = 1, a.splits = 2; }, +[](GemmArgs& a) { a.pingpong = 1, a.swapped = 1; },
                        +[](GemmArgs& a) { a.pingpong = -1, a.tile_n = 192; }, +[](GemmArgs& a) { a.tile_n = 192, a.splits = 3; },
                        +[](GemmArgs& a) { a.pingpong = 2; }}) {
    GemmArgs bad = g;
    refuse(bad);
    const GemmStatus st = tmakit::gemm_sm90::Gemm(bad).status();
    EXPECT_FALSE(st.ok);
    ASSERT_EQ(st.errors.size(), 1u);
    EXPECT_EQ(st.errors[0].rfind("error [gemm.pingpong] ", 0), 0u) << st.errors[0];
  }
}

// The launcher's choice between cooperative 128 x 256 tiles and ping-pong 128 x 192 ones on the
// benchmark's large shapes (132 SMs, clusters of two): ping-pong where its waves take less time.
TEST(GemmHeuristics, PingPongWhereItsWavesAreShorter) {
  using tmakit::gemm_sm90::choose_form;
  auto form = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return choose_form((m + 127) / 128, n, 1, (k + 63) / 64, 132, 0, 0, 0, 0, 0);
  };
  struct Want {
    std::int64_t m, n, k;
    bool pingpong;
  };
  for (const Want& w : {Want{4096, 4096, 4096, false}, Want{6144, 6144, 6144, true}, Want{8192, 8192, 8192, true},
                        Want{16384, 8192, 8192, true}, Want{8192, 28672, 4096, true}, Want{8192, 4096, 14336, false}}) {
    const auto c = form(w.m, w.n, w.k);
    EXPECT_EQ(c.pingpong, w.pingpong) << w.m << "x" << w.n << "x" << w.k;
    EXPECT_EQ(c.tile_n, w.pingpong ? 192 : 256) << w.m << "x" << w.n << "x" << w.k;
    EXPECT_EQ(c.cluster_m, 2);
    EXPECT_EQ(c.splits, 1);
  }
  // the skinny shapes keep their narrow, split or swapped tiles
  for (std::int64_t m : {128, 256, 512}) EXPECT_FALSE(form(m, 8192, 8192).pingpong) << m;
  EXPECT_FALSE(form(256, 2112, 7168).pingpong);
  // asked for, or ruled out
  EXPECT_TRUE(choose_form(64, 8192, 1, 128, 132, 0, 0, 0, 0, 1).pingpong);
  EXPECT_FALSE(choose_form(64, 8192, 1, 128, 132, 0, 0, 0, 0, -1).pingpong);
  EXPECT_TRUE(choose_form(64, 8192, 1, 128, 132, 192, 0, 0, 0, 0).pingpong);
}

// Promoted FP8, per-tensor or block-scaled: cooperative 128 x 192 tiles where their waves, each
// timed at 1 / kPromotedNarrowSpeed of its area, take less time than the 256-column tile's, or
// cover fewer columns than the 128-column tile's; the wider tile where the narrower one's extra waves
// decide.
TEST(GemmHeuristics, PromotedFp8NarrowTileWhereItsWavesAreShorter) {
  using tmakit::gemm_sm90::choose_form;
  auto form = [](std::int64_t m, std::int64_t n, std::int64_t k, bool per_tensor) {
    return choose_form((m + 127) / 128, n, 1, (k + 127) / 128, 132, 0, 0, 0, per_tensor ? 0 : -1, -1, true);
  };
  struct Want {
    std::int64_t m, n, k;
    int tile_n;
  };
  for (bool per_tensor : {true, false})
    for (const Want& w :
         {Want{4096, 4096, 4096, 256}, Want{6144, 6144, 6144, 192}, Want{8192, 8192, 8192, 192},
          Want{16384, 8192, 8192, 192}, Want{8192, 28672, 4096, 192}, Want{8192, 4096, 14336, 192},
          Want{512, 8192, 8192, 256},
          // DeepGEMM's M = 4096 shapes: 3 waves of 192 columns against 5 of 128 (N = 2112), 32 waves
          // against 24 of 256 (N = 24576), the wider tile where its waves are as short (N = 7168, 4096)
          Want{4096, 2112, 7168, 192}, Want{4096, 24576, 1536, 192}, Want{4096, 7168, 16384, 256},
          Want{4096, 4096, 7168, 256}}) {
      const auto c = form(w.m, w.n, w.k, per_tensor);
      EXPECT_EQ(c.tile_n, w.tile_n) << w.m << "x" << w.n << "x" << w.k << (per_tensor ? "" : " block-scaled");
      EXPECT_FALSE(c.pingpong);
      EXPECT_EQ(c.splits, 1);
    }
  // the skinny shapes keep their narrow, split or swapped tiles
  EXPECT_EQ(form(256, 8192, 8192, true).tile_n, 128);
  EXPECT_EQ(form(128, 8192, 8192, true).tile_n, 64);
  EXPECT_EQ(form(64, 7168, 16384, false).tile_n, 64);
  // not promoted: no 192-column tile in place of a 128-column one
  EXPECT_EQ(choose_form(32, 2112, 1, 56, 132, 0, 0, 0, 0, 0).tile_n, 128);
  // asked for: cooperative, not ping-pong
  const auto asked = choose_form(64, 8192, 1, 64, 132, 192, 0, 0, 0, -1, true);
  EXPECT_EQ(asked.tile_n, 192);
  EXPECT_FALSE(asked.pingpong);
}

// 64-row tiles: promoted FP8 whose M fits in one, where the form took unclustered, unswapped
// 64-column tiles (block-scaled at DeepGEMM's M = 64 shapes); 128 elsewhere; a tile_m given is kept.
TEST(GemmHeuristics, ShortTilesWhereMFitsInOne) {
  using tmakit::gemm_sm90::choose_form;
  using tmakit::gemm_sm90::choose_tile_m;
  auto rows = [](std::int64_t m, std::int64_t n, std::int64_t k, bool block_scaled, bool promoted = true) {
    const auto c = choose_form((m + 127) / 128, n, 1, (k + 127) / 128, 132, 0, 0, 0, block_scaled ? -1 : 0,
                               promoted ? -1 : 0, promoted);
    return choose_tile_m(m, 0, promoted, c);
  };
  for (std::int64_t n : {2112, 24576, 7168, 4096})  // DeepGEMM's M = 64 shapes that take 64 columns
    EXPECT_EQ(rows(64, n, 7168, true), 64) << n;
  EXPECT_EQ(rows(64, 32768, 512, true), 128);  // 128 tiles of 256 columns fill the GPU
  EXPECT_EQ(rows(128, 7168, 16384, true), 128);
  EXPECT_EQ(rows(48, 7168, 16384, false), 128);  // per-tensor: swapped 128 x 64 tiles
  EXPECT_EQ(rows(64, 7168, 16384, true, false), 128);  // not promoted
  tmakit::gemm_sm90::FormChoice c;
  c.tile_n = 64;
  EXPECT_EQ(choose_tile_m(64, 0, true, c), 64);
  c.cluster_m = 2;
  EXPECT_EQ(choose_tile_m(64, 0, true, c), 128);
  EXPECT_EQ(choose_tile_m(4096, 64, true, c), 64);  // asked for: kept (Gemm checks it)
}

// Swapped 128 x 64 tiles (one consumer warpgroup, WGMMA's M along N, D written through the
// transposing store plan; split K's workspace held transposed): every layout in clusters of one and
// two on partial tiles, batches with alpha and beta, f16, odd and tiny shapes, split K (K not a
// multiple of the slices, beta, batches, clusters of two, repeated launches).
TEST(GemmSmall, SwappedTiles) {
  TMAKIT_REQUIRE_GPU();
  auto swapped = [](Case c) {
    c.swapped = 1;
    return c;
  };
  for (int cluster : {1, 2})
    for (Order a : {Order::row_major, Order::col_major})
      for (Order b : {Order::row_major, Order::col_major}) {
        Case c = swapped({300, 330, 520, 1, a, b});
        c.cluster_m = cluster;
        run_case(c);
      }
  run_case(swapped({256, 2112, 1024, 1}));
  run_case(swapped({192, 320, 512, 3, Order::row_major, Order::col_major, 0.5f, -1.0f}));
  run_case(swapped({150, 260, 700, 2, Order::col_major, Order::row_major, 2.0f, 0.25f, DataType::float16}));
  run_case(swapped({1, 1, 1, 1}));
  run_case(swapped({77, 131, 93, 1, Order::col_major, Order::col_major}));
  for (Order a : {Order::row_major, Order::col_major})
    for (Order b : {Order::row_major, Order::col_major}) {
      Case c = swapped({200, 300, 1000, 1, a, b});
      c.splits = 3;
      c.expect_splits = 3;
      run_case(c);
    }
  for (int cluster : {1, 2}) {
    Case c = swapped({260, 200, 1100, 2, Order::row_major, Order::col_major, 0.5f, 0.75f});
    c.cluster_m = cluster;
    c.splits = 4;
    c.expect_splits = 4;
    c.launches = 2;
    run_case(c);
  }
}

// Early start (GemmArgs::early_start, programmatic dependent launch): a GEMM launched right after
// another on one stream, reading the first one's output as its A, may start its CTAs while the
// first still runs (the first leaves most SMs idle: four CTAs over a long K), and must still read
// A only once the first has written it. D1 starts as NaN; the second GEMM's output must be exactly
// what a plain launch computes from the finished D1.
TEST(GemmSmall, EarlyStartWaitsForThePreviousGemm) {
  TMAKIT_REQUIRE_GPU();
  const std::int64_t m = 256, n = 128, k1 = 16384, n2 = 192;
  DeviceBuffer a1(m * k1 * 2), b1(k1 * n * 2), d1(m * n * 2), b2(n * n2 * 2), d2(m * n2 * 2), d2_plain(m * n2 * 2);
  fill<DataType::bfloat16><<<1024, 256>>>(a1.as<std::uint16_t>(), nullptr, nullptr, m * k1, 11);
  fill<DataType::bfloat16><<<1024, 256>>>(b1.as<std::uint16_t>(), nullptr, nullptr, k1 * n, 12);
  fill<DataType::bfloat16><<<1024, 256>>>(b2.as<std::uint16_t>(), nullptr, nullptr, n * n2, 13);
  ASSERT_EQ(cudaMemset(d1.p, 0xff, m * n * 2), cudaSuccess);  // NaN until the first GEMM writes it
  ASSERT_EQ(cudaMemset(d2.p, 0xff, m * n2 * 2), cudaSuccess);
  ASSERT_EQ(cudaMemset(d2_plain.p, 0xff, m * n2 * 2), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  GemmArgs first;  // D1 = A1 B1: four 128 x 64 tiles (four CTAs), one unsplit K of 16384
  first.m = m;
  first.n = n;
  first.k = k1;
  first.splits = 1;
  first.a = Matrix{a1.p, Order::row_major, k1, 0};
  first.b = Matrix{b1.p, Order::col_major, k1, 0};
  first.d = Matrix{d1.p, Order::row_major, n, 0};
  GemmArgs second;  // D2 = D1 B2
  second.m = m;
  second.n = n2;
  second.k = n;
  second.a = Matrix{d1.p, Order::row_major, n, 0};
  second.b = Matrix{b2.p, Order::col_major, n, 0};
  second.d = Matrix{d2.p, Order::row_major, n2, 0};
  const tmakit::gemm_sm90::Gemm g1(first), g2(second);
  ASSERT_TRUE(g1.status().ok && g2.status().ok);
  EXPECT_TRUE(g1.status().config.early_start && g2.status().config.early_start);
  EXPECT_LT(g1.status().config.ctas, 8);  // most SMs idle: the second GEMM's CTAs can start at once
  ASSERT_EQ(g1.launch(), cudaSuccess);
  ASSERT_EQ(g2.launch(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  second.d.data = d2_plain.p;
  second.early_start = false;
  const GemmStatus plain = tmakit::gemm_sm90::gemm(second);
  ASSERT_TRUE(plain.ok);
  EXPECT_FALSE(plain.config.early_start);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<std::uint16_t> got(m * n2), want(m * n2), mid(m * n);
  ASSERT_EQ(cudaMemcpy(got.data(), d2.p, got.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(want.data(), d2_plain.p, want.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(mid.data(), d1.p, mid.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  auto nan = [](std::uint16_t x) { return std::isnan(__bfloat162float(__ushort_as_bfloat16(x))); };
  EXPECT_EQ(std::count_if(mid.begin(), mid.end(), nan), 0);   // the first GEMM wrote all of D1
  EXPECT_EQ(std::count_if(want.begin(), want.end(), nan), 0);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
  EXPECT_EQ(differ, 0u) << "elements of D2 read D1 before the first GEMM had written it";
}

// The arguments' own refusals, decided before any CUDA call (no GPU needed): one line each in the
// library's one shape, "error [<id>] <what>; fix: <fix>", with the fix where the launcher computed one.
TEST(GemmArgs, RefusalsCarryTheirIds) {
  GemmArgs g;
  g.m = g.n = g.k = 256;
  const void* fake = reinterpret_cast<const void*>(std::uintptr_t{1} << 32);  // aligned, never dereferenced
  g.a = Matrix{fake, Order::row_major, 256, 0};
  g.b = Matrix{fake, Order::col_major, 256, 0};
  g.d = Matrix{fake, Order::row_major, 256, 0};
  auto first = [](const GemmArgs& x) {
    const GemmStatus st = tmakit::gemm_sm90::Gemm(x).status();
    EXPECT_FALSE(st.ok);
    EXPECT_EQ(st.cuda, cudaSuccess);  // refused before any runtime call
    return st.errors.empty() ? std::string() : st.errors[0];
  };
  GemmArgs bad = g;
  bad.k = 0;
  EXPECT_EQ(first(bad), "error [gemm.extent] m, n, k and batch must be at least 1 (got m=256 n=256 k=0 batch=1); fix: "
                        "give m, n, k and batch of at least 1");
  bad = g;
  bad.tile_n = 96;
  EXPECT_EQ(first(bad).rfind("error [gemm.tile_n] 0 (automatic), 64, 128, 192 (ping-pong tiles; promoted FP8: cooperative) or 256, got 96; fix: ", 0),
            0u);
  bad = g;
  bad.swapped = 1;
  bad.tile_n = 128;
  EXPECT_EQ(first(bad), "error [gemm.swapped] a swapped tile is 64 columns wide; tile_n 128 asks for another; fix: leave "
                        "tile_n 0 or give 64");
  bad = g;
  bad.d.order = Order::col_major;
  EXPECT_EQ(first(bad).rfind("error [gemm.d_order] C and D must be row-major; fix: make C and D row-major", 0), 0u);
  bad = g;
  bad.b.data = nullptr;
  bad.dtype = DataType::float32;
  const GemmStatus both = tmakit::gemm_sm90::Gemm(bad).status();
  ASSERT_EQ(both.errors.size(), 2u);  // every reason at once
  EXPECT_EQ(both.errors[0].rfind("error [gemm.dtype] ", 0), 0u) << both.errors[0];
  EXPECT_EQ(both.errors[1].rfind("error [gemm.null] ", 0), 0u) << both.errors[1];
}

TEST(GemmSmall, RefusesWhatTmaCannotAddress) {
  TMAKIT_REQUIRE_GPU();
  DeviceBuffer x(1 << 20);
  GemmArgs g;
  g.m = 64;
  g.n = 64;
  g.k = 63;
  g.a = Matrix{x.p, Order::row_major, 63, 0};  // 126-byte rows: not a multiple of 16
  g.b = Matrix{x.p, Order::col_major, 64, 0};
  g.d = Matrix{x.p, Order::row_major, 64, 0};
  const GemmStatus s = tmakit::gemm_sm90::gemm(g);
  EXPECT_FALSE(s.ok);
  std::string all;
  for (const auto& e : s.errors) all += e + "\n";
  EXPECT_NE(all.find("A: error [gmem.stride_align]"), std::string::npos) << all;
  g.a.ld = 64;
  g.k = 0;
  const GemmStatus z = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(z.ok);
  EXPECT_NE(z.errors[0].find("gemm.extent"), std::string::npos);
  g.k = 64;
  g.cluster_m = 3;
  const GemmStatus c = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(c.ok);
  EXPECT_NE(c.errors[0].find("gemm.cluster_m"), std::string::npos);
  g.cluster_m = 0;
  g.splits = -1;
  const GemmStatus sp = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(sp.ok);
  EXPECT_NE(sp.errors[0].find("gemm.splits"), std::string::npos);
  g.splits = 0;
  g.split_lead = -2;
  const GemmStatus sl = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(sl.ok);
  EXPECT_NE(sl.errors[0].find("gemm.split_lead"), std::string::npos);
  g.split_lead = -1;
  g.tile_n = 96;
  const GemmStatus tn = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(tn.ok);
  EXPECT_NE(tn.errors[0].find("gemm.tile_n"), std::string::npos);
  g.tile_n = 128;
  g.swapped = 1;  // a swapped tile is 64 columns wide
  const GemmStatus sw = tmakit::gemm_sm90::gemm(g);
  ASSERT_FALSE(sw.ok);
  EXPECT_NE(sw.errors[0].find("gemm.swapped"), std::string::npos);
}

// FP8 inputs with per-tensor scales: both pairs built, promoted and fast accumulation, full and
// partial tiles, every tile form the launcher takes (wide and ping-pong with fast accumulation, 128,
// swapped 64, split K), clusters, batches, alpha and beta.
TEST(GemmSmall, Fp8) {
  TMAKIT_REQUIRE_GPU();
  for (Input b : {Input::e4m3, Input::e5m2})
    for (bool fast : {false, true}) {
      auto fp8 = [&](Case c) {
        c.a_type = Input::e4m3;
        c.b_type = b;
        c.fast_accumulation = fast;
        return c;
      };
      run_case(fp8({256, 512, 512}));
      run_case(fp8({200, 300, 144, 2, Order::row_major, Order::col_major, 0.5f, 1.0f}));
      for (int tile_n : {64, 128, 192, 256}) {  // 192: ping-pong with fast accumulation, else cooperative
        Case c = fp8({384, 640, 1024});
        c.tile_n = tile_n;
        run_case(c);
      }
      for (int tile_n : {128, 192, 256}) {  // more tiles than CTAs: a CTA's later tiles start from zero
        if (under_sanitizer_sweep()) break;
        Case c = fp8({4352, 1024, 256});
        c.tile_n = tile_n;
        run_case(c);
      }
      if (!fast) {  // the cooperative 192-column tile: partial tiles, clusters of two, split K
        Case c = fp8({300, 1000, 1200});
        c.tile_n = 192;
        c.cluster_m = 2;
        run_case(c);
        c = fp8({256, 384, 4096});
        c.tile_n = 192;
        c.splits = 3;
        c.expect_splits = 3;
        run_case(c);
      }
      Case c = fp8({128, 256, 4096});
      c.splits = 4;
      c.expect_splits = 4;
      run_case(c);
      c = fp8({256, 512, 2048});
      c.cluster_m = 2;
      run_case(c);
      if (!fast) {  // 64-row tiles: full, partial rows and columns with alpha and beta, several row tiles, split K
        for (Case r : {fp8({64, 512, 2048}), fp8({40, 300, 1000, 1, Order::row_major, Order::col_major, 0.5f, 1.0f}),
                       fp8({200, 640, 768})}) {
          r.tile_m = 64;
          run_case(r);
        }
        c = fp8({64, 256, 4096});
        c.tile_m = 64;
        c.splits = 4;
        c.expect_splits = 4;
        run_case(c);
      }
    }
}

// FP8 block scales (DeepSeek-V3's recipe): A per row and K block, B per 128 x 128 block, against the
// reference on the scaled values; both pairs, partial tiles and K blocks, 64-, 128-, 192- and
// 256-column tiles (256: two blocks of B's scales per tile, the last tile's second past N; 192: every
// other tile starts 64 columns into a block, so that its middle columns take the next block's
// scales), clusters, split K, beta.
TEST(GemmSmall, Fp8BlockScales) {
  TMAKIT_REQUIRE_GPU();
  for (Input b : {Input::e4m3, Input::e5m2}) {
    auto scaled = [&](Case c) {
      c.a_type = Input::e4m3;
      c.b_type = b;
      c.block_scales = true;
      return c;
    };
    run_case(scaled({256, 512, 1024}));
    run_case(scaled({200, 300, 400, 1, Order::row_major, Order::col_major, 0.5f, 1.0f}));
    for (int tile_n : {64, 128, 192, 256}) {
      Case c = scaled({384, 640, 768});
      c.tile_n = tile_n;
      run_case(c);
    }
    Case c = scaled({128, 256, 4096});
    c.splits = 4;
    c.expect_splits = 4;
    run_case(c);
    for (int tile_n : {128, 192, 256}) {  // more tiles than CTAs: a CTA's later tiles start from zero
      if (under_sanitizer_sweep()) break;
      c = scaled({4352, 1024, 256});
      c.tile_n = tile_n;
      run_case(c);
    }
    c = scaled({256, 1000, 2048});  // 192-column tiles in clusters of two, N not a multiple of 128
    c.tile_n = 192;
    c.cluster_m = 2;
    run_case(c);
    c = scaled({128, 600, 4096});  // and split K
    c.tile_n = 192;
    c.splits = 3;
    c.expect_splits = 3;
    run_case(c);
    c = scaled({512, 256, 1024});
    c.cluster_m = 2;
    run_case(c);
    // 64-row tiles: chosen where M fits in one (split K: 16 tiles of 64 columns leave most SMs
    // idle), asked for on partial rows and columns with beta and on several row tiles
    c = scaled({64, 1024, 2048});
    c.expect_tile_m = 64;
    c.expect_splits = 2;
    run_case(c);
    for (Case r : {scaled({40, 300, 1000, 1, Order::row_major, Order::col_major, 0.5f, 1.0f}), scaled({200, 640, 768})}) {
      r.tile_m = 64;
      run_case(r);
    }
  }
}

// Every promoted FP8 form once, at sizes meant for compute-sanitizer's racecheck (under which
// Fp8BlockScales, with its 4352-row cases, ran past 90 s: docs/lab/gpu_suite.md, 2026-12-07 19:38):
// more K blocks than any ring has stages (each stage refilled), tiles of 64 to 256 columns
// per-tensor (64: swapped) and block-scaled, 64-row tiles, a cluster of two, split K.
TEST(GemmSmall, Fp8FormsOnce) {
  TMAKIT_REQUIRE_GPU();
  for (bool block_scales : {false, true}) {
    auto fp8 = [&](Case c) {
      c.a_type = Input::e4m3;
      c.b_type = Input::e4m3;
      c.block_scales = block_scales;
      return c;
    };
    for (int tile_n : {64, 128, 192, 256}) {
      Case c = fp8({256, 512, 1024});
      c.tile_n = tile_n;
      run_case(c);
    }
    Case c = fp8({256, 640, 1024});
    c.tile_n = 192;
    c.cluster_m = 2;
    run_case(c);
    c = fp8({128, 256, 2048});
    c.splits = 2;
    c.expect_splits = 2;
    run_case(c);
    c = fp8({64, 256, 2048});  // 16 K blocks through a 12-stage ring
    c.tile_m = 64;
    run_case(c);
    c.splits = 2;
    c.expect_splits = 2;
    run_case(c);
  }
}

TEST(GemmArgs, Fp8Refusals) {
  GemmArgs g;
  g.m = g.n = g.k = 256;
  const void* fake = reinterpret_cast<const void*>(std::uintptr_t{1} << 32);
  g.a = Matrix{fake, Order::row_major, 256, 0};
  g.b = Matrix{fake, Order::col_major, 256, 0};
  g.d = Matrix{fake, Order::row_major, 256, 0};
  g.a_type = Input::e4m3;
  auto errors = [](const GemmArgs& x) { return tmakit::gemm_sm90::Gemm(x).status().errors; };
  std::vector<std::string> e = errors(g);  // B of dtype, A FP8
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "error [gemm.fp8_inputs] A e4m3 with B same is not built (FP8: A e4m3 with B e4m3 or e5m2); fix: give "
                  "a_type e4m3 and b_type e4m3 or e5m2, or leave both Input::same");
  g.b_type = Input::e4m3;
  GemmArgs bad = g;
  bad.a.order = Order::col_major;
  bad.b.order = Order::row_major;
  bad.dtype = DataType::float16;
  e = errors(bad);
  ASSERT_EQ(e.size(), 2u);  // every reason at once
  EXPECT_EQ(e[0], "error [gemm.dtype] with FP8 inputs, C and D must be bf16; fix: give dtype DataType::bfloat16");
  EXPECT_EQ(e[1].rfind("error [gemm.fp8_order] FP8 operands must be K-major: A row-major (got column-major), B "
                       "column-major (got row-major); fix: ", 0), 0u) << e[1];
  bad = g;
  bad.a_type = Input::e5m2;
  EXPECT_EQ(errors(bad).at(0).rfind("error [gemm.fp8_inputs] A e5m2 with B e4m3 is not built", 0), 0u);
  bad = g;
  bad.pingpong = 1;
  EXPECT_EQ(errors(bad).at(0), "error [gemm.tile_n] promoted FP8 tiles are not ping-pong (their 192-column tile is "
                               "cooperative); pingpong 1 asks for them; fix: give pingpong 0 (tile_n 192 for the "
                               "cooperative 192-column tile), or fast_accumulation = true");
  for (int tile_n : {192, 256}) {  // 256 columns are promoted by halves, 192 whole
    bad = g;
    bad.tile_n = tile_n;
    bad.pingpong = tile_n == 192 ? -1 : 0;  // no ping-pong tile is asked for
    for (const std::string& x : errors(bad)) {
      EXPECT_EQ(x.find("[gemm.tile_n]"), std::string::npos) << x;
      EXPECT_EQ(x.find("[gemm.pingpong]"), std::string::npos) << x;
    }
  }
  // block scales: in pairs, alone, promoted, with leading dimensions the scales fit
  const float* fake_scales = reinterpret_cast<const float*>(std::uintptr_t{1} << 33);
  bad = g;
  bad.a_scales = fake_scales;
  bad.a_scales_ld = 256;
  bad.scale_a = fake_scales;
  bad.fast_accumulation = true;
  e = errors(bad);
  ASSERT_EQ(e.size(), 3u) << e[0];
  EXPECT_EQ(e[0].rfind("error [gemm.block_scales] only a_scales given: block scales come in pairs; fix: ", 0), 0u) << e[0];
  EXPECT_EQ(e[1].rfind("error [gemm.block_scales] block scales and per-tensor scales together", 0), 0u) << e[1];
  EXPECT_EQ(e[2].rfind("error [gemm.block_scales] block scales are applied as each K block is promoted", 0), 0u) << e[2];
  bad = g;
  bad.a_scales = bad.b_scales = fake_scales;
  bad.a_scales_ld = 250;
  bad.b_scales_ld = 1;
  e = errors(bad);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].rfind("error [gemm.block_scales] a_scales_ld 250: at least m (256) and a multiple of 4", 0), 0u) << e[0];
  EXPECT_EQ(e[1].rfind("error [gemm.block_scales] b_scales_ld 1: at least the K blocks (2)", 0), 0u) << e[1];
  bad = g;
  bad.a_scales = bad.b_scales = fake_scales;
  bad.a_scales_ld = 256;
  bad.b_scales_ld = 2;
  bad.tile_n = 256;  // two blocks of B's scales in one tile
  for (const std::string& x : errors(bad)) EXPECT_EQ(x.find("[gemm.block_scales]"), std::string::npos) << x;
  bad.swapped = 1;
  bad.tile_n = 0;
  e = errors(bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("error [gemm.block_scales] block-scaled tiles are not swapped (swapped 1)", 0), 0u) << e[0];
  bad.swapped = 0;
  bad.tile_n = 192;  // a cooperative tile that may start 64 columns into a block of B's scales
  for (const std::string& x : errors(bad)) EXPECT_EQ(x.find("[gemm.block_scales]"), std::string::npos) << x;
  // tile heights: 0, 64 or 128; 64 rows only promoted, 64 columns wide, unclustered, unswapped
  bad = g;
  bad.tile_m = 96;
  e = errors(bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "error [gemm.tile_m] 0 (automatic), 64 or 128, got 96; fix: give tile_m 0 or 128; 64 only with "
                  "promoted FP8 inputs, tile_n 0 or 64, cluster_m 0 or 1");
  bad.tile_m = 64;
  bad.tile_n = 128;
  bad.cluster_m = 2;
  bad.swapped = 1;
  bad.fast_accumulation = true;
  e = errors(bad);
  for (const char* why : {"are promoted FP8's", "are 64 columns wide; tile_n 128", "run in clusters of one",
                          "are not swapped"}) {
    bool found = false;
    for (const std::string& x : e) found |= x.rfind(std::string("error [gemm.tile_m] 64-row tiles ") + why, 0) == 0;
    EXPECT_TRUE(found) << why;
  }
  for (int tile_m : {0, 64, 128}) {
    bad = g;
    bad.tile_m = tile_m;
    bad.tile_n = tile_m == 64 ? 64 : 0;
    for (const std::string& x : errors(bad)) EXPECT_EQ(x.find("[gemm.tile_m]"), std::string::npos) << x;
  }
}

TEST(GemmLarge, IssueShapes) {
  TMAKIT_REQUIRE_GPU();
  run_case({1, 8192, 8192});
  run_case({8192, 1, 8192});
  run_case({1000, 1000, 1000});
  run_case({8191, 8191, 64});
  run_case({8192, 8192, 8});
  run_case({2048, 2048, 4096, 1, Order::col_major, Order::row_major});
  Case fp8{4096, 4096, 8192};  // FP8 over a long K, promoted and not
  fp8.a_type = fp8.b_type = Input::e4m3;
  run_case(fp8);
  fp8.fast_accumulation = true;
  run_case(fp8);
  Case scaled{64, 7168, 16384};  // block-scaled at DeepGEMM's M = 64: 64-row tiles over a long K
  scaled.a_type = scaled.b_type = Input::e4m3;
  scaled.block_scales = true;
  scaled.expect_tile_m = 64;
  run_case(scaled);
}

}  // namespace

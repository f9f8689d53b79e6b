// The sm_90a attention forward pass built from tmakit (kernels/attention_sm90) against an fp32
// reference computed on the GPU by a plain kernel (one block per query row: scores, softmax in
// fp32 with expf, then P V), on the same 16-bit inputs: head dims 64, 96, 128 and 256, bf16 and f16,
// causal and not, both ways P reaches the P V multiply, sequence lengths that are and are not
// multiples of the tiles, batches, heads, and fewer K / V heads than query heads (grouped-query);
// and packed sequences of different lengths (AttentionArgs::cu_seqlens), each against the reference
// run on its own rows.
//
// Bounds. O: the kernel rounds P to bf16 before P V (at most 2^-9 relative per term: at most
// 2^-9 * A, A = sum_j p_j |v_j| / l, which the reference also computes) and rounds O to bf16 (2^-9
// |O|); an element passes when |O - ref| <= 2^-8 * A + 2^-8 * |ref| + 2^-20 (twice each term; f16
// rounds finer, so the same bound holds with room).
// LSE (fp32 throughout, exp2 of the kernel against expf of the reference): |lse - ref| <= 2^-12 *
// (1 + |ref|). O is filled with NaN and LSE with -1 before the launch: every element must be written.
// Random inputs in [-1, 1) (multiples of 2^-7: exact in bf16 and f16).
//
// Every case runs in both grid forms against the one reference: one CTA per tile, and persistent
// (AttentionArgs::grid; head dims 64, 96 and 128, 256 being refused), the latter also with a grid
// forced small (max_ctas) so that each CTA computes many tiles and its rings and turns run across them.
//
// AttentionSmall.* are small enough to run under compute-sanitizer (scripts/gpu_suite.sh);
// AttentionLarge.* are not. AttentionArgs.* check refusals and need no GPU. The kernels need
// compute capability 9.0; the GPU tests skip otherwise.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_util.cuh"
#include "kernels/attention_sm90/attention.hpp"
#include "kernels/attention_sm90/heuristics.hpp"

namespace {

using tmakit::DataType;
using tmakit::attention_sm90::AttentionArgs;
using tmakit::attention_sm90::AttentionStatus;
using tmakit::attention_sm90::GridForm;
using tmakit::attention_sm90::PSource;
using tmakit_test::DeviceBuffer;

// n bf16 (f16: half) values in [-1, 1), multiples of 2^-7.
__global__ void fill_16(std::uint16_t* dst, std::size_t n, std::uint64_t seed, int half) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const float x = tmakit_test::unit_value(seed, i);
    dst[i] = half ? __half_as_ushort(__float2half_rn(x)) : __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
}

__host__ __device__ float value_at(const std::uint16_t* p, std::size_t i, int half) {
  return half ? __half2float(__ushort_as_half(p[i])) : __bfloat162float(__ushort_as_bfloat16(p[i]));
}

// The reference: block (i, h, b) computes query row i of head h of batch b (which reads K / V head
// h / (heads / heads_kv)). Shared memory: the query row (d floats) and the row's scores (s floats).
// Writes O (fp32), A = sum p |v| / l (the bound's scale) and LSE.
__global__ void reference_attention(const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v, float* o,
                                    float* o_abs, float* lse, int s, int heads, int heads_kv, int d, float scale,
                                    int causal, int half) {
  extern __shared__ float sh[];
  float* qrow = sh;
  float* score = sh + d;
  __shared__ float red[32];
  const int i = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const std::size_t row = static_cast<std::size_t>(heads) * d, kv_row = static_cast<std::size_t>(heads_kv) * d;
  const std::size_t base = static_cast<std::size_t>(b) * s * row + static_cast<std::size_t>(h) * d;
  const std::size_t kv_base = static_cast<std::size_t>(b) * s * kv_row + static_cast<std::size_t>(h / (heads / heads_kv)) * d;
  for (int c = threadIdx.x; c < d; c += blockDim.x) qrow[c] = value_at(q, base + i * row + c, half);
  __syncthreads();
  const int cols = causal ? i + 1 : s;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float acc = 0.0f;
    for (int c = 0; c < d; ++c) acc = fmaf(qrow[c], value_at(k, kv_base + j * kv_row + c, half), acc);
    score[j] = acc * scale;
    mx = fmaxf(mx, score[j]);
  }
  // block max, then block sum of exp
  auto reduce = [&](float x, bool is_max) {
    for (int o2 = 16; o2 > 0; o2 /= 2) {
      const float y = __shfl_xor_sync(0xffffffffu, x, o2);
      x = is_max ? fmaxf(x, y) : x + y;
    }
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = x;
    __syncthreads();
    float r = is_max ? -INFINITY : 0.0f;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) r = is_max ? fmaxf(r, red[w]) : r + red[w];
    __syncthreads();
    return r;
  };
  mx = reduce(mx, true);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    score[j] = expf(score[j] - mx);
    sum += score[j];
  }
  sum = reduce(sum, false);  // (its barriers also publish every score)
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc = 0.0f, acc_abs = 0.0f;
    for (int j = 0; j < cols; ++j) {
      const float x = value_at(v, kv_base + j * kv_row + c, half);
      acc = fmaf(score[j], x, acc);
      acc_abs = fmaf(score[j], fabsf(x), acc_abs);
    }
    o[base + i * row + c] = acc / sum;
    o_abs[base + i * row + c] = acc_abs / sum;
  }
  if (threadIdx.x == 0) lse[(static_cast<std::size_t>(b) * heads + h) * s + i] = mx + logf(sum);
}

struct Case {
  std::int64_t batch, seqlen, heads, head_dim;
  bool causal = false;
  PSource source = PSource::registers;
  float scale = 0.0f;
  int launches = 1;  // > 1: one Attention launched this many times
  DataType dtype = DataType::bfloat16;
  std::int64_t heads_kv = 0;  // 0: heads
  // The persistent form's CTA limit (0: as many as are resident at once); > 0 runs the persistent form
  // alone, with that limit.
  int max_ctas = 0;
};

// The grid forms a case runs in: one CTA per tile and persistent, or (max_ctas > 0) persistent alone
// with that limit.
struct Form {
  bool persistent;
  int max_ctas;
};
std::vector<Form> forms_of(const Case& c) {
  if (c.max_ctas > 0) return {{true, c.max_ctas}};
  return {{false, 0}, {true, 0}};
}

std::string describe(const Case& c) {
  return "batch " + std::to_string(c.batch) + " seqlen " + std::to_string(c.seqlen) + " heads " +
         std::to_string(c.heads) + " head_dim " + std::to_string(c.head_dim) + (c.causal ? " causal" : " non-causal") +
         (c.source == PSource::smem        ? " P through shared memory"
          : c.source == PSource::registers ? " P in registers"
                                           : " P path automatic") +
         (c.scale > 0.0f ? " scale " + std::to_string(c.scale) : "") + (c.dtype == DataType::float16 ? " f16" : " bf16") +
         (c.heads_kv > 0 ? " heads_kv " + std::to_string(c.heads_kv) : "") +
         (c.launches > 1 ? " launched " + std::to_string(c.launches) + " times" : "");
}

// Launches the kernel in one grid form into o / lse (filled with NaN / -1 first) and compares with the
// reference.
void check_form(const Case& c, const Form& f, const DeviceBuffer& q, const DeviceBuffer& k, const DeviceBuffer& v,
                const DeviceBuffer& o, const DeviceBuffer& lse, const std::vector<float>& want,
                const std::vector<float>& want_abs, const std::vector<float>& want_lse) {
  SCOPED_TRACE(f.persistent ? "persistent" + (f.max_ctas > 0 ? ", at most " + std::to_string(f.max_ctas) + " CTAs" : std::string())
                            : std::string("one CTA per tile"));
  const int half = c.dtype == DataType::float16 ? 1 : 0;
  const std::size_t n = want.size(), rows = want_lse.size();
  TMAKIT_CUDA_OK(cudaMemset(o.p, 0xff, n * 2));  // NaN: every element must be written
  std::vector<float> minus_one(rows, -1.0f);
  TMAKIT_CUDA_OK(cudaMemcpy(lse.p, minus_one.data(), rows * 4, cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());

  AttentionArgs a;
  a.batch = c.batch;
  a.seqlen = c.seqlen;
  a.heads = c.heads;
  a.head_dim = c.head_dim;
  a.heads_kv = c.heads_kv;
  a.dtype = c.dtype;
  a.q = q.p;
  a.k = k.p;
  a.v = v.p;
  a.o = o.p;
  a.lse = lse.as<float>();
  a.causal = c.causal;
  a.scale = c.scale;
  a.p_source = c.source;
  a.grid = f.persistent ? GridForm::persistent : GridForm::per_tile;
  a.max_ctas = f.max_ctas;
  AttentionStatus s;
  if (c.launches > 1) {
    const tmakit::attention_sm90::Attention prepared(a);
    s = prepared.status();
    for (int i = 0; s.ok && i < c.launches; ++i) ASSERT_EQ(prepared.launch(), cudaSuccess);
  } else {
    s = tmakit::attention_sm90::attention(a);
  }
  std::string why;
  for (const auto& e : s.errors) why += e + "\n";
  ASSERT_TRUE(s.ok) << why;
  // The path that ran: the case's, or PSource::automatic's choice.
  const PSource ran =
      c.source == PSource::automatic ? tmakit::attention_sm90::p_source_chosen(c.head_dim, c.seqlen, c.causal) : c.source;
  EXPECT_EQ(s.config.p_source, ran);
  EXPECT_EQ(s.config.persistent, f.persistent);
  // Three consumer warpgroups (192 query rows) at head dim 64, and at 96 and 128 with P through shared
  // memory; two (128 rows) otherwise.
  const bool three = c.head_dim == 64 || (ran == PSource::smem && c.head_dim <= 128);
  const std::int64_t block_m = three ? 192 : 128;
  EXPECT_EQ(s.config.block_m, block_m);
  const std::int64_t q_blocks = (c.seqlen + block_m - 1) / block_m;
  const std::int64_t tiles = q_blocks * c.heads * c.batch;
  EXPECT_EQ(s.config.tiles, tiles);
  if (!f.persistent) {
    EXPECT_EQ(s.config.ctas, tiles);
  } else {
    int sms = 0;
    TMAKIT_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const std::int64_t limit = f.max_ctas > 0 ? std::min<std::int64_t>(f.max_ctas, sms) : sms;  // one CTA per SM fits
    EXPECT_EQ(s.config.ctas, std::min<std::int64_t>(tiles, limit));  // the tiles handed out as CTAs free up
  }
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());

  std::vector<std::uint16_t> got(n);
  std::vector<float> got_lse(rows);
  TMAKIT_CUDA_OK(cudaMemcpy(got.data(), o.p, n * 2, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(got_lse.data(), lse.p, rows * 4, cudaMemcpyDeviceToHost));

  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = value_at(got.data(), i, half);
    const double tol = std::ldexp(1.0, -8) * (want_abs[i] + std::fabs(want[i])) + std::ldexp(1.0, -20);
    if (!(std::fabs(g - want[i]) <= tol)) {
      if (!bad) {
        const std::size_t d = i % c.head_dim, hh = i / c.head_dim % c.heads, r = i / (c.head_dim * c.heads) % c.seqlen,
                          b = i / (c.head_dim * c.heads * c.seqlen);
        first = "first at batch " + std::to_string(b) + " row " + std::to_string(r) + " head " + std::to_string(hh) +
                " dim " + std::to_string(d) + ": got " + std::to_string(g) + ", reference " + std::to_string(want[i]) +
                ", bound " + std::to_string(tol);
      }
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << n << " elements of O outside the bound; " << first;

  std::size_t bad_lse = 0;
  std::string first_lse;
  for (std::size_t i = 0; i < rows; ++i) {
    const double tol = std::ldexp(1.0, -12) * (1.0 + std::fabs(want_lse[i]));
    if (!(std::fabs(got_lse[i] - want_lse[i]) <= tol)) {
      if (!bad_lse)
        first_lse = "first at (batch, head, row) index " + std::to_string(i) + ": got " + std::to_string(got_lse[i]) +
                    ", reference " + std::to_string(want_lse[i]);
      ++bad_lse;
    }
  }
  EXPECT_EQ(bad_lse, 0u) << bad_lse << " of " << rows << " LSE values outside the bound; " << first_lse;
}

void run_case(const Case& c) {
  SCOPED_TRACE(describe(c));
  const std::int64_t heads_kv = c.heads_kv > 0 ? c.heads_kv : c.heads;
  const int half = c.dtype == DataType::float16 ? 1 : 0;
  const std::size_t n = static_cast<std::size_t>(c.batch * c.seqlen * c.heads * c.head_dim);
  const std::size_t n_kv = static_cast<std::size_t>(c.batch * c.seqlen * heads_kv * c.head_dim);
  const std::size_t rows = static_cast<std::size_t>(c.batch * c.heads * c.seqlen);
  DeviceBuffer q(n * 2), k(n_kv * 2), v(n_kv * 2), o(n * 2), lse(rows * 4);
  DeviceBuffer ref(n * 4), ref_abs(n * 4), ref_lse(rows * 4);
  fill_16<<<1024, 256>>>(q.as<std::uint16_t>(), n, 1, half);
  fill_16<<<1024, 256>>>(k.as<std::uint16_t>(), n_kv, 2, half);
  fill_16<<<1024, 256>>>(v.as<std::uint16_t>(), n_kv, 3, half);
  TMAKIT_CUDA_OK(cudaGetLastError());

  const float scale = c.scale > 0.0f ? c.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  const std::size_t sh = sizeof(float) * static_cast<std::size_t>(c.head_dim + c.seqlen);
  if (sh > 48 * 1024)
    TMAKIT_CUDA_OK(cudaFuncSetAttribute(reference_attention, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sh)));
  reference_attention<<<dim3(static_cast<unsigned>(c.seqlen), static_cast<unsigned>(c.heads), static_cast<unsigned>(c.batch)),
                        128, sh>>>(q.as<std::uint16_t>(), k.as<std::uint16_t>(), v.as<std::uint16_t>(), ref.as<float>(),
                                   ref_abs.as<float>(), ref_lse.as<float>(), static_cast<int>(c.seqlen),
                                   static_cast<int>(c.heads), static_cast<int>(heads_kv), static_cast<int>(c.head_dim),
                                   scale, c.causal ? 1 : 0, half);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> want(n), want_abs(n), want_lse(rows);
  TMAKIT_CUDA_OK(cudaMemcpy(want.data(), ref.p, n * 4, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(want_abs.data(), ref_abs.p, n * 4, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(want_lse.data(), ref_lse.p, rows * 4, cudaMemcpyDeviceToHost));

  for (const Form& f : forms_of(c)) check_form(c, f, q, k, v, o, lse, want, want_abs, want_lse);
}

// Every head dim, mask and P path on a few shapes.
void every_form(std::int64_t batch, std::int64_t seqlen, std::int64_t heads) {
  for (std::int64_t d : {64, 96, 128, 256})
    for (bool causal : {false, true})
      for (PSource source : {PSource::smem, PSource::registers}) run_case({batch, seqlen, heads, d, causal, source});
}

TEST(AttentionSmall, OneTile) {
  TMAKIT_REQUIRE_GPU();
  every_form(1, 128, 2);
}

// PSource::automatic at every head dim, causal (P in registers at this length) and not (P through
// shared memory at head dims 96 and 128), in both grid forms.
TEST(AttentionSmall, AutomaticPSource) {
  TMAKIT_REQUIRE_GPU();
  for (std::int64_t d : {64, 96, 128, 256})
    for (bool causal : {false, true}) run_case({2, 300, 2, d, causal, PSource::automatic});
}

TEST(AttentionSmall, TwoTilesBatchesAndHeads) {
  TMAKIT_REQUIRE_GPU();
  every_form(2, 256, 3);
}

// 1000 rows: the last query tile and KV block end 24 rows short (TMA fills K and V with zeros, the
// kernel masks those columns, the O store is clipped).
TEST(AttentionSmall, OddSequenceLength) {
  TMAKIT_REQUIRE_GPU();
  every_form(1, 1000, 2);
}

TEST(AttentionSmall, TinyAndRaggedSequences) {
  TMAKIT_REQUIRE_GPU();
  for (std::int64_t s : {1, 7, 129, 200})
    for (bool causal : {false, true}) {
      run_case({2, s, 3, 64, causal, PSource::smem});
      run_case({2, s, 3, 96, causal, PSource::registers});
      run_case({2, s, 3, 128, causal, PSource::registers});
      run_case({2, s, 3, 256, causal, PSource::smem});
    }
}

// f16 inputs and output: every head dim, both P paths.
TEST(AttentionSmall, HalfPrecision) {
  TMAKIT_REQUIRE_GPU();
  for (std::int64_t d : {64, 96, 128, 256})
    for (PSource source : {PSource::smem, PSource::registers}) {
      Case c{2, 200, 2, d, d % 128 == 0, source};
      c.dtype = DataType::float16;
      run_case(c);
    }
}

// Grouped-query attention: 6 query heads over 3, 2 and 1 K / V heads.
TEST(AttentionSmall, GroupedQueryHeads) {
  TMAKIT_REQUIRE_GPU();
  for (std::int64_t kv : {3, 2, 1})
    for (std::int64_t d : {64, 256}) {
      Case c{1, 300, 6, d, kv != 2, kv == 1 ? PSource::smem : PSource::registers};
      c.heads_kv = kv;
      run_case(c);
    }
}

// A larger scale makes the softmax peaked: the running maximum and the rescaling of O matter.
TEST(AttentionSmall, PeakedSoftmax) {
  TMAKIT_REQUIRE_GPU();
  for (PSource source : {PSource::smem, PSource::registers}) {
    run_case({1, 300, 2, 64, false, source, 4.0f});
    run_case({1, 300, 2, 96, true, source, 4.0f});
    run_case({1, 300, 2, 128, true, source, 4.0f});
    run_case({1, 300, 2, 256, false, source, 4.0f});
  }
}

TEST(AttentionSmall, RepeatedLaunches) {
  TMAKIT_REQUIRE_GPU();
  Case c{2, 384, 2, 128, true, PSource::smem};
  c.launches = 3;
  run_case(c);
}

// The persistent form with a grid forced small: each CTA computes many tiles (the rings' rounds, Q's
// phases and the turns run on across tiles; the tiles handed out from the launch's counter, causal
// ones longest first), launched again and again on the same handle (a counter per launch).
TEST(AttentionSmall, PersistentManyTilesPerCta) {
  TMAKIT_REQUIRE_GPU();
  for (std::int64_t d : {64, 96, 128})
    for (bool causal : {false, true})
      for (PSource source : {PSource::smem, PSource::registers}) {
        Case c{2, 1000, 3, d, causal, source};  // 48 tiles (36 where a tile has 192 rows)
        c.max_ctas = 5;                         // about 7 to 10 tiles per CTA
        c.launches = 3;
        run_case(c);
      }
  Case one{1, 600, 2, 128, true, PSource::smem};  // 10 tiles, one CTA
  one.max_ctas = 1;
  run_case(one);
  Case gqa{1, 300, 6, 64, false, PSource::registers};  // grouped-query heads, 12 tiles over 7 CTAs
  gqa.heads_kv = 2;
  gqa.max_ctas = 7;
  run_case(gqa);
}

TEST(AttentionLarge, LongSequenceManyHeads) {
  TMAKIT_REQUIRE_GPU();
  every_form(1, 4096, 16);
}

// ---- Packed sequences of different lengths (AttentionArgs::cu_seqlens): Q, K, V and O are
// [total, heads, head_dim], LSE [heads, total]. The reference is the fixed-length one, run on each
// sequence's rows alone (batch 1, seqlen = its length). O has kGuardRows rows more than the
// sequences hold, and they must keep their NaN: no store of the last sequence goes past its end.
struct PackedCase {
  std::vector<std::int32_t> lengths;
  std::int64_t heads, head_dim;
  bool causal = false;
  PSource source = PSource::registers;
  std::int64_t heads_kv = 0;
  int max_ctas = 0;  // > 0: the persistent form alone, with that limit
  DataType dtype = DataType::bfloat16;
};
constexpr std::int64_t kGuardRows = 64;

std::string describe(const PackedCase& c) {
  std::string lens;
  for (std::int32_t n : c.lengths) lens += (lens.empty() ? "" : ",") + std::to_string(n);
  return "packed lengths " + lens + " heads " + std::to_string(c.heads) + " head_dim " + std::to_string(c.head_dim) +
         (c.causal ? " causal" : " non-causal") +
         (c.source == PSource::smem ? " P through shared memory" : c.source == PSource::registers ? " P in registers" : " P path automatic") +
         (c.heads_kv > 0 ? " heads_kv " + std::to_string(c.heads_kv) : "") + (c.dtype == DataType::float16 ? " f16" : " bf16");
}

void run_packed_case(const PackedCase& c) {
  SCOPED_TRACE(describe(c));
  const std::int64_t heads_kv = c.heads_kv > 0 ? c.heads_kv : c.heads;
  const int half = c.dtype == DataType::float16 ? 1 : 0;
  std::vector<std::int32_t> offsets = {0};
  std::int64_t longest = 0;
  for (std::int32_t n : c.lengths) {
    offsets.push_back(offsets.back() + n);
    longest = std::max<std::int64_t>(longest, n);
  }
  const std::int64_t total = offsets.back(), batch = static_cast<std::int64_t>(c.lengths.size());
  const std::size_t row = static_cast<std::size_t>(c.heads * c.head_dim), kv_row = static_cast<std::size_t>(heads_kv * c.head_dim);
  const std::size_t n = total * row, n_out = (total + kGuardRows) * row, n_kv = total * kv_row;
  const std::size_t rows = static_cast<std::size_t>(total * c.heads);
  DeviceBuffer q(std::max<std::size_t>(n, 1) * 2), k(std::max<std::size_t>(n_kv, 1) * 2), v(std::max<std::size_t>(n_kv, 1) * 2);
  DeviceBuffer o(n_out * 2), lse(std::max<std::size_t>(rows, 1) * 4), cu(offsets.size() * 4);
  DeviceBuffer ref(std::max<std::size_t>(n, 1) * 4), ref_abs(std::max<std::size_t>(n, 1) * 4),
      ref_lse(static_cast<std::size_t>(c.heads * std::max<std::int64_t>(longest, 1)) * 4);
  fill_16<<<1024, 256>>>(q.as<std::uint16_t>(), n, 11, half);
  fill_16<<<1024, 256>>>(k.as<std::uint16_t>(), n_kv, 12, half);
  fill_16<<<1024, 256>>>(v.as<std::uint16_t>(), n_kv, 13, half);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaMemcpy(cu.p, offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice));

  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  const std::size_t sh = sizeof(float) * static_cast<std::size_t>(c.head_dim + longest);
  if (sh > 48 * 1024)
    TMAKIT_CUDA_OK(cudaFuncSetAttribute(reference_attention, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sh)));
  std::vector<float> want(n), want_abs(n), want_lse(rows);
  std::vector<float> seq_lse;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t first = offsets[b], len = c.lengths[b];
    if (len == 0) continue;
    const auto* qb = q.as<std::uint16_t>() + first * row;
    const auto* kb = k.as<std::uint16_t>() + first * kv_row;
    const auto* vb = v.as<std::uint16_t>() + first * kv_row;
    reference_attention<<<dim3(static_cast<unsigned>(len), static_cast<unsigned>(c.heads), 1), 128, sh>>>(
        qb, kb, vb, ref.as<float>() + first * row, ref_abs.as<float>() + first * row, ref_lse.as<float>(),
        static_cast<int>(len), static_cast<int>(c.heads), static_cast<int>(heads_kv), static_cast<int>(c.head_dim), scale,
        c.causal ? 1 : 0, half);
    TMAKIT_CUDA_OK(cudaGetLastError());
    seq_lse.resize(static_cast<std::size_t>(c.heads * len));
    TMAKIT_CUDA_OK(cudaMemcpy(seq_lse.data(), ref_lse.p, seq_lse.size() * 4, cudaMemcpyDeviceToHost));
    for (std::int64_t h = 0; h < c.heads; ++h)
      for (std::int64_t i = 0; i < len; ++i) want_lse[h * total + first + i] = seq_lse[h * len + i];  // [heads, total]
  }
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  if (n) {
    TMAKIT_CUDA_OK(cudaMemcpy(want.data(), ref.p, n * 4, cudaMemcpyDeviceToHost));
    TMAKIT_CUDA_OK(cudaMemcpy(want_abs.data(), ref_abs.p, n * 4, cudaMemcpyDeviceToHost));
  }

  std::vector<Form> forms = {{false, 0}, {true, 0}};
  if (c.max_ctas > 0) forms = {{true, c.max_ctas}};
  const bool automatic = c.source == PSource::automatic;  // then the grid form is the launcher's choice too
  if (automatic) forms = {{false, 0}};
  for (const Form& f : forms) {
    SCOPED_TRACE(f.persistent ? "persistent, at most " + std::to_string(f.max_ctas) + " CTAs (0: resident)" : "one CTA per tile");
    TMAKIT_CUDA_OK(cudaMemset(o.p, 0xff, n_out * 2));  // NaN: every row of a sequence written, the guard rows not
    std::vector<float> minus_one(rows, -1.0f);
    if (rows) TMAKIT_CUDA_OK(cudaMemcpy(lse.p, minus_one.data(), rows * 4, cudaMemcpyHostToDevice));
    AttentionArgs a;
    a.batch = batch;
    a.seqlen = 0;
    a.cu_seqlens = cu.as<std::int32_t>();
    a.heads = c.heads;
    a.head_dim = c.head_dim;
    a.heads_kv = c.heads_kv;
    a.dtype = c.dtype;
    a.q = q.p;
    a.k = k.p;
    a.v = v.p;
    a.o = o.p;
    a.lse = lse.as<float>();
    a.causal = c.causal;
    a.p_source = c.source;
    a.grid = automatic ? GridForm::automatic : f.persistent ? GridForm::persistent : GridForm::per_tile;
    a.max_ctas = f.max_ctas;
    const AttentionStatus s = tmakit::attention_sm90::attention(a);
    std::string why;
    for (const auto& e : s.errors) why += e + "\n";
    ASSERT_TRUE(s.ok) << why;
    EXPECT_EQ(s.config.longest, longest);
    // The launcher's choice for packed sequences (heuristics.hpp): P in registers, one CTA per tile.
    if (automatic) {
      EXPECT_EQ(s.config.p_source, PSource::registers);
      EXPECT_FALSE(s.config.persistent);
    }
    EXPECT_EQ(s.config.total, total);
    std::int64_t tiles = 0;
    for (std::int32_t len : c.lengths) tiles += (len + s.config.block_m - 1) / s.config.block_m * c.heads;
    EXPECT_EQ(s.config.tiles, tiles);
    TMAKIT_CUDA_OK(cudaDeviceSynchronize());

    std::vector<std::uint16_t> got(n_out);
    std::vector<float> got_lse(rows);
    TMAKIT_CUDA_OK(cudaMemcpy(got.data(), o.p, n_out * 2, cudaMemcpyDeviceToHost));
    if (rows) TMAKIT_CUDA_OK(cudaMemcpy(got_lse.data(), lse.p, rows * 4, cudaMemcpyDeviceToHost));
    std::size_t bad = 0, guard_written = 0;
    std::string first;
    for (std::size_t i = 0; i < n; ++i) {
      const float g = value_at(got.data(), i, half);
      const double tol = std::ldexp(1.0, -8) * (want_abs[i] + std::fabs(want[i])) + std::ldexp(1.0, -20);
      if (!(std::fabs(g - want[i]) <= tol)) {
        if (!bad) {
          const std::int64_t r = static_cast<std::int64_t>(i / row);
          const std::int64_t b = std::upper_bound(offsets.begin(), offsets.end(), r) - offsets.begin() - 1;
          first = "first at packed row " + std::to_string(r) + " (sequence " + std::to_string(b) + " row " +
                  std::to_string(r - offsets[b]) + ") head " + std::to_string(i / c.head_dim % c.heads) + " dim " +
                  std::to_string(i % c.head_dim) + ": got " + std::to_string(g) + ", reference " + std::to_string(want[i]);
        }
        ++bad;
      }
    }
    for (std::size_t i = n; i < n_out; ++i) guard_written += got[i] != 0xffff;
    EXPECT_EQ(bad, 0u) << bad << " of " << n << " elements of O outside the bound; " << first;
    EXPECT_EQ(guard_written, 0u) << "elements written past the last sequence's end";
    std::size_t bad_lse = 0;
    for (std::size_t i = 0; i < rows; ++i)
      bad_lse += !(std::fabs(got_lse[i] - want_lse[i]) <= std::ldexp(1.0, -12) * (1.0 + std::fabs(want_lse[i])));
    EXPECT_EQ(bad_lse, 0u) << bad_lse << " of " << rows << " LSE values ([heads, total]) outside the bound";
  }
}

// Ragged batches: empty and one-row sequences, lengths on and off the tiles, every head dim, mask
// and P path, in both grid forms; grouped-query heads; the persistent form with few CTAs (units past
// a sequence's own passed by; as many CTAs as tiles, of which some may find none left).
TEST(AttentionSmall, PackedSequences) {
  TMAKIT_REQUIRE_GPU();
  const std::vector<std::int32_t> lengths = {129, 1, 0, 300, 7, 64, 200};
  for (std::int64_t d : {64, 96, 128, 256})
    for (bool causal : {false, true})
      for (PSource source : {PSource::smem, PSource::registers}) run_packed_case({lengths, 3, d, causal, source});
  PackedCase gqa{{300, 5, 191, 0, 450}, 6, 128, true, PSource::registers};
  gqa.heads_kv = 2;
  run_packed_case(gqa);
  gqa.head_dim = 64;
  gqa.heads_kv = 1;
  gqa.dtype = DataType::float16;
  run_packed_case(gqa);
  for (bool causal : {false, true}) {
    PackedCase few{{1000, 3, 640, 129, 0, 385}, 2, 96, causal, PSource::smem};
    few.max_ctas = 3;
    run_packed_case(few);
  }
  run_packed_case({{0, 0}, 2, 64, true, PSource::registers});  // nothing to compute: no launch, nothing written
}

// Lengths from 1 to 8k in one batch (the longest sequence's window spans the others), in the forms
// the launcher picks for packed sequences (PSource::automatic) and with P through shared memory.
TEST(AttentionLarge, PackedRaggedBatch) {
  TMAKIT_REQUIRE_GPU();
  const std::vector<std::int32_t> lengths = {8192, 1, 3000, 17, 4096, 513, 2048, 1000, 129};
  for (std::int64_t d : {64, 96, 128, 256})
    for (bool causal : {false, true})
      for (PSource source : {PSource::automatic, PSource::smem}) run_packed_case({lengths, 4, d, causal, source});
}

// Offsets the kernel cannot walk come back as attention.cu_seqlens, every reason at once.
TEST(AttentionSmall, PackedOffsetsRefused) {
  TMAKIT_REQUIRE_GPU();
  DeviceBuffer buf(1 << 20), cu(64);
  auto errors = [&](const std::vector<std::int32_t>& offsets, std::int64_t seqlen, const std::int32_t* where) -> std::string {
    EXPECT_EQ(cudaMemcpy(cu.p, offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    AttentionArgs a;
    a.batch = static_cast<std::int64_t>(offsets.size()) - 1;
    a.seqlen = seqlen;
    a.cu_seqlens = where ? where : cu.as<std::int32_t>();
    a.heads = 2;
    a.head_dim = 64;
    a.q = a.k = a.v = static_cast<const unsigned char*>(buf.p) + 4096;
    a.o = static_cast<unsigned char*>(buf.p) + 4096;
    a.lse = buf.as<float>();
    const tmakit::attention_sm90::Attention planned(a);
    std::string all;
    for (const auto& e : planned.status().errors) all += e + "\n";
    EXPECT_FALSE(planned.status().ok);
    return all;
  };
  const std::string decreasing = errors({0, 10, 5, 20, 12}, 0, nullptr);
  EXPECT_NE(decreasing.find("error [attention.cu_seqlens] sequence 1 would have -5 rows"), std::string::npos) << decreasing;
  EXPECT_NE(decreasing.find("error [attention.cu_seqlens] sequence 3 would have -8 rows"), std::string::npos) << decreasing;
  const std::string not_zero = errors({4, 10}, 0, nullptr);
  EXPECT_NE(not_zero.find("error [attention.cu_seqlens] the first offset is 4, not 0; fix: cu_seqlens holds"), std::string::npos) << not_zero;
  const std::string too_long = errors({0, 10, 40}, 16, nullptr);
  EXPECT_NE(too_long.find("error [attention.cu_seqlens] sequence 1 has 30 rows, more than seqlen = 16"), std::string::npos)
      << too_long;
  const std::int32_t host_offsets[] = {0, 8};
  const std::string on_host = errors({0, 8}, 0, host_offsets);
  EXPECT_NE(on_host.find("error [attention.cu_seqlens] the offsets are not in device memory"), std::string::npos) << on_host;
  // seqlen < 0 is no bound
  const std::string negative = errors({0, 8}, -1, nullptr);
  EXPECT_NE(negative.find("attention.extent"), std::string::npos) << negative;
}

// A batch past the grid's limit is refused before its offsets are read (no GPU needed).
TEST(AttentionArgs, PackedBatchBeyondTheGridIsRefusedFirst) {
  AttentionArgs a;
  a.batch = std::int64_t{1} << 40;  // batch + 1 offsets would be 4 TiB
  a.cu_seqlens = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x100000});
  a.heads = 2;
  a.head_dim = 64;
  a.q = a.k = a.v = reinterpret_cast<const void*>(std::uintptr_t{0x200000});
  a.o = reinterpret_cast<void*>(std::uintptr_t{0x300000});
  a.lse = reinterpret_cast<float*>(std::uintptr_t{0x400000});
  const tmakit::attention_sm90::Attention planned(a);
  ASSERT_EQ(planned.status().errors.size(), 1u);
  EXPECT_EQ(planned.status().errors[0].rfind("error [attention.grid] at most 65535 batches", 0), 0u) << planned.status().errors[0];
}

// Refusals come back with their rule ids, before anything touches the GPU.
TEST(AttentionArgs, RefusesWhatIsNotBuilt) {
  AttentionArgs a;
  a.batch = 1;
  a.seqlen = 128;
  a.heads = 2;
  a.head_dim = 80;
  a.heads_kv = 4;
  a.dtype = DataType::float32;
  auto errors = [](const AttentionArgs& x) {
    const tmakit::attention_sm90::Attention planned(x);
    std::string all;
    for (const auto& e : planned.status().errors) all += e + "\n";
    return all;
  };
  const std::string e = errors(a);
  EXPECT_NE(e.find("error [attention.head_dim] head dims 64, 96, 128 and 256 are built, got 80; fix: give head_dim"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("attention.dtype"), std::string::npos) << e;
  EXPECT_NE(e.find("attention.heads_kv"), std::string::npos) << e;
  EXPECT_NE(e.find("attention.null"), std::string::npos) << e;
  // One line per refusal, each in the library's one shape: "error [<id>] <what>; fix: <fix>".
  for (std::size_t at = 0, end; (end = e.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = e.substr(at, end - at);
    EXPECT_EQ(line.rfind("error [attention.", 0), 0u) << line;
    EXPECT_NE(line.find("; fix: "), std::string::npos) << line;
  }

  a.head_dim = 64;
  a.heads_kv = 1;
  a.dtype = DataType::bfloat16;
  a.seqlen = 0;
  a.scale = -1.0f;
  const std::string e2 = errors(a);
  EXPECT_NE(e2.find("attention.extent"), std::string::npos) << e2;
  EXPECT_NE(e2.find("attention.scale"), std::string::npos) << e2;

  // A base address TMA cannot copy from: the planner's own rule, named by tensor.
  a.seqlen = 128;
  a.scale = 0.0f;
  a.q = reinterpret_cast<const void*>(std::uintptr_t{0x100002});
  a.k = reinterpret_cast<const void*>(std::uintptr_t{0x200000});
  a.v = reinterpret_cast<const void*>(std::uintptr_t{0x300000});
  a.o = reinterpret_cast<void*>(std::uintptr_t{0x400000});
  a.lse = reinterpret_cast<float*>(std::uintptr_t{0x500000});
  const std::string e3 = errors(a);
  EXPECT_NE(e3.find("Q: error [gmem."), std::string::npos) << e3;
  EXPECT_EQ(e3.find("K: "), std::string::npos) << e3;

  // max_ctas: only with the persistent form (built at every head dim), never negative.
  a.q = a.k;
  a.head_dim = 256;
  a.grid = GridForm::persistent;
  a.max_ctas = -1;
  const std::string e4 = errors(a);
  EXPECT_NE(e4.find("attention.max_ctas"), std::string::npos) << e4;
  a.head_dim = 128;
  a.grid = GridForm::per_tile;
  a.max_ctas = 4;
  const std::string e5 = errors(a);
  EXPECT_NE(e5.find("attention.max_ctas"), std::string::npos) << e5;
  // automatic takes no CTA limit.
  a.grid = GridForm::automatic;
  const std::string e6 = errors(a);
  EXPECT_NE(e6.find("attention.max_ctas"), std::string::npos) << e6;
  a.grid = static_cast<GridForm>(7);
  const std::string e8 = errors(a);
  EXPECT_NE(e8.find("attention.grid_form"), std::string::npos) << e8;
  a.grid = GridForm::automatic;
  a.p_source = static_cast<PSource>(7);
  const std::string e9 = errors(a);
  EXPECT_NE(e9.find("attention.p_source"), std::string::npos) << e9;
}

// PSource::automatic's rule (heuristics.hpp): head dim 96 through shared memory non-causal, in registers
// causal; head dim 128 non-causal through shared memory up to seqlen 4096, else in registers; 64 and
// 256 in registers.
TEST(AttentionArgs, AutomaticPSourceFollowsTheMeasuredPaths) {
  using tmakit::attention_sm90::p_source_chosen;
  EXPECT_EQ(p_source_chosen(96, 2048, false), PSource::smem);
  EXPECT_EQ(p_source_chosen(96, 16384, false), PSource::smem);
  EXPECT_EQ(p_source_chosen(96, 512, true), PSource::registers);
  EXPECT_EQ(p_source_chosen(96, 16384, true), PSource::registers);
  EXPECT_EQ(p_source_chosen(128, 512, false), PSource::smem);
  EXPECT_EQ(p_source_chosen(128, 4096, false), PSource::smem);
  EXPECT_EQ(p_source_chosen(128, 4097, false), PSource::registers);
  EXPECT_EQ(p_source_chosen(128, 1024, true), PSource::registers);
  EXPECT_EQ(p_source_chosen(128, 16384, true), PSource::registers);
  EXPECT_EQ(p_source_chosen(64, 16384, false), PSource::registers);
  EXPECT_EQ(p_source_chosen(256, 16384, false), PSource::registers);
}

// GridForm::automatic's rule (heuristics.hpp): persistent on the shorter tiles, by head dim and path.
TEST(AttentionArgs, AutomaticGridChoosesPersistentForShortTiles) {
  using tmakit::attention_sm90::persistent_grid_chosen;
  // head dim 64: causal at every length, non-causal up to 8192
  EXPECT_TRUE(persistent_grid_chosen(64, 512, false));
  EXPECT_TRUE(persistent_grid_chosen(64, 4096, true));
  EXPECT_TRUE(persistent_grid_chosen(64, 16384, true));
  EXPECT_TRUE(persistent_grid_chosen(64, 8192, false));
  EXPECT_FALSE(persistent_grid_chosen(64, 8193, false));
  // head dim 96: up to 8192, and at every length non-causal through shared memory
  EXPECT_TRUE(persistent_grid_chosen(96, 8192, true));
  EXPECT_FALSE(persistent_grid_chosen(96, 8193, true));
  EXPECT_FALSE(persistent_grid_chosen(96, 16384, false, PSource::registers));
  EXPECT_TRUE(persistent_grid_chosen(96, 16384, false, PSource::smem));
  // head dim 128: at every length, either path
  EXPECT_TRUE(persistent_grid_chosen(128, 16384, false, PSource::smem));
  EXPECT_TRUE(persistent_grid_chosen(128, 16384, true, PSource::smem));
  EXPECT_TRUE(persistent_grid_chosen(128, 16384, true, PSource::registers));
  EXPECT_TRUE(persistent_grid_chosen(128, 4096, false, PSource::registers));
  EXPECT_TRUE(persistent_grid_chosen(128, 16384, false, PSource::registers));
  // head dim 256: up to 8192; nothing to run without rows
  EXPECT_TRUE(persistent_grid_chosen(256, 8192, true));
  EXPECT_FALSE(persistent_grid_chosen(256, 8193, true));
  EXPECT_TRUE(persistent_grid_chosen(256, 8192, false));
  EXPECT_FALSE(persistent_grid_chosen(256, 8193, false));
  EXPECT_FALSE(persistent_grid_chosen(64, 0, false));
  EXPECT_FALSE(persistent_grid_chosen(128, 0, false, PSource::smem));
}

}  // namespace

// tmakit's all-gather fused into the GEMM (kernels/allgather_gemm_sm90) against NCCL's all-gather
// followed by tmakit's plain GEMM (kernels/gemm_sm90, one CTA per cluster, no split K: the same
// per-tile arithmetic), one process per GPU, on 2 and on 4 GPUs. Every rank compares every byte of
// its gathered A (the fused call leaves it in the window) with NCCL's all-gather of the shards, and
// every element of D, bit for bit, with the plain GEMM's on NCCL's gathered A. The rows a rank does
// not own are set to NaN before each call, and each call has new inputs, so a row block the GEMM
// read before its pull (or a flag left valid from the call before) shows in D. Shapes: one row
// block per shard and one puller, uneven row blocks per puller, up to 16 pullers; two calls each.
// Planted faults, on 2 GPUs: rank 0's pullers withhold the row blocks owned by rank 1 (pulled,
// never released); rank 1 never calls. Either way rank 0's GEMM's bounded wait for a row block must
// name the row block and rank 1 within the bound (2 s; the other waits have 4 s).
//
// Structure as tests/gpu/test_collectives.cu (ranks_test_util.hpp): AllGatherGemm.* run in the
// parent and start the ranks (AllGatherGemmRank.*); without 2 (or 4) GPUs they skip.
// TMAKIT_ALLGATHER_GEMM_SMALL=1 keeps only the small shapes (for compute-sanitizer).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.cuh"
#include "kernels/allgather_gemm_sm90/allgather_gemm.hpp"
#include "kernels/gemm_sm90/gemm.hpp"
#include "ranks_test_util.hpp"

namespace tc = tmakit::collectives;
namespace ag = tmakit::allgather_gemm;
namespace gs = tmakit::gemm_sm90;

namespace {

constexpr double kPlantedBoundS = 2.0;  // the watchdog's bound in the planted test

struct Case {
  std::int64_t shard_blocks, n, k;  // m = world x shard_blocks x 128
  int pullers, stages;
  bool small;
};

bool small_only() {
  const char* v = std::getenv("TMAKIT_ALLGATHER_GEMM_SMALL");
  return v && std::string(v) == "1";
}

std::vector<Case> cases() {
  const std::vector<Case> all = {
      {1, 256, 256, 1, 2, true},      // one row block per shard, one puller, one tile per row
      {3, 384, 1024, 2, 4, true},     // uneven: 3 (W - 1) row blocks over 2 pullers; N not a multiple of 256
      {8, 1024, 2048, 8, 6, false},
      {16, 2048, 4096, 16, 6, false}, // 2048 rows per shard, 16 pullers
  };
  std::vector<Case> out;
  for (const Case& c : all)
    if (c.small || !small_only()) out.push_back(c);
  return out;
}
constexpr int kCallsPerCase = 2;

// Rows [own_first, own_first + own_rows) of A: seeded values in [-1, 1); every other row: NaN.
__global__ void fill_a(std::uint16_t* a, std::size_t rows, std::size_t cols, std::size_t own_first,
                       std::size_t own_rows, std::uint64_t seed) {
  const std::size_t n = rows * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t r = i / cols;
    const bool own = r >= own_first && r < own_first + own_rows;
    a[i] = own ? static_cast<std::uint16_t>(__float_as_uint(tmakit_test::unit_value(seed, i)) >> 16) : 0xFFFFu;
  }
}
__global__ void fill_b(std::uint16_t* b, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    b[i] = static_cast<std::uint16_t>(__float_as_uint(tmakit_test::unit_value(seed, i)) >> 16);
}

#define CUDA_OK(x) ASSERT_EQ(cudaSuccess, (x)) << #x << ": " << cudaGetErrorString(cudaGetLastError())
#define NCCL_OK(x) ASSERT_EQ(ncclSuccess, (x)) << #x

std::size_t count_differ(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b, std::size_t bytes) {
  std::size_t d = 0;
  for (std::size_t i = 0; i < bytes; ++i) d += a[i] != b[i];
  return d;
}

void run_against_nccl() {
  auto comm = tmakit_test::join_ranks();
  ASSERT_TRUE(comm);
  ASSERT_TRUE(ag::watchdog_compiled_in());
  CUDA_OK(ag::set_watchdog_bound_ns(30'000'000'000ull));  // ranks may drift apart by host work
  const int rank = comm->rank(), world = comm->world();
  std::size_t max_a = 0, max_b = 0, max_d = 0;
  for (const Case& c : cases()) {
    const std::size_t m = static_cast<std::size_t>(world * c.shard_blocks * 128);
    max_a = std::max(max_a, m * c.k * 2);
    max_b = std::max(max_b, static_cast<std::size_t>(c.k * c.n) * 2);
    max_d = std::max(max_d, m * c.n * 2);
  }
  tc::Window a;
  std::string err;
  ASSERT_TRUE(comm->alloc_window(max_a, &a, &err)) << err;
  tmakit_test::DeviceBuffer b(max_b), d(max_d), ref_a(max_a), ref_d(max_d);
  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  std::vector<unsigned char> got(std::max(max_a, max_d)), want(std::max(max_a, max_d));
  std::uint64_t seed = 1;
  for (const Case& c : cases()) {
    const std::int64_t m = world * c.shard_blocks * 128, shard = m / world;
    ag::AllGatherGemmArgs g;
    g.m = m;
    g.n = c.n;
    g.k = c.k;
    g.a = &a;
    g.b = b.p;
    g.ldb = c.k;
    g.d = d.p;
    g.ldd = c.n;
    g.pullers = c.pullers;
    g.stages = c.stages;
    ag::AllGatherGemm op(*comm, g);
    ASSERT_TRUE(op.status().ok) << (op.status().errors.empty() ? "" : op.status().errors[0]);
    gs::GemmArgs r;
    r.m = m;
    r.n = c.n;
    r.k = c.k;
    r.a = {ref_a.p, gs::Order::row_major, c.k, 0};
    r.b = {b.p, gs::Order::col_major, c.k, 0};
    r.d = {ref_d.p, gs::Order::row_major, c.n, 0};
    r.splits = 1;
    r.cluster_m = 1;
    const gs::Gemm ref(r);
    ASSERT_TRUE(ref.status().ok) << (ref.status().errors.empty() ? "" : ref.status().errors[0]);
    const std::size_t a_bytes = static_cast<std::size_t>(m * c.k) * 2, d_bytes = static_cast<std::size_t>(m * c.n) * 2;
    for (int call = 0; call < kCallsPerCase; ++call, ++seed) {
      fill_a<<<264, 256, 0, st>>>(static_cast<std::uint16_t*>(a.ptr), m, c.k, rank * shard, shard, seed * 64 + rank);
      fill_b<<<264, 256, 0, st>>>(b.as<std::uint16_t>(), static_cast<std::size_t>(c.k * c.n), seed * 64 + 63);
      CUDA_OK(cudaMemsetAsync(d.p, 0xA5, d_bytes, st));
      CUDA_OK(cudaMemsetAsync(ref_a.p, 0x5A, a_bytes, st));
      CUDA_OK(cudaMemsetAsync(ref_d.p, 0x5A, d_bytes, st));
      CUDA_OK(op.launch(*comm, st));
      const auto* own = static_cast<const std::uint16_t*>(a.ptr) + rank * shard * c.k;
      NCCL_OK(ncclAllGather(own, ref_a.p, static_cast<std::size_t>(shard * c.k), ncclBfloat16, comm->nccl(), st));
      CUDA_OK(ref.launch(st));
      CUDA_OK(cudaStreamSynchronize(st));
      CUDA_OK(cudaMemcpy(got.data(), a.ptr, a_bytes, cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(want.data(), ref_a.p, a_bytes, cudaMemcpyDeviceToHost));
      const std::size_t a_differ = count_differ(got, want, a_bytes);
      CUDA_OK(cudaMemcpy(got.data(), d.p, d_bytes, cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(want.data(), ref_d.p, d_bytes, cudaMemcpyDeviceToHost));
      const std::size_t d_differ = count_differ(got, want, d_bytes);
      std::printf("rank %d of %d: m %lld n %lld k %lld pullers %d (GEMM CTAs %d) stages %d call %d: A compared %zu "
                  "bytes, %zu differ; D compared %zu bytes, %zu differ\n",
                  rank, world, static_cast<long long>(m), static_cast<long long>(c.n), static_cast<long long>(c.k),
                  c.pullers, op.status().config.gemm_ctas, c.stages, call, a_bytes, a_differ, d_bytes, d_differ);
      EXPECT_EQ(a_differ, 0u);
      EXPECT_EQ(d_differ, 0u);
    }
  }
  std::fflush(stdout);
  CUDA_OK(cudaStreamDestroy(st));
  comm->free_window(a);
}

// never_calls: rank 1 never calls (it outlives rank 0's bound, then leaves); otherwise rank 0
// withholds the row blocks owned by rank 1 and rank 1 runs the call as planned.
void run_planted(bool never_calls) {
  auto comm = tmakit_test::join_ranks();
  ASSERT_TRUE(comm);
  ASSERT_EQ(comm->world(), 2);
  const int rank = comm->rank();
  CUDA_OK(ag::set_watchdog_bound_ns(static_cast<unsigned long long>(kPlantedBoundS * 1e9)));
  constexpr std::int64_t m = 512, n = 256, k = 512;
  tc::Window a;
  std::string err;
  ASSERT_TRUE(comm->alloc_window(m * k * 2, &a, &err)) << err;
  tmakit_test::DeviceBuffer b(k * n * 2), d(m * n * 2);
  CUDA_OK(cudaMemset(a.ptr, 0, m * k * 2));
  CUDA_OK(cudaMemset(b.p, 0, k * n * 2));
  CUDA_OK(cudaDeviceSynchronize());
  ag::AllGatherGemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = &a;
  g.b = b.p;
  g.ldb = k;
  g.d = d.p;
  g.ldd = n;
  g.pullers = 2;
  g.stages = 2;
  g.withhold_rank = rank == 0 && !never_calls ? 1 : -1;
  ag::AllGatherGemm op(*comm, g);
  ASSERT_TRUE(op.status().ok) << (op.status().errors.empty() ? "" : op.status().errors[0]);
  if (rank == 1 && never_calls) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kPlantedBoundS + 4));
    std::printf("rank 1: never called the fused GEMM\n");
    std::fflush(stdout);
    std::_Exit(0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = op.launch(*comm, nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fflush(stdout);
  std::printf("rank %d: the fused call ended after %.3f s: %s\n", rank, dt, cudaGetErrorString(e));
  std::fflush(stdout);
  std::_Exit(e == cudaSuccess ? 0 : 3);  // no teardown: rank 0's context is gone, and the peers do not meet again
}

double ended_after(const std::string& out) {
  const std::regex re(R"(the fused call ended after ([0-9.]+) s)");
  std::smatch mt;
  return std::regex_search(out, mt, re) ? std::stod(mt[1]) : -1;
}

// Every rank printed one line per case and call, every comparison equal.
void expect_all_equal(const tc::LaunchResult& r, int world) {
  ASSERT_TRUE(r.ok()) << tmakit_test::all_output(r);
  const std::regex line(R"(A compared (\d+) bytes, (\d+) differ; D compared (\d+) bytes, (\d+) differ)");
  int lines = 0;
  std::uint64_t bytes = 0;
  for (const auto& o : r.ranks)
    for (auto it = std::sregex_iterator(o.output.begin(), o.output.end(), line); it != std::sregex_iterator(); ++it) {
      ++lines;
      bytes += std::stoull((*it)[1]) + std::stoull((*it)[3]);
      EXPECT_EQ((*it)[2], "0") << o.output;
      EXPECT_EQ((*it)[4], "0") << o.output;
    }
  EXPECT_EQ(lines, world * static_cast<int>(cases().size()) * kCallsPerCase) << tmakit_test::all_output(r);
  std::printf("%d ranks: %d comparisons, %llu bytes compared in all\n", world, lines, static_cast<unsigned long long>(bytes));
}

}  // namespace

TEST(AllGatherGemmRank, EqualsNcclAllGatherThenGemm) {
  TMAKIT_REQUIRE_RANK("AllGatherGemm");
  run_against_nccl();
}
TEST(AllGatherGemmRank, PlantedRowBlockNeverReleased) {
  TMAKIT_REQUIRE_RANK("AllGatherGemm");
  run_planted(false);
}
TEST(AllGatherGemmRank, PlantedPeerNeverCalls) {
  TMAKIT_REQUIRE_RANK("AllGatherGemm");
  run_planted(true);
}

TEST(AllGatherGemm, EqualsNcclAllGatherThenGemmOn2Gpus) {
  TMAKIT_REQUIRE_GPUS(2);
  expect_all_equal(tmakit_test::run_rank_test(2, "AllGatherGemmRank", "EqualsNcclAllGatherThenGemm"), 2);
}

TEST(AllGatherGemm, EqualsNcclAllGatherThenGemmOn4Gpus) {
  TMAKIT_REQUIRE_GPUS(4);
  expect_all_equal(tmakit_test::run_rank_test(4, "AllGatherGemmRank", "EqualsNcclAllGatherThenGemm"), 4);
}

// Rank 0's GEMM CTAs wait for row blocks 2 and 3 (rank 1's shard), which never come: the watchdog
// names one of them, rank 1 and the puller within the bound (plus the time to print), before any
// of the waits queued behind it (their bound is twice as long).
void expect_row_block_named(const tc::LaunchResult& r) {
  ASSERT_EQ(r.ranks.size(), 2u);
  const std::string& out0 = r.ranks[0].output;
  const std::string all = tmakit_test::all_output(r);
  EXPECT_NE(r.ranks[0].exit_code, 0) << all;
  EXPECT_EQ(r.ranks[1].exit_code, 0) << all;
  const std::regex waited(R"(tmakit watchdog: rank 0 GEMM CTA \d+: waited \d+ ns \(bound 2000000000 ns\) for row block ([23]) \(rows (256\.\.383|384\.\.511) of A\) from peer rank 1)");
  EXPECT_TRUE(std::regex_search(out0, waited)) << all;
  const std::regex diagnosis(R"(diagnosis: row block never released: row block [23] of peer rank 1's shard holds call 0, this is call 1; puller CTA [01] did not release it)");
  EXPECT_TRUE(std::regex_search(out0, diagnosis)) << all;
  const double t = ended_after(out0);
  EXPECT_GE(t, kPlantedBoundS) << all;
  EXPECT_LT(t, kPlantedBoundS + 1.0) << all;
  std::printf("diagnosed after %.3f s (bound %.1f s)\n", t, kPlantedBoundS);
}

// Rank 0's pullers copy rank 1's row blocks but never release them; rank 1's call completes.
TEST(AllGatherGemm, PlantedRowBlockNeverReleased) {
  TMAKIT_REQUIRE_GPUS(2);
  const tc::LaunchResult r = tmakit_test::run_rank_test(2, "AllGatherGemmRank", "PlantedRowBlockNeverReleased", 120);
  expect_row_block_named(r);
}

// Rank 1 never calls: rank 0's pullers wait for its arrival (bound 4 s) and its GEMM for rank 1's
// row blocks (bound 2 s): the row block's wait names them first.
TEST(AllGatherGemm, PlantedPeerNeverCalls) {
  TMAKIT_REQUIRE_GPUS(2);
  const tc::LaunchResult r = tmakit_test::run_rank_test(2, "AllGatherGemmRank", "PlantedPeerNeverCalls", 120);
  EXPECT_NE(r.ranks[1].output.find("rank 1: never called the fused GEMM"), std::string::npos) << tmakit_test::all_output(r);
  expect_row_block_named(r);
}

// tmakit's all-gather and reduce-scatter (kernels/collectives_sm90) against NCCL's own, on 2 or
// more GPUs of one host, one process per GPU: every byte of tmakit's result is compared with
// NCCL's on the same input buffers (bf16 and f32; the sums use small integers, exact in any order,
// so the comparison is byte for byte whatever order the reduce-adds land in). Shapes with one
// block, uneven tiles per block, up to 132 blocks, pipeline lags 1 to 3, push and pull, the pushed
// all-gather's store orders (GatherSchedule: rotated, peer_groups, peers_in_turn), and two
// calls in a row per shape (counters reset, call numbers advance). Planted faults: a peer that never calls the collective, and a
// peer whose plan moves fewer bytes; each must end in the watchdog's named diagnosis (peer rank,
// bytes missing) within the bound.
//
// Structure: the tests of suite Collectives run in the parent, which needs no GPU of its own: it
// starts the ranks (launcher.hpp: this binary again, on one test of suite CollectivesRank, with
// RANK / WORLD_SIZE / LOCAL_RANK set) and checks what they printed and how they exited. Outside a
// rank, CollectivesRank.* skip; with fewer than 2 GPUs (or none), Collectives.* skip.
// TMAKIT_COLLECTIVES_SMALL=1 keeps only the small shapes (for compute-sanitizer).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/collectives_sm90/collectives.hpp"
#include "kernels/collectives_sm90/launcher.hpp"
#include "ranks_test_util.hpp"

namespace tc = tmakit::collectives;
using tmakit::CollectiveKind;
using tmakit::CollectiveShape;
using tmakit::DataType;

namespace {

constexpr double kPlantedBoundS = 2.0;  // the watchdog's bound in the planted tests

// ---------------------------------------------------------------- parent side

using tmakit_test::all_output;
using tmakit_test::gpu_count;

tc::LaunchResult run_ranks(int world, const std::string& test, double timeout_s = 300) {
  return tmakit_test::run_rank_test(world, "CollectivesRank", test, timeout_s);
}

// Counts "compared N bytes, D differ" lines over all ranks.
void expect_all_compared(const tc::LaunchResult& r, int world, int cases_per_rank) {
  ASSERT_TRUE(r.ok()) << all_output(r);
  const std::regex line(R"(compared (\d+) bytes, (\d+) differ)");
  std::uint64_t bytes = 0;
  int lines = 0;
  for (const auto& o : r.ranks)
    for (auto it = std::sregex_iterator(o.output.begin(), o.output.end(), line); it != std::sregex_iterator(); ++it) {
      ++lines;
      bytes += std::stoull((*it)[1]);
      EXPECT_EQ((*it)[2], "0") << o.output;
    }
  EXPECT_EQ(lines, world * cases_per_rank) << all_output(r);
  std::printf("%d ranks: %d comparisons, %llu bytes compared in all, every one equal\n", world, lines,
              static_cast<unsigned long long>(bytes));
}

int small_only() {
  const char* v = std::getenv("TMAKIT_COLLECTIVES_SMALL");
  return v && std::string(v) == "1";
}

// ---------------------------------------------------------------- rank side

struct Case {
  DataType dtype;
  std::int64_t rows, cols;
  std::int32_t tile_rows, tile_cols, blocks, stages, lag;
  bool pull;
  bool small;
  tmakit::GatherSchedule schedule = tmakit::GatherSchedule::every_peer;  // all-gather only (others skip it)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {DataType::bfloat16, 64, 256, 64, 256, 1, 2, 1, false, true},       // one tile, one block
      {DataType::float32, 512, 1024, 32, 256, 3, 4, 2, false, true},      // 64 tiles over 3 blocks (uneven)
      {DataType::float32, 512, 1024, 32, 256, 3, 4, 2, true, true},       // the same, pulled
      {DataType::bfloat16, 1024, 4096, 64, 256, 16, 6, 1, false, false},  // 8 MiB per rank, 16 blocks
      {DataType::bfloat16, 1024, 4096, 64, 256, 16, 6, 1, true, false},   // the same, pulled
      {DataType::bfloat16, 2048, 8192, 64, 256, 132, 6, 2, false, false}, // 32 MiB per rank, 132 blocks
      {DataType::float32, 768, 2048, 16, 128, 7, 8, 3, false, false},     // small tiles, many stages
      {DataType::bfloat16, 256, 4096, 4, 4096, 16, 6, 1, false, false},  // whole rows: a row cut into 16 x 256
      {DataType::bfloat16, 256, 4096, 8, 4096, 13, 3, 1, true, false},   // the same, 8 rows, pulled
      // The store orders of the pushed all-gather (gather_schedule.hpp)
      {DataType::float32, 512, 1024, 32, 256, 3, 4, 2, false, true, tmakit::GatherSchedule::peer_groups},
      {DataType::float32, 512, 1024, 32, 256, 3, 4, 2, false, true, tmakit::GatherSchedule::peers_in_turn},
      {DataType::bfloat16, 1024, 4096, 64, 256, 16, 6, 1, false, false, tmakit::GatherSchedule::rotated},
      {DataType::bfloat16, 1024, 4096, 64, 256, 16, 6, 1, false, false, tmakit::GatherSchedule::peer_groups},
      {DataType::bfloat16, 1024, 4096, 64, 256, 24, 6, 3, false, false, tmakit::GatherSchedule::peers_in_turn},
  };
  static std::vector<Case> small;
  if (small.empty())
    for (const Case& c : all)
      if (c.small) small.push_back(c);
  return small_only() ? small : all;
}
constexpr int kCallsPerCase = 2;

// The cases a collective runs: the store orders are the pushed all-gather's alone.
bool runs_case(CollectiveKind kind, const Case& c) {
  return kind == CollectiveKind::all_gather || c.schedule == tmakit::GatherSchedule::every_peer;
}
int compared_per_rank(CollectiveKind kind) {
  int n = 0;
  for (const Case& c : cases()) n += runs_case(kind, c);
  return n * kCallsPerCase;
}

std::size_t elem_bytes(DataType t) { return t == DataType::float32 ? 4 : 2; }
ncclDataType_t nccl_type(DataType t) { return t == DataType::float32 ? ncclFloat32 : ncclBfloat16; }

__device__ std::uint32_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<std::uint32_t>(x);
}

// exact = false: arbitrary bit patterns (a copy moves them unchanged); true: small integers
// (-8 .. 8), so every partial sum of up to 8 ranks is exact in bf16 and f32.
__global__ void fill(void* p, std::size_t n, int f32, std::uint64_t seed, int exact) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t h = mix(seed * 0x100000001B3ull + i);
    if (f32) {
      static_cast<float*>(p)[i] = exact ? static_cast<float>(static_cast<int>(h % 17) - 8) : __uint_as_float(h);
    } else {
      const float v = static_cast<float>(static_cast<int>(h % 17) - 8);
      static_cast<std::uint16_t*>(p)[i] =
          exact ? static_cast<std::uint16_t>(__float_as_uint(v) >> 16) : static_cast<std::uint16_t>(h);
    }
  }
}

#define CUDA_OK(x) ASSERT_EQ(cudaSuccess, (x)) << #x << ": " << cudaGetErrorString(cudaGetLastError())
#define NCCL_OK(x) ASSERT_EQ(ncclSuccess, (x)) << #x

std::unique_ptr<tc::Communicator> join() { return tmakit_test::join_ranks(); }

CollectiveShape shape_of(CollectiveKind k, const Case& c) {
  CollectiveShape s;
  s.kind = k;
  s.dtype = c.dtype;
  s.rows = c.rows;
  s.cols = c.cols;
  s.tile_rows = c.tile_rows;
  s.tile_cols = c.tile_cols;
  s.blocks = c.blocks;
  s.stages = c.stages;
  s.lag = c.lag;
  s.pull = c.pull;
  s.schedule = c.schedule;
  return s;
}

// Every case, twice: tmakit into `out`, NCCL into `ref`, from the same input window; byte compare.
void run_against_nccl(CollectiveKind kind) {
  auto comm = join();
  ASSERT_TRUE(comm);
  ASSERT_TRUE(tc::watchdog_compiled_in());
  CUDA_OK(tc::set_watchdog_bound_ns(30'000'000'000ull));  // ranks may drift apart by host work
  const int rank = comm->rank(), world = comm->world();
  std::size_t max_chunk = 0;
  for (const Case& c : cases()) max_chunk = std::max(max_chunk, static_cast<std::size_t>(c.rows * c.cols) * elem_bytes(c.dtype));
  const bool ag = kind == CollectiveKind::all_gather;
  const std::size_t in_bytes = ag ? max_chunk : max_chunk * world, out_bytes = ag ? max_chunk * world : max_chunk;
  tc::Window in, out;
  std::string err;
  ASSERT_TRUE(comm->alloc_window(in_bytes, &in, &err)) << err;
  ASSERT_TRUE(comm->alloc_window(out_bytes, &out, &err)) << err;
  void* ref = nullptr;
  CUDA_OK(cudaMalloc(&ref, out_bytes));
  cudaStream_t st;
  CUDA_OK(cudaStreamCreate(&st));
  std::vector<unsigned char> got(out_bytes), want(out_bytes);
  std::uint64_t seed = 1;
  int sms = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, comm->local_device()));
  for (const Case& c : cases()) {
    if (!runs_case(kind, c)) continue;
    CollectiveShape s = shape_of(kind, c);
    s.blocks = std::min(s.blocks, sms);  // every block resident: at most one per SM
    tc::CollectiveOp op;
    ASSERT_TRUE(tc::prepare(*comm, s, in, out, &op)) << (op.refusals.empty() ? "" : op.refusals[0]);
    const std::size_t chunk_elems = static_cast<std::size_t>(c.rows * c.cols);
    const std::size_t in_elems = ag ? chunk_elems : chunk_elems * world;
    const std::size_t result_bytes = (ag ? chunk_elems * world : chunk_elems) * elem_bytes(c.dtype);
    for (int call = 0; call < kCallsPerCase; ++call, ++seed) {
      fill<<<264, 256, 0, st>>>(in.ptr, in_elems, c.dtype == DataType::float32, seed * 64 + rank, ag ? 0 : 1);
      CUDA_OK(cudaMemsetAsync(out.ptr, 0xA5, result_bytes, st));
      CUDA_OK(cudaMemsetAsync(ref, 0x5A, result_bytes, st));
      CUDA_OK(tc::launch(*comm, op, st));
      if (ag)
        NCCL_OK(ncclAllGather(in.ptr, ref, chunk_elems, nccl_type(c.dtype), comm->nccl(), st));
      else
        NCCL_OK(ncclReduceScatter(in.ptr, ref, chunk_elems, nccl_type(c.dtype), ncclSum, comm->nccl(), st));
      CUDA_OK(cudaStreamSynchronize(st));
      CUDA_OK(cudaMemcpy(got.data(), out.ptr, result_bytes, cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(want.data(), ref, result_bytes, cudaMemcpyDeviceToHost));
      std::size_t differ = 0, first = result_bytes;
      for (std::size_t i = 0; i < result_bytes; ++i)
        if (got[i] != want[i]) {
          if (!differ) first = i;
          ++differ;
        }
      std::printf("rank %d %s %s %s %s %lldx%lld tile %dx%d blocks %d stages %d lag %d call %d: compared %zu bytes, %zu differ\n",
                  rank, tmakit::collective_name(kind), c.pull ? "pull" : "push", tmakit::gather_schedule_name(c.schedule), c.dtype == DataType::float32 ? "f32" : "bf16",
                  static_cast<long long>(c.rows), static_cast<long long>(c.cols), c.tile_rows, c.tile_cols, s.blocks,
                  c.stages, c.lag, call, result_bytes, differ);
      EXPECT_EQ(differ, 0u) << "first difference at byte " << first << ": " << int(got[first]) << " vs NCCL's "
                            << int(want[first]);
    }
  }
  std::fflush(stdout);
  CUDA_OK(cudaStreamDestroy(st));
  cudaFree(ref);
  comm->free_window(out);
  comm->free_window(in);
}

// A planted fault: prepare and launch one small all-gather, and report how it ended.
void run_planted(bool never_arrive) {
  auto comm = join();
  ASSERT_TRUE(comm);
  ASSERT_EQ(comm->world(), 2);
  const int rank = comm->rank();
  CUDA_OK(tc::set_watchdog_bound_ns(static_cast<unsigned long long>(kPlantedBoundS * 1e9)));
  tc::Window in, out;
  std::string err;
  ASSERT_TRUE(comm->alloc_window(256 * 512 * 2, &in, &err)) << err;
  ASSERT_TRUE(comm->alloc_window(2 * 256 * 512 * 2, &out, &err)) << err;
  CollectiveShape s;
  s.kind = CollectiveKind::all_gather;
  s.rows = 256;
  s.cols = 512;
  s.blocks = 4;
  s.stages = 2;
  if (rank == 1 && never_arrive) {
    // This rank never calls the collective: it outlives the peer's bound, then leaves.
    std::this_thread::sleep_for(std::chrono::duration<double>(kPlantedBoundS + 4));
    std::printf("rank 1: never called the collective\n");
    std::fflush(stdout);
    std::_Exit(0);
  }
  if (rank == 1) s.rows -= s.tile_rows;  // this rank's plan moves one row of tiles fewer
  tc::CollectiveOp op;
  ASSERT_TRUE(tc::prepare(*comm, s, in, out, &op));
  const auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = tc::launch(*comm, op, nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fflush(stdout);
  std::printf("rank %d: the collective ended after %.3f s: %s\n", rank, dt, cudaGetErrorString(e));
  std::fflush(stdout);
  std::_Exit(e == cudaSuccess ? 0 : 3);  // no teardown: the context is gone
}

double ended_after(const std::string& out) {
  const std::regex re(R"(the collective ended after ([0-9.]+) s)");
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1]) : -1;
}

}  // namespace

TEST(CollectivesRank, AllGather) {
  TMAKIT_REQUIRE_RANK("Collectives");
  run_against_nccl(CollectiveKind::all_gather);
}
TEST(CollectivesRank, ReduceScatter) {
  TMAKIT_REQUIRE_RANK("Collectives");
  run_against_nccl(CollectiveKind::reduce_scatter);
}
TEST(CollectivesRank, PlantedPeerNeverArrives) {
  TMAKIT_REQUIRE_RANK("Collectives");
  run_planted(true);
}
TEST(CollectivesRank, PlantedWrongByteCount) {
  TMAKIT_REQUIRE_RANK("Collectives");
  run_planted(false);
}

TEST(Collectives, AllGatherEqualsNcclOnEveryGpu) {
  TMAKIT_REQUIRE_GPUS(2);
  const int world = std::min(gpu_count(), tmakit::kMaxPeers);
  expect_all_compared(run_ranks(world, "AllGather"), world, compared_per_rank(CollectiveKind::all_gather));
}

TEST(Collectives, ReduceScatterEqualsNcclOnEveryGpu) {
  TMAKIT_REQUIRE_GPUS(2);
  const int world = std::min(gpu_count(), tmakit::kMaxPeers);
  expect_all_compared(run_ranks(world, "ReduceScatter"), world, compared_per_rank(CollectiveKind::reduce_scatter));
}

// Rank 1 never calls the collective: rank 0's blocks wait for its arrival, and the watchdog names
// it within the bound (plus the time to print).
TEST(Collectives, PlantedPeerNeverArrives) {
  TMAKIT_REQUIRE_GPUS(2);
  const tc::LaunchResult r = run_ranks(2, "PlantedPeerNeverArrives", 120);
  ASSERT_EQ(r.ranks.size(), 2u);
  const std::string& out0 = r.ranks[0].output;
  EXPECT_NE(r.ranks[0].exit_code, 0) << all_output(r);
  EXPECT_NE(r.ranks[1].output.find("rank 1: never called the collective"), std::string::npos) << all_output(r);
  EXPECT_NE(out0.find("tmakit watchdog: rank 0 block "), std::string::npos) << all_output(r);
  EXPECT_NE(out0.find("for peer rank 1"), std::string::npos) << all_output(r);
  EXPECT_NE(out0.find("diagnosis: peer never arrived: peer rank 1 block "), std::string::npos) << all_output(r);
  EXPECT_NE(out0.find("last entered call 0, this is call 1"), std::string::npos) << all_output(r);
  const double t = ended_after(out0);
  EXPECT_GE(t, kPlantedBoundS) << all_output(r);
  EXPECT_LT(t, kPlantedBoundS + 1.0) << all_output(r);
  std::printf("peer never arrives: diagnosed after %.3f s (bound %.1f s)\n", t, kPlantedBoundS);
}

// Rank 1 plans 192 rows where rank 0 plans 256: rank 0's blocks 2 and 3 miss bytes from rank 1
// (named after the bound); rank 1's blocks 2 and 3 get 65536 B where they expect 32768 B (named at
// once).
TEST(Collectives, PlantedWrongByteCount) {
  TMAKIT_REQUIRE_GPUS(2);
  const tc::LaunchResult r = run_ranks(2, "PlantedWrongByteCount", 120);
  ASSERT_EQ(r.ranks.size(), 2u);
  const std::string& out0 = r.ranks[0].output;
  const std::string& out1 = r.ranks[1].output;
  EXPECT_NE(r.ranks[0].exit_code, 0) << all_output(r);
  EXPECT_NE(r.ranks[1].exit_code, 0) << all_output(r);
  // (32768 of 65536 B, or 0 when rank 1's trap ended its block before that block signalled)
  const std::regex missing(R"(diagnosis: bytes missing: peer rank 1 block [23] delivered (32768|0) of the 65536 B its plan sends here; (32768|65536) B missing)");
  EXPECT_TRUE(std::regex_search(out0, missing)) << all_output(r);
  const std::regex extra(R"(diagnosis: byte count mismatch: peer rank 0 block [23] delivered 65536 B, more than the 32768 B this rank's plan expects \(\+32768 B\))");
  EXPECT_TRUE(std::regex_search(out1, extra)) << all_output(r);
  const double t0 = ended_after(out0), t1 = ended_after(out1);
  EXPECT_GE(t0, kPlantedBoundS) << all_output(r);
  EXPECT_LT(t0, kPlantedBoundS + 1.0) << all_output(r);
  EXPECT_GE(t1, 0.0) << all_output(r);
  EXPECT_LT(t1, kPlantedBoundS + 1.0) << all_output(r);
  std::printf("wrong byte count: rank 0 diagnosed after %.3f s, rank 1 after %.3f s (bound %.1f s)\n", t0, t1,
              kPlantedBoundS);
}

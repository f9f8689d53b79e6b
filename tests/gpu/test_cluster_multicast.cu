// TMA multicast through tmakit's pipeline (device/multicast.cuh) driven by host plans
// (cluster/multicast.hpp): leader broadcast and sliced modes for clusters of 2, 4, 8 and 16
// CTAs, sparse active masks, a 2x2 GEMM-style cluster where A and B complete on one barrier, a
// 3-D cluster, and the grouped-GEMM straddle (unicast fallback). Every CTA bit-checks every byte
// of every round against global memory. 2 stages, 6 rounds: buffers are reused three times, so the
// empty-barrier gating (ARM-BEFORE-ISSUE on reuse) is exercised. The WarpSpecialized* cases run the
// same plans through the warp-specialized form (producer, releaser, consumer warps).
#define TMAKIT_WATCHDOG 1
#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/layout/swizzle.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "gpu_test_util.cuh"

namespace td = tmakit::device;
using namespace tmakit;

namespace {

constexpr int kStages = 2;
constexpr std::uint32_t kRounds = 6;
constexpr std::uint32_t kCols = 32, kRows = 64;          // tile: 32 u32 (128 B) x 64 rows = 8 KiB
constexpr std::uint32_t kTileBytes = kCols * kRows * 4;
constexpr std::uint32_t kTensorRows = 4096;              // per operand: 512 KiB

// The tile: `cols` u32 of each of `rows` rows of a kCols-wide tensor (cols < kCols: rows shorter than
// 128 B, padded to the swizzle span in shared memory).
TensorMapParams tile_params(const std::uint32_t* base, std::uint32_t rows, Swizzle sw = Swizzle::none,
                            std::uint32_t cols = kCols) {
  TensorMapParams p;
  p.swizzle = sw;
  p.dtype = DataType::uint32;
  p.rank = 2;
  p.address = reinterpret_cast<std::uint64_t>(base);
  p.dims[0] = kCols;
  p.dims[1] = kTensorRows;
  p.strides[0] = kCols * 4;
  p.box[0] = cols;
  p.box[1] = rows;
  return p;
}

struct OperandArgs {
  CUtensorMap full;   // the whole tile's box
  CUtensorMap slice;  // the sliced box (= full when not sliced)
  const std::uint32_t* data;
  SwizzleParams swizzle;  // where byte b of the (padded) tile image lands: swizzle(b) of the 1024 B-aligned buffer
  std::uint32_t cols;     // u32 per tile row (box[0])
  std::uint32_t row_pitch;  // bytes per tile row in shared memory (smem_row_pitch: padded to the swizzle span)
};

// Mismatching words of operand `o`'s tile at `t` against global rows from `row`, threads `first`
// apart by `step`.
__device__ unsigned tile_errors(const OperandArgs& op, const std::uint8_t* t, std::uint32_t row, std::uint32_t first,
                                std::uint32_t step) {
  const std::uint32_t* g = op.data + row * kCols;
  unsigned bad = 0;
  for (std::uint32_t i = first; i < op.cols * kRows; i += step) {
    const std::uint32_t r = i / op.cols, c = i % op.cols;
    bad += *reinterpret_cast<const std::uint32_t*>(t + op.swizzle(r * op.row_pitch + c * 4u)) != g[r * kCols + c];
  }
  return bad;
}

// Tile row of operand `o` for CTA `r` in round k: CTAs sharing the tile (same coordinates on the
// non-shared dims) load the same rows; a grouped plan adds group_of[r] * 1024 rows.
__device__ std::uint32_t tile_row(const MulticastPlan& p, std::uint32_t r, std::uint32_t k) {
  const ClusterCoord c = p.spec.cluster.coord_of(r);
  std::uint32_t idx = 0, count = 1;
  for (int d = 2; d >= 0; --d)
    if (!p.spec.share[d]) {
      idx = idx * p.spec.cluster.extent(d) + c[d];
      count *= p.spec.cluster.extent(d);
    }
  const std::uint32_t group = p.spec.grouped ? p.spec.group_of[r] * 1024u : 0u;
  return group + (k * count + idx) * kRows;
}

template <int NOps>
__global__ void multicast_kernel(const __grid_constant__ MulticastPlan plan0, const __grid_constant__ MulticastPlan plan1,
                                 const __grid_constant__ OperandArgs op0, const __grid_constant__ OperandArgs op1,
                                 unsigned* errors) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = tmakit_test::align1024(dyn);
  const MulticastPlan* plans[2] = {&plan0, &plan1};
  const OperandArgs* ops[2] = {&op0, &op1};
  const std::uint32_t rank = td::cluster_rank();
  const StageRole role = stage_role(&plan0, 1, rank);
  StageRole both = role;
  if (NOps == 2) {
    const MulticastPlan two[2] = {plan0, plan1};
    both = stage_role(two, 2, rank);
  }
  td::pipeline_init(pipe, both);
  const bool active = plan0.cta[rank].active;
  auto tile = [&](int o, std::uint32_t k) { return buf + (k % kStages) * NOps * kTileBytes + o * kTileBytes; };
  auto produce = [&](std::uint32_t k) {
    td::arm_round(pipe, both, k);
    bool waited = false;
    for (int o = 0; o < NOps; ++o) {
      const MulticastCta& c = plans[o]->cta[rank];
      if (!c.issues) continue;
      if (!waited) td::wait_receivers_armed(pipe, both, k);
      waited = true;
      const bool sliced = c.issue.slices > 1;
      td::issue_multicast(pipe, sliced ? &ops[o]->slice : &ops[o]->full, tile(o, k) + c.issue.smem_offset, c.issue.mask,
                          c.issue.bytes, k, 0, static_cast<int>(tile_row(*plans[o], rank, k) + c.issue.coord_offset));
    }
  };
  if (active) {
    if (threadIdx.x == 0)
      for (std::uint32_t k = 0; k < kStages && k < kRounds; ++k) produce(k);
    for (std::uint32_t k = 0; k < kRounds; ++k) {
      td::wait_round(pipe, k);
      unsigned bad = 0;
      for (int o = 0; o < NOps; ++o) bad += tile_errors(*ops[o], tile(o, k), tile_row(*plans[o], rank, k), threadIdx.x, blockDim.x);
      if (bad) atomicAdd(&errors[blockIdx.x], bad);
      __syncthreads();  // every consumer is done with stage k % kStages before it is re-armed and released
      if (threadIdx.x == 0 && k + kStages < kRounds) produce(k + kStages);
    }
  }
  td::pipeline_teardown();
}

// The same rounds through the warp-specialized form: warp 3 is the producer (one elected thread
// waits for its receivers and issues), warp 4 the releaser (run_releaser: waits for the consumers,
// arms, releases the senders), warps 0..2 consume (wait_round / consumer_done); no CTA-wide
// barrier inside the loop. 160 threads.
template <int NOps>
__global__ void multicast_ws_kernel(const __grid_constant__ MulticastPlan plan0, const __grid_constant__ MulticastPlan plan1,
                                    const __grid_constant__ OperandArgs op0, const __grid_constant__ OperandArgs op1,
                                    unsigned* errors) {
  __shared__ td::MulticastPipeline<kStages> pipe;
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* buf = tmakit_test::align1024(dyn);
  const MulticastPlan* plans[2] = {&plan0, &plan1};
  const OperandArgs* ops[2] = {&op0, &op1};
  const std::uint32_t rank = td::cluster_rank(), warp = threadIdx.x / 32, consumers = blockDim.x / 32 - 2;
  StageRole both = stage_role(&plan0, 1, rank);
  if (NOps == 2) {
    const MulticastPlan two[2] = {plan0, plan1};
    both = stage_role(two, 2, rank);
  }
  td::pipeline_init(pipe, both, consumers);
  auto tile = [&](int o, std::uint32_t k) { return buf + (k % kStages) * NOps * kTileBytes + o * kTileBytes; };
  if (plan0.cta[rank].active) {
    if (warp == consumers) {
      if (threadIdx.x % 32 == 0)
        for (std::uint32_t k = 0; k < kRounds; ++k) {
          bool waited = false;
          for (int o = 0; o < NOps; ++o) {
            const MulticastCta& c = plans[o]->cta[rank];
            if (!c.issues) continue;
            if (!waited) td::wait_receivers_armed(pipe, both, k);
            waited = true;
            const bool sliced = c.issue.slices > 1;
            td::issue_multicast(pipe, sliced ? &ops[o]->slice : &ops[o]->full, tile(o, k) + c.issue.smem_offset,
                                c.issue.mask, c.issue.bytes, k, 0,
                                static_cast<int>(tile_row(*plans[o], rank, k) + c.issue.coord_offset));
          }
        }
    } else if (warp == consumers + 1) {
      if (threadIdx.x % 32 == 0) td::run_releaser(pipe, both, kRounds);
    } else {
      for (std::uint32_t k = 0; k < kRounds; ++k) {
        td::wait_round(pipe, k);
        unsigned bad = 0;
        for (int o = 0; o < NOps; ++o)
          bad += tile_errors(*ops[o], tile(o, k), tile_row(*plans[o], rank, k), threadIdx.x, consumers * 32);
        if (bad) atomicAdd(&errors[blockIdx.x], bad);
        td::consumer_done(pipe, k);
      }
    }
  }
  td::pipeline_teardown();
}

struct Fixture {
  std::vector<std::uint32_t*> tensors;
  unsigned* errors = nullptr;
  ~Fixture() {
    for (auto* t : tensors) cudaFree(t);
    cudaFree(errors);
  }
  std::uint32_t* tensor(std::uint32_t salt) {
    std::vector<std::uint32_t> h(kCols * kTensorRows);
    for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = (i * 2654435761u) ^ salt;
    std::uint32_t* d = nullptr;
    if (cudaMalloc(&d, h.size() * 4) != cudaSuccess) return nullptr;
    cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
    tensors.push_back(d);
    return d;
  }
};

// Runs plans[0..nops) on `clusters` clusters; returns total mismatching words (or ~0u on a CUDA error).
unsigned run(const MulticastPlan* plans, int nops, std::uint32_t clusters = 2, bool ws = false) {
  Fixture f;
  OperandArgs ops[2];
  for (int o = 0; o < nops; ++o) {
    const std::uint32_t* d = f.tensor(0x9E3779B9u * (o + 1));
    if (!d) return ~0u;
    ops[o].data = d;
    ops[o].swizzle = swizzle_for(plans[o].spec.box.swizzle);
    ops[o].cols = plans[o].spec.box.box[0];
    ops[o].row_pitch = static_cast<std::uint32_t>(smem_row_pitch(plans[o].spec.box));
    if (plans[o].buffer_bytes > kTileBytes) {
      ADD_FAILURE() << "the tile's shared image (" << plans[o].buffer_bytes << " B) exceeds a stage's " << kTileBytes;
      return ~0u;
    }
    TensorMapParams full = tile_params(d, kRows, plans[o].spec.box.swizzle, ops[o].cols);
    if (!td::encode_cu_tensor_map(full, &ops[o].full)) return ~0u;
    TensorMapParams sl = full;
    for (std::uint32_t r = 0; r < plans[o].spec.cluster.size(); ++r)
      if (plans[o].cta[r].issues) sl = plans[o].issue_params(r);
    sl.address = full.address;
    if (!td::encode_cu_tensor_map(sl, &ops[o].slice)) return ~0u;
  }
  if (nops == 1) ops[1] = ops[0];
  const ClusterShape cs = plans[0].spec.cluster;
  const std::uint32_t blocks = cs.size() * clusters;
  if (cudaMalloc(&f.errors, blocks * sizeof(unsigned)) != cudaSuccess) return ~0u;
  cudaMemset(f.errors, 0, blocks * sizeof(unsigned));
  if (td::watchdog::set_bound_ns(2000000000ull) != cudaSuccess) return ~0u;
  const std::size_t smem = kStages * nops * kTileBytes + 1024;
  const MulticastPlan& p1 = nops == 2 ? plans[1] : plans[0];
  const dim3 grid(cs.x * clusters, cs.y, cs.z);
  auto* k2 = ws ? multicast_ws_kernel<2> : multicast_kernel<2>;
  auto* k1 = ws ? multicast_ws_kernel<1> : multicast_kernel<1>;
  const dim3 block(ws ? 160 : 128);
  cudaError_t e = nops == 2 ? td::launch_cluster(k2, cs, grid, block, smem, plans[0], p1, ops[0], ops[1], f.errors)
                            : td::launch_cluster(k1, cs, grid, block, smem, plans[0], p1, ops[0], ops[1], f.errors);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    ADD_FAILURE() << "CUDA: " << cudaGetErrorString(e);
    return ~0u;
  }
  std::vector<unsigned> h(blocks);
  cudaMemcpy(h.data(), f.errors, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned sum = 0;
  for (unsigned v : h) sum += v;
  return sum;
}

MulticastSpec spec_1d(std::uint32_t n, MulticastMode mode, std::uint16_t active = 0, Swizzle sw = Swizzle::none,
                      std::uint32_t cols = kCols) {
  MulticastSpec s;
  s.cluster = ClusterShape{n, 1, 1};
  s.share[0] = true;
  s.mode = mode;
  s.box = tile_params(nullptr, kRows, sw, cols);
  s.active = active;
  return s;
}

}  // namespace

class ClusterMulticastSize : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(ClusterMulticastSize, LeaderBroadcast) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(GetParam(), MulticastMode::leader_broadcast));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1), 0u);
}

TEST_P(ClusterMulticastSize, Sliced) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(GetParam(), MulticastMode::sliced));
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.cta[0].fan_in, GetParam());
  EXPECT_EQ(run(&p, 1), 0u);
}

TEST_P(ClusterMulticastSize, WarpSpecializedSliced) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(GetParam(), MulticastMode::sliced));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1, 2, true), 0u);
}

TEST_P(ClusterMulticastSize, WarpSpecializedLeader) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(GetParam(), MulticastMode::leader_broadcast));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1, 2, true), 0u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ClusterMulticastSize, ::testing::Values(2u, 4u, 8u, 16u));

TEST(ClusterMulticast, WarpSpecializedGemm2x2SparseAndUnicast) {
  TMAKIT_REQUIRE_GPU();
  const TensorMapParams box = tile_params(nullptr, kRows);
  const GemmMulticastPlans g = plan_gemm_multicast(ClusterShape{2, 2, 1}, box, box, MulticastMode::sliced);
  ASSERT_TRUE(g.a.ok() && g.b.ok());
  const MulticastPlan plans[2] = {g.a, g.b};
  EXPECT_EQ(run(plans, 2, 2, true), 0u);
  const MulticastPlan sparse = plan_multicast(spec_1d(8, MulticastMode::sliced, 0b10100101));
  ASSERT_TRUE(sparse.ok());
  EXPECT_EQ(run(&sparse, 1, 2, true), 0u);
  const MulticastPlan uni = plan_multicast(spec_1d(1, MulticastMode::sliced));
  ASSERT_TRUE(uni.ok());
  EXPECT_EQ(run(&uni, 1, 4, true), 0u);
}

TEST(ClusterMulticast, SparseMaskSliced) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(8, MulticastMode::sliced, 0b10100101));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1), 0u);
}

// 128B swizzle: 4 slices of 16 rows (2 KiB, a multiple of the 1024 B pattern) land in the pattern
// the whole box would have.
TEST(ClusterMulticast, SlicedSwizzled128B) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(4, MulticastMode::sliced, 0, Swizzle::b128));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1), 0u);
}

// Rows shorter than the swizzle span are padded to it in shared memory, so a slice starts at its
// share of the padded image, not of the bytes delivered: 16 u32 (64 B) rows under 128B swizzle,
// 2 slices of 32 rows: slice 1 at 4096 B (it once was put at 2048 B, inside slice 0); 8 u32
// (32 B) rows under 64B swizzle, 4 slices of 16 rows, 1024 B apart.
TEST(ClusterMulticast, SlicedPaddedRows) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(2, MulticastMode::sliced, 0, Swizzle::b128, 16));
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.cta[1].issue.smem_offset, 4096u);
  ASSERT_EQ(p.tile_bytes, 4096u);
  ASSERT_EQ(p.buffer_bytes, 8192u);
  EXPECT_EQ(run(&p, 1), 0u);
  EXPECT_EQ(run(&p, 1, 2, true), 0u);
  const MulticastPlan q = plan_multicast(spec_1d(4, MulticastMode::sliced, 0, Swizzle::b64, 8));
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q.cta[3].issue.smem_offset, 3u * 1024u);
  EXPECT_EQ(run(&q, 1), 0u);
  const MulticastPlan l = plan_multicast(spec_1d(4, MulticastMode::leader_broadcast, 0, Swizzle::b128, 16));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(run(&l, 1), 0u);
}

TEST(ClusterMulticast, SparseMaskLeader) {
  TMAKIT_REQUIRE_GPU();
  const MulticastPlan p = plan_multicast(spec_1d(4, MulticastMode::leader_broadcast, 0b0110));
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p.cta[1].issues);
  EXPECT_EQ(run(&p, 1), 0u);
}

TEST(ClusterMulticast, Gemm2x2SlicedBothOperandsOneBarrier) {
  TMAKIT_REQUIRE_GPU();
  const TensorMapParams box = tile_params(nullptr, kRows);
  const GemmMulticastPlans g = plan_gemm_multicast(ClusterShape{2, 2, 1}, box, box, MulticastMode::sliced);
  ASSERT_TRUE(g.a.ok() && g.b.ok());
  const MulticastPlan plans[2] = {g.a, g.b};
  ASSERT_EQ(stage_expect_bytes(plans, 2, 3), 2 * kTileBytes);
  EXPECT_EQ(run(plans, 2), 0u);
}

TEST(ClusterMulticast, Gemm2x4LeaderBothOperands) {
  TMAKIT_REQUIRE_GPU();
  const TensorMapParams box = tile_params(nullptr, kRows);
  const GemmMulticastPlans g = plan_gemm_multicast(ClusterShape{2, 4, 1}, box, box, MulticastMode::leader_broadcast);
  ASSERT_TRUE(g.a.ok() && g.b.ok());
  const MulticastPlan plans[2] = {g.a, g.b};
  EXPECT_EQ(run(plans, 2), 0u);
}

TEST(ClusterMulticast, ThreeDClusterSliced) {
  TMAKIT_REQUIRE_GPU();
  MulticastSpec s;
  s.cluster = ClusterShape{2, 2, 2};
  s.share[1] = s.share[2] = true;
  s.mode = MulticastMode::sliced;
  s.box = tile_params(nullptr, kRows);
  const MulticastPlan p = plan_multicast(s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run(&p, 1, 1), 0u);
}

TEST(ClusterMulticast, StraddleFallsBackToUnicast) {
  TMAKIT_REQUIRE_GPU();
  MulticastSpec s = spec_1d(4, MulticastMode::sliced);
  s.grouped = true;
  s.group_of[0] = s.group_of[1] = 1;
  s.group_of[2] = s.group_of[3] = 2;
  const MulticastPlan p = plan_multicast(s);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.decision, MulticastDecision::unicast_straddle);
  EXPECT_EQ(run(&p, 1), 0u);
}

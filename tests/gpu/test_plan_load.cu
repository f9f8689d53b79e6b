// Executed plans (tmakit/plan + device/load_tile.cuh) on the GPU: for K/V tiles, GEMM A/B tiles
// (K-major and MN-major, every swizzle), rank-3..5 tensors, boxes over 256, tiles hanging off the
// end, padded shared rows, a multicast pair and a compile-time plan, load_tile() issues the planned
// instructions and arms the barrier with the planned bytes; the raw shared-memory bytes (over the
// plan's whole smem_bytes, pre-filled with a sentinel) must equal the prediction of the planner +
// smem_model exactly, and that prediction must put every tile element where the user's shared
// layout says (tests/plan_test_util.hpp). Needs compute capability >= 9.0; skips otherwise.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../plan_test_util.hpp"
#include "gpu_test_util.cuh"
#include "plan_gpu_util.cuh"
#include "tmakit/device/load_tile.cuh"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace td = tmakit::device;
namespace cg = cooperative_groups;
using namespace tmakit;

namespace {

constexpr unsigned char kSentinel = 0xA5;
constexpr std::uint32_t kMaxSmem = 200 * 1024;

struct TileCoord {
  std::int32_t v[kMaxTileModes];
};

__device__ void fill_sentinel(unsigned char* s, std::uint32_t n) {
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) s[i] = kSentinel;
}

__global__ void plan_load_kernel(const __grid_constant__ TmaPlan plan, const __grid_constant__ CUtensorMap desc,
                                 TileCoord t, unsigned char* out, std::uint32_t* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ td::Barrier bar;
  unsigned char* s = tmakit_test::align1024(dyn);
  fill_sentinel(s, static_cast<std::uint32_t>(plan.smem_bytes));
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) td::load_tile(plan, &desc, s, bar, t.v);
  td::Phase ph;
  const bool ok = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < plan.smem_bytes; i += blockDim.x) out[i] = s[i];
  if (threadIdx.x == 0) *status = ok ? 1u : 2u;
}

__global__ void __cluster_dims__(2, 1, 1) multicast_plan_kernel(const __grid_constant__ TmaPlan plan,
                                                                 const __grid_constant__ CUtensorMap desc, TileCoord t,
                                                                 unsigned char* out, std::uint32_t* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ td::Barrier bar;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned char* s = tmakit_test::align1024(dyn);
  fill_sentinel(s, static_cast<std::uint32_t>(plan.smem_bytes));
  if (threadIdx.x == 0) {
    td::init(bar, 1);
    td::fence_init_cluster();
  }
  td::fence_smem_writes_for_async();
  cluster.sync();  // every barrier initialized and every buffer filled before any copy is issued
  if (threadIdx.x == 0) td::load_tile_multicast(plan, &desc, s, bar, t.v);
  td::Phase ph;
  const bool ok = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  const unsigned r = cluster.block_rank();
  for (std::uint32_t i = threadIdx.x; i < plan.smem_bytes; i += blockDim.x) out[r * plan.smem_bytes + i] = s[i];
  if (threadIdx.x == 0) status[r] = ok ? 1u : 2u;
  cluster.sync();
}

struct Case {
  std::string gmem, smem, tile;
  std::uint32_t expect_instructions;  // 0: any
};

struct Prepared {
  GlobalTensor g;
  SwizzledLayout s;
  TileExtents t;
  std::vector<std::string> names;
  TileProblem problem;  // what plan_tile planned (PlanResult::problem)
  TmaPlan plan;
  std::vector<unsigned char> global;
  bool ok = false;
};

Prepared prepare(const Case& c, const PlanOptions& o = {}) {
  Prepared p;
  const auto g = parse_global_tensor(c.gmem);
  const auto s = parse_swizzled_layout(c.smem);
  const auto t = parse_tile_extents(c.tile);
  EXPECT_TRUE(g.ok && s.ok && t.ok) << c.gmem << " | " << c.smem << " | " << c.tile;
  if (!g.ok || !s.ok || !t.ok) return p;
  p.g = g.value;
  p.s = s.value;
  p.t = t.value;
  p.names = t.names;
  const PlanResult r = plan_tile(p.g, p.s, p.t, o);
  p.problem = r.problem;
  if (!r.ok()) {
    std::string all;
    for (const auto& d : explain_plan(r.issues, p.problem, p.names)) all += d.message() + "\n";
    ADD_FAILURE() << c.gmem << " | " << c.smem << " | " << c.tile << " refused:\n" << all;
    return p;
  }
  p.plan = r.plan;
  if (c.expect_instructions) EXPECT_EQ(p.plan.instructions, c.expect_instructions) << c.smem;
  p.global = tmakit_test::make_global(p.g);
  p.ok = true;
  return p;
}

std::vector<TileCoord> tile_coords(const Prepared& p) {
  std::vector<TileCoord> v(3, TileCoord{});
  for (std::int32_t m = 0; m < p.problem.modes; ++m) {
    const std::int64_t n = (p.problem.extent[m] + p.problem.tile[m] - 1) / p.problem.tile[m];
    v[1].v[m] = n > 1 ? 1 : 0;
    v[2].v[m] = static_cast<std::int32_t>(n - 1);
  }
  return v;
}

// The bytes the GPU must show: the model's image, the sentinel where nothing is written.
std::vector<unsigned char> predicted(const Prepared& p, const TileCoord& t, std::string& why) {
  const auto im = tmakit_test::model_plan_image(p.plan, p.global, t.v);
  why = tmakit_test::check_image(im, p.g, p.s, p.problem.tile, t.v, p.global);
  std::vector<unsigned char> e(im.bytes.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = im.written[i] ? im.bytes[i] : kSentinel;
  return e;
}


const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      // K/V tiles, row-major (seq, d)
      {"bf16 (512,64):(64,1)", "Sw<3,4,3> o (64,64):(64,1)", "seq=64,d=_", 1},
      {"bf16 (512,64):(64,1)", "Sw<3,4,3> o (128,64):(64,1)", "seq=128,d=_", 1},
      {"bf16 (512,96):(96,1)", "Sw<2,4,3> o (64,(32,3)):(32,(1,2048))", "seq=64,d=_", 1},
      {"bf16 (512,96):(96,1)", "(128,96):(96,1)", "seq=128,d=_", 1},
      {"bf16 (512,128):(128,1)", "Sw<3,4,3> o (64,128):(128,1)", "seq=64,d=_", 1},
      {"bf16 (512,128):(128,1)", "Sw<3,4,3> o (128,(64,2)):(64,(1,8192))", "seq=128,d=_", 1},
      {"bf16 (512,256):(256,1)", "Sw<3,4,3> o (64,(64,4)):(64,(1,4096))", "seq=64,d=_", 1},
      {"bf16 (512,256):(256,1)", "Sw<3,4,3> o (128,256):(256,1)", "seq=128,d=_", 1},
      // GEMM A (M,K) K-major, every swizzle
      {"bf16 (384,320):(320,1)", "(128,64):(64,1)", "M=128,K=64", 1},
      {"bf16 (384,320):(320,1)", "Sw<1,4,3> o (128,(16,4)):(16,(1,2048))", "M=128,K=64", 1},
      {"bf16 (384,320):(320,1)", "Sw<2,4,3> o (128,(32,2)):(32,(1,4096))", "M=128,K=64", 1},
      {"bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", 1},
      // GEMM B (N,K) MN-major, every swizzle
      {"bf16 (384,320):(1,384)", "(128,64):(1,128)", "N=128,K=64", 1},
      {"bf16 (384,320):(1,384)", "Sw<1,4,3> o ((16,8),64):((1,1024),16)", "N=128,K=64", 1},
      {"bf16 (384,320):(1,384)", "Sw<2,4,3> o ((32,4),64):((1,2048),32)", "N=128,K=64", 1},
      {"bf16 (384,320):(1,384)", "Sw<3,4,3> o ((64,2),64):((1,4096),64)", "N=128,K=64", 1},
      // other types
      {"f32 (384,320):(1,384)", "Sw<3,4,3> o ((32,4),32):((1,1024),32)", "M=128,K=32", 1},
      {"u8 (384,320):(320,1)", "Sw<3,4,3> o (128,128):(128,1)", "N=128,K=128", 1},
      {"f16 (384,320):(320,1)", "Sw<2,4,3> o (64,(32,2)):(32,(1,2048))", "N=64,K=64", 1},
      // rank 3..5
      {"bf16 (256,8,64):(512,64,1)", "Sw<3,4,3> o (64,64):(64,1)", "seq=64,h=1,d=_", 1},
      {"bf16 (256,4,2,128):(512,128,131072,1)", "Sw<3,4,3> o (64,(64,2)):(64,(1,4096))", "seq=64,h=1,b=1,d=_", 1},
      {"bf16 (128,2,2,2,128):(1024,128,256,512,1)", "Sw<3,4,3> o (64,(64,2)):(64,(1,4096))", "seq=64,a=1,b=1,c=1,d=_", 2},
      {"f32 (4,3,6,8,32):(32,128,384,2304,1)", "(2,3,2,4,32):(32,64,192,384,1)", "a=2,b=3,c=2,e=4,d=_", 1},
      // six modes: the four index modes fold into one TMA dimension
      {"bf16 (256,64,2,2,2,2):(64,1,16384,32768,65536,131072)", "Sw<3,4,3> o (64,64):(64,1)", "s=64,d=_,h=1,b=1,x=1,y=1", 1},
      // boxes over 256, tiles hanging off the end, padded rows
      {"u8 (128,512):(512,1)", "(64,512):(512,1)", "seq=64,d=_", 1},
      {"f32 (1024,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_", 1},
      {"f32 (1000,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_", 2},
      {"bf16 (500,64):(64,1)", "Sw<3,4,3> o (128,64):(64,1)", "seq=128,d=_", 1},
      {"bf16 (512,64):(64,1)", "(8,64):(128,1)", "r=8,d=_", 8},
      {"f32 (512,32):(32,1)", "(4,32):(64,1)", "r=4,d=_", 4},
  };
  return v;
}

constexpr PlanResult kConstexprPlan = [] {
  GlobalTensor g;
  g.dtype = DataType::bfloat16;
  g.layout = make_layout(IntTuple::make(512, 128), IntTuple::make(128, 1));
  SwizzledLayout s;
  s.swizzle = SwizzleParams{3, 4, 3};
  s.layout = make_layout(IntTuple::make(64, 128), IntTuple::make(128, 1));
  TileExtents t;
  t.modes = 2;
  t.extent[0] = 64;
  t.extent[1] = 0;
  return plan_tile(g, s, t);
}();
static_assert(kConstexprPlan.ok() && kConstexprPlan.plan.instructions == 1 && kConstexprPlan.plan.params.rank == 3);

constexpr std::uint32_t kCxBytes = static_cast<std::uint32_t>(kConstexprPlan.plan.smem_bytes);

// The plan as a compile-time constant: load_tile<plan> (a __device__ template; nvcc cannot take a
// class-type template argument on a __global__ kernel itself).
__global__ void constexpr_plan_kernel(const __grid_constant__ CUtensorMap desc, TileCoord t, unsigned char* out,
                                      std::uint32_t* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ td::Barrier bar;
  unsigned char* s = tmakit_test::align1024(dyn);
  fill_sentinel(s, kCxBytes);
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) td::load_tile<kConstexprPlan.plan>(&desc, s, bar, t.v);
  td::Phase ph;
  const bool ok = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < kCxBytes; i += blockDim.x) out[i] = s[i];
  if (threadIdx.x == 0) *status = ok ? 1u : 2u;
}

struct Device {
  unsigned char* global = nullptr;
  unsigned char* out = nullptr;
  std::uint32_t* status = nullptr;
  ~Device() {
    cudaFree(global);
    cudaFree(out);
    cudaFree(status);
  }
};

}  // namespace

TEST(PlanLoad, ExecutedPlansPutEveryElementAtThePlannedPlace) {
  TMAKIT_REQUIRE_GPU();
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(plan_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  int checked = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.gmem + " | " + c.smem + " | " + c.tile);
    const Prepared p = prepare(c);
    if (!p.ok) continue;
    ASSERT_LE(p.plan.smem_bytes + 1024, kMaxSmem);
    Device d;
    TMAKIT_CUDA_OK(cudaMalloc(&d.global, p.global.size()));
    TMAKIT_CUDA_OK(cudaMemcpy(d.global, p.global.data(), p.global.size(), cudaMemcpyHostToDevice));
    TMAKIT_CUDA_OK(cudaMalloc(&d.out, p.plan.smem_bytes));
    TMAKIT_CUDA_OK(cudaMalloc(&d.status, 4));
    const CUtensorMap desc = tmakit_test::descriptor_for(p.plan, d.global);
    for (const TileCoord& t : tile_coords(p)) {
      std::string why;
      const auto want = predicted(p, t, why);
      EXPECT_EQ(why, "") << "the prediction itself misplaces an element\n" << describe_plan(p.plan, p.names);
      TMAKIT_CUDA_OK(cudaMemset(d.out, 0, p.plan.smem_bytes));
      plan_load_kernel<<<1, 128, static_cast<unsigned>(p.plan.smem_bytes + 1024)>>>(p.plan, desc, t, d.out, d.status);
      TMAKIT_CUDA_OK(cudaDeviceSynchronize());
      std::uint32_t st = 0;
      std::vector<unsigned char> got(p.plan.smem_bytes);
      TMAKIT_CUDA_OK(cudaMemcpy(&st, d.status, 4, cudaMemcpyDeviceToHost));
      TMAKIT_CUDA_OK(cudaMemcpy(got.data(), d.out, got.size(), cudaMemcpyDeviceToHost));
      EXPECT_EQ(st, 1u) << "barrier did not complete with the planned bytes";
      EXPECT_EQ(tmakit_test::first_difference(got, want), "") << "tile (" << t.v[0] << "," << t.v[1] << ",...)\n"
                                                << describe_plan(p.plan, p.names);
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(cases().size()) * 3);
  std::printf("[plan_load] %d tile loads of %zu plans compared byte for byte\n", checked, cases().size());
}

TEST(PlanLoad, CompileTimePlanAsTemplateArgument) {
  TMAKIT_REQUIRE_GPU();
  constexpr TmaPlan kPlan = kConstexprPlan.plan;
  auto kernel = constexpr_plan_kernel;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  const Prepared p = prepare({"bf16 (512,128):(128,1)", "Sw<3,4,3> o (64,128):(128,1)", "64,_", 1});
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.plan.expect_tx_bytes, kPlan.expect_tx_bytes);
  Device d;
  TMAKIT_CUDA_OK(cudaMalloc(&d.global, p.global.size()));
  TMAKIT_CUDA_OK(cudaMemcpy(d.global, p.global.data(), p.global.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMalloc(&d.out, kPlan.smem_bytes));
  TMAKIT_CUDA_OK(cudaMalloc(&d.status, 4));
  const CUtensorMap desc = tmakit_test::descriptor_for(kPlan, d.global);
  for (const TileCoord& t : tile_coords(p)) {
    std::string why;
    const auto want = predicted(p, t, why);
    EXPECT_EQ(why, "");
    kernel<<<1, 128, static_cast<unsigned>(kPlan.smem_bytes + 1024)>>>(desc, t, d.out, d.status);
    TMAKIT_CUDA_OK(cudaDeviceSynchronize());
    std::uint32_t st = 0;
    std::vector<unsigned char> got(kPlan.smem_bytes);
    TMAKIT_CUDA_OK(cudaMemcpy(&st, d.status, 4, cudaMemcpyDeviceToHost));
    TMAKIT_CUDA_OK(cudaMemcpy(got.data(), d.out, got.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(st, 1u);
    EXPECT_EQ(tmakit_test::first_difference(got, want), "");
  }
}

TEST(PlanLoad, MulticastPairBothReceiveTheWholeTile) {
  TMAKIT_REQUIRE_GPU();
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(multicast_plan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  PlanOptions o;
  o.cluster[0] = 2;
  o.multicast_dim = 0;
  for (const Case& c : {Case{"bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", 2},
                        Case{"bf16 (384,320):(1,384)", "Sw<3,4,3> o ((64,2),64):((1,4096),64)", "N=128,K=64", 2}}) {
    SCOPED_TRACE(c.smem);
    const Prepared p = prepare(c, o);
    ASSERT_TRUE(p.ok);
    ASSERT_EQ(p.plan.multicast_ctas, 2u);
    ASSERT_EQ(p.plan.instructions_per_cta, 1u);
    Device d;
    TMAKIT_CUDA_OK(cudaMalloc(&d.global, p.global.size()));
    TMAKIT_CUDA_OK(cudaMemcpy(d.global, p.global.data(), p.global.size(), cudaMemcpyHostToDevice));
    TMAKIT_CUDA_OK(cudaMalloc(&d.out, 2 * p.plan.smem_bytes));
    TMAKIT_CUDA_OK(cudaMalloc(&d.status, 8));
    const CUtensorMap desc = tmakit_test::descriptor_for(p.plan, d.global);
    for (const TileCoord& t : tile_coords(p)) {
      std::string why;
      const auto want = predicted(p, t, why);
      EXPECT_EQ(why, "");
      multicast_plan_kernel<<<2, 128, static_cast<unsigned>(p.plan.smem_bytes + 1024)>>>(p.plan, desc, t, d.out, d.status);
      TMAKIT_CUDA_OK(cudaDeviceSynchronize());
      std::uint32_t st[2] = {};
      std::vector<unsigned char> got(2 * p.plan.smem_bytes);
      TMAKIT_CUDA_OK(cudaMemcpy(st, d.status, 8, cudaMemcpyDeviceToHost));
      TMAKIT_CUDA_OK(cudaMemcpy(got.data(), d.out, got.size(), cudaMemcpyDeviceToHost));
      for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(st[r], 1u) << "CTA " << r;
        const std::vector<unsigned char> mine(got.begin() + r * p.plan.smem_bytes, got.begin() + (r + 1) * p.plan.smem_bytes);
        EXPECT_EQ(tmakit_test::first_difference(mine, want), "") << "CTA " << r;
      }
    }
  }
}

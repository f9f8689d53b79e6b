// Executed store and reduce plans (tmakit/plan with PlanDirection::store / reduce +
// device/store_tile.cuh) on the GPU: a shared tile holding a known pattern is published
// (publish_smem_writes), stored with store_tile (or reduced with reduce_tile<add>), committed and
// waited for; the whole global buffer, pre-filled with a sentinel (a reduction: with known values),
// must equal the host model byte for byte (smem_model_tiled_store, the model test_tma_load checks
// against silicon, applied to every planned instruction). The store plans are the load plans of the
// same tiles (test_plan.cpp checks that), whose shared images test_plan_load checks against the
// user's layouts. K-major and MN-major tiles, a tile hanging off the tensor's end, several
// instructions per tile, padded rows, a rank-3 tensor and a compile-time plan. Needs compute
// capability >= 9.0; skips otherwise. Small enough for compute-sanitizer.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "../plan_test_util.hpp"
#include "gpu_test_util.cuh"
#include "plan_gpu_util.cuh"
#include "tmakit/device/store_tile.cuh"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/smem_model.hpp"

namespace td = tmakit::device;
using namespace tmakit;

namespace {

constexpr unsigned char kSentinel = 0xA5;
constexpr std::uint32_t kMaxSmem = 200 * 1024;

struct TileCoord {
  std::int32_t v[kMaxTileModes];
};

// Every thread writes its share of the shared tile (the image), publishes it for the async proxy,
// one thread issues the plan's stores (op 0) or reduce-adds (op 1) as one bulk group and waits for
// them before the kernel exits.
__global__ void plan_store_kernel(const __grid_constant__ TmaPlan plan, const __grid_constant__ CUtensorMap desc,
                                  TileCoord t, const unsigned char* image, int op) {
  extern __shared__ unsigned char dyn[];
  unsigned char* s = tmakit_test::align1024(dyn);
  for (std::uint32_t i = threadIdx.x; i < plan.smem_bytes; i += blockDim.x) s[i] = image[i];
  td::publish_smem_writes();
  if (threadIdx.x == 0) {
    if (op == 0) td::store_tile(plan, &desc, s, t.v);
    else td::reduce_tile<td::ReduceOp::add>(plan, &desc, s, t.v);
    td::commit_group();
    td::wait_group_read<0>();  // the tile may be written again from here on
    td::wait_group<0>();
  }
  __syncthreads();
}

struct Case {
  std::string gmem, smem, tile;
  std::uint32_t expect_instructions;
};

struct Prepared {
  GlobalTensor g;
  TileProblem problem;
  TmaPlan plan;
  std::vector<std::string> names;
  bool ok = false;
};

Prepared prepare(const Case& c, PlanDirection dir) {
  Prepared p;
  const auto g = parse_global_tensor(c.gmem);
  const auto s = parse_swizzled_layout(c.smem);
  const auto t = parse_tile_extents(c.tile);
  EXPECT_TRUE(g.ok && s.ok && t.ok) << c.gmem << " | " << c.smem << " | " << c.tile;
  if (!g.ok || !s.ok || !t.ok) return p;
  PlanOptions o;
  o.direction = dir;
  o.reduce_op = ReduceOp::add;
  const PlanResult r = plan_tile(g.value, s.value, t.value, o);
  p.g = g.value;
  p.names = t.names;
  p.problem = r.problem;
  if (!r.ok()) {
    std::string all;
    for (const auto& d : explain_plan(r.issues, r.problem, t.names)) all += d.message() + "\n";
    ADD_FAILURE() << c.gmem << " | " << c.smem << " | " << c.tile << " refused:\n" << all;
    return p;
  }
  p.plan = r.plan;
  EXPECT_EQ(p.plan.instructions, c.expect_instructions) << c.smem;
  p.ok = true;
  return p;
}

std::vector<TileCoord> tile_coords(const TileProblem& pb) {
  std::vector<TileCoord> v(3, TileCoord{});
  for (std::int32_t m = 0; m < pb.modes; ++m) {
    const std::int64_t n = (pb.extent[m] + pb.tile[m] - 1) / pb.tile[m];
    v[1].v[m] = n > 1 ? 1 : 0;
    v[2].v[m] = static_cast<std::int32_t>(n - 1);
  }
  return v;
}

// The shared image: a byte pattern over the tile's whole span (its place in the user's layout is
// what test_plan_load checks for the same plans).
std::vector<unsigned char> make_image(const TmaPlan& plan, std::uint32_t salt) {
  std::vector<unsigned char> v(plan.smem_bytes);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>((i * 131 + salt * 17 + (i >> 8)) & 0xff);
  return v;
}

void add_u32(const TensorMapParams&, unsigned char* dst, const unsigned char* src) {
  std::uint32_t a, b;
  std::memcpy(&a, dst, 4);
  std::memcpy(&b, src, 4);
  a += b;
  std::memcpy(dst, &a, 4);
}

// The global bytes after every planned instruction of tile t under the host model.
bool model(const TmaPlan& plan, std::vector<unsigned char>& global, const TileCoord& t,
           const std::vector<unsigned char>& image, SmemModelCombine op) {
  TensorMapParams q = plan.params;
  q.address = 0;
  for (std::uint32_t k = 0; k < plan.instructions; ++k) {
    const PlanInstruction in = plan.instruction(k, t.v);
    const std::span<const unsigned char> src(image.data() + in.smem_offset, image.size() - in.smem_offset);
    if (!smem_model_tiled_store(q, global, in.coord, src, op)) return false;
  }
  return true;
}


struct Device {
  unsigned char* global = nullptr;
  unsigned char* image = nullptr;
  ~Device() {
    cudaFree(global);
    cudaFree(image);
  }
};

// Runs plan `p` for each of its tile coordinates; `initial` is the global buffer before each run.
void run_and_compare(const Prepared& p, const std::vector<unsigned char>& initial, int op, int& checked) {
  Device d;
  TMAKIT_CUDA_OK(cudaMalloc(&d.global, initial.size()));
  TMAKIT_CUDA_OK(cudaMalloc(&d.image, p.plan.smem_bytes));
  const CUtensorMap desc = tmakit_test::descriptor_for(p.plan, d.global);
  std::uint32_t salt = 0;
  for (const TileCoord& t : tile_coords(p.problem)) {
    const std::vector<unsigned char> image = make_image(p.plan, ++salt);
    std::vector<unsigned char> want = initial;
    ASSERT_TRUE(model(p.plan, want, t, image, op == 0 ? nullptr : add_u32));
    ASSERT_NE(want, initial) << "the tile writes nothing: a test defect";
    TMAKIT_CUDA_OK(cudaMemcpy(d.global, initial.data(), initial.size(), cudaMemcpyHostToDevice));
    TMAKIT_CUDA_OK(cudaMemcpy(d.image, image.data(), image.size(), cudaMemcpyHostToDevice));
    plan_store_kernel<<<1, 128, static_cast<unsigned>(p.plan.smem_bytes + 1024)>>>(p.plan, desc, t, d.image, op);
    TMAKIT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<unsigned char> got(initial.size());
    TMAKIT_CUDA_OK(cudaMemcpy(got.data(), d.global, got.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(tmakit_test::first_difference(got, want), "") << "tile (" << t.v[0] << "," << t.v[1] << "," << t.v[2] << ",...)\n"
                                              << describe_plan(p.plan, p.names);
    ++checked;
  }
}

std::vector<unsigned char> global_bytes(const GlobalTensor& g) {
  return std::vector<unsigned char>(tmakit_test::make_global(g).size(), kSentinel);
}

constexpr PlanResult kConstexprStore = [] {
  GlobalTensor g;
  g.dtype = DataType::bfloat16;
  g.layout = make_layout(IntTuple::make(256, 64), IntTuple::make(64, 1));
  SwizzledLayout s;
  s.swizzle = SwizzleParams{3, 4, 3};
  s.layout = make_layout(IntTuple::make(64, 64), IntTuple::make(64, 1));
  TileExtents t;
  t.modes = 2;
  t.extent[0] = 64;
  t.extent[1] = 0;
  PlanOptions o;
  o.direction = PlanDirection::store;
  return plan_tile(g, s, t, o);
}();
static_assert(kConstexprStore.ok() && kConstexprStore.plan.direction == PlanDirection::store);
constexpr std::uint32_t kCxBytes = static_cast<std::uint32_t>(kConstexprStore.plan.smem_bytes);

// The plan as a template argument: store_tile<kPlan> (a plan of another direction does not compile).
__global__ void constexpr_store_kernel(const __grid_constant__ CUtensorMap desc, TileCoord t,
                                       const unsigned char* image) {
  extern __shared__ unsigned char dyn[];
  unsigned char* s = tmakit_test::align1024(dyn);
  for (std::uint32_t i = threadIdx.x; i < kCxBytes; i += blockDim.x) s[i] = image[i];
  td::publish_smem_writes();
  if (threadIdx.x == 0) {
    td::store_tile<kConstexprStore.plan>(&desc, s, t.v);
    td::commit_group();
    td::wait_group<0>();
  }
  __syncthreads();
}

}  // namespace

TEST(PlanStore, ExecutedStorePlansWriteWhatTheModelPredicts) {
  TMAKIT_REQUIRE_GPU();
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(plan_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  const std::vector<Case> cases = {
      {"bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", 1},              // K-major
      {"bf16 (384,320):(1,384)", "Sw<3,4,3> o ((64,2),64):((1,4096),64)", "N=128,K=64", 1},   // MN-major
      {"bf16 (500,64):(64,1)", "Sw<3,4,3> o (128,64):(64,1)", "seq=128,d=_", 1},               // off the end
      {"f32 (1000,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_", 2},                           // 2 per tile
      {"f32 (512,32):(32,1)", "(4,32):(64,1)", "r=4,d=_", 4},                                  // padded rows
      {"bf16 (256,8,64):(512,64,1)", "Sw<3,4,3> o (64,64):(64,1)", "seq=64,h=1,d=_", 1},       // rank 3
  };
  int checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.gmem + " | " + c.smem + " | " + c.tile);
    const Prepared p = prepare(c, PlanDirection::store);
    if (!p.ok) continue;
    ASSERT_LE(p.plan.smem_bytes + 1024, kMaxSmem);
    run_and_compare(p, global_bytes(p.g), 0, checked);
  }
  EXPECT_EQ(checked, static_cast<int>(cases.size()) * 3);
}

TEST(PlanStore, ExecutedReduceAddPlanSumsIntoGlobalMemory) {
  TMAKIT_REQUIRE_GPU();
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(plan_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  // u32 (.add takes it): a tile hanging off the end, rows of 32 elements.
  const Prepared p = prepare({"u32 (300,32):(32,1)", "(128,32):(32,1)", "r=128,c=_", 1}, PlanDirection::reduce);
  ASSERT_TRUE(p.ok);
  std::vector<unsigned char> initial(300 * 32 * 4);
  for (std::uint32_t i = 0; i < 300 * 32; ++i) {
    const std::uint32_t v = i * 3u + 0x10000000u;
    std::memcpy(&initial[4 * i], &v, 4);
  }
  int checked = 0;
  run_and_compare(p, initial, 1, checked);
  EXPECT_EQ(checked, 3);
}

TEST(PlanStore, CompileTimeStorePlan) {
  TMAKIT_REQUIRE_GPU();
  constexpr TmaPlan kPlan = kConstexprStore.plan;
  auto kernel = constexpr_store_kernel;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  GlobalTensor g;
  g.dtype = DataType::bfloat16;
  g.layout = make_layout(IntTuple::make(256, 64), IntTuple::make(64, 1));
  const std::vector<unsigned char> initial = global_bytes(g);
  Device d;
  TMAKIT_CUDA_OK(cudaMalloc(&d.global, initial.size()));
  TMAKIT_CUDA_OK(cudaMalloc(&d.image, kCxBytes));
  const CUtensorMap desc = tmakit_test::descriptor_for(kPlan, d.global);
  const TileCoord t{{3, 0}};
  const std::vector<unsigned char> image = make_image(kPlan, 9);
  std::vector<unsigned char> want = initial;
  ASSERT_TRUE(model(kPlan, want, t, image, nullptr));
  TMAKIT_CUDA_OK(cudaMemcpy(d.global, initial.data(), initial.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemcpy(d.image, image.data(), image.size(), cudaMemcpyHostToDevice));
  kernel<<<1, 128, kCxBytes + 1024>>>(desc, t, d.image);
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(initial.size());
  TMAKIT_CUDA_OK(cudaMemcpy(got.data(), d.global, got.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(tmakit_test::first_difference(got, want), "");
}

// CUDA, against the installed package: the host plans the tile (plan_tile) and encodes its
// descriptor; the kernel loads it with load_tile, which arms the barrier with the plan's byte count
// and issues the planned copies. Builds without a GPU; runs on compute capability 9.0 (Hopper) and
// reports and exits 0 elsewhere.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "tmakit/device/load_tile.cuh"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"

// The package's target passes nvcc the options its headers need; this project sets none.
#if !defined(__CUDACC_RELAXED_CONSTEXPR__) || __cplusplus < 202002L
#error "tmakit::tmakit did not bring -std=c++20 and --expt-relaxed-constexpr to this CUDA source"
#endif

namespace td = tmakit::device;

// Each CTA loads tile (blockIdx.y, blockIdx.x) of the matrix and writes its first shared word out.
__global__ void load_tiles(const __grid_constant__ tmakit::TmaPlan plan, const __grid_constant__ CUtensorMap desc,
                           unsigned* first_word) {
  extern __shared__ __align__(1024) unsigned char smem[];  // plan.smem_alignment, plan.smem_bytes
  __shared__ td::Barrier bar;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  const std::int32_t tile[tmakit::kMaxTileModes] = {int(blockIdx.y), int(blockIdx.x)};  // (M, K)
  if (threadIdx.x == 0) td::load_tile(plan, &desc, smem, bar, tile);
  td::Phase ph;
  td::wait(bar, ph);
  if (threadIdx.x == 0) first_word[blockIdx.y * gridDim.x + blockIdx.x] = *reinterpret_cast<const unsigned*>(smem);
}

int main() {
  const auto g = tmakit::parse_global_tensor("bf16 (4096,4096):(4096,1)");
  const auto s = tmakit::parse_swizzled_layout("Sw<3,4,3> o (128,64):(64,1)");
  const auto t = tmakit::parse_tile_extents("M=128,K=64");
  const tmakit::PlanResult r = tmakit::plan_tile(g.value, s.value, t.value);
  if (!g.ok || !s.ok || !t.ok || !r.ok()) return 1;
  std::printf("plan: %u instruction(s), expect_tx %u bytes, %llu shared bytes aligned to %u\n", r.plan.instructions,
              r.plan.expect_tx_bytes, static_cast<unsigned long long>(r.plan.smem_bytes), r.plan.smem_alignment);

  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess || major != 9) {
    std::printf("no compute capability 9.0 GPU: built, not launched\n");
    return 0;
  }
  const dim3 grid(4096 / 64, 4096 / 128);
  void* d_a = nullptr;
  unsigned* d_first = nullptr;
  cudaMalloc(&d_a, std::size_t{4096} * 4096 * 2);
  cudaMalloc(&d_first, sizeof(unsigned) * grid.x * grid.y);
  cudaMemset(d_a, 0x3c, std::size_t{4096} * 4096 * 2);
  tmakit::TensorMapParams p = r.plan.params;
  p.address = reinterpret_cast<std::uint64_t>(d_a);
  const tmakit::EncodeResult e = tmakit::encode(p);
  if (!e.ok()) return 1;
  CUtensorMap desc;
  std::memcpy(&desc, &e.map, sizeof desc);
  const auto smem_bytes = static_cast<unsigned>(r.plan.smem_bytes);
  cudaFuncSetAttribute(load_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  load_tiles<<<grid, 32, smem_bytes>>>(r.plan, desc, d_first);
  unsigned first = 0;
  const cudaError_t err = cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost);
  cudaFree(d_first);
  cudaFree(d_a);
  std::printf("%u tiles loaded: %s, first word %08x\n", grid.x * grid.y, cudaGetErrorString(err), first);
  return err == cudaSuccess && first == 0x3c3c3c3cu ? 0 : 1;
}

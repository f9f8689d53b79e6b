// Smoke tests of the remaining device/tma.cuh wrappers: 1-D bulk copies (plain, and with an L2
// cache policy after an L2 prefetch of the range), tiled load/store with cache hints, L2 prefetch
// of a tile and of the descriptor, multicast over a 2-CTA cluster, and __grid_constant__
// descriptors. The im2col loads and every reduce op are compiled (ptxas accepts the PTX) but not
// run. Skips without an sm_90 GPU.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "gpu_test_util.cuh"

#include <cstdint>
#include <cstring>
#include <vector>

#include "tmakit/device/descriptor.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/tensor_map/encode.hpp"

namespace td = tmakit::device;
namespace cg = cooperative_groups;

#define CUDA_OK(x)                                                                      \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    ASSERT_EQ(e_, cudaSuccess) << #x << ": " << cudaGetErrorString(e_);                 \
  } while (0)

// External linkage so that it is compiled (and ptxas checks the PTX) although never launched.
// Compile-only: im2col loads, multicast with hint, every reduce op, all ranks (never launched).
__global__ void tmakit_tma_api_compile_only(const __grid_constant__ CUtensorMap map, int flag) {
  __shared__ alignas(1024) unsigned char s[1024];
  __shared__ td::Barrier bar;
  if (flag != 12345) return;
  const std::int32_t c3[3] = {0, 1, 2};
  const std::int32_t c4[4] = {0, 1, 2, 3};
  const std::int32_t c5[5] = {0, 1, 2, 3, 4};
  td::load_im2col(&map, s, bar, c3, 1);
  td::load_im2col(&map, s, bar, c4, 1, 2);
  td::load_im2col(&map, s, bar, c5, 1, 2, 3);
  td::load_multicast_hint(&map, s, bar, 0x3, td::policy_evict_first(), 1, 2, 3);
  td::load_multicast(&map, s, bar, 0x3, 1, 2, 3, 4, 5);
  td::load_hint(&map, s, bar, 0ull, 1, 2, 3, 4, 5);
  td::reduce<td::ReduceOp::add>(&map, s, 1);
  td::reduce<td::ReduceOp::min>(&map, s, 1, 2);
  td::reduce<td::ReduceOp::max>(&map, s, 1, 2, 3);
  td::reduce<td::ReduceOp::inc>(&map, s, 1, 2, 3, 4);
  td::reduce<td::ReduceOp::dec>(&map, s, 1, 2, 3, 4, 5);
  td::reduce<td::ReduceOp::and_>(&map, s, 1);
  td::reduce<td::ReduceOp::or_>(&map, s, 1);
  td::reduce<td::ReduceOp::xor_>(&map, s, 1);
  td::store_after_smem_writes(&map, s, 1, 2, 3, 4, 5);
  td::store_hint(&map, s, 0ull, 1);
  td::prefetch_tile(&map, 1, 2, 3, 4, 5);
  td::prefetch_tile_hint(&map, 0ull, 1);
  td::expect_tx(bar, 16);
  td::wait_group_read<1>();
  // descriptor.cuh handles and TensorMapBytes pointers are accepted as descriptors too
  const td::TensorMap* gm = reinterpret_cast<const td::TensorMap*>(&map);
  td::load(td::acquire(gm), s, bar, 1, 2);
  td::store(gm, s, 1, 2);
}

namespace {

constexpr std::uint32_t kBytes = 4096;

// gmem in -> smem (bulk, with/without hint; the hinted run prefetches `in` into L2 first) -> gmem out
// (bulk, with/without hint).
__global__ void bulk_roundtrip(const unsigned char* in, unsigned char* out, int hint, std::uint32_t* ok) {
  __shared__ alignas(128) unsigned char s[kBytes];
  __shared__ td::Barrier bar;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (hint) td::bulk_prefetch_l2(in, kBytes);  // a hint: the data must arrive the same with it
    td::arrive_expect_tx(bar, kBytes);
    if (hint) td::bulk_load_hint(s, in, kBytes, bar, td::policy_evict_first());
    else td::bulk_load(s, in, kBytes, bar);
  }
  td::Phase ph;
  const bool done = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (hint) td::bulk_store_hint(out, s, kBytes, td::policy_evict_last());
    else td::bulk_store(out, s, kBytes);
    td::commit_group();
    td::wait_group<0>();
    *ok = done ? 1u : 2u;
  }
}

// 2-D u32 tensor 64 x 64, box 32 x 8, descriptor as __grid_constant__: load (hint) at (x, y),
// +1 every element with ordinary shared stores, store (hint) at (x, y) through the fenced path.
__global__ void tile_increment(const __grid_constant__ CUtensorMap map, int x, int y, std::uint32_t* ok) {
  __shared__ alignas(1024) std::uint32_t s[32 * 8];
  __shared__ td::Barrier bar;
  if (threadIdx.x == 0) {
    td::prefetch_tensor_map(&map);
    td::prefetch_tile(&map, x, y);
    td::prefetch_tile_hint(&map, td::policy_evict_normal(), x, y + 8);
    td::init(bar, 1);
  }
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, sizeof(s));
    td::load_hint(&map, s, bar, td::policy_evict_first(), x, y);
  }
  td::Phase ph;
  const bool done = tmakit_test::bounded_wait(bar, ph);
  for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x) s[i] += 1;
  td::publish_smem_writes();
  if (threadIdx.x == 0) {
    td::store_hint(&map, s, td::policy_evict_first(), x, y);
    td::commit_group();
    td::wait_group_read<0>();
    td::wait_group<0>();
    *ok = done ? 1u : 2u;
  }
}

// Cluster of 2: CTA 0 multicasts one tile into both CTAs; each copies its smem out.
__global__ void __cluster_dims__(2, 1, 1) multicast_kernel(const __grid_constant__ CUtensorMap map, std::uint32_t* out,
                                                           std::uint32_t* ok) {
  __shared__ alignas(1024) std::uint32_t s[32 * 8];
  __shared__ td::Barrier bar;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    td::init(bar, 1);
    td::fence_init_cluster();
  }
  __syncthreads();
  if (threadIdx.x == 0) td::arrive_expect_tx(bar, sizeof(s));
  cluster.sync();  // both barriers initialized and expecting before the copy is issued
  if (threadIdx.x == 0 && cluster.block_rank() == 0) td::load_multicast(&map, s, bar, std::uint16_t{0x3}, 0, 8);
  td::Phase ph;
  const bool done = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  const unsigned r = cluster.block_rank();
  for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x) out[r * 256 + i] = s[i];
  if (threadIdx.x == 0) ok[r] = done ? 1u : 2u;
  cluster.sync();
}

CUtensorMap make_map(void* base) {
  tmakit::TensorMapParams p;
  p.dtype = tmakit::DataType::uint32;
  p.rank = 2;
  p.address = reinterpret_cast<std::uint64_t>(base);
  p.dims[0] = 64;
  p.dims[1] = 64;
  p.strides[0] = 256;
  p.box[0] = 32;
  p.box[1] = 8;
  tmakit::TensorMapBytes b{};
  EXPECT_TRUE(tmakit::encode_into(p, b));
  EXPECT_EQ(td::tx_bytes(p), 32u * 8 * 4);
  CUtensorMap m;
  std::memcpy(&m, &b, sizeof(m));
  return m;
}

}  // namespace

TEST(TmaApi, BulkCopies) {
  TMAKIT_REQUIRE_GPU();
  std::vector<unsigned char> h(kBytes);
  for (std::uint32_t i = 0; i < kBytes; ++i) h[i] = static_cast<unsigned char>(i * 13 + 5);
  unsigned char *in, *out;
  std::uint32_t* ok;
  CUDA_OK(cudaMalloc(&in, kBytes));
  CUDA_OK(cudaMalloc(&out, kBytes));
  CUDA_OK(cudaMallocManaged(&ok, 4));
  CUDA_OK(cudaMemcpy(in, h.data(), kBytes, cudaMemcpyHostToDevice));
  for (int hint = 0; hint < 2; ++hint) {
    CUDA_OK(cudaMemset(out, 0, kBytes));
    bulk_roundtrip<<<1, 128>>>(in, out, hint, ok);
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(*ok, 1u) << "hint " << hint;
    std::vector<unsigned char> g(kBytes);
    CUDA_OK(cudaMemcpy(g.data(), out, kBytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(g, h) << "hint " << hint;
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(ok);
}

TEST(TmaApi, TileLoadModifyStoreWithHints) {
  TMAKIT_REQUIRE_GPU();
  std::vector<std::uint32_t> h(64 * 64);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = i * 3;
  std::uint32_t *g, *ok;
  CUDA_OK(cudaMalloc(&g, h.size() * 4));
  CUDA_OK(cudaMallocManaged(&ok, 4));
  CUDA_OK(cudaMemcpy(g, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  const CUtensorMap m = make_map(g);
  tile_increment<<<1, 128>>>(m, 16, 40, ok);  // box {16..47} x {40..47}
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(*ok, 1u);
  std::vector<std::uint32_t> r(h.size());
  CUDA_OK(cudaMemcpy(r.data(), g, h.size() * 4, cudaMemcpyDeviceToHost));
  for (std::uint32_t yy = 0; yy < 64; ++yy)
    for (std::uint32_t xx = 0; xx < 64; ++xx) {
      const bool in = xx >= 16 && xx < 48 && yy >= 40 && yy < 48;
      ASSERT_EQ(r[yy * 64 + xx], h[yy * 64 + xx] + (in ? 1u : 0u)) << xx << "," << yy;
    }
  cudaFree(g);
  cudaFree(ok);
}

TEST(TmaApi, MulticastToClusterOfTwo) {
  TMAKIT_REQUIRE_GPU();
  std::vector<std::uint32_t> h(64 * 64);
  for (std::uint32_t i = 0; i < h.size(); ++i) h[i] = i ^ 0x5a5a;
  std::uint32_t *g, *out, *ok;
  CUDA_OK(cudaMalloc(&g, h.size() * 4));
  CUDA_OK(cudaMalloc(&out, 2 * 256 * 4));
  CUDA_OK(cudaMallocManaged(&ok, 8));
  CUDA_OK(cudaMemcpy(g, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  const CUtensorMap m = make_map(g);
  multicast_kernel<<<2, 128>>>(m, out, ok);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(ok[0], 1u);
  EXPECT_EQ(ok[1], 1u);
  std::vector<std::uint32_t> r(512);
  CUDA_OK(cudaMemcpy(r.data(), out, r.size() * 4, cudaMemcpyDeviceToHost));
  for (int cta = 0; cta < 2; ++cta)
    for (int yy = 0; yy < 8; ++yy)
      for (int xx = 0; xx < 32; ++xx) ASSERT_EQ(r[cta * 256 + yy * 32 + xx], h[(8 + yy) * 64 + xx]) << cta;
  cudaFree(g);
  cudaFree(out);
  cudaFree(ok);
}

// SM-to-SM (DSMEM) copies executed from host plans (plan/dsmem_copy.hpp, device/dsmem.cuh): every
// CTA of a cluster copies its source region to the next CTA's destination region (a ring), the
// receiver writes its whole destination buffer out, and the host checks EVERY byte: copied
// elements equal the sender's source bytes, bytes outside the destination region keep the prefill
// pattern. Paths: contiguous (one bulk copy), strided 2-D and 3-D (bulk pieces), transpose
// (st.async 4 B), swizzle change (st.async 16 B), narrow 2-byte units (mapa + st.shared::cluster),
// forced element-wise paths; clusters of 2, 4 and 8 (16 with the non-portable attribute). Also a
// split-K reduction: every CTA sums its K slice and sends the partial to CTA 0 through DSMEM.
#define TMAKIT_WATCHDOG 1
#include "tmakit/device/dsmem.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

#include <cstdint>
#include <vector>

#include "gpu_test_util.cuh"

namespace td = tmakit::device;
using namespace tmakit;

namespace {

constexpr std::uint8_t kPrefill = 0xEE;

// One past the largest byte a region touches.
std::uint32_t span(const SmemRegion& r, std::uint32_t e) {
  std::uint64_t m = 0;
  for (std::int64_t i = 0; i < r.size(); ++i) m = std::max<std::uint64_t>(m, r.offset(i) + e);
  return static_cast<std::uint32_t>((m + 15) / 16 * 16);
}

struct Sizes {
  std::uint32_t src, dst;
};

__global__ void ring_kernel(const __grid_constant__ DsmemPlan plan, Sizes sz, const std::uint8_t* gsrc, std::uint8_t* gout) {
  __shared__ td::Barrier bar, ready;
  extern __shared__ __align__(1024) std::uint8_t dyn[];
  std::uint8_t* base = tmakit_test::align1024(dyn);
  std::uint8_t* src = base;
  std::uint8_t* dst = base + (sz.src + 1023u) / 1024u * 1024u;
  const std::uint32_t rank = td::cluster_rank(), n = td::cluster_size();
  const std::uint32_t next = (rank + 1) % n, prev = (rank + n - 1) % n;
  for (std::uint32_t i = threadIdx.x; i < sz.src; i += blockDim.x) src[i] = gsrc[blockIdx.x * sz.src + i];
  for (std::uint32_t i = threadIdx.x; i < sz.dst; i += blockDim.x) dst[i] = kPrefill;
  td::fence_smem_writes_for_async();  // generic writes before the async proxy reads src / writes dst
  td::init_cluster_barriers([&] {
    td::init(bar, plan.receiver_init_count());
    td::init(ready, 1);
  });
  td::Phase ph, rph;
  // receiver: arm, then release the sender (ARM-BEFORE-ISSUE)
  if (threadIdx.x == 0) td::dsmem_arm_and_release(bar, ready, plan, static_cast<std::uint16_t>(1u << prev));
  td::dsmem_wait_released(ready, rph);  // sender: the receiver armed
  td::dsmem_copy(plan, src, dst, next, bar);
  td::dsmem_wait(bar, ph);
  for (std::uint32_t i = threadIdx.x; i < sz.dst; i += blockDim.x) gout[blockIdx.x * sz.dst + i] = dst[i];
  td::cluster_sync();  // nobody exits while a peer may still read or write its shared memory
}

// Runs `plan` on clusters of n CTAs (2 clusters); returns the number of wrong bytes.
long run_ring(const DsmemPlan& plan, std::uint32_t n) {
  const std::uint32_t e = plan.spec.elem_bytes;
  const Sizes sz{span(plan.spec.src, e), span(plan.spec.dst, e)};
  const std::uint32_t blocks = 2 * n;
  std::vector<std::uint8_t> hs(std::size_t{blocks} * sz.src), ho(std::size_t{blocks} * sz.dst, 0);
  for (std::size_t i = 0; i < hs.size(); ++i) hs[i] = static_cast<std::uint8_t>((i * 131u + (i >> 8) * 7u + 1u) & 0xFF);
  std::uint8_t *ds = nullptr, *dout = nullptr;
  if (cudaMalloc(&ds, hs.size()) != cudaSuccess || cudaMalloc(&dout, ho.size()) != cudaSuccess) return -1;
  cudaMemcpy(ds, hs.data(), hs.size(), cudaMemcpyHostToDevice);
  const std::size_t smem = (sz.src + 1023u) / 1024u * 1024u + sz.dst + 1024u;
  cudaError_t err = td::launch_cluster(ring_kernel, ClusterShape{n, 1, 1}, dim3(blocks), dim3(plan.spec.threads),
                                       smem, plan, sz, static_cast<const std::uint8_t*>(ds), dout);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    ADD_FAILURE() << "CUDA: " << cudaGetErrorString(err);
    return -1;
  }
  cudaMemcpy(ho.data(), dout, ho.size(), cudaMemcpyDeviceToHost);
  cudaFree(ds);
  cudaFree(dout);
  long bad = 0;
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const std::uint32_t c0 = b / n * n, sender = c0 + (b - c0 + n - 1) % n;
    std::vector<std::uint8_t> want(sz.dst, kPrefill);
    for (std::int64_t i = 0; i < plan.spec.src.size(); ++i)
      for (std::uint32_t k = 0; k < e; ++k)
        want[plan.spec.dst.offset(i) + k] = hs[std::size_t{sender} * sz.src + plan.spec.src.offset(i) + k];
    for (std::uint32_t i = 0; i < sz.dst; ++i) bad += ho[std::size_t{b} * sz.dst + i] != want[i];
  }
  return bad;
}

DsmemSpec spec(SmemRegion src, SmemRegion dst, std::uint32_t e, DsmemPrefer prefer = DsmemPrefer::automatic) {
  DsmemSpec s;
  s.elem_bytes = e;
  s.src = src;
  s.dst = dst;
  s.prefer = prefer;
  return s;
}
SmemRegion region2d(std::int64_t s0, std::int64_t s1, std::int64_t st0, std::int64_t st1, std::uint32_t base = 0) {
  SmemRegion r;
  r.rank = 2;
  r.shape[0] = s0;
  r.shape[1] = s1;
  r.stride[0] = st0;
  r.stride[1] = st1;
  r.base = base;
  return r;
}

}  // namespace

class DsmemRing : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(DsmemRing, ContiguousBulk) {
  TMAKIT_REQUIRE_GPU();
  const DsmemPlan p = plan_dsmem_copy(spec(compact_region(4, 64, 32), compact_region(4, 64, 32, 1, 256), 4));
  ASSERT_EQ(p.path, DsmemPath::bulk_single);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, Strided2DBulkPieces) {
  TMAKIT_REQUIRE_GPU();
  const DsmemPlan p = plan_dsmem_copy(spec(region2d(64, 32, 4, 272), compact_region(4, 64, 32), 4));
  ASSERT_EQ(p.path, DsmemPath::bulk_multi);
  ASSERT_EQ(p.piece_count, 32u);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, Strided3DBulkPieces) {
  TMAKIT_REQUIRE_GPU();
  SmemRegion src;
  src.rank = 3;
  src.shape[0] = 16;
  src.shape[1] = 8;
  src.shape[2] = 4;
  src.stride[0] = 4;
  src.stride[1] = 64;
  src.stride[2] = 1024;
  SmemRegion dst = src;
  dst.stride[1] = 80;  // padded rows in the destination too: one piece per row
  dst.stride[2] = 8 * 80 + 32;
  const DsmemPlan p = plan_dsmem_copy(spec(src, dst, 4));
  ASSERT_EQ(p.path, DsmemPath::bulk_multi);
  ASSERT_EQ(p.piece_count, 32u);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, TransposeStAsync) {
  TMAKIT_REQUIRE_GPU();
  const DsmemPlan p = plan_dsmem_copy(spec(compact_region(4, 32, 32), region2d(32, 32, 128, 4), 4));
  ASSERT_EQ(p.path, DsmemPath::st_async);
  ASSERT_EQ(p.unit_bytes, 4u);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, SwizzleChangeStAsync16) {
  TMAKIT_REQUIRE_GPU();
  SmemRegion dst = compact_region(2, 64, 32);
  dst.swizzle = swizzle_for(Swizzle::b128);
  const DsmemPlan p = plan_dsmem_copy(spec(compact_region(2, 64, 32), dst, 2));
  ASSERT_EQ(p.path, DsmemPath::st_async);
  ASSERT_EQ(p.unit_bytes, 16u);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, NarrowUnitsStCluster) {
  TMAKIT_REQUIRE_GPU();
  const DsmemPlan p = plan_dsmem_copy(spec(region2d(1, 1000, 2, 6), compact_region(2, 1000), 2));
  ASSERT_EQ(p.path, DsmemPath::st_cluster);
  EXPECT_EQ(run_ring(p, GetParam()), 0);
}

TEST_P(DsmemRing, ForcedElementwisePathsOnContiguous) {
  TMAKIT_REQUIRE_GPU();
  const DsmemPlan a = plan_dsmem_copy(spec(compact_region(4, 64, 32), compact_region(4, 64, 32), 4, DsmemPrefer::elementwise));
  ASSERT_EQ(a.path, DsmemPath::st_async);
  ASSERT_EQ(a.unit_bytes, 16u);
  EXPECT_EQ(run_ring(a, GetParam()), 0);
  const DsmemPlan b = plan_dsmem_copy(spec(compact_region(4, 64, 32), compact_region(4, 64, 32), 4, DsmemPrefer::st_cluster));
  ASSERT_EQ(b.path, DsmemPath::st_cluster);
  EXPECT_EQ(run_ring(b, GetParam()), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, DsmemRing, ::testing::Values(2u, 4u, 8u, 16u));

// ----------------------------------------------------------------------------------------------
// Split-K reduction through DSMEM: CTA r sums rows [r*K/n, (r+1)*K/n) of a K x 1024 u32 matrix
// into a 4 KiB partial, sends it with one bulk copy into slot r of CTA 0, and CTA 0 adds the slots.

constexpr std::uint32_t kCols = 1024, kK = 64;

__global__ void splitk_kernel(const __grid_constant__ DsmemPlan plan, const std::uint32_t* a, std::uint32_t* out) {
  __shared__ td::Barrier bar, ready;
  extern __shared__ __align__(128) std::uint8_t dyn[];
  auto* partial = reinterpret_cast<std::uint32_t*>(dyn);
  auto* slots = partial + kCols;  // [n][kCols], used in CTA 0
  const std::uint32_t rank = td::cluster_rank(), n = td::cluster_size();
  td::init_cluster_barriers([&] {
    td::init(bar, 1);
    td::init(ready, 1);
  });
  const std::uint32_t k0 = rank * kK / n, k1 = (rank + 1) * kK / n;
  const std::uint32_t* ac = a + blockIdx.x / n * kK * kCols;
  for (std::uint32_t j = threadIdx.x; j < kCols; j += blockDim.x) {
    std::uint32_t s = 0;
    for (std::uint32_t k = k0; k < k1; ++k) s += ac[k * kCols + j];
    partial[j] = s;
  }
  td::publish_smem_writes();  // every writer fences for the async proxy, then the CTA syncs
  td::Phase ph, rph;
  if (rank == 0 && threadIdx.x == 0)  // n - 1 copies land on CTA 0's barrier, one from each of CTAs 1..n-1
    td::dsmem_arm_and_release(bar, ready, plan, static_cast<std::uint16_t>(((1u << n) - 1u) & ~1u));
  if (rank != 0) {
    td::dsmem_wait_released(ready, rph);
    if (threadIdx.x == 0) td::dsmem_copy_bulk(plan, partial, slots + rank * kCols, 0, bar);
  } else {
    td::dsmem_wait(bar, ph);
    for (std::uint32_t j = threadIdx.x; j < kCols; j += blockDim.x) {
      std::uint32_t s = partial[j];
      for (std::uint32_t r = 1; r < n; ++r) s += slots[r * kCols + j];
      out[blockIdx.x / n * kCols + j] = s;
    }
  }
  td::cluster_sync();
}

class DsmemSplitK : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(DsmemSplitK, ReductionIsExact) {
  TMAKIT_REQUIRE_GPU();
  const std::uint32_t n = GetParam(), clusters = 3;
  const DsmemPlan plan = plan_dsmem_copy(spec(compact_region(4, kCols), compact_region(4, kCols), 4));
  ASSERT_EQ(plan.path, DsmemPath::bulk_single);
  std::vector<std::uint32_t> ha(std::size_t{clusters} * kK * kCols), want(std::size_t{clusters} * kCols, 0),
      got(want.size(), 1);
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = static_cast<std::uint32_t>(i * 2654435761u);
  for (std::uint32_t c = 0; c < clusters; ++c)
    for (std::uint32_t k = 0; k < kK; ++k)
      for (std::uint32_t j = 0; j < kCols; ++j) want[c * kCols + j] += ha[(std::size_t{c} * kK + k) * kCols + j];
  std::uint32_t *da = nullptr, *dout = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&da, ha.size() * 4));
  TMAKIT_CUDA_OK(cudaMalloc(&dout, want.size() * 4));
  TMAKIT_CUDA_OK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
  const std::size_t smem = (1 + n) * kCols * 4;
  TMAKIT_CUDA_OK(td::launch_cluster(splitk_kernel, ClusterShape{n, 1, 1}, dim3(n * clusters), dim3(256), smem,
                                    plan, static_cast<const std::uint32_t*>(da), dout));
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  TMAKIT_CUDA_OK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(da);
  cudaFree(dout);
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Sizes, DsmemSplitK, ::testing::Values(2u, 4u, 8u));

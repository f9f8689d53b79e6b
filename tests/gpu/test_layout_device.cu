// The layout algebra in device code: the same operations computed by a kernel and on the host must
// give the same layouts and the same offsets (IntTuple/Layout are fixed-capacity, heap-free,
// constexpr and __host__ __device__). Also the swizzled byte addresses and an F2 linear map.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "gpu_test_util.cuh"
#include "tmakit/layout/algebra.hpp"
#include "tmakit/layout/linear_layout.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/layout/swizzled_layout.hpp"

using namespace tmakit;

namespace {

struct Case {
  Layout a, b;
};
struct Out {
  Layout divide, compose, blocked, rinv;
  int ok[4];
};

// One thread per case computes the four results (the algebra needs a large stack: IntTuples are
// 1 KB values); then the block evaluates the divide at every index.
__global__ void algebra_kernel(const Case* cases, Out* out, long long* offsets, int max_size) {
  __shared__ Layout divided;
  __shared__ int ok;
  const Case& c = cases[blockIdx.x];
  if (threadIdx.x == 0) {
    const LayoutResult d = logical_divide(c.a, Tiler{c.b, false});
    const LayoutResult k = composition(c.a, c.b);
    const LayoutResult p = blocked_product(c.a, c.b);
    Out& o = out[blockIdx.x];
    o.divide = d.value;
    o.compose = k.value;
    o.blocked = p.value;
    o.rinv = right_inverse(c.a);
    o.ok[0] = d.ok();
    o.ok[1] = k.ok();
    o.ok[2] = p.ok();
    o.ok[3] = 1;
    divided = d.value;
    ok = d.ok();
  }
  __syncthreads();
  if (!ok) return;
  for (int i = threadIdx.x; i < divided.size() && i < max_size; i += blockDim.x)
    offsets[static_cast<long long>(blockIdx.x) * max_size + i] = divided(i);
}

__global__ void swizzle_kernel(SwizzledLayout s, LinearLayout m, unsigned long long* bytes, unsigned long long* linear) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.size()) return;
  bytes[i] = s.byte_offset(i, 2);
  linear[i] = m.apply(static_cast<std::uint64_t>(i));
}

Layout L(const char* s) {
  const auto p = parse_layout(s);
  EXPECT_TRUE(p.ok) << s;
  return p.value;
}

}  // namespace

TEST(LayoutDevice, AlgebraAgreesWithTheHost) {
  TMAKIT_REQUIRE_GPU();
  TMAKIT_CUDA_OK(cudaDeviceSetLimit(cudaLimitStackSize, 128 * 1024));
  const std::vector<Case> cases = {
      {L("(4,2,3):(2,1,8)"), L("4:2")},          {L("(6,2):(8,2)"), L("(4,3):(3,1)")},
      {L("(64,64):(64,1)"), L("(8,8):(64,1)")},  {L("(2,5):(5,1)"), L("(3,4):(1,3)")},
      {L("((8,8),(4,2)):((1,64),(8,512))"), L("(4,8):(2,16)")}, {L("(6,2):(1,6)"), L("2:4")},
      {L("(4,3):(1,5)"), L("6:1")},
  };
  const int n = static_cast<int>(cases.size()), max_size = 4096;
  Case* d_cases = nullptr;
  Out* d_out = nullptr;
  long long* d_off = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&d_cases, sizeof(Case) * n));
  TMAKIT_CUDA_OK(cudaMalloc(&d_out, sizeof(Out) * n));
  TMAKIT_CUDA_OK(cudaMalloc(&d_off, sizeof(long long) * n * max_size));
  TMAKIT_CUDA_OK(cudaMemcpy(d_cases, cases.data(), sizeof(Case) * n, cudaMemcpyHostToDevice));
  algebra_kernel<<<n, 128>>>(d_cases, d_out, d_off, max_size);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<Out> out(n);
  std::vector<long long> off(static_cast<std::size_t>(n) * max_size);
  TMAKIT_CUDA_OK(cudaMemcpy(out.data(), d_out, sizeof(Out) * n, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(off.data(), d_off, sizeof(long long) * off.size(), cudaMemcpyDeviceToHost));
  int checked = 0;
  for (int c = 0; c < n; ++c) {
    const LayoutResult d = logical_divide(cases[c].a, Tiler{cases[c].b, false});
    const LayoutResult k = composition(cases[c].a, cases[c].b);
    const LayoutResult p = blocked_product(cases[c].a, cases[c].b);
    ASSERT_EQ(out[c].ok[0], d.ok()) << c;
    ASSERT_EQ(out[c].ok[1], k.ok()) << c;
    ASSERT_EQ(out[c].ok[2], p.ok()) << c;
    if (d.ok()) {
      EXPECT_EQ(to_string(out[c].divide), to_string(d.value)) << c;
      for (std::int64_t i = 0; i < d.value.size() && i < max_size; ++i, ++checked)
        ASSERT_EQ(off[static_cast<std::size_t>(c) * max_size + i], d.value(i)) << c << " at " << i;
    }
    if (k.ok()) EXPECT_EQ(to_string(out[c].compose), to_string(k.value)) << c;
    if (p.ok()) EXPECT_EQ(to_string(out[c].blocked), to_string(p.value)) << c;
    EXPECT_EQ(to_string(out[c].rinv), to_string(right_inverse(cases[c].a))) << c;
  }
  EXPECT_FALSE(out[n - 1].ok[1]);  // (4,3):(1,5) o 6:1 is refused (CuTe's shape divisibility) on the device too
  std::printf("[gpu] device algebra == host on %d cases, %d offsets\n", n, checked);
  cudaFree(d_cases);
  cudaFree(d_out);
  cudaFree(d_off);
}

TEST(LayoutDevice, SwizzledBytesAndLinearMap) {
  TMAKIT_REQUIRE_GPU();
  const auto sl = parse_swizzled_layout("Sw<3,4,3> o (64,64):(64,1)");
  ASSERT_TRUE(sl.ok);
  const LinearLayoutResult m = linear_byte_map(sl.value, 2);
  ASSERT_TRUE(m.ok());
  const int n = 64 * 64;
  unsigned long long *d_b = nullptr, *d_l = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&d_b, sizeof(unsigned long long) * n));
  TMAKIT_CUDA_OK(cudaMalloc(&d_l, sizeof(unsigned long long) * n));
  swizzle_kernel<<<n / 256, 256>>>(sl.value, m.value, d_b, d_l);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned long long> b(n), l(n);
  TMAKIT_CUDA_OK(cudaMemcpy(b.data(), d_b, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(l.data(), d_l, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(b[i], sl.value.byte_offset(i, 2)) << i;
    ASSERT_EQ(l[i], b[i]) << i;
  }
  cudaFree(d_b);
  cudaFree(d_l);
}

// GPU verification of the register -> shared-memory store planner (tmakit/smem_store/plan.hpp)
// and its executor (tmakit/device/smem_store.cuh) on sm_90a:
//   - WGMMA m64n128k16 f32 accumulators -> planned store into bf16 (K-major and MN-major; SW128, SW64,
//     SW32, no swizzle), f32 and plain row-major tiles: every element checked bit-exact;
//   - the tcgen05.ld 32x32b fragment model (register values synthesized per the model, no TMEM on
//     Hopper) -> 128x128 bf16 K-major SW128, .x4 and .x8;
//   - SMEM-P: WGMMA -> registers -> planned store -> a second WGMMA reads the buffer as its A operand;
//   - epilogue: accumulators -> planned store -> TMA store to global.
// Each case is exactly one kernel launch and prints one line
//   SMEMSTORE <case> op=<ptx> instructions=<per thread> wavefronts=<all warps> ideal=<all warps>
// in launch order; scripts/compare_smem_store_ncu.py matches them with ncu's shared-store
// wavefront and bank-conflict counters of the same launches.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu_test_util.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/smem_store/gmma_descriptor.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace td = tmakit::device;
using tmakit::OperandMajor;
using tmakit::SmemStorePlan;
using tmakit::StoreDestination;
using tmakit::StoreSource;
using tmakit::Swizzle;

namespace smem_store_gpu {

// ---- the values: D[m][n] = a(m) * b(n), exact in f32 and in bf16, all distinct
// a(m) = 2^(m-32) (A column 0), b(n) = +-(1 + (n % 128) / 128) (B row 0); every other A, B entry 0.
float a_val(int m) { return std::ldexp(1.0f, m - 32); }
float b_val(int n) { return (n < 128 ? 1.0f : -1.0f) * (1.0f + static_cast<float>(n % 128) / 128.0f); }
std::uint16_t bf16_bits(float x) {  // exact values only: the upper half of the f32 bits
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<std::uint16_t>(u >> 16);
}
std::uint32_t f32_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

// Shared-memory image of a tile: elem(r, c) at dst.byte_address(r, c).
template <class U>
std::vector<unsigned char> image(const StoreDestination& d, U (*elem)(int, int)) {
  std::vector<unsigned char> img(static_cast<std::size_t>(d.tile.layout.cosize()) * d.elem_bytes + 1024, 0);
  for (int r = 0; r < d.rows; ++r)
    for (int c = 0; c < d.cols; ++c) {
      const U v = elem(r, c);
      std::memcpy(img.data() + d.byte_address(r, c), &v, sizeof(U));
    }
  return img;
}

std::uint16_t a1_elem(int m, int k) { return k == 0 ? bf16_bits(a_val(m)) : 0; }
std::uint16_t b1_elem(int n, int k) { return k == 0 ? bf16_bits(b_val(n)) : 0; }
std::uint16_t identity_elem(int n, int k) { return n == k ? bf16_bits(1.0f) : 0; }

// The A1 (64 x 16) and B1 (N x 16) operands: bf16, K-major, 32B swizzle (8 rows x 32 B atoms, SBO 256 B).
inline constexpr StoreDestination kA1 = tmakit::gmma_operand(OperandMajor::k, Swizzle::b32, 2, 64, 16).value;
inline constexpr StoreDestination kB1_64 = tmakit::gmma_operand(OperandMajor::k, Swizzle::b32, 2, 64, 16).value;
inline constexpr StoreDestination kB1_128 = tmakit::gmma_operand(OperandMajor::k, Swizzle::b32, 2, 128, 16).value;
inline constexpr std::uint32_t kA1Bytes = 64 * 16 * 2;

// WGMMA shared-memory matrix descriptors: LBO, SBO and the swizzle mode come from the operand's
// canonical layout (plan/gmma_descriptor.hpp), so they follow gmma_operand(). They are the values
// this test once wrote by hand (and ran with on the H100 / H200): K-major SW32 LBO 16, SBO 256,
// mode 3; K-major SW128 LBO 16, SBO 1024, mode 1.
constexpr bool desc_fields_are(const StoreDestination& d, std::uint32_t lbo, std::uint32_t sbo, std::uint32_t mode) {
  const tmakit::WgmmaDescriptorFields f = tmakit::wgmma_descriptor_fields(d);
  return f.ok && f.lbo_bytes == lbo && f.sbo_bytes == sbo && f.mode == mode;
}
static_assert(desc_fields_are(kA1, 16, 256, 3) && desc_fields_are(kB1_64, 16, 256, 3) &&
              desc_fields_are(kB1_128, 16, 256, 3));
static_assert(tmakit::wgmma_descriptor(0x400, tmakit::wgmma_descriptor_fields(kA1)) ==
              ((0x400u >> 4) | (std::uint64_t{16 >> 4} << 16) | (std::uint64_t{256 >> 4} << 32) | (std::uint64_t{3} << 62)));

__device__ unsigned char* align1024(unsigned char* p) {
  const std::uint32_t s = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return p + ((1024 - s % 1024) % 1024);
}

// Loads A1 and B1 (n rows) with bulk copies (async proxy: no LSU shared stores) and runs one
// wgmma m64nNk16 into d.
template <int N>
__device__ bool wgmma_d(unsigned char* sm, const unsigned char* ga, const unsigned char* gb, td::Barrier& bar,
                        float (&d)[N / 2]) {
  unsigned char* sa = sm;
  unsigned char* sb = sm + kA1Bytes;
  constexpr std::uint32_t kBBytes = N * 16 * 2;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, kA1Bytes + kBBytes);
    td::bulk_load(sa, ga, kA1Bytes, bar);
    td::bulk_load(sb, gb, kBBytes, bar);
  }
  td::Phase ph;
  const bool done = tmakit_test::bounded_wait(bar, ph);
  for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;
  constexpr tmakit::WgmmaDescriptorFields fa = tmakit::wgmma_descriptor_fields(kA1);
  constexpr tmakit::WgmmaDescriptorFields fb = tmakit::wgmma_descriptor_fields(N == 64 ? kB1_64 : kB1_128);
  const std::uint64_t da = tmakit::wgmma_descriptor(static_cast<std::uint32_t>(__cvta_generic_to_shared(sa)), fa);
  const std::uint64_t db = tmakit::wgmma_descriptor(static_cast<std::uint32_t>(__cvta_generic_to_shared(sb)), fb);
  td::wgmma::fence();
  td::wgmma::mma<tmakit::DataType::bfloat16, N, 0, 0>(d, da, db, false);
  td::wgmma::commit_group();
  td::wgmma::wait_group<0>();
  return done;
}

// WGMMA m64nN -> planned store -> the buffer copied out to global (raw bytes).
// A case as a type (kernels take types: nvcc's host stubs cannot name reference template arguments).
// nvcc warns (#20094) that the kernels "read" these host references; they only name them as
// template arguments of store_planned (compile-time constants), so the warning is silenced here.
#pragma nv_diag_suppress 20094
#define TMAKIT_STORE_CASE(NAME, PLAN, SRC, DST)             \
  struct NAME {                                             \
    static constexpr const SmemStorePlan& plan = PLAN;      \
    static constexpr const StoreSource& src = SRC;          \
    static constexpr const StoreDestination& dst = DST;     \
  };

template <class C, int N, bool F32>
__global__ void wgmma_store_kernel(const unsigned char* ga, const unsigned char* gb, unsigned char* out,
                                   std::uint32_t out_bytes, std::uint32_t* ok) {
  extern __shared__ unsigned char dyn[];
  unsigned char* sm = align1024(dyn);
  __shared__ td::Barrier bar;
  float d[N / 2];
  const bool done = wgmma_d<N>(sm, ga, gb, bar, d);
  unsigned char* buf = sm + 8192;
  if constexpr (F32) {
    std::uint32_t bits[N / 2];
    for (int i = 0; i < N / 2; ++i) bits[i] = __float_as_uint(d[i]);
    td::store_planned<C::plan, C::src, C::dst>(buf, threadIdx.x, bits);
  } else {
    std::uint16_t bits[N / 2];
    for (int i = 0; i < N / 2; ++i) bits[i] = __bfloat16_as_ushort(__float2bfloat16_rn(d[i]));
    td::store_planned<C::plan, C::src, C::dst>(buf, threadIdx.x, bits);
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x * 16; i < out_bytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(out + i) = *reinterpret_cast<const uint4*>(buf + i);
  if (threadIdx.x == 0) *ok = done ? 1u : 2u;
}

// The tcgen05.ld fragment model on Hopper: values synthesized per the model (bits = row * 128 + col).
template <class C>
__global__ void model_store_kernel(unsigned char* out, std::uint32_t out_bytes) {
  extern __shared__ unsigned char dyn[];
  unsigned char* buf = align1024(dyn);
  constexpr StoreSource s = C::src;
  constexpr int kValues = C::plan.values;
  std::uint16_t bits[kValues];
  for (int v = 0; v < kValues; ++v) {
    const tmakit::TileCoord c = s.coord(threadIdx.x, v);
    bits[v] = static_cast<std::uint16_t>(c.row * 128 + c.col);
  }
  td::store_planned<C::plan, C::src, C::dst>(buf, threadIdx.x, bits);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x * 16; i < out_bytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(out + i) = *reinterpret_cast<const uint4*>(buf + i);
}

// SMEM-P: D1 = A1 B1 (m64n64k16) -> bf16 P, planned store into P's K-major SW128 buffer -> fence ->
// D2 = P I (four m64n64k16 steps, A = P from shared memory, B = identity) -> D2 to global (f32).
template <class C>
__global__ void smem_p_kernel(const unsigned char* ga, const unsigned char* gb, const unsigned char* gi,
                              float* out, std::uint32_t* ok) {
  extern __shared__ unsigned char dyn[];
  unsigned char* sm = align1024(dyn);
  __shared__ td::Barrier bar;
  unsigned char* sp = sm + 4096;
  unsigned char* si = sm + 12288;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    td::arrive_expect_tx(bar, 2048 + 2048 + 8192);
    td::bulk_load(sm, ga, 2048, bar);
    td::bulk_load(sm + 2048, gb, 2048, bar);
    td::bulk_load(si, gi, 8192, bar);
  }
  td::Phase ph;
  const bool done = tmakit_test::bounded_wait(bar, ph);
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  const std::uint32_t a_u32 = static_cast<std::uint32_t>(__cvta_generic_to_shared(sm));
  constexpr tmakit::WgmmaDescriptorFields fa = tmakit::wgmma_descriptor_fields(kA1);
  constexpr tmakit::WgmmaDescriptorFields fb = tmakit::wgmma_descriptor_fields(kB1_64);
  td::wgmma::fence();
  td::wgmma::mma<tmakit::DataType::bfloat16, 64, 0, 0>(d, tmakit::wgmma_descriptor(a_u32, fa),
                                           tmakit::wgmma_descriptor(a_u32 + kA1Bytes, fb), false);
  td::wgmma::commit_group();
  td::wgmma::wait_group<0>();
  std::uint16_t bits[32];
  for (int i = 0; i < 32; ++i) bits[i] = __bfloat16_as_ushort(__float2bfloat16_rn(d[i]));
  td::store_planned<C::plan, C::src, C::dst>(sp, threadIdx.x, bits);
  td::publish_smem_writes();  // the second wgmma reads P through the async proxy
  float d2[32];
  for (int i = 0; i < 32; ++i) d2[i] = 0.0f;
  const std::uint32_t p_u32 = static_cast<std::uint32_t>(__cvta_generic_to_shared(sp));
  const std::uint32_t i_u32 = static_cast<std::uint32_t>(__cvta_generic_to_shared(si));
  constexpr StoreDestination dp = C::dst;  // P and the identity share the layout (K-major SW128 64 x 64)
  constexpr tmakit::WgmmaDescriptorFields fp = tmakit::wgmma_descriptor_fields(dp);
  td::wgmma::fence();
  // K = 64 in steps of 16: step kk starts at column 16 kk, kk * kStep bytes into the swizzle atom
  constexpr std::uint32_t kStep = static_cast<std::uint32_t>(dp.buffer_offset(0, 16));
  static_assert(dp.buffer_offset(0, 48) == 3 * kStep);
  for (int kk = 0; kk < 4; ++kk)
    td::wgmma::mma<tmakit::DataType::bfloat16, 64, 0, 0>(d2, tmakit::wgmma_descriptor(p_u32 + kStep * kk, fp),
                                             tmakit::wgmma_descriptor(i_u32 + kStep * kk, fp), kk > 0);
  td::wgmma::commit_group();
  td::wgmma::wait_group<0>();
  constexpr StoreSource s = C::src;
  for (int v = 0; v < 32; ++v) {
    const tmakit::TileCoord c = s.coord(threadIdx.x, v);
    out[c.row * 64 + c.col] = d2[v];
  }
  if (threadIdx.x == 0) *ok = done ? 1u : 2u;
}

// Epilogue: D (m64n64) -> bf16, planned store into the TMA box layout (64 x 64, 128B swizzle) ->
// fence + barrier -> TMA store to global.
template <class C>
__global__ void epilogue_kernel(const __grid_constant__ CUtensorMap map, const unsigned char* ga,
                                const unsigned char* gb, std::uint32_t* ok) {
  extern __shared__ unsigned char dyn[];
  unsigned char* sm = align1024(dyn);
  __shared__ td::Barrier bar;
  float d[32];
  const bool done = wgmma_d<64>(sm, ga, gb, bar, d);
  unsigned char* buf = sm + 8192;
  std::uint16_t bits[32];
  for (int i = 0; i < 32; ++i) bits[i] = __bfloat16_as_ushort(__float2bfloat16_rn(d[i]));
  td::store_planned<C::plan, C::src, C::dst>(buf, threadIdx.x, bits);
  td::publish_smem_writes();
  if (threadIdx.x == 0) {
    td::store_and_commit(&map, buf, 0, 0);
    td::wait_group<0>();
    *ok = done ? 1u : 2u;
  }
}

void report(const char* name, const SmemStorePlan& p) {
  std::printf("SMEMSTORE %s op=%s instructions=%d wavefronts=%d ideal=%d\n", name, tmakit::store_op_ptx(p.op),
              p.instructions, p.total_wavefronts, p.total_ideal);
  std::fflush(stdout);
}

struct DevBuf {
  void* p = nullptr;
  explicit DevBuf(std::size_t n) { (void)cudaMalloc(&p, n); (void)cudaMemset(p, 0, n); }
  ~DevBuf() { cudaFree(p); }
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

// Runs one WGMMA store case and checks every element of the buffer.
template <class C, int N, bool F32>
void run_wgmma_case(const char* name) {
  constexpr const SmemStorePlan& P = C::plan;
  constexpr const StoreDestination& D = C::dst;
  static_assert(P.ok);
  report(name, P);
  const auto ia = image(kA1, a1_elem);
  const auto ib = image(N == 64 ? kB1_64 : kB1_128, b1_elem);
  DevBuf ga(ia.size()), gb(ib.size()), out(32768 + 1024), ok(4);
  TMAKIT_CUDA_OK(cudaMemcpy(ga.p, ia.data(), ia.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemcpy(gb.p, ib.data(), ib.size(), cudaMemcpyHostToDevice));
  const std::uint32_t out_bytes = static_cast<std::uint32_t>((D.tile.layout.cosize() * D.elem_bytes + 15) / 16 * 16);
  ASSERT_LE(out_bytes, 32768u);
  const int smem = 1024 + 8192 + 32768;
  auto k = wgmma_store_kernel<C, N, F32>;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  k<<<1, 128, smem>>>(ga.as<unsigned char>(), gb.as<unsigned char>(), out.as<unsigned char>(), out_bytes,
                      ok.as<std::uint32_t>());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::uint32_t okv = 0;
  TMAKIT_CUDA_OK(cudaMemcpy(&okv, ok.p, 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(okv, 1u);
  std::vector<unsigned char> host(out_bytes);
  TMAKIT_CUDA_OK(cudaMemcpy(host.data(), out.p, out_bytes, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < D.rows; ++r)
    for (int c = 0; c < D.cols; ++c) {
      const float x = a_val(r) * b_val(c);
      const std::uint64_t at = D.byte_address(r, c);
      if constexpr (F32) {
        std::uint32_t got;
        std::memcpy(&got, host.data() + at, 4);
        if (got != f32_bits(x) && ++bad < 5) ADD_FAILURE() << name << " (" << r << "," << c << ")";
      } else {
        std::uint16_t got;
        std::memcpy(&got, host.data() + at, 2);
        if (got != bf16_bits(x) && ++bad < 5) ADD_FAILURE() << name << " (" << r << "," << c << ")";
      }
    }
  EXPECT_EQ(bad, 0) << name;
}

// ---- the cases (constexpr plans: the same planner the CLI runs, with the default options: the fix
// search and the unit check included, within nvcc's constexpr evaluation budget)
inline constexpr tmakit::SmemStoreOptions kDev{};
inline constexpr tmakit::SmemStoreOptions kNoStmatrix{false, true, true, 16};
inline constexpr StoreSource kW128 = tmakit::wgmma_accumulator(128);
inline constexpr StoreSource kW64 = tmakit::wgmma_accumulator(64);

#define TMAKIT_GMMA_CASE(ID, MAJOR, SW, E)                                                             \
  inline constexpr StoreDestination kD_##ID = tmakit::gmma_operand(OperandMajor::MAJOR, Swizzle::SW, E, 64, 128).value; \
  inline constexpr SmemStorePlan kP_##ID = tmakit::plan_smem_store(kW128, kD_##ID, kDev);

TMAKIT_GMMA_CASE(k_sw128, k, b128, 2)
TMAKIT_GMMA_CASE(k_sw64, k, b64, 2)
TMAKIT_GMMA_CASE(k_sw32, k, b32, 2)
TMAKIT_GMMA_CASE(k_none, k, none, 2)
TMAKIT_GMMA_CASE(mn_sw128, mn, b128, 2)
TMAKIT_GMMA_CASE(mn_sw64, mn, b64, 2)
TMAKIT_GMMA_CASE(mn_sw32, mn, b32, 2)
TMAKIT_GMMA_CASE(mn_none, mn, none, 2)
TMAKIT_GMMA_CASE(f32_k_sw128, k, b128, 4)
TMAKIT_GMMA_CASE(f32_mn_sw128, mn, b128, 4)
#undef TMAKIT_GMMA_CASE

// Plain row-major tiles (no swizzle): bf16 with stmatrix disallowed (st.shared.b32), and f32.
inline constexpr tmakit::Layout kRowMajor = tmakit::make_layout(tmakit::IntTuple::make(64, 128), tmakit::IntTuple::make(128, 1));
inline constexpr StoreDestination kD_rm_bf16 = tmakit::smem_destination(tmakit::SwizzledLayout{{0, 4, 3, true, true}, kRowMajor}, 2);
inline constexpr StoreDestination kD_rm_f32 = tmakit::smem_destination(tmakit::SwizzledLayout{{0, 4, 3, true, true}, kRowMajor}, 4);
inline constexpr SmemStorePlan kP_rm_bf16 = tmakit::plan_smem_store(kW128, kD_rm_bf16, kNoStmatrix);
inline constexpr SmemStorePlan kP_rm_f32 = tmakit::plan_smem_store(kW128, kD_rm_f32, kDev);

// tcgen05.ld 32x32b model into the 128 x 128 bf16 K-major SW128 A-operand buffer (the worked example).
inline constexpr StoreDestination kD_p128 = tmakit::gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value;
inline constexpr StoreSource kT_x4 = tmakit::tcgen05_load(tmakit::FragmentKind::tcgen05_32x32b, 4, 128);
inline constexpr StoreSource kT_x8 = tmakit::tcgen05_load(tmakit::FragmentKind::tcgen05_32x32b, 8, 128);
inline constexpr SmemStorePlan kP_t_x4 = tmakit::plan_smem_store(kT_x4, kD_p128, kDev);
inline constexpr SmemStorePlan kP_t_x8 = tmakit::plan_smem_store(kT_x8, kD_p128, kDev);

// SMEM-P and epilogue: m64n64 -> 64 x 64 bf16 K-major SW128 (= the TMA 128B-swizzle box image).
inline constexpr StoreDestination kD_p64 = tmakit::gmma_operand(OperandMajor::k, Swizzle::b128, 2, 64, 64).value;
static_assert(desc_fields_are(kD_p64, 16, 1024, 1));
static_assert(kD_p64.buffer_offset(0, 0) == 0 && kD_p64.buffer_offset(0, 16) == 32 && kD_p64.buffer_offset(0, 32) == 64 &&
              kD_p64.buffer_offset(0, 48) == 96);  // the k steps, once written as 32 kk
inline constexpr SmemStorePlan kP_p64 = tmakit::plan_smem_store(kW64, kD_p64, kDev);

// What the planner chose (the plans the GPU runs; also asserted by the host tests).
static_assert(kP_k_sw128.ok && kP_k_sw128.op.kind == tmakit::StoreOpKind::stmatrix && kP_k_sw128.op.matrices == 4 &&
              !kP_k_sw128.op.trans && kP_k_sw128.conflict_free());
static_assert(kP_mn_sw128.ok && kP_mn_sw128.op.kind == tmakit::StoreOpKind::stmatrix && kP_mn_sw128.op.trans);
static_assert(kP_t_x4.ok && kP_t_x4.op.bytes == 8 && kP_t_x4.total_wavefronts == 2 * kP_t_x4.total_ideal);
// ... and the fixes it computed at compile time (the worked example: .x8; f32: a narrower swizzle)
static_assert(kP_t_x4.better_rep == 8 && kP_t_x4.better_rep_bytes == 16);
static_assert(kP_f32_k_sw128.has_better_swizzle && kP_f32_k_sw128.better_swizzle.bits == 1);
static_assert(kP_t_x8.ok && kP_t_x8.op.bytes == 16 && kP_t_x8.conflict_free());

TMAKIT_STORE_CASE(CaseKSw128, kP_k_sw128, kW128, kD_k_sw128)
TMAKIT_STORE_CASE(CaseKSw64, kP_k_sw64, kW128, kD_k_sw64)
TMAKIT_STORE_CASE(CaseKSw32, kP_k_sw32, kW128, kD_k_sw32)
TMAKIT_STORE_CASE(CaseKNone, kP_k_none, kW128, kD_k_none)
TMAKIT_STORE_CASE(CaseMnSw128, kP_mn_sw128, kW128, kD_mn_sw128)
TMAKIT_STORE_CASE(CaseMnSw64, kP_mn_sw64, kW128, kD_mn_sw64)
TMAKIT_STORE_CASE(CaseMnSw32, kP_mn_sw32, kW128, kD_mn_sw32)
TMAKIT_STORE_CASE(CaseMnNone, kP_mn_none, kW128, kD_mn_none)
TMAKIT_STORE_CASE(CaseF32KSw128, kP_f32_k_sw128, kW128, kD_f32_k_sw128)
TMAKIT_STORE_CASE(CaseF32MnSw128, kP_f32_mn_sw128, kW128, kD_f32_mn_sw128)
TMAKIT_STORE_CASE(CaseRmBf16, kP_rm_bf16, kW128, kD_rm_bf16)
TMAKIT_STORE_CASE(CaseRmF32, kP_rm_f32, kW128, kD_rm_f32)
TMAKIT_STORE_CASE(CaseTx4, kP_t_x4, kT_x4, kD_p128)
TMAKIT_STORE_CASE(CaseTx8, kP_t_x8, kT_x8, kD_p128)
TMAKIT_STORE_CASE(CaseP64, kP_p64, kW64, kD_p64)

}  // namespace smem_store_gpu

using namespace smem_store_gpu;

TEST(SmemStoreGpu, WgmmaAccumulatorToBf16KMajor) {
  TMAKIT_REQUIRE_GPU();
  run_wgmma_case<CaseKSw128, 128, false>("wgmma_m64n128_bf16_kmajor_sw128");
  run_wgmma_case<CaseKSw64, 128, false>("wgmma_m64n128_bf16_kmajor_sw64");
  run_wgmma_case<CaseKSw32, 128, false>("wgmma_m64n128_bf16_kmajor_sw32");
  run_wgmma_case<CaseKNone, 128, false>("wgmma_m64n128_bf16_kmajor_none");
}

TEST(SmemStoreGpu, WgmmaAccumulatorToBf16MnMajor) {
  TMAKIT_REQUIRE_GPU();
  run_wgmma_case<CaseMnSw128, 128, false>("wgmma_m64n128_bf16_mnmajor_sw128");
  run_wgmma_case<CaseMnSw64, 128, false>("wgmma_m64n128_bf16_mnmajor_sw64");
  run_wgmma_case<CaseMnSw32, 128, false>("wgmma_m64n128_bf16_mnmajor_sw32");
  run_wgmma_case<CaseMnNone, 128, false>("wgmma_m64n128_bf16_mnmajor_none");
}

TEST(SmemStoreGpu, WgmmaAccumulatorToF32AndRowMajor) {
  TMAKIT_REQUIRE_GPU();
  run_wgmma_case<CaseF32KSw128, 128, true>("wgmma_m64n128_f32_kmajor_sw128");
  run_wgmma_case<CaseF32MnSw128, 128, true>("wgmma_m64n128_f32_mnmajor_sw128");
  run_wgmma_case<CaseRmBf16, 128, false>("wgmma_m64n128_bf16_rowmajor_st_only");
  run_wgmma_case<CaseRmF32, 128, true>("wgmma_m64n128_f32_rowmajor");
}

template <class C>
void run_model_case(const char* name) {
  constexpr const SmemStorePlan& P = C::plan;
  constexpr const StoreSource& S = C::src;
  constexpr const StoreDestination& D = C::dst;
  report(name, P);
  const std::uint32_t out_bytes = static_cast<std::uint32_t>(D.tile.layout.cosize() * D.elem_bytes);
  DevBuf out(out_bytes);
  const int smem = 1024 + static_cast<int>(out_bytes);
  auto k = model_store_kernel<C>;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  k<<<1, S.threads(), smem>>>(out.as<unsigned char>(), out_bytes);
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> host(out_bytes);
  TMAKIT_CUDA_OK(cudaMemcpy(host.data(), out.p, out_bytes, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < D.rows; ++r)
    for (int c = 0; c < D.cols; ++c) {
      std::uint16_t got;
      std::memcpy(&got, host.data() + D.byte_address(r, c), 2);
      if (got != static_cast<std::uint16_t>(r * 128 + c) && ++bad < 5) ADD_FAILURE() << name << " (" << r << "," << c << ")";
    }
  EXPECT_EQ(bad, 0) << name;
}

TEST(SmemStoreGpu, Tcgen05FragmentModelToSw128) {
  TMAKIT_REQUIRE_GPU();
  run_model_case<CaseTx4>("tcgen05_32x32b_x4_bf16_kmajor_sw128_128x128");
  run_model_case<CaseTx8>("tcgen05_32x32b_x8_bf16_kmajor_sw128_128x128");
}

TEST(SmemStoreGpu, SmemPSecondWgmmaReadsThePlannedBuffer) {
  TMAKIT_REQUIRE_GPU();
  report("smem_p_wgmma_m64n64_to_A_operand", kP_p64);
  const auto ia = image(kA1, a1_elem);
  const auto ib = image(kB1_64, b1_elem);
  const auto ii = image(kD_p64, identity_elem);
  DevBuf ga(ia.size()), gb(ib.size()), gi(ii.size()), out(64 * 64 * 4), ok(4);
  TMAKIT_CUDA_OK(cudaMemcpy(ga.p, ia.data(), ia.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemcpy(gb.p, ib.data(), ib.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemcpy(gi.p, ii.data(), ii.size(), cudaMemcpyHostToDevice));
  const int smem = 1024 + 20480;
  auto k = smem_p_kernel<CaseP64>;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  k<<<1, 128, smem>>>(ga.as<unsigned char>(), gb.as<unsigned char>(), gi.as<unsigned char>(), out.as<float>(),
                      ok.as<std::uint32_t>());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::uint32_t okv = 0;
  TMAKIT_CUDA_OK(cudaMemcpy(&okv, ok.p, 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(okv, 1u);
  std::vector<float> host(64 * 64);
  TMAKIT_CUDA_OK(cudaMemcpy(host.data(), out.p, host.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c)
      if (host[r * 64 + c] != a_val(r) * b_val(c) && ++bad < 5)
        ADD_FAILURE() << "D2(" << r << "," << c << ") = " << host[r * 64 + c] << ", want " << a_val(r) * b_val(c);
  EXPECT_EQ(bad, 0);
}

TEST(SmemStoreGpu, EpilogueTmaStore) {
  TMAKIT_REQUIRE_GPU();
  report("epilogue_wgmma_m64n64_tma_store_sw128", kP_p64);
  const auto ia = image(kA1, a1_elem);
  const auto ib = image(kB1_64, b1_elem);
  DevBuf ga(ia.size()), gb(ib.size()), gout(64 * 64 * 2), ok(4);
  TMAKIT_CUDA_OK(cudaMemcpy(ga.p, ia.data(), ia.size(), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMemcpy(gb.p, ib.data(), ib.size(), cudaMemcpyHostToDevice));
  tmakit::TensorMapParams p;
  p.dtype = tmakit::DataType::bfloat16;
  p.rank = 2;
  p.address = reinterpret_cast<std::uint64_t>(gout.p);
  p.dims[0] = 64;
  p.dims[1] = 64;
  p.strides[0] = 128;
  p.box[0] = 64;
  p.box[1] = 64;
  p.swizzle = Swizzle::b128;
  tmakit::TensorMapBytes b{};
  ASSERT_TRUE(tmakit::encode_into(p, b));
  CUtensorMap m;
  std::memcpy(&m, &b, sizeof(m));
  const int smem = 1024 + 8192 + 8192;
  auto k = epilogue_kernel<CaseP64>;
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  k<<<1, 128, smem>>>(m, ga.as<unsigned char>(), gb.as<unsigned char>(), ok.as<std::uint32_t>());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  std::uint32_t okv = 0;
  TMAKIT_CUDA_OK(cudaMemcpy(&okv, ok.p, 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(okv, 1u);
  std::vector<std::uint16_t> host(64 * 64);
  TMAKIT_CUDA_OK(cudaMemcpy(host.data(), gout.p, host.size() * 2, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c)
      if (host[r * 64 + c] != bf16_bits(a_val(r) * b_val(c)) && ++bad < 5)
        ADD_FAILURE() << "global (" << r << "," << c << ")";
  EXPECT_EQ(bad, 0);
}

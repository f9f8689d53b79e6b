// im2col TMA loads (device::load_im2col) on sm_90 against the host model
// (tensor_map/smem_model_im2col.hpp): every dtype x rank 3-5 x swizzle x zero/NaN fill x bounding
// box corners x channels x pixels x traversal strides x start positions (corners of the bounding
// box and inside it, batch 0 / 1) x im2col offsets. Each load's shared-memory bytes must equal the
// model's, and the barrier armed with box_bytes() (channels x pixels x element bytes) must complete.
// Start positions stay inside the bounding box: outside it the load is an illegal instruction on
// the H100 (tests/test_im2col_model.cpp replays that recording).
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gpu_test_util.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/smem_model_im2col.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace td = tmakit::device;
using tmakit_test::align1024;
using tmakit_test::put_pattern;
using tmakit::DataType;
using tmakit::OobFill;
using tmakit::Swizzle;
using tmakit::TensorMapParams;

namespace {

constexpr std::uint32_t kCap = 32 * 1024;
constexpr unsigned char kSentinel = 0xA5;

struct Job {
  std::uint32_t desc, rank, tx, cap;
  std::int32_t c[5];
  std::uint16_t off[3];
  std::uint64_t out_off;
};

__global__ void im2col_kernel(const CUtensorMap* descs, const Job* jobs, unsigned char* out, std::uint32_t* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ td::Barrier bar;
  const Job j = jobs[blockIdx.x];
  unsigned char* s = align1024(dyn);
  const uint4 sent = make_uint4(0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u);
  for (std::uint32_t i = threadIdx.x * 16; i < j.cap; i += blockDim.x * 16) *reinterpret_cast<uint4*>(s + i) = sent;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    const CUtensorMap* m = descs + j.desc;
    td::arrive_expect_tx(bar, j.tx);
    if (j.rank == 3) {
      const std::int32_t c[3] = {j.c[0], j.c[1], j.c[2]};
      td::load_im2col(m, s, bar, c, j.off[0]);
    } else if (j.rank == 4) {
      const std::int32_t c[4] = {j.c[0], j.c[1], j.c[2], j.c[3]};
      td::load_im2col(m, s, bar, c, j.off[0], j.off[1]);
    } else {
      const std::int32_t c[5] = {j.c[0], j.c[1], j.c[2], j.c[3], j.c[4]};
      td::load_im2col(m, s, bar, c, j.off[0], j.off[1], j.off[2]);
    }
  }
  td::Phase ph;
  const bool ok = tmakit_test::bounded_wait(bar, ph);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x * 16; i < j.cap; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(out + j.out_off + i) = *reinterpret_cast<const uint4*>(s + i);
  if (threadIdx.x == 0) status[blockIdx.x] = ok ? 1u : 2u;
}

struct Config {
  TensorMapParams p;
  std::uint64_t goff = 0, gbytes = 0;
  std::vector<std::array<std::int32_t, 5>> starts;
  std::vector<std::array<std::uint16_t, 3>> offsets;
};

const DataType kTypes[] = {DataType::uint8,   DataType::uint16,      DataType::uint32,   DataType::int32,
                           DataType::uint64,  DataType::int64,       DataType::float16,  DataType::float32,
                           DataType::float64, DataType::bfloat16,    DataType::float32_ftz, DataType::tfloat32,
                           DataType::tfloat32_ftz};

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

// corners: 0 = none (0, 0), 1 = padding (-1, -1), 2 = (-1, 0), 3 = (1, -2)
bool make_config(DataType t, std::uint32_t rank, Swizzle sw, OobFill oob, int corners, std::uint32_t row_bytes,
                 std::uint32_t pixels, std::uint32_t es_sp, Config& c) {
  TensorMapParams& p = c.p;
  p = TensorMapParams{};
  p.kind = tmakit::MapKind::im2col;
  p.dtype = t;
  p.rank = rank;
  p.swizzle = sw;
  p.oob = oob;
  const std::uint32_t eb = tmakit::element_bits(t) / 8;
  if (row_bytes < eb) return false;
  p.channels = row_bytes / eb;
  p.pixels = pixels;
  p.dims[0] = p.channels + 16 / eb;  // one 16-byte step of channels more than a pixel loads
  static const std::uint64_t kSpatial[3][3] = {{7, 0, 0}, {5, 4, 0}, {4, 3, 2}};
  for (std::uint32_t i = 1; i + 1 < rank; ++i) p.dims[i] = kSpatial[rank - 3][i - 1];
  p.dims[rank - 1] = 2;
  for (std::uint32_t i = 0; i < rank; ++i) p.elem_strides[i] = i == 0 ? 1 : es_sp;
  p.elem_strides[rank - 1] = 1;
  std::uint64_t pitch = round_up(p.dims[0] * eb, 16) + 16;
  for (std::uint32_t i = 1; i < rank; ++i) {
    p.strides[i - 1] = pitch;
    pitch *= p.dims[i];
  }
  c.gbytes = round_up(pitch, 256);
  static const std::int32_t kLo[4] = {0, -1, -1, 1}, kHi[4] = {0, -1, 0, -2};
  for (std::uint32_t i = 0; i + 2 < rank; ++i) {
    p.lower[i] = kLo[corners];
    p.upper[i] = kHi[corners];
  }
  if (!tmakit::is_valid(p)) return false;
  std::vector<unsigned char> probe;
  std::vector<unsigned char> g(c.gbytes, 0);
  std::int32_t s0[5] = {};
  for (std::uint32_t i = 1; i + 1 < rank; ++i) s0[i] = p.lower[i - 1];
  const std::uint16_t o0[3] = {};
  if (!tmakit::smem_model_im2col_load(p, g, s0, o0, probe) || probe.size() + 1024 > kCap) return false;
  // Start positions: the box's low corner, its high corner, one inside; batch 0 and 1; channel
  // start 0 and one 16-byte step (its last channels read past globalDim[0]: fill).
  c.starts.clear();
  for (int where = 0; where < 3; ++where)
    for (std::int32_t n = 0; n < 2; ++n) {
      std::array<std::int32_t, 5> s{};
      s[0] = where == 2 ? static_cast<std::int32_t>(16 / eb) : 0;
      for (std::uint32_t i = 1; i + 1 < rank; ++i) {
        std::int64_t lo, hi;
        tmakit::im2col_box_range(p, i, lo, hi);
        if (lo > hi) return false;
        s[i] = static_cast<std::int32_t>(where == 0 ? lo : where == 1 ? hi : (lo + hi + 1) / 2);
      }
      s[rank - 1] = n;
      c.starts.push_back(s);
    }
  c.offsets = {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}};
  return true;
}

}  // namespace

TEST(TmaIm2col, LoadsMatchModel) {
  TMAKIT_REQUIRE_GPU();
  std::vector<Config> cfgs;
  long considered = 0;
  for (DataType t : kTypes)
    for (std::uint32_t rank = 3; rank <= 5; ++rank)
      for (Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128})
        for (OobFill oob : {OobFill::none, OobFill::nan_request_zero_fma})
          for (int corners = 0; corners < 4; ++corners)
            for (std::uint32_t row : {16u, 32u, 64u})
              for (std::uint32_t px : {5u, 24u})
                for (std::uint32_t es : {1u, 2u}) {
                  if (oob != OobFill::none && !tmakit::is_floating_point(t)) continue;  // same as zero fill
                  ++considered;
                  Config c;
                  if (make_config(t, rank, sw, oob, corners, row, px, es, c)) cfgs.push_back(std::move(c));
                }
  ASSERT_GT(cfgs.size(), 500u);
  // TMAKIT_SWEEP_STRIDE=k keeps every k-th configuration (scripts/gpu_suite.sh sets it under
  // compute-sanitizer, where 174k loads would take minutes per tool).
  if (const int k = tmakit_test::sweep_stride(); k > 1) {
    std::vector<Config> kept;
    for (std::size_t i = 0; i < cfgs.size(); i += static_cast<std::size_t>(k)) kept.push_back(cfgs[i]);
    cfgs.swap(kept);
  }
  // Global tensors, one per configuration.
  std::uint64_t gtotal = 0;
  for (auto& c : cfgs) {
    c.goff = gtotal;
    gtotal += c.gbytes;
  }
  std::vector<unsigned char> hg(gtotal, 0xEE);
  std::uint64_t n = 0;
  for (auto& c : cfgs) {
    const std::uint32_t eb = tmakit::element_bits(c.p.dtype) / 8;
    for (std::uint64_t o = 0; o + eb <= c.gbytes; o += eb) put_pattern(c.p.dtype, n++, &hg[c.goff + o]);
  }
  unsigned char *d_g = nullptr, *d_out = nullptr;
  CUtensorMap* d_desc = nullptr;
  Job* d_jobs = nullptr;
  std::uint32_t* d_status = nullptr;
  TMAKIT_CUDA_OK(cudaMalloc(&d_g, gtotal));
  TMAKIT_CUDA_OK(cudaMemcpy(d_g, hg.data(), gtotal, cudaMemcpyHostToDevice));
  std::vector<CUtensorMap> descs(cfgs.size());
  std::vector<Job> jobs;
  std::uint64_t out_total = 0;
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    TensorMapParams p = cfgs[k].p;
    p.address = reinterpret_cast<std::uint64_t>(d_g) + cfgs[k].goff;
    tmakit::TensorMapBytes b{};
    ASSERT_TRUE(tmakit::encode_into(p, b));
    std::memcpy(&descs[k], &b, sizeof(b));
    for (const auto& s : cfgs[k].starts)
      for (const auto& o : cfgs[k].offsets) {
        Job j{};
        j.desc = static_cast<std::uint32_t>(k);
        j.rank = p.rank;
        j.tx = static_cast<std::uint32_t>(tmakit::box_bytes(p));
        std::vector<unsigned char> img;
        std::vector<unsigned char> zeros(cfgs[k].gbytes, 0);
        ASSERT_TRUE(tmakit::smem_model_im2col_load(cfgs[k].p, zeros, s.data(), o.data(), img));
        j.cap = static_cast<std::uint32_t>(round_up(img.size() + 128, 16));  // + 128 sentinel bytes
        for (int i = 0; i < 5; ++i) j.c[i] = s[i];
        for (int i = 0; i < 3; ++i) j.off[i] = o[i];
        j.out_off = out_total;
        out_total += j.cap;
        jobs.push_back(j);
      }
  }
  std::vector<unsigned char> out(out_total);
  std::vector<std::uint32_t> status(jobs.size());
  TMAKIT_CUDA_OK(cudaMalloc(&d_desc, descs.size() * sizeof(CUtensorMap)));
  TMAKIT_CUDA_OK(cudaMemcpy(d_desc, descs.data(), descs.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMalloc(&d_jobs, jobs.size() * sizeof(Job)));
  TMAKIT_CUDA_OK(cudaMemcpy(d_jobs, jobs.data(), jobs.size() * sizeof(Job), cudaMemcpyHostToDevice));
  TMAKIT_CUDA_OK(cudaMalloc(&d_out, out_total));
  TMAKIT_CUDA_OK(cudaMalloc(&d_status, jobs.size() * sizeof(std::uint32_t)));
  TMAKIT_CUDA_OK(cudaFuncSetAttribute(im2col_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kCap));
  im2col_kernel<<<static_cast<unsigned>(jobs.size()), 128, kCap>>>(d_desc, d_jobs, d_out, d_status);
  TMAKIT_CUDA_OK(cudaGetLastError());
  TMAKIT_CUDA_OK(cudaDeviceSynchronize());
  TMAKIT_CUDA_OK(cudaMemcpy(out.data(), d_out, out_total, cudaMemcpyDeviceToHost));
  TMAKIT_CUDA_OK(cudaMemcpy(status.data(), d_status, jobs.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(d_g);
  cudaFree(d_out);
  cudaFree(d_desc);
  cudaFree(d_jobs);
  cudaFree(d_status);
  std::map<std::string, std::array<long, 2>> per;
  long bad = 0, timeouts = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Job& j = jobs[k];
    const Config& c = cfgs[j.desc];
    std::vector<unsigned char> want;
    ASSERT_TRUE(tmakit::smem_model_im2col_load(c.p, std::span<const unsigned char>(hg.data() + c.goff, c.gbytes), j.c,
                                               j.off, want, kSentinel));
    bool pass = status[k] == 1;
    timeouts += status[k] != 1;
    long first = -1;
    for (std::size_t i = 0; i < j.cap && pass; ++i) {
      const unsigned char w = i < want.size() ? want[i] : kSentinel;
      if (out[j.out_off + i] != w) {
        pass = false;
        first = static_cast<long>(i);
      }
    }
    if (!pass && bad++ < 20)
      std::printf("MISMATCH %s rank %u swizzle %s ch %u px %u corners %d/%d es %u start {%d,%d,%d,%d,%d} off {%u,%u,%u}: %s %ld\n",
                  tmakit::to_name(c.p.dtype).c_str(), c.p.rank, tmakit::to_name(c.p.swizzle).c_str(), c.p.channels,
                  c.p.pixels, c.p.lower[0], c.p.upper[0], c.p.elem_strides[1], j.c[0], j.c[1], j.c[2], j.c[3], j.c[4],
                  j.off[0], j.off[1], j.off[2], status[k] != 1 ? "barrier timeout" : "first differing byte", first);
    for (const std::string& key : {"dtype " + tmakit::to_name(c.p.dtype), "rank " + std::to_string(c.p.rank),
                                   "swizzle " + tmakit::to_name(c.p.swizzle), "oob " + tmakit::to_name(c.p.oob),
                                   std::string("all")}) {
      ++per[key][0];
      per[key][1] += pass;
    }
  }
  std::printf("im2col loads: %zu configurations of %ld considered, %zu jobs\n", cfgs.size(), considered, jobs.size());
  for (const auto& [k, a] : per) std::printf("  %-24s %6ld tested %6ld passed\n", k.c_str(), a[0], a[1]);
  EXPECT_EQ(timeouts, 0);
  EXPECT_EQ(bad, 0);
}

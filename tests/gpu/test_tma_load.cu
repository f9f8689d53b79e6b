// Silicon check of the shared-memory model (tensor_map/smem_model.hpp) and of the TMA wrappers
// (device/tma.cuh) on sm_90: tiled loads for every dtype x rank x swizzle x interleave x oob the
// encoder accepts, boxes hanging off every edge; stores and reduce-add against global memory.
// Needs a GPU of compute capability >= 9.0; skips otherwise.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "gpu_test_util.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "tmakit/device/tma.cuh"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/smem_model.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace td = tmakit::device;
using tmakit_test::align1024;
using tmakit_test::put_pattern;
using tmakit::DataType;
using tmakit::Interleave;
using tmakit::OobFill;
using tmakit::Swizzle;
using tmakit::TensorMapParams;

#define CUDA_OK(x)                                                                               \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    ASSERT_EQ(e_, cudaSuccess) << #x << ": " << cudaGetErrorString(e_);                          \
  } while (0)

namespace {

constexpr std::uint32_t kSmemCap = 16 * 1024;  // capture bytes per CTA (max over configs)
constexpr unsigned char kSentinel = 0xA5;

struct LoadJob {
  std::uint32_t desc;
  std::uint32_t rank;
  std::int32_t c[5];
  std::uint32_t tx;   // expect_tx bytes (tmakit::transaction_bytes, via td::tx_bytes)
  std::uint32_t cap;  // bytes captured (multiple of 16)
  std::uint32_t settle;  // element strides != 1: wait a little longer after completion (the
                         // hardware may write more bytes than the driver's count)
  std::uint64_t out_off;
};

__global__ void load_kernel(const CUtensorMap* descs, const LoadJob* jobs, unsigned char* out, std::uint32_t* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ td::Barrier bar;
  const LoadJob j = jobs[blockIdx.x];
  unsigned char* s = align1024(dyn);
  const uint4 sent = make_uint4(0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u);
  for (std::uint32_t i = threadIdx.x * 16; i < j.cap; i += blockDim.x * 16) *reinterpret_cast<uint4*>(s + i) = sent;
  if (threadIdx.x == 0) td::init(bar, 1);
  td::fence_smem_writes_for_async();  // sentinel writes (generic) before the TMA writes (async)
  __syncthreads();
  if (threadIdx.x == 0) {
    const CUtensorMap* m = descs + j.desc;
    td::acquire_tensor_map(m);
    td::arrive_expect_tx(bar, j.tx);
    switch (j.rank) {
      case 1: td::load(m, s, bar, j.c[0]); break;
      case 2: td::load(m, s, bar, j.c[0], j.c[1]); break;
      case 3: td::load(m, s, bar, j.c[0], j.c[1], j.c[2]); break;
      case 4: td::load(m, s, bar, j.c[0], j.c[1], j.c[2], j.c[3]); break;
      default: td::load(m, s, bar, j.c[0], j.c[1], j.c[2], j.c[3], j.c[4]); break;
    }
  }
  td::Phase ph;
  const bool ok = tmakit_test::bounded_wait(bar, ph);
  if (j.settle) __nanosleep(20000);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x * 16; i < j.cap; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(out + j.out_off + i) = *reinterpret_cast<const uint4*>(s + i);
  if (threadIdx.x == 0) status[blockIdx.x] = ok ? 1u : 2u;
}

std::string describe(const TensorMapParams& p, const std::int32_t* c) {
  std::string s = tmakit::to_name(p.dtype) + " rank " + std::to_string(p.rank) + " dims {";
  for (std::uint32_t i = 0; i < p.rank; ++i) s += (i ? "," : "") + std::to_string(p.dims[i]);
  s += "} strides {";
  for (std::uint32_t i = 0; i + 1 < p.rank; ++i) s += (i ? "," : "") + std::to_string(p.strides[i]);
  s += "} box {";
  for (std::uint32_t i = 0; i < p.rank; ++i) s += (i ? "," : "") + std::to_string(p.box[i]);
  s += "} es {";
  for (std::uint32_t i = 0; i < p.rank; ++i) s += (i ? "," : "") + std::to_string(p.elem_strides[i]);
  s += "} swizzle " + tmakit::to_name(p.swizzle) + " interleave " + tmakit::to_name(p.interleave) + " oob " +
       tmakit::to_name(p.oob) + " coords {";
  for (std::uint32_t i = 0; i < p.rank; ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + "}";
}

struct Config {
  TensorMapParams p;
  std::uint64_t goff = 0, gbytes = 0;
  std::vector<std::array<std::int32_t, 5>> starts;
};

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

tmakit::SmemModelOptions pad_rows() {
  tmakit::SmemModelOptions o;
  o.pad_rows_to_span = true;
  return o;
}

// Fills in dims/strides/box for one sweep point; returns false when it does not make sense.
bool make_config(DataType t, std::uint32_t rank, Swizzle sw, Interleave il, OobFill oob, int variant,
                 const std::uint32_t es[5], Config& cfg) {
  // Bisection aid: TMAKIT_TMA_ONLY="il=<0..2>,sw=<0..3>,rank=<1..5>,dtype=<0..12>" (any subset)
  // restricts the sweep.
  if (const char* only = std::getenv("TMAKIT_TMA_ONLY")) {
    auto pick = [&](const char* key) -> long {
      const char* k = std::strstr(only, key);
      return k ? std::strtol(k + std::strlen(key), nullptr, 10) : -1;
    };
    if (long v = pick("il="); v >= 0 && v != static_cast<long>(il)) return false;
    if (long v = pick("sw="); v >= 0 && v != static_cast<long>(sw)) return false;
    if (long v = pick("rank="); v >= 0 && v != static_cast<long>(rank)) return false;
    if (long v = pick("dtype="); v >= 0 && v != static_cast<long>(t)) return false;
  }
  TensorMapParams& p = cfg.p;
  p = TensorMapParams{};
  p.dtype = t;
  p.rank = rank;
  p.swizzle = sw;
  p.interleave = il;
  p.oob = oob;
  const std::uint32_t eb = tmakit::element_bits(t) / 8;
  const std::uint32_t span = tmakit::swizzle_span_bytes(sw);
  const std::uint32_t max_inner = (il == Interleave::none && span) ? span : 64;
  std::uint32_t inner = variant == 0 ? max_inner : variant == 1 ? 16 : 32;
  if (inner > max_inner || inner < eb) return false;
  if (variant == 2 && inner == max_inner) return false;  // same as variant 0
  p.box[0] = inner / eb;
  p.dims[0] = p.box[0] + 1 + static_cast<std::uint32_t>(variant);
  // Interleaved maps count dim 0 in 16 / 32-byte chunks (measured: derived.hpp dim0_unit_bytes).
  const std::uint32_t ub = tmakit::dim0_unit_bytes(p);
  static const std::uint32_t kDim[4] = {5, 4, 3, 3};
  static const std::uint32_t kBox[4] = {2, 3, 2, 2};
  for (std::uint32_t i = 1; i < rank; ++i) {
    p.dims[i] = kDim[i - 1] - (rank >= 4 ? 1 : 0);
    p.box[i] = kBox[i - 1];
    if (variant == 2 && i == 1) p.box[i] = static_cast<std::uint32_t>(p.dims[i]) + 2;  // box larger than tensor
  }
  for (std::uint32_t i = 0; i < rank; ++i) p.elem_strides[i] = es[i];
  const std::uint64_t align = il == Interleave::b32 ? 32 : 16;
  std::uint64_t pitch = round_up(p.dims[0] * ub, align) + align * static_cast<std::uint64_t>(variant);
  for (std::uint32_t i = 1; i < rank; ++i) {
    p.strides[i - 1] = pitch;
    pitch *= p.dims[i];
  }
  cfg.gbytes = round_up(rank == 1 ? p.dims[0] * ub : pitch, 256);
  if (!tmakit::is_valid(p)) return false;
  if (tmakit::smem_model_footprint(p, pad_rows()) + 256 > kSmemCap || tmakit::box_bytes(p) + 256 > kSmemCap) return false;
  // Box positions: inside, hanging off the low and the high edge of each dim, wholly outside one
  // dim, and off the low corner in every dim at once.
  std::array<std::int32_t, 5> z{};
  cfg.starts.clear();
  cfg.starts.push_back(z);
  // The innermost start coordinate must be a multiple of 16 bytes: any other value makes the load
  // an illegal instruction on the H200 (measured 2026-11-22, docs/lab/device.md). So positions along
  // dim 0 move in steps of q = 16 bytes of elements (of units: one chunk, for interleaved maps).
  const auto q = static_cast<std::int32_t>(ub >= 16 && p.interleave != Interleave::none ? 1 : 16 / eb);
  auto up = [](std::int32_t v, std::int32_t m) { return (v + m - 1) / m * m; };
  for (std::uint32_t i = 0; i < rank; ++i) {
    const auto b = static_cast<std::int32_t>(p.box[i]), d = static_cast<std::int32_t>(p.dims[i]);
    auto lo = z, hi = z, out = z;
    lo[i] = i == 0 ? -up((b + 1) / 2, q) : -((b + 1) / 2);
    hi[i] = i == 0 ? up(d - b + 1, q) : d - b / 2;
    out[i] = i % 2 ? d : -b;
    cfg.starts.push_back(lo);
    cfg.starts.push_back(hi);
    if (variant == 0) cfg.starts.push_back(out);
  }
  std::array<std::int32_t, 5> corner{};
  for (std::uint32_t i = 0; i < rank; ++i) corner[i] = i == 0 ? -q : -1;
  cfg.starts.push_back(corner);
  // Experiment aid: TMAKIT_TMA_X0=n sets the innermost start coordinate of every position to n.
  if (const char* x0 = std::getenv("TMAKIT_TMA_X0"))
    for (auto& st : cfg.starts) st[0] = static_cast<std::int32_t>(std::strtol(x0, nullptr, 10));
  // Bisection aid: TMAKIT_TMA_START=k keeps only the k-th box position of each configuration.
  if (const char* k = std::getenv("TMAKIT_TMA_START")) {
    const auto idx = static_cast<std::size_t>(std::strtol(k, nullptr, 10));
    if (idx >= cfg.starts.size()) return false;
    const auto keep = cfg.starts[idx];
    cfg.starts.assign(1, keep);
  }
  return true;
}

struct Stats {
  std::map<std::string, std::array<long, 2>> cat;  // tested, passed
  void add(const std::string& k, bool pass) {
    auto& a = cat[k];
    ++a[0];
    a[1] += pass;
  }
  void print(const char* title) const {
    std::printf("%s\n", title);
    for (const auto& [k, a] : cat) std::printf("  %-28s %7ld tested %7ld passed%s\n", k.c_str(), a[0], a[1], a[0] == a[1] ? "" : "  <-- MISMATCH");
  }
};

// Runs every load job of `cfgs`; returns per-job captured bytes (cap each) and statuses.
void run_loads(std::vector<Config>& cfgs, std::vector<LoadJob>& jobs, std::vector<unsigned char>& out,
               std::vector<std::uint32_t>& status, std::vector<unsigned char>& host_global) {
  std::uint64_t gtotal = 0;
  for (auto& c : cfgs) {
    c.goff = gtotal;
    gtotal += c.gbytes;
  }
  host_global.assign(gtotal, 0xEE);
  for (auto& c : cfgs) {
    const std::uint32_t eb = tmakit::element_bits(c.p.dtype) / 8;
    const std::uint64_t row_elems = c.p.dims[0] * (tmakit::dim0_unit_bytes(c.p) / eb);  // chunks when interleaved
    std::uint64_t n = 0;
    std::uint64_t idx[5] = {};
    for (idx[4] = 0; idx[4] < (c.p.rank > 4 ? c.p.dims[4] : 1); ++idx[4])
      for (idx[3] = 0; idx[3] < (c.p.rank > 3 ? c.p.dims[3] : 1); ++idx[3])
        for (idx[2] = 0; idx[2] < (c.p.rank > 2 ? c.p.dims[2] : 1); ++idx[2])
          for (idx[1] = 0; idx[1] < (c.p.rank > 1 ? c.p.dims[1] : 1); ++idx[1])
            for (idx[0] = 0; idx[0] < row_elems; ++idx[0]) {
              std::uint64_t off = idx[0] * eb;
              for (std::uint32_t i = 1; i < c.p.rank; ++i) off += idx[i] * c.p.strides[i - 1];
              put_pattern(c.p.dtype, n++, &host_global[c.goff + off]);
            }
  }
  unsigned char* d_global = nullptr;
  CUtensorMap* d_desc = nullptr;
  LoadJob* d_jobs = nullptr;
  unsigned char* d_out = nullptr;
  std::uint32_t* d_status = nullptr;
  CUDA_OK(cudaMalloc(&d_global, gtotal));
  CUDA_OK(cudaMemcpy(d_global, host_global.data(), gtotal, cudaMemcpyHostToDevice));
  std::vector<CUtensorMap> descs(cfgs.size());
  jobs.clear();
  std::uint64_t out_total = 0;
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    auto& c = cfgs[k];
    c.p.address = reinterpret_cast<std::uint64_t>(d_global) + c.goff;
    tmakit::TensorMapBytes b{};
    ASSERT_TRUE(tmakit::encode_into(c.p, b)) << describe(c.p, cfgs[k].starts[0].data());
    static_assert(sizeof(CUtensorMap) == sizeof(b));
    std::memcpy(&descs[k], &b, sizeof(b));
    const std::uint32_t cap = static_cast<std::uint32_t>(
        round_up(std::max({tmakit::smem_model_footprint(c.p), tmakit::smem_model_footprint(c.p, pad_rows()), tmakit::box_bytes(c.p)}) + 128, 16));
    for (const auto& s : c.starts) {
      LoadJob j{};
      j.desc = static_cast<std::uint32_t>(k);
      j.rank = c.p.rank;
      for (int i = 0; i < 5; ++i) j.c[i] = s[i];
      j.tx = td::tx_bytes(c.p);
      j.cap = cap;
      for (std::uint32_t i = 0; i < c.p.rank; ++i) j.settle |= c.p.elem_strides[i] != 1 ? 1u : 0u;
      j.out_off = out_total;
      out_total += cap;
      jobs.push_back(j);
    }
  }
  CUDA_OK(cudaMalloc(&d_desc, descs.size() * sizeof(CUtensorMap)));
  CUDA_OK(cudaMemcpy(d_desc, descs.data(), descs.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMalloc(&d_jobs, jobs.size() * sizeof(LoadJob)));
  CUDA_OK(cudaMemcpy(d_jobs, jobs.data(), jobs.size() * sizeof(LoadJob), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMalloc(&d_out, out_total));
  CUDA_OK(cudaMalloc(&d_status, jobs.size() * sizeof(std::uint32_t)));
  CUDA_OK(cudaMemset(d_status, 0, jobs.size() * sizeof(std::uint32_t)));
  const int smem = kSmemCap + 1024;
  CUDA_OK(cudaFuncSetAttribute(load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const std::size_t kChunk = 60000;  // grid.x limit is far larger; keep launches moderate
  for (std::size_t first = 0; first < jobs.size(); first += kChunk) {
    const std::size_t n = std::min(kChunk, jobs.size() - first);
    load_kernel<<<static_cast<unsigned>(n), 128, smem>>>(d_desc, d_jobs + first, d_out, d_status + first);
    CUDA_OK(cudaGetLastError());
  }
  CUDA_OK(cudaDeviceSynchronize());
  out.resize(out_total);
  status.resize(jobs.size());
  CUDA_OK(cudaMemcpy(out.data(), d_out, out_total, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(status.data(), d_status, jobs.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(d_global);
  cudaFree(d_desc);
  cudaFree(d_jobs);
  cudaFree(d_out);
  cudaFree(d_status);
}

// Compares captured bytes with the model under `o`: returns the first differing byte or -1.
// Bytes after the model's image must still hold the sentinel.
long first_diff(const Config& c, const std::int32_t* start, const unsigned char* got, std::uint32_t cap,
                const std::vector<unsigned char>& host_global, const tmakit::SmemModelOptions& o) {
  std::vector<unsigned char> want;
  std::span<const unsigned char> g(host_global.data() + c.goff, c.gbytes);
  if (!tmakit::smem_model_tiled_load(c.p, g, start, want, o, kSentinel)) return -2;
  if (want.size() > cap) return -2;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return static_cast<long>(i);
  for (std::size_t i = want.size(); i < cap; ++i)
    if (got[i] != kSentinel) return static_cast<long>(i);
  return -1;
}

const char* edge_kind(const Config& c, const std::int32_t* s) {
  bool neg = false, past = false;
  for (std::uint32_t i = 0; i < c.p.rank; ++i) {
    neg |= s[i] < 0;
    past |= static_cast<std::int64_t>(s[i]) + c.p.box[i] > static_cast<std::int64_t>(c.p.dims[i]);
  }
  return neg && past ? "edge both" : neg ? "edge low" : past ? "edge high" : "edge inside";
}

void check_loads(std::vector<Config>& cfgs, Stats& st, long& mismatches, long& timeouts,
                 std::map<std::string, long>& alt_matches) {
  std::vector<LoadJob> jobs;
  std::vector<unsigned char> out, hg;
  std::vector<std::uint32_t> status;
  run_loads(cfgs, jobs, out, status, hg);
  if (::testing::Test::HasFatalFailure()) return;
  struct Alt {
    const char* name;
    tmakit::SmemModelOptions o;
  };
  std::vector<Alt> alts;
  {
    tmakit::SmemModelOptions o;
    o.ceil_counts = false;
    alts.push_back({"floor counts", o});
    o = {};
    o.es0_without_interleave = true;
    alts.push_back({"es0 honoured", o});
    o.ceil_counts = false;
    alts.push_back({"es0 honoured + floor", o});
    o = {};
    o.pad_rows_to_span = true;
    alts.push_back({"rows padded to span", o});
    o = {};
    o.tf32_round = true;
    alts.push_back({"tf32 rounding", o});
  }
  int printed = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const auto& j = jobs[k];
    const Config& c = cfgs[j.desc];
    const unsigned char* got = out.data() + j.out_off;
    bool pass = false;
    long d = -3;
    if (status[k] != 1) {
      ++timeouts;
    } else {
      d = first_diff(c, j.c, got, j.cap, hg, {});
      pass = d == -1;
    }
    if (!pass) {
      ++mismatches;
      std::string alt_hit = "none";
      if (status[k] == 1)
        for (const auto& a : alts)
          if (first_diff(c, j.c, got, j.cap, hg, a.o) == -1) {
            alt_hit = a.name;
            break;
          }
      ++alt_matches[alt_hit];
      if (printed++ < 25) {
        std::printf("MISMATCH %s: %s", describe(c.p, j.c).c_str(), status[k] != 1 ? "barrier timeout" : "");
        if (d >= 0) {
          std::vector<unsigned char> want;
          tmakit::smem_model_tiled_load(c.p, std::span<const unsigned char>(hg.data() + c.goff, c.gbytes), j.c, want,
                                        {}, kSentinel);
          std::printf("first differing byte %ld: got 0x%02x want 0x%02x (model %zu bytes, box_bytes %llu); got bytes",
                      d, got[d], d < static_cast<long>(want.size()) ? want[d] : kSentinel, want.size(),
                      static_cast<unsigned long long>(tmakit::box_bytes(c.p)));
          for (long b = d & ~7L; b < (d & ~7L) + 8; ++b) std::printf(" %02x", got[b]);
        } else if (d == -2) {
          std::printf("outside the model");
        }
        std::printf("; alternative model that matches: %s\n", alt_hit.c_str());
      }
    }
    st.add("dtype " + tmakit::to_name(c.p.dtype), pass);
    st.add("rank " + std::to_string(c.p.rank), pass);
    st.add("swizzle " + tmakit::to_name(c.p.swizzle), pass);
    st.add("interleave " + tmakit::to_name(c.p.interleave), pass);
    st.add("oob " + tmakit::to_name(c.p.oob), pass);
    st.add(edge_kind(c, j.c), pass);
    st.add("all", pass);
  }
}

const DataType kTypes[] = {DataType::uint8,   DataType::uint16,      DataType::uint32,   DataType::int32,
                           DataType::uint64,  DataType::int64,       DataType::float16,  DataType::float32,
                           DataType::float64, DataType::bfloat16,    DataType::float32_ftz, DataType::tfloat32,
                           DataType::tfloat32_ftz};

}  // namespace

std::vector<Config> element_stride_configs() {
  std::vector<Config> cfgs;
  const std::uint32_t choices[][5] = {{1, 2, 1, 1, 1}, {1, 3, 2, 1, 1}, {2, 2, 1, 1, 1}, {1, 1, 3, 1, 1}, {4, 1, 2, 1, 1}};
  for (DataType t : {DataType::uint8, DataType::uint16, DataType::float32, DataType::float64})
    for (std::uint32_t rank = 2; rank <= 4; ++rank)
      for (Interleave il : {Interleave::none, Interleave::b16, Interleave::b32})
        for (Swizzle sw : {Swizzle::none, Swizzle::b64})
          for (const auto& es : choices)
            for (int v = 0; v < 2; ++v) {
              Config c;
              if (make_config(t, rank, sw, il, OobFill::none, v, es, c)) cfgs.push_back(std::move(c));
            }
  return cfgs;
}

// Host-only (runs without a GPU): the sweep is large, and the model covers every job of it.
TEST(TmaLoad, SweepIsCoveredByModel) {
  long cfgs = 0, jobs = 0;
  std::map<std::string, long> per;
  const std::uint32_t es1[5] = {1, 1, 1, 1, 1};
  for (DataType t : kTypes)
    for (std::uint32_t rank = 1; rank <= 5; ++rank)
      for (Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128})
        for (Interleave il : {Interleave::none, Interleave::b16, Interleave::b32})
          for (OobFill oob : {OobFill::none, OobFill::nan_request_zero_fma})
            for (int v = 0; v < 3; ++v) {
              Config c;
              if (!make_config(t, rank, sw, il, oob, v, es1, c)) continue;
              ++cfgs;
              ++per["interleave " + tmakit::to_name(il)];
              ++per["swizzle " + tmakit::to_name(sw)];
              std::vector<unsigned char> g(c.gbytes, 1), out;
              for (const auto& s : c.starts) {
                ++jobs;
                ASSERT_TRUE(tmakit::smem_model_tiled_load(c.p, g, s.data(), out)) << describe(c.p, s.data());
                tmakit::SmemModelOptions dense;
                dense.pad_rows_to_span = false;  // data bytes, without the padding to the swizzle span
                // With unit element strides the bytes written are the barrier's transaction count.
                EXPECT_EQ(tmakit::smem_model_bytes(c.p, dense), tmakit::transaction_bytes(c.p)) << describe(c.p, s.data());
                EXPECT_EQ(out.size(), tmakit::smem_model_footprint(c.p));
              }
            }
  std::printf("sweep: %ld configurations, %ld jobs\n", cfgs, jobs);
  for (const auto& [k, n] : per) std::printf("  %-24s %ld\n", k.c_str(), n);
  EXPECT_GT(cfgs, 1000);
  EXPECT_GT(per["interleave 16B"], 0);
  EXPECT_GT(per["interleave 32B"], 0);
  const auto es = element_stride_configs();
  std::size_t es_jobs = 0;
  for (const auto& c : es) {
    std::vector<unsigned char> g(c.gbytes, 1), out;
    for (const auto& st : c.starts) {
      ++es_jobs;
      ASSERT_TRUE(tmakit::smem_model_tiled_load(c.p, g, st.data(), out)) << describe(c.p, st.data());
    }
  }
  std::printf("element-stride sweep: %zu configurations, %zu jobs\n", es.size(), es_jobs);
  EXPECT_GT(es.size(), 20u);
}

// Every dtype x rank x swizzle x OOB fill x box shape x box position, for the given interleaves;
// each load's shared-memory bytes must equal the model's.
void run_tiled_sweep(std::initializer_list<Interleave> interleaves) {
  std::vector<Config> cfgs;
  long considered = 0;
  const std::uint32_t es1[5] = {1, 1, 1, 1, 1};
  for (DataType t : kTypes)
    for (std::uint32_t rank = 1; rank <= 5; ++rank)
      for (Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128})
        for (Interleave il : interleaves)
          for (OobFill oob : {OobFill::none, OobFill::nan_request_zero_fma})
            for (int v = 0; v < 3; ++v) {
              ++considered;
              Config c;
              if (make_config(t, rank, sw, il, oob, v, es1, c)) cfgs.push_back(std::move(c));
            }
  Stats st;
  long mismatches = 0, timeouts = 0;
  std::map<std::string, long> alt;
  check_loads(cfgs, st, mismatches, timeouts, alt);
  if (::testing::Test::HasFatalFailure()) return;
  std::printf("tiled loads: %zu accepted configurations of %ld considered\n", cfgs.size(), considered);
  st.print("per category (jobs = configuration x box position):");
  for (const auto& [k, n] : alt) std::printf("  mismatches explained by alternative '%s': %ld\n", k.c_str(), n);
  EXPECT_EQ(timeouts, 0);
  EXPECT_EQ(mismatches, 0);
}

// Non-interleaved maps: every combination above.
TEST(TmaLoad, TiledMatchesModelEverywhere) {
  TMAKIT_REQUIRE_GPU();
  run_tiled_sweep({Interleave::none});
}

// Interleaved maps (16B / 32B): dim 0 counts whole chunks and dimension rank - 2 is not traversed
// (measured on the H100, 2026-11-22: tools/driver_sweep/interleave_probe.cu, docs/lab/device.md).
// The earlier "illegal memory access" in this sweep was the test's own shared buffer overflowing
// under the old element-sized model.
TEST(TmaLoad, InterleavedMatchesModel) {
  TMAKIT_REQUIRE_GPU();
  run_tiled_sweep({Interleave::b16, Interleave::b32});
}

// Element strides: the barrier is armed with transaction_bytes() (ceil per dim, elementStrides[0]
// ignored without interleave, as measured), not with the driver's stored box_bytes (floor).
TEST(TmaLoad, ElementStrides) {
  TMAKIT_REQUIRE_GPU();
  std::vector<Config> cfgs = element_stride_configs();
  Stats st;
  long mismatches = 0, timeouts = 0;
  std::map<std::string, long> alt;
  check_loads(cfgs, st, mismatches, timeouts, alt);
  if (HasFatalFailure()) return;
  std::printf("element-stride loads: %zu configurations\n", cfgs.size());
  st.print("per category:");
  for (const auto& [k, n] : alt) std::printf("  mismatches explained by alternative '%s': %ld\n", k.c_str(), n);
  EXPECT_EQ(timeouts, 0);
  EXPECT_EQ(mismatches, 0) << "the default model (ceil, elementStrides[0] ignored without interleave) is wrong; "
                              "see the alternatives above";
}

// ---------------------------------------------------------------------------------------------
// Stores and reduce-add: shared image (written by ordinary stores, then published with
// fence.proxy.async) -> global through TMA; compared with smem_model_tiled_store.

namespace {

struct StoreJob {
  std::uint32_t rank;
  std::int32_t c[5];
  std::uint32_t bytes;   // image bytes
  std::uint64_t src_off;  // in the image buffer
  std::uint32_t op;      // 0 store, else 1 + td::ReduceOp (1 add, 2 min, 3 max, 4 inc, 5 dec, 6 and, 7 or, 8 xor)
};

template <td::ReduceOp Op>
__device__ void reduce_rank(const CUtensorMap* m, const void* s, const std::int32_t* c, std::uint32_t rank) {
  switch (rank) {
    case 1: td::reduce<Op>(m, s, c[0]); break;
    case 2: td::reduce<Op>(m, s, c[0], c[1]); break;
    case 3: td::reduce<Op>(m, s, c[0], c[1], c[2]); break;
    case 4: td::reduce<Op>(m, s, c[0], c[1], c[2], c[3]); break;
    default: td::reduce<Op>(m, s, c[0], c[1], c[2], c[3], c[4]); break;
  }
}

__global__ void store_kernel(const CUtensorMap* descs, const StoreJob* jobs, const unsigned char* images) {
  extern __shared__ unsigned char dyn[];
  const StoreJob j = jobs[blockIdx.x];
  unsigned char* s = align1024(dyn);
  for (std::uint32_t i = threadIdx.x * 16; i < j.bytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(s + i) = *reinterpret_cast<const uint4*>(images + j.src_off + i);
  td::publish_smem_writes();
  if (threadIdx.x == 0) {
    const CUtensorMap* m = descs + blockIdx.x;
    td::acquire_tensor_map(m);
    if (j.op == 0) {
      switch (j.rank) {
        case 1: td::store_and_commit(m, s, j.c[0]); break;
        case 2: td::store_and_commit(m, s, j.c[0], j.c[1]); break;
        case 3: td::store_and_commit(m, s, j.c[0], j.c[1], j.c[2]); break;
        case 4: td::store_and_commit(m, s, j.c[0], j.c[1], j.c[2], j.c[3]); break;
        default: td::store_and_commit(m, s, j.c[0], j.c[1], j.c[2], j.c[3], j.c[4]); break;
      }
    } else {
      switch (static_cast<td::ReduceOp>(j.op - 1)) {
        case td::ReduceOp::add: reduce_rank<td::ReduceOp::add>(m, s, j.c, j.rank); break;
        case td::ReduceOp::min: reduce_rank<td::ReduceOp::min>(m, s, j.c, j.rank); break;
        case td::ReduceOp::max: reduce_rank<td::ReduceOp::max>(m, s, j.c, j.rank); break;
        case td::ReduceOp::inc: reduce_rank<td::ReduceOp::inc>(m, s, j.c, j.rank); break;
        case td::ReduceOp::dec: reduce_rank<td::ReduceOp::dec>(m, s, j.c, j.rank); break;
        case td::ReduceOp::and_: reduce_rank<td::ReduceOp::and_>(m, s, j.c, j.rank); break;
        case td::ReduceOp::or_: reduce_rank<td::ReduceOp::or_>(m, s, j.c, j.rank); break;
        case td::ReduceOp::xor_: reduce_rank<td::ReduceOp::xor_>(m, s, j.c, j.rank); break;
      }
      td::commit_group();
    }
    td::wait_group<0>();
  }
}

// dst = f(dst, src) on one element of type T, through memcpy (the bytes may be unaligned).
template <class T, class F>
void combine_as(unsigned char* dst, const unsigned char* src, F f) {
  T a, b;
  std::memcpy(&a, dst, sizeof(T));
  std::memcpy(&b, src, sizeof(T));
  a = f(a, b);
  std::memcpy(dst, &a, sizeof(T));
}

void add_elements(const TensorMapParams& p, unsigned char* dst, const unsigned char* src) {
  const auto add = [](auto a, auto b) { return static_cast<decltype(a)>(a + b); };
  switch (p.dtype) {
    case DataType::uint32: case DataType::int32: combine_as<std::uint32_t>(dst, src, add); break;
    case DataType::uint64: combine_as<std::uint64_t>(dst, src, add); break;
    case DataType::float32: combine_as<float>(dst, src, add); break;
    default: break;
  }
}

// The other reduction ops on the integer types (PTX cp.reduce.async.bulk.tensor semantics:
// inc: old >= src ? 0 : old + 1; dec: old == 0 || old > src ? src : old - 1; min/max signed for
// s32, unsigned otherwise).
td::ReduceOp g_host_op = td::ReduceOp::add;
template <class T>
T combine_int(td::ReduceOp op, T a, T b) {
  switch (op) {
    case td::ReduceOp::add: return static_cast<T>(a + b);
    case td::ReduceOp::min: return a < b ? a : b;
    case td::ReduceOp::max: return a > b ? a : b;
    case td::ReduceOp::inc: return a >= b ? T(0) : static_cast<T>(a + 1);
    case td::ReduceOp::dec: return (a == 0 || a > b) ? b : static_cast<T>(a - 1);
    case td::ReduceOp::and_: return a & b;
    case td::ReduceOp::or_: return a | b;
    case td::ReduceOp::xor_: return a ^ b;
  }
  return a;
}
void combine_elements(const TensorMapParams& p, unsigned char* dst, const unsigned char* src) {
  const auto op = [](auto a, auto b) { return combine_int(g_host_op, a, b); };
  switch (p.dtype) {
    case DataType::uint32: combine_as<std::uint32_t>(dst, src, op); break;
    case DataType::int32: combine_as<std::int32_t>(dst, src, op); break;
    case DataType::uint64: combine_as<std::uint64_t>(dst, src, op); break;
    default: break;
  }
}

void put_value(DataType t, std::uint64_t idx, bool for_add, unsigned char* dst) {
  if (for_add && t == DataType::float32) {
    const float f = static_cast<float>(idx % 1000) - 300.0f;  // exact sums
    std::memcpy(dst, &f, 4);
  } else {
    put_pattern(t, idx, dst);
  }
}

// Any negative coordinate makes a TMA store an illegal instruction on the H200 (measured
// 2026-11-22, docs/lab/device.md), so positions with one are left out. edges = false keeps boxes wholly
// inside the tensor or wholly past its end; edges = true adds boxes hanging past the high edge of
// any dimension (along dim 0 the hardware writes up to the next 16-byte boundary: in the model).
// op: 0 store, 1 reduce-add (every type add supports here), 2.. the other ReduceOps + 1 on the
// integer types each supports (min/max: u32 s32; inc/dec: u32; and/or/xor: u32 s32 u64).
void run_store_sweep(int op, bool edges, std::initializer_list<Interleave> interleaves = {Interleave::none}) {
  const bool reduce_add = op == 1;
  if (op >= 2) g_host_op = static_cast<td::ReduceOp>(op - 1);
  std::vector<Config> cfgs;
  const std::uint32_t es1[5] = {1, 1, 1, 1, 1};
  std::vector<DataType> types(std::begin(kTypes), std::end(kTypes));
  if (reduce_add) types = {DataType::uint32, DataType::int32, DataType::uint64, DataType::float32};
  if (op == 2 || op == 3) types = {DataType::uint32, DataType::int32};
  if (op == 4 || op == 5) types = {DataType::uint32};
  if (op >= 6) types = {DataType::uint32, DataType::int32, DataType::uint64};
  for (DataType t : types)
    for (std::uint32_t rank = 1; rank <= 5; ++rank)
      for (Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128})
        for (Interleave il : interleaves)
          for (int v = 0; v < 2; ++v) {
            Config c;
            if (make_config(t, rank, sw, il, OobFill::none, v, es1, c)) cfgs.push_back(std::move(c));
          }
  // One job per (config, start), each with its own copy of the tensor.
  struct Item {
    std::size_t cfg;
    std::array<std::int32_t, 5> start;
    std::uint64_t goff, ioff;
  };
  std::vector<Item> items;
  std::uint64_t gtotal = 0, itotal = 0;
  for (std::size_t k = 0; k < cfgs.size(); ++k)
    for (const auto& s : cfgs[k].starts) {
      bool negative = false, inside = true, outside = false;
      for (std::uint32_t i = 0; i < cfgs[k].p.rank; ++i) {
        const std::int64_t lo = s[i], hi = lo + cfgs[k].p.box[i], d = static_cast<std::int64_t>(cfgs[k].p.dims[i]);
        negative |= lo < 0;
        inside &= hi <= d;
        outside |= lo >= d;
      }
      if (negative || (!edges && !(inside || outside))) continue;
      items.push_back({k, s, gtotal, itotal});
      gtotal += cfgs[k].gbytes;
      itotal += round_up(tmakit::smem_model_footprint(cfgs[k].p), 16);
    }
  std::vector<unsigned char> g(gtotal, 0xEE), img(itotal, 0);
  std::uint64_t n = 0;
  for (const auto& it : items) {
    const Config& c = cfgs[it.cfg];
    const std::uint32_t eb = tmakit::element_bits(c.p.dtype) / 8;
    for (std::uint64_t o = 0; o + eb <= c.gbytes; o += eb) put_value(c.p.dtype, n++, reduce_add, &g[it.goff + o]);
    for (std::uint64_t o = 0; o + eb <= tmakit::smem_model_footprint(c.p); o += eb)
      put_value(c.p.dtype, n++ * 7, reduce_add, &img[it.ioff + o]);
  }
  unsigned char *d_g = nullptr, *d_img = nullptr;
  CUtensorMap* d_desc = nullptr;
  StoreJob* d_jobs = nullptr;
  CUDA_OK(cudaMalloc(&d_g, gtotal));
  CUDA_OK(cudaMalloc(&d_img, itotal));
  CUDA_OK(cudaMemcpy(d_g, g.data(), gtotal, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_img, img.data(), itotal, cudaMemcpyHostToDevice));
  std::vector<CUtensorMap> descs(items.size());
  std::vector<StoreJob> jobs(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    TensorMapParams p = cfgs[items[k].cfg].p;
    p.address = reinterpret_cast<std::uint64_t>(d_g) + items[k].goff;
    tmakit::TensorMapBytes b{};
    ASSERT_TRUE(tmakit::encode_into(p, b));
    std::memcpy(&descs[k], &b, sizeof(b));
    jobs[k].rank = p.rank;
    for (int i = 0; i < 5; ++i) jobs[k].c[i] = items[k].start[i];
    jobs[k].bytes = static_cast<std::uint32_t>(round_up(tmakit::smem_model_footprint(p), 16));
    jobs[k].src_off = items[k].ioff;
    jobs[k].op = static_cast<std::uint32_t>(op);
  }
  CUDA_OK(cudaMalloc(&d_desc, descs.size() * sizeof(CUtensorMap)));
  CUDA_OK(cudaMemcpy(d_desc, descs.data(), descs.size() * sizeof(CUtensorMap), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMalloc(&d_jobs, jobs.size() * sizeof(StoreJob)));
  CUDA_OK(cudaMemcpy(d_jobs, jobs.data(), jobs.size() * sizeof(StoreJob), cudaMemcpyHostToDevice));
  const int smem = kSmemCap + 1024;
  CUDA_OK(cudaFuncSetAttribute(store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  store_kernel<<<static_cast<unsigned>(jobs.size()), 128, smem>>>(d_desc, d_jobs, d_img);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(gtotal);
  CUDA_OK(cudaMemcpy(got.data(), d_g, gtotal, cudaMemcpyDeviceToHost));
  cudaFree(d_g);
  cudaFree(d_img);
  cudaFree(d_desc);
  cudaFree(d_jobs);
  Stats st;
  long bad = 0;
  for (const auto& it : items) {
    const Config& c = cfgs[it.cfg];
    std::vector<unsigned char> want(g.begin() + it.goff, g.begin() + it.goff + c.gbytes);
    const std::span<const unsigned char> image(img.data() + it.ioff, tmakit::smem_model_footprint(c.p));
    ASSERT_TRUE(tmakit::smem_model_tiled_store(c.p, want, it.start.data(), image,
                                               op == 0 ? nullptr : op == 1 ? &add_elements : &combine_elements));
    bool pass = true;
    for (std::uint64_t i = 0; i < c.gbytes; ++i)
      if (got[it.goff + i] != want[i]) {
        if (bad < 25)
          std::printf("MISMATCH op %d %s: global byte %llu got 0x%02x want 0x%02x\n", op,
                      describe(c.p, it.start.data()).c_str(), static_cast<unsigned long long>(i), got[it.goff + i],
                      want[i]);
        pass = false;
        ++bad;
        break;
      }
    st.add("dtype " + tmakit::to_name(c.p.dtype), pass);
    st.add("rank " + std::to_string(c.p.rank), pass);
    st.add("swizzle " + tmakit::to_name(c.p.swizzle), pass);
    st.add("interleave " + tmakit::to_name(c.p.interleave), pass);
    st.add(edge_kind(c, it.start.data()), pass);
    st.add("all", pass);
  }
  std::printf("op %d (0 store, 1 add, 2 min, 3 max, 4 inc, 5 dec, 6 and, 7 or, 8 xor):\n", op);
  st.print(reduce_add ? "reduce-add per category:" : op ? "reduce per category:" : "store per category:");
  EXPECT_EQ(bad, 0);
}

}  // namespace

TEST(TmaStore, TiledMatchesModel) {
  TMAKIT_REQUIRE_GPU();
  run_store_sweep(0, false);
}

TEST(TmaStore, ReduceAddMatchesModel) {
  TMAKIT_REQUIRE_GPU();
  run_store_sweep(1, false);
}

// min, max, inc, dec, and, or, xor on the integer types that take them.
TEST(TmaStore, ReduceOtherOpsMatchModel) {
  TMAKIT_REQUIRE_GPU();
  for (int op = 2; op <= 8; ++op) {
    run_store_sweep(op, false);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Stores of boxes hanging past the high edge of a dimension (see run_store_sweep).
TEST(TmaStore, PastTheEndMatchesModel) {
  TMAKIT_REQUIRE_GPU();
  run_store_sweep(0, true);
}

// Interleaved stores and reductions (16B / 32B), boxes inside, past the end and hanging off the high
// edge, against the same interleaved model as the loads. Last in the file: a store the model gets
// wrong could fault, and a fault ends the process.
TEST(TmaStore, InterleavedMatchesModel) {
  TMAKIT_REQUIRE_GPU();
  run_store_sweep(0, true, {Interleave::b16, Interleave::b32});
  run_store_sweep(1, false, {Interleave::b16, Interleave::b32});
}

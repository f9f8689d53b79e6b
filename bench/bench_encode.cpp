// Host encode time per descriptor: tmakit's encoders against the driver's cuTensorMapEncodeTiled,
// side by side in one process, on the same realistic tiled configurations (GEMM/attention tiles
// over all swizzles, ranks 2-5): 8 of them, the maps of a launch or two as a JIT builds them
// ("few", in L1); 256 of them hot in cache ("mixed", and "uniform": one rank, type and swizzle as
// in a grouped GEMM); and 16384 whose parameters and maps (7 MiB) do not fit in L2 ("large"). Each
// timing sample encodes all of them (at least 4096 encodes) with every encoder in turn
// (round-robin, so that clock changes hit all alike); prints the median ns per descriptor of 31
// samples and the ratio, after checking that every descriptor is byte-identical to the driver's.
// The "floor" rows encode nothing: one copies each parameter set's first 128 bytes to its map; the
// other reads all 152 bytes a tiled map depends on (kind .. oobFill: with the parameters 192 bytes
// apart, three cache lines instead of two) and writes 128. No encoder can go below the second, so
// the driver's time over it is the largest ratio any encoder could show in that scenario.
// All of them take encode's fast path (tiled, no interleave, elementStrides 1). The host library's
// encoders (encode_host.hpp) are timed: encode_into_host, encode_host and encode_many run its
// AVX-512 form on CPUs that have AVX-512 VBMI, else its SSE2 form (both timed where both run);
// encode_unchecked and is_valid are the general path. encode_many encodes the whole array in one
// call (16 maps at a time on AVX-512 CPUs). A last table times encode_many alone against the driver for batches of 1 to
// 256 mixed maps hot in cache: where its fixed cost per call stops mattering.
// Needs a GPU for the driver part (the driver wants a current context).
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "encode_configs.hpp"
#include "tensor_map/encode_fast_sse2.hpp"  // the host library's SSE2 form, timed on its own
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_host.hpp"

using namespace tmakit;
using tmakit_bench::keep;
using tmakit_bench::make_configs;

namespace {

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

CUresult driver_encode(const TensorMapParams& p, CUtensorMap* m) {
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], es[5];
  for (int i = 0; i < 5; ++i) dims[i] = p.dims[i], box[i] = p.box[i], es[i] = p.elem_strides[i];
  for (int i = 0; i < 4; ++i) strides[i] = p.strides[i];
  return cuTensorMapEncodeTiled(m, CUtensorMapDataType(p.dtype), p.rank, reinterpret_cast<void*>(p.address), dims,
                                strides, box, es, CUtensorMapInterleave(p.interleave), CUtensorMapSwizzle(p.swizzle),
                                CUtensorMapL2promotion(p.l2), CUtensorMapFloatOOBfill(p.oob));
}

// The driver's timed body: maps 0..n-1 through cuTensorMapEncodeTiled.
std::function<void()> driver_body(const TensorMapParams* cfgs, CUtensorMap* out, int n) {
  return [=] {
    for (int i = 0; i < n; ++i) {
      driver_encode(cfgs[i], &out[i]);
      keep(out[i]);
    }
  };
}

// The second floor: reads bytes 0..151 of each parameter set (everything a tiled map depends on)
// and writes 128 bytes, with the widest loads and stores the CPU has: on AVX-512 CPUs three
// 64-byte loads (bytes 0..191) and two 64-byte stores per map, the memory operations encode_many's
// block form makes; on other x86-64 CPUs 16-byte ones (bytes 0..159).
static_assert(offsetof(TensorMapParams, oob) + 4 == 152 && sizeof(TensorMapParams) >= 192,
              "a tiled map depends on bytes 0..151");
#if TMAKIT_ENCODE_FAST_USES_AVX512
TMAKIT_ENCODE_AVX512_TARGET void read_inputs_write_maps_avx512(const TensorMapParams* p, TensorMapBytes* out, int n) {
  for (int i = 0; i < n; ++i) {
    const auto* bytes = reinterpret_cast<const char*>(p + i);
    const __m512i a = _mm512_loadu_si512(bytes), b = _mm512_loadu_si512(bytes + 64), c = _mm512_loadu_si512(bytes + 128);
    _mm512_store_si512(&out[i].words[0], _mm512_xor_si512(a, c));  // bytes 128..191 read and kept
    _mm512_store_si512(&out[i].words[8], b);
  }
}
#endif
void read_inputs_write_maps(const TensorMapParams* p, TensorMapBytes* out, int n) {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (std::strcmp(encode_fast_host_form(), "AVX-512") == 0) return read_inputs_write_maps_avx512(p, out, n);
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2
  for (int i = 0; i < n; ++i) {  // bytes 0..159 as ten 16-byte loads; 128..159 folded into 0..31
    const auto* in = reinterpret_cast<const __m128i*>(p + i);
    auto* to = reinterpret_cast<__m128i*>(out[i].words);
    _mm_store_si128(to, _mm_xor_si128(_mm_loadu_si128(in), _mm_loadu_si128(in + 8)));
    _mm_store_si128(to + 1, _mm_xor_si128(_mm_loadu_si128(in + 1), _mm_loadu_si128(in + 9)));
    for (int k = 2; k < 8; ++k) _mm_store_si128(to + k, _mm_loadu_si128(in + k));
  }
#else
  for (int i = 0; i < n; ++i) {
    std::uint64_t in[19];
    std::memcpy(in, &p[i], sizeof in);
    in[0] ^= in[16], in[1] ^= in[17], in[2] ^= in[18];  // bytes 128..151 read and kept
    std::memcpy(out[i].words, in, sizeof out[i].words);
    keep(out[i]);
  }
#endif
}

// Times several encoders round-robin: each sample runs every encoder once (enough passes over
// the configurations for 4096 encodes, at least 16), so a change of clock or a noisy neighbour
// during the run hits all of them alike; returns each one's median ns per descriptor over kSamples
// samples. Each timed run follows an untimed run of the same encoder, by default as long as the
// timed one (warm_passes), so that every encoder is timed in its steady state:
//   - after the driver, the next encoder paid for the cache lines the driver had evicted (1-11%
//     more time per map with 256 maps, median 3%: docs/lab/encode_2026-11-22.md, 2026-11-22 12:00);
//   - after any pause in AVX-512 work (the driver's run, or 20 us of scalar code), encode_many's
//     first 8-16 calls of 8 maps took 2-3 times as long as later ones, about 1 us in all: one
//     untimed call did not cover it (docs/lab/encode_2026-11-26.md, 2026-11-26 02:27).
// TMAKIT_BENCH_WARM_PASSES=1 gives one untimed pass instead, the method of the runs before
// 2026-11-26 02:27, for comparison.
int fixed_warm_passes() {  // 0: as many as the timed run
  const char* v = std::getenv("TMAKIT_BENCH_WARM_PASSES");
  return v != nullptr ? std::max(0, std::atoi(v)) : 0;
}
std::vector<double> median_ns_per_item(int n, const std::vector<std::function<void()>>& bodies) {
  constexpr int kSamples = 31;
  const int passes = std::max(16, 4096 / n), warm_passes = fixed_warm_passes() > 0 ? fixed_warm_passes() : passes;
  std::vector<std::vector<double>> t(bodies.size());
  for (const auto& body : bodies) body();  // warm-up
  for (int rep = 0; rep < kSamples; ++rep) {
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      for (int pass = 0; pass < warm_passes; ++pass) bodies[b]();  // untimed
      const auto t0 = std::chrono::steady_clock::now();
      for (int pass = 0; pass < passes; ++pass) bodies[b]();
      const auto t1 = std::chrono::steady_clock::now();
      t[b].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / (double(n) * passes));
    }
  }
  std::vector<double> med;
  for (auto& v : t) {
    std::sort(v.begin(), v.end());
    med.push_back(v[v.size() / 2]);
  }
  return med;
}

}  // namespace

int main() {
  // The driver part needs a GPU; without one (cuInit fails, e.g. the toolkit's stub libcuda) the
  // tmakit timings still run, for profiling on a CPU-only machine.
  const bool have_driver = cuInit(0) == CUDA_SUCCESS;
  char name[128] = "no GPU driver: tmakit timings only";
  int drv = 0;
  if (have_driver) {
    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    cuDeviceGetName(name, sizeof name, dev);
    cuDriverGetVersion(&drv);
  }

  int mismatches = 0;
  std::printf("device: %s, CUDA driver API %d; host CPU: %s\n", name, drv, cpu_name().c_str());
  const bool avx512 = std::strcmp(encode_fast_host_form(), "AVX-512") == 0;
  std::printf("encode's fast path runs its %s form on this CPU\n", encode_fast_host_form());
  std::printf("few: 8 mixed configurations (a launch or two's maps, in L1); mixed and uniform: 256, hot in cache;\n"
              "large: 16384 mixed ones (7 MiB of parameters and maps, beyond L2), as when a JIT builds many\n"
              "different maps. floors: copy 128 bytes of each parameter set to its map; read its 152 input bytes\n"
              "and write 128 (three cache lines of each 192-byte parameter set, as an encoder must); encode nothing\n");
  if (fixed_warm_passes() > 0)
    std::printf("each timed run of an encoder follows an untimed run of %d passes over its maps (TMAKIT_BENCH_WARM_PASSES)\n",
                fixed_warm_passes());
  else
    std::printf("each timed run of an encoder follows an untimed run as long as the timed one\n");
  std::printf("%-9s %-55s %10s %10s\n", "scenario", "encoder", "ns/desc", "vs driver");
  struct Scenario {
    const char* name;
    int n;
    bool uniform;
  };
  for (const Scenario sc_ : {Scenario{"few", 8, false}, Scenario{"mixed", 256, false}, Scenario{"uniform", 256, true}, Scenario{"large", 16384, false}}) {
    const int n = sc_.n;
    const auto cfgs = make_configs(n, sc_.uniform);
    std::vector<CUtensorMap> drv_out(n);
    std::vector<TensorMapBytes> our_out(n), many_out(n);
    auto many_ok = std::make_unique<bool[]>(n);
    if (encode_many(cfgs.data(), many_out.data(), many_ok.get(), n) != std::size_t(n)) ++mismatches;
    for (int i = 0; i < n; ++i) {
      our_out[i] = encode(cfgs[i]).map;
      TensorMapBytes fast;
      if (!encode_into_host(cfgs[i], fast) || !(fast == our_out[i])) ++mismatches;
      if (!(encode_host(cfgs[i]).map == our_out[i])) ++mismatches;
      if (!many_ok[i] || !(many_out[i] == our_out[i])) ++mismatches;
      if (!have_driver) continue;
      if (driver_encode(cfgs[i], &drv_out[i]) != CUDA_SUCCESS) ++mismatches;
      if (std::memcmp(&drv_out[i], &our_out[i], 128) != 0) ++mismatches;
    }
    std::vector<std::function<void()>> bodies = {
        [&] {
          for (int i = 0; i < n; ++i) {
            const bool ok = encode_into_host(cfgs[i], our_out[i]);
            keep(ok);
            keep(our_out[i]);
          }
        },
        [&] {
          for (int i = 0; i < n; ++i) {
            auto r = encode_host(cfgs[i]);
            our_out[i] = r.map;
            keep(our_out[i]);
          }
        },
        [&] {
          for (int i = 0; i < n; ++i) {
            our_out[i] = encode_unchecked(cfgs[i]);
            keep(our_out[i]);
          }
        },
        [&] {
          for (int i = 0; i < n; ++i) {
            const bool ok = is_valid(cfgs[i]);
            keep(ok);
          }
        },
        [&] {
#if TMAKIT_ENCODE_FAST_USES_SSE2
          for (int i = 0; i < n; ++i) {
            const bool ok = encode_fast_sse2(cfgs[i], our_out[i]);
            keep(ok);
            keep(our_out[i]);
          }
#endif
        },
        [&] {
          const std::size_t encoded = encode_many(cfgs.data(), our_out.data(), many_ok.get(), n);
          keep(encoded);
        },
        [&] {
          for (int i = 0; i < n; ++i) {
            std::memcpy(our_out[i].words, &cfgs[i], sizeof our_out[i].words);
            keep(our_out[i]);
          }
        },
        [&] { read_inputs_write_maps(cfgs.data(), our_out.data(), n); }};
    if (have_driver) bodies.push_back(driver_body(cfgs.data(), drv_out.data(), n));
    const std::vector<double> t = median_ns_per_item(n, bodies);
    const double t_into = t[0], t_enc = t[1], t_raw = t[2], t_val = t[3], t_sse2 = t[4], t_many = t[5], t_floor = t[6];
    const double t_floor152 = t[7];
    const double t_drv = have_driver ? t[8] : 0.0;
    const char* sc = sc_.name;
    auto row = [&](const char* what, double t) {
      if (have_driver) std::printf("%-9s %-55s %10.1f %9.2fx\n", sc, what, t, t_drv / t);
      else std::printf("%-9s %-55s %10.1f %10s\n", sc, what, t, "-");
    };
    if (have_driver) row("cuTensorMapEncodeTiled (driver)", t_drv);
    row("tmakit::encode_into_host (validate + encode, bool)", t_into);
    row("tmakit::encode_host (validate + encode, EncodeResult)", t_enc);
    row("tmakit::encode_many (all maps in one call, bool each)", t_many);
    row("tmakit::encode_unchecked (general path, no validation)", t_raw);
    row("tmakit::is_valid (general path, validation only)", t_val);
    if (avx512 && TMAKIT_ENCODE_FAST_USES_SSE2) row("tmakit::encode_fast_sse2 (the fast path's SSE2 form)", t_sse2);
    row("floor: copy 128 bytes, no encoding", t_floor);
    row("floor: read 152 input bytes, write 128 (the limit)", t_floor152);
  }
  // encode_many by batch size, mixed maps hot in cache, the driver timed alongside: a call's fixed
  // cost (pass 2 runs once per block of up to 16 maps, whatever the count; 1 to 3 maps go one at a
  // time) spread over n maps. The first n of the same configurations as "few" and "mixed".
  std::printf("%-9s %-55s %10s %10s\n", "batch", "encode_many over n mixed maps, hot (n)", "ns/desc", "vs driver");
  for (const int n : {1, 2, 4, 8, 12, 16, 32, 64, 128, 256}) {
    const auto cfgs = make_configs(n, false);
    std::vector<CUtensorMap> drv_out(n);
    std::vector<TensorMapBytes> out(n);
    auto ok = std::make_unique<bool[]>(n);
    if (encode_many(cfgs.data(), out.data(), ok.get(), n) != std::size_t(n)) ++mismatches;
    for (int i = 0; i < n && have_driver; ++i)
      if (driver_encode(cfgs[i], &drv_out[i]) != CUDA_SUCCESS || std::memcmp(&drv_out[i], &out[i], 128) != 0) ++mismatches;
    std::vector<std::function<void()>> bodies = {[&] {
      const std::size_t encoded = encode_many(cfgs.data(), out.data(), ok.get(), n);
      keep(encoded);
    }};
    if (have_driver) bodies.push_back(driver_body(cfgs.data(), drv_out.data(), n));
    const std::vector<double> t = median_ns_per_item(n, bodies);
    char what[64];
    std::snprintf(what, sizeof what, "%d", n);
    if (have_driver) std::printf("%-9s %-55s %10.1f %9.2fx   (driver %.1f)\n", "batch", what, t[0], t[1] / t[0], t[1]);
    else std::printf("%-9s %-55s %10.1f %10s\n", "batch", what, t[0], "-");
  }
  std::printf("%d descriptors differ from the driver's%s\n", mismatches, have_driver ? "" : " (driver not compared)");
  return mismatches ? 1 : 0;
}

// Host encode time per descriptor: tmakit::encode (validate + encode) and tmakit::encode_unchecked
// against the driver's cuTensorMapEncodeTiled, side by side in one process, on the same 4096
// realistic tiled configurations (GEMM/attention tiles over all swizzles, ranks 2-5). Prints the
// median ns per descriptor of 31 repeats and the ratio; also checks every descriptor is
// byte-identical to the driver's. Needs a GPU (the driver wants a current context).
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tmakit/tensor_map/encode.hpp"

using namespace tmakit;

namespace {

template <class T>
inline void keep(T const& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

std::vector<TensorMapParams> make_configs(int n) {
  std::mt19937_64 rng(7);
  const DataType types[] = {DataType::bfloat16, DataType::float16, DataType::float32, DataType::uint8, DataType::float64};
  std::vector<TensorMapParams> out;
  while (int(out.size()) < n) {
    TensorMapParams p;
    p.dtype = types[rng() % 5];
    const std::uint32_t esize = element_bits(p.dtype) / 8;
    p.rank = 2 + rng() % 4;
    p.swizzle = static_cast<Swizzle>(rng() % 4);
    p.l2 = static_cast<L2Promotion>(rng() % 4);
    const std::uint32_t span = p.swizzle == Swizzle::none ? 128 : swizzle_span_bytes(p.swizzle);
    p.address = (std::uint64_t{0x7f00} << 32) + (rng() % (1u << 20)) * 1024;
    std::uint64_t pitch = 0;
    for (std::uint32_t i = 0; i < p.rank; ++i) {
      p.dims[i] = 64 + rng() % 8192;
      p.box[i] = i == 0 ? span / esize : 1 + rng() % 128;
      if (i == 0) {
        pitch = (p.dims[0] * esize + 127) / 128 * 128;
      } else {
        p.strides[i - 1] = pitch;
        pitch *= p.dims[i];
        if (pitch > (std::uint64_t{1} << 39)) p.dims[i] = 1, pitch = p.strides[i - 1];
      }
    }
    if (encode(p).ok()) out.push_back(p);
  }
  return out;
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

template <class F>
double median_ns_per_item(int n, F&& body) {
  std::vector<double> t;
  for (int rep = 0; rep < 31; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    body();
    auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  if (cuInit(0) != CUDA_SUCCESS) return std::puts("no CUDA driver"), 2;
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  char name[128] = {};
  cuDeviceGetName(name, sizeof name, dev);
  int drv = 0;
  cuDriverGetVersion(&drv);

  const int n = 4096;
  const auto cfgs = make_configs(n);
  std::vector<CUtensorMap> drv_out(n);
  std::vector<TensorMapBytes> our_out(n);
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    if (driver_encode(cfgs[i], &drv_out[i]) != CUDA_SUCCESS) ++mismatches;
    our_out[i] = encode(cfgs[i]).map;
    if (std::memcmp(&drv_out[i], &our_out[i], 128) != 0) ++mismatches;
  }
  const double t_drv = median_ns_per_item(n, [&] {
    for (int i = 0; i < n; ++i) {
      driver_encode(cfgs[i], &drv_out[i]);
      keep(drv_out[i]);
    }
  });
  const double t_enc = median_ns_per_item(n, [&] {
    for (int i = 0; i < n; ++i) {
      auto r = encode(cfgs[i]);
      our_out[i] = r.map;
      keep(our_out[i]);
    }
  });
  const double t_raw = median_ns_per_item(n, [&] {
    for (int i = 0; i < n; ++i) {
      our_out[i] = encode_unchecked(cfgs[i]);
      keep(our_out[i]);
    }
  });
  std::printf("device: %s, CUDA driver API %d; %d tiled configurations, %d differ from the driver\n", name, drv, n,
              mismatches);
  std::printf("%-40s %10s %10s\n", "encoder", "ns/desc", "vs driver");
  std::printf("%-40s %10.1f %9.2fx\n", "cuTensorMapEncodeTiled (driver)", t_drv, 1.0);
  std::printf("%-40s %10.1f %9.2fx\n", "tmakit::encode (validate + encode)", t_enc, t_drv / t_enc);
  std::printf("%-40s %10.1f %9.2fx\n", "tmakit::encode_unchecked", t_raw, t_drv / t_raw);
  return mismatches ? 1 : 0;
}

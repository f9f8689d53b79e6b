// driver_sweep: feeds tensor-map configurations (JSON lines on stdin) to the CUDA driver's encoders
// and writes one JSON line per input with the driver's decision and the 128 bytes it produced.
//
// Input keys (the schema of `tmakit encode --jsonl`): kind ("tiled", "im2col", "im2col_wide"), dtype,
// rank, address, dims, strides, box, elem_strides, interleave, swizzle, l2, oob, and for im2col(_wide)
// lower, upper, channels, pixels, (wide) mode. Enum values are the cuda.h integers.
// Output: the input object plus "result" (CUresult as returned), "bytes" (256 hex chars in memory
// order, empty on refusal) and "unwritten" (hex mask of bytes the driver left untouched, only when
// non-zero; detected by encoding twice over two different fills).
//
// Needs a GPU and a current context; runs on the device machine. Meta (driver version, GPU) goes to
// the file named by --meta.
#include <cuda.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "%s failed: %d %s\n", what, int(r), s ? s : "?");
    std::exit(2);
  }
}

template <class T>
std::vector<T> arr(const json& j, const char* key, size_t min_len) {
  std::vector<T> v;
  if (j.contains(key)) {
    if (j[key].is_array()) {
      for (auto& e : j[key]) v.push_back(e.get<T>());
    } else {
      v.push_back(j[key].get<T>());
    }
  }
  if (v.size() < min_len) v.resize(min_len, T{});
  return v;
}

std::string hex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

CUresult encode(const json& j, CUtensorMap* map) {
  const std::string kind = j.value("kind", "tiled");
  auto dtype = CUtensorMapDataType(j.value("dtype", 0));
  cuuint32_t rank = j.value("rank", 0u);
  void* address = reinterpret_cast<void*>(j.value("address", uint64_t{0}));
  auto dims = arr<cuuint64_t>(j, "dims", 8);
  auto strides = arr<cuuint64_t>(j, "strides", 8);
  auto box = arr<cuuint32_t>(j, "box", 8);
  auto es = arr<cuuint32_t>(j, "elem_strides", 8);
  auto il = CUtensorMapInterleave(j.value("interleave", 0));
  auto sw = CUtensorMapSwizzle(j.value("swizzle", 0));
  auto l2 = CUtensorMapL2promotion(j.value("l2", 0));
  auto oob = CUtensorMapFloatOOBfill(j.value("oob", 0));
  if (kind == "tiled") {
    return cuTensorMapEncodeTiled(map, dtype, rank, address, dims.data(), strides.data(), box.data(), es.data(),
                                  il, sw, l2, oob);
  }
  auto lower = arr<int>(j, "lower", 8);
  auto upper = arr<int>(j, "upper", 8);
  cuuint32_t channels = j.value("channels", 0u);
  cuuint32_t pixels = j.value("pixels", 0u);
  if (kind == "im2col") {
    return cuTensorMapEncodeIm2col(map, dtype, rank, address, dims.data(), strides.data(), lower.data(),
                                   upper.data(), channels, pixels, es.data(), il, sw, l2, oob);
  }
  if (kind == "im2col_wide") {
    auto mode = CUtensorMapIm2ColWideMode(j.value("mode", 0));
    return cuTensorMapEncodeIm2colWide(map, dtype, rank, address, dims.data(), strides.data(), lower[0], upper[0],
                                       channels, pixels, es.data(), il, mode, sw, l2, oob);
  }
  return CUresult(-1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* meta_path = nullptr;
  bool time_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--meta") && i + 1 < argc) meta_path = argv[++i];
    else if (!std::strcmp(argv[i], "--time")) time_only = true;
  }
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  int drv = 0, major = 0, minor = 0;
  cuDriverGetVersion(&drv);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, dev);
  if (meta_path) {
    json m = {{"driver_version", drv}, {"gpu", name}, {"cc", std::to_string(major) + "." + std::to_string(minor)}};
    FILE* f = std::fopen(meta_path, "w");
    std::fprintf(f, "%s\n", m.dump().c_str());
    std::fclose(f);
  }
  std::ios::sync_with_stdio(false);
  std::string line;
  alignas(64) CUtensorMap a, b;
  size_t n = 0, ok = 0;
  auto t0 = std::chrono::steady_clock::now();
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json j = json::parse(line);
    std::memset(&a, 0, sizeof a);
    CUresult r = encode(j, &a);
    ++n;
    if (time_only) continue;
    j["result"] = int(r);
    if (r == CUDA_SUCCESS) {
      ++ok;
      std::memset(&b, 0xff, sizeof b);
      CUresult r2 = encode(j, &b);
      auto* pa = reinterpret_cast<unsigned char*>(&a);
      auto* pb = reinterpret_cast<unsigned char*>(&b);
      j["bytes"] = hex(pa, 128);
      std::string mask;
      bool any = false;
      unsigned char m[16] = {};
      for (int i = 0; i < 128; ++i)
        if (pa[i] != pb[i]) {
          m[i / 8] |= 1u << (i % 8);
          any = true;
        }
      if (any || r2 != r) j["unwritten"] = hex(m, 16);
    } else {
      j["bytes"] = "";
    }
    std::cout << j.dump() << '\n';
  }
  auto t1 = std::chrono::steady_clock::now();
  std::fprintf(stderr, "driver_sweep: %zu configs, %zu accepted, %.1f s (%s, driver %d, cc %d.%d)\n", n, ok,
               std::chrono::duration<double>(t1 - t0).count(), name, drv, major, minor);
  return 0;
}

// The calls of capture_probe (see capture_probe_calls.h).
#include "capture_probe_calls.h"

#include <stdio.h>
#include <string.h>

static _Alignas(256) unsigned char data[1 << 20];  // the tensors' base: 256-byte aligned host memory
static _Alignas(128) unsigned char map[128];        // where every map is written

enum { kBf16 = 9, kSwizzle128B = 3 };

static void report(const char* way, int tag, int result) { printf("%s %d %d\n", way, tag, result); }
static void lookup_failed(const char* way, int tag, int code) { printf("%s %d lookup-failed %d\n", way, tag, code); }

void probe_tiled(const char* way, int tag, tiled_fn f) {
  if (!f) {
    lookup_failed(way, tag, -1);
    return;
  }
  const uint64_t dims[2] = {4096, (uint64_t)tag}, strides[1] = {8192};
  const uint32_t box[2] = {64, 128}, elem[2] = {1, 1};
  memset(map, 0, sizeof map);
  report(way, tag, f(map, kBf16, 2, data, dims, strides, box, elem, 0, kSwizzle128B, 0, 0));
}

void probe_im2col(const char* way, int tag, im2col_fn f) {
  if (!f) {
    lookup_failed(way, tag, -1);
    return;
  }
  const uint64_t dims[4] = {64, 32, 32, (uint64_t)tag}, strides[3] = {128, 4096, 131072};
  const int lower[2] = {-1, -1}, upper[2] = {1, 1};
  const uint32_t elem[4] = {1, 1, 1, 1};
  report(way, tag, f(map, kBf16, 4, data, dims, strides, lower, upper, 64, 128, elem, 0, kSwizzle128B, 0, 0));
}

void probe_lookup_v1(const char* way, int tag, procaddr_v1_fn lookup) {
  if (!lookup) {
    lookup_failed(way, tag, -1);
    return;
  }
  void* f = NULL;
  const int r = lookup("cuTensorMapEncodeTiled", &f, 12000, 0);
  if (r != 0) {
    lookup_failed(way, tag, r);
    return;
  }
  probe_tiled(way, tag, (tiled_fn)f);
}

void probe_lookup_v2(const char* way, int tag, procaddr_v2_fn lookup) {
  if (!lookup) {
    lookup_failed(way, tag, -1);
    return;
  }
  void* f = NULL;
  int status = -1;
  const int r = lookup("cuTensorMapEncodeTiled", &f, 12000, 0, &status);
  if (r != 0 || status != 0) {
    lookup_failed(way, tag, r);
    return;
  }
  probe_tiled(way, tag, (tiled_fn)f);
}

void probe_lookup_chain(const char* way, int tag, procaddr_v2_fn lookup) {
  if (!lookup) {
    lookup_failed(way, tag, -1);
    return;
  }
  void* again = NULL;
  int status = -1;
  const int r = lookup("cuGetProcAddress", &again, 12000, 0, &status);
  if (r != 0 || !again) {
    lookup_failed(way, tag, r);
    return;
  }
  probe_lookup_v2(way, tag, (procaddr_v2_fn)again);
}

void probe_im2col_wide(const char* way, int tag, procaddr_v2_fn lookup) {
  if (!lookup) {
    lookup_failed(way, tag, -1);
    return;
  }
  void* fn = NULL;
  int status = -1;
  const int r = lookup("cuTensorMapEncodeIm2colWide", &fn, 12080, 0, &status);
  if (r != 0 || !fn) {
    lookup_failed(way, tag, r);
    return;
  }
  const uint64_t dims[4] = {64, 32, 32, (uint64_t)tag}, strides[3] = {128, 4096, 131072};
  const uint32_t elem[4] = {1, 1, 1, 1};
  report(way, tag, ((wide_fn)fn)(map, kBf16, 4, data, dims, strides, -1, 1, 64, 128, elem, 0, 1, kSwizzle128B, 0, 0));
}

void probe_replace(const char* way, int tag, replace_fn f) {
  if (!f) {
    lookup_failed(way, tag, -1);
    return;
  }
  report(way, tag, f(map, data + tag));
}

void probe_runtime(const char* way, int tag, runtime_fn lookup, runtime_by_version_fn by_version) {
  void* f = NULL;
  int status = -1;
  const int r = lookup("cuTensorMapEncodeTiled", &f, 0, &status);  // cudaEnableDefault
  if (r != 0 || !f) {
    lookup_failed(way, tag, r);
  } else {
    probe_tiled(way, tag, (tiled_fn)f);
  }
  char by_version_way[64];
  snprintf(by_version_way, sizeof by_version_way, "%s-by-version", way);
  f = NULL;
  const int r2 = by_version("cuTensorMapEncodeTiled", &f, 12000, 0, &status);
  if (r2 != 0 || !f) {
    lookup_failed(by_version_way, tag + 1, r2);
    return;
  }
  probe_tiled(by_version_way, tag + 1, (tiled_fn)f);
}

// A bf16 256 x 512 map (row pitch 512 bytes, box 64 x 64, 128B swizzle, L2 128B) as the driver
// encodes it: tmakit encode tiled --dtype bf16 --dims 256,512 --strides 512 --box 64,64 --swizzle
// 128B --l2 L2_128B --address 0x7fecefe80000
static const char kLaunchedMap[] =
    "0000e8efec7f0000106504002000000000000000000000000000000000000000ff000000ff0100000000000000000000"
    "000000000000003f3f000000000000000020000000000000000400000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000";

void probe_launch(const char* way, int tag, procaddr_v2_fn lookup) {
  void* f = NULL;
  const int r = lookup ? lookup("cuLaunchKernel", &f, 12000, 0, NULL) : -1;
  if (r != 0 || !f) {
    lookup_failed(way, tag, r);
    return;
  }
  // The parameter buffer: a pointer-sized scalar that is no address (bytes 0-7), then the map at the
  // 64-byte boundary a __grid_constant__ CUtensorMap takes (bytes 64-191).
  static _Alignas(64) unsigned char params[192];
  memset(params, 0, sizeof params);
  const uint64_t scalar = 0x1001;
  memcpy(params, &scalar, sizeof scalar);
  for (int i = 0; i < 128; ++i) {
    unsigned v = 0;
    sscanf(kLaunchedMap + 2 * i, "%2x", &v);
    params[64 + i] = (unsigned char)v;
  }
  size_t size = sizeof params;
  void* extra[] = {(void*)1, params, (void*)2, &size, NULL};  // CU_LAUNCH_PARAM_BUFFER_POINTER, _SIZE, _END
  typedef int (*launch_fn)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                           void**);
  report(way, tag, ((launch_fn)f)(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
}

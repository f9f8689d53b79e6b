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

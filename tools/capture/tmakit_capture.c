// tmakit_capture: the descriptors a program encodes through the CUDA driver, as they are made.
//
//   LD_PRELOAD=libtmakit_capture.so TMAKIT_CAPTURE=maps.jsonl python3 my_kernel.py
//   tmakit decode "$(tail -1 maps.jsonl | jq -r .bytes)"
//
// Whatever stack builds a tensor map (CuTe DSL's runtime, Triton's launcher, cuda.core, CUTLASS, a
// hand-written host) ends in the driver's cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col, reached
// by linking libcuda, by dlsym on it, or through cuGetProcAddress. This library is put in front of
// all three: it hands out a wrapper that calls the driver and appends one JSON line per call to the
// file TMAKIT_CAPTURE names (stderr when unset): the call's arguments and the 128 bytes the driver
// wrote, which tmakit decode / diff / check_against_plan then explain. It changes nothing the
// program sees. Linux, glibc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef int CUresult;
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
typedef int (*tiled_fn)(void*, int, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                        const cuuint32_t*, int, int, int, int);
typedef int (*im2col_fn)(void*, int, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                         cuuint32_t, cuuint32_t, const cuuint32_t*, int, int, int, int);
typedef int (*procaddr_fn)(const char*, void**, int, cuuint64_t, void*);
typedef void* (*dlsym_fn)(void*, const char*);

static dlsym_fn real_dlsym_ptr;
static tiled_fn real_tiled;
static im2col_fn real_im2col;
static procaddr_fn real_procaddr;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static dlsym_fn real_dlsym(void) {
  if (!real_dlsym_ptr) {
    // glibc >= 2.34 versions dlsym GLIBC_2.34 (older references stay GLIBC_2.2.5).
    real_dlsym_ptr = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real_dlsym_ptr) real_dlsym_ptr = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  }
  return real_dlsym_ptr;
}

static void* driver(const char* name) {
  static void* cuda;
  if (!cuda) cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  return cuda ? real_dlsym()(cuda, name) : NULL;
}

static void write_u64s(FILE* f, const char* key, const cuuint64_t* v, unsigned n) {
  fprintf(f, ",\"%s\":[", key);
  for (unsigned i = 0; v && i < n; ++i) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
  fputc(']', f);
}
static void write_u32s(FILE* f, const char* key, const cuuint32_t* v, unsigned n) {
  fprintf(f, ",\"%s\":[", key);
  for (unsigned i = 0; v && i < n; ++i) fprintf(f, "%s%u", i ? "," : "", v[i]);
  fputc(']', f);
}

// One JSON line: {"call":..., "result":..., <arguments>, "bytes":"<256 hex digits>"}.
static void record(const char* call, int result, const void* map, int dtype, cuuint32_t rank, const void* addr,
                   const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem,
                   int interleave, int swizzle, int l2, int oob) {
  pthread_mutex_lock(&out_lock);
  const char* path = getenv("TMAKIT_CAPTURE");
  FILE* f = path && *path ? fopen(path, "a") : stderr;
  if (f) {
    fprintf(f, "{\"call\":\"%s\",\"result\":%d,\"dtype\":%d,\"rank\":%u,\"address\":%llu", call, result, dtype, rank,
            (unsigned long long)(uintptr_t)addr);
    const unsigned r = rank <= 5 ? rank : 5;
    write_u64s(f, "dims", dims, r);
    write_u64s(f, "strides", strides, r ? r - 1 : 0);
    if (box) write_u32s(f, "box", box, r);
    write_u32s(f, "elem_strides", elem, r);
    fprintf(f, ",\"interleave\":%d,\"swizzle\":%d,\"l2\":%d,\"oob\":%d,\"bytes\":\"", interleave, swizzle, l2, oob);
    const unsigned char* b = (const unsigned char*)map;
    for (int i = 0; i < 128; ++i) fprintf(f, "%02x", result == 0 && b ? b[i] : 0);
    fputs("\"}\n", f);
    if (f != stderr) fclose(f);
  }
  pthread_mutex_unlock(&out_lock);
}

static int wrap_tiled(void* map, int dtype, cuuint32_t rank, void* addr, const cuuint64_t* dims,
                      const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem, int interleave,
                      int swizzle, int l2, int oob) {
  if (!real_tiled) real_tiled = (tiled_fn)driver("cuTensorMapEncodeTiled");
  const int r = real_tiled ? real_tiled(map, dtype, rank, addr, dims, strides, box, elem, interleave, swizzle, l2, oob)
                           : 999;  // CUDA_ERROR_UNKNOWN: no driver
  record("cuTensorMapEncodeTiled", r, map, dtype, rank, addr, dims, strides, box, elem, interleave, swizzle, l2, oob);
  return r;
}

static int wrap_im2col(void* map, int dtype, cuuint32_t rank, void* addr, const cuuint64_t* dims,
                       const cuuint64_t* strides, const int* lower, const int* upper, cuuint32_t channels,
                       cuuint32_t pixels, const cuuint32_t* elem, int interleave, int swizzle, int l2, int oob) {
  if (!real_im2col) real_im2col = (im2col_fn)driver("cuTensorMapEncodeIm2col");
  const int r = real_im2col ? real_im2col(map, dtype, rank, addr, dims, strides, lower, upper, channels, pixels, elem,
                                          interleave, swizzle, l2, oob)
                            : 999;
  record("cuTensorMapEncodeIm2col", r, map, dtype, rank, addr, dims, strides, NULL, elem, interleave, swizzle, l2, oob);
  return r;
}

CUresult cuGetProcAddress_v2(const char* name, void** pfn, int version, cuuint64_t flags, void* status);

static void* wrapper_for(const char* name) {
  if (!name) return NULL;
  if (!strcmp(name, "cuTensorMapEncodeTiled")) return (void*)wrap_tiled;
  if (!strcmp(name, "cuTensorMapEncodeIm2col")) return (void*)wrap_im2col;
  return NULL;
}

// Callers that link libcuda.
CUresult cuTensorMapEncodeTiled(void* map, int dtype, cuuint32_t rank, void* addr, const cuuint64_t* dims,
                                const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem, int interleave,
                                int swizzle, int l2, int oob) {
  return wrap_tiled(map, dtype, rank, addr, dims, strides, box, elem, interleave, swizzle, l2, oob);
}
CUresult cuTensorMapEncodeIm2col(void* map, int dtype, cuuint32_t rank, void* addr, const cuuint64_t* dims,
                                 const cuuint64_t* strides, const int* lower, const int* upper, cuuint32_t channels,
                                 cuuint32_t pixels, const cuuint32_t* elem, int interleave, int swizzle, int l2,
                                 int oob) {
  return wrap_im2col(map, dtype, rank, addr, dims, strides, lower, upper, channels, pixels, elem, interleave, swizzle,
                     l2, oob);
}

// Callers that look the driver up by name.
void* dlsym(void* handle, const char* name) {
  void* w = wrapper_for(name);
  if (w) return w;
  void* real = real_dlsym()(handle, name);
  // A caller that looks up the driver's own lookup gets this library's, which hands out the wrappers.
  if (real && !strcmp(name, "cuGetProcAddress_v2")) return (void*)cuGetProcAddress_v2;
  return real;
}

// Callers that ask the driver (the CUDA runtime's cudaGetDriverEntryPoint ends here too).
static CUresult procaddr(const char* name, void** pfn, int version, cuuint64_t flags, void* status, const char* which) {
  if (!real_procaddr) real_procaddr = (procaddr_fn)driver(which);
  const CUresult r = real_procaddr ? real_procaddr(name, pfn, version, flags, status) : 999;
  void* w = wrapper_for(name);
  if (r == 0 && w && pfn && *pfn) *pfn = w;
  return r;
}
CUresult cuGetProcAddress_v2(const char* name, void** pfn, int version, cuuint64_t flags, void* status) {
  return procaddr(name, pfn, version, flags, status, "cuGetProcAddress_v2");
}

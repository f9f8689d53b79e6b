// tmakit_capture: the descriptors a program encodes through the CUDA driver, as they are made.
//
//   tmakit capture -- python3 my_kernel.py          (preloads this library and explains every map)
//   LD_PRELOAD=libtmakit_capture.so TMAKIT_CAPTURE=maps.jsonl python3 my_kernel.py
//
// Whatever stack builds a tensor map (CuTe DSL's runtime, Triton's launcher, cuda.core, CUTLASS, a
// hand-written host) ends in the driver's cuTensorMapEncodeTiled / EncodeIm2col / EncodeIm2colWide
// (and cuTensorMapReplaceAddress to re-point one), reached in one of four ways, each intercepted
// here:
//   linked               the program (or a library) links libcuda: this library's exports come first;
//   dlsym                dlsym(RTLD_DEFAULT or a libcuda handle, name): this library's dlsym;
//   cuGetProcAddress     the driver's lookup, v1 and _v2 (any cudaVersion), itself reached linked,
//   cuGetProcAddress_v2  by dlsym or by asking cuGetProcAddress for "cuGetProcAddress". The CUDA
//                        runtime's cudaGetDriverEntryPoint[ByVersion] ends here: libcudart, shared or
//                        static, dlsym's the driver's cuGetProcAddress(_v2) and asks it.
// Each way hands out its own wrapper, which calls the function that way found, then appends one
// JSON line (capture_record.h) to the file TMAKIT_CAPTURE names: the arguments, the result, the
// bytes. The launch functions looked up by dlsym or cuGetProcAddress (cuLaunchKernel, ...Ex) are
// wrapped too, so that the maps a kernel receives are recorded however they were made
// (capture_launch.h). It changes nothing the program sees while a driver answers. Without one (no libcuda.so.1,
// or the toolkit's stub) the lookups still hand out the wrappers, which answer CUDA_ERROR_UNKNOWN
// (999) or the stub's CUDA_ERROR_STUB_LIBRARY (34), so that a program's arguments can be recorded
// on a machine without a GPU. Linux, glibc. Exports: the four functions, cuGetProcAddress(_v2),
// dlsym; everything else is hidden.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "capture_driver.h"
#include "capture_launch.h"
#include "capture_record.h"
#include "encoder_types.h"

#define EXPORT __attribute__((visibility("default")))

// How the program reached a function, and which function.
enum Path { kLinked, kDlsym, kProcAddr, kProcAddrV2, kPaths };
static const char* const kPathName[kPaths] = {"linked", "dlsym", "cuGetProcAddress", "cuGetProcAddress_v2"};
enum Fn { kTiled, kIm2col, kWide, kReplace, kFns };
static const char* const kFnName[kFns] = {"cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col",
                                          "cuTensorMapEncodeIm2colWide", "cuTensorMapReplaceAddress"};

// The function each way last found (NULL: none yet; the wrapper then asks the driver by name).
static void* found[kPaths][kFns];
// The driver's cuGetProcAddress / _v2 as the program found them (NULL: ask the driver by name).
static void* found_procaddr[2];

static int fn_index(const char* name) {
  for (int f = 0; name && f < kFns; ++f)
    if (!strcmp(name, kFnName[f])) return f;
  return -1;
}

static void* target(enum Path p, enum Fn f) {
  void* t = __atomic_load_n(&found[p][f], __ATOMIC_ACQUIRE);
  return t ? t : capture_driver_fn(kFnName[f]);
}

static void remember(enum Path p, enum Fn f, void* fn) { __atomic_store_n(&found[p][f], fn, __ATOMIC_RELEASE); }

// ---- the wrappers: call the function found, then record the call
static int call_tiled(enum Path p, void* map, int dtype, uint32_t rank, void* addr, const uint64_t* dims,
                      const uint64_t* strides, const uint32_t* box, const uint32_t* elem, int il, int sw, int l2,
                      int oob) {
  const tiled_fn real = (tiled_fn)target(p, kTiled);
  const int r = real ? real(map, dtype, rank, addr, dims, strides, box, elem, il, sw, l2, oob) : kCudaNoDriver;
  const CaptureCall c = {.call = kFnName[kTiled], .via = kPathName[p], .result = r, .driver = real != NULL,
                         .kind = kCaptureTiled, .map = map, .address = addr, .dtype = dtype, .rank = rank,
                         .dims = dims, .strides = strides, .box = box, .elem_strides = elem, .interleave = il,
                         .swizzle = sw, .l2 = l2, .oob = oob};
  capture_record(&c);
  return r;
}

static int call_im2col(enum Path p, void* map, int dtype, uint32_t rank, void* addr, const uint64_t* dims,
                       const uint64_t* strides, const int* lower, const int* upper, uint32_t channels,
                       uint32_t pixels, const uint32_t* elem, int il, int sw, int l2, int oob) {
  const im2col_fn real = (im2col_fn)target(p, kIm2col);
  const int r = real ? real(map, dtype, rank, addr, dims, strides, lower, upper, channels, pixels, elem, il, sw, l2,
                            oob)
                     : kCudaNoDriver;
  const CaptureCall c = {.call = kFnName[kIm2col], .via = kPathName[p], .result = r, .driver = real != NULL,
                         .kind = kCaptureIm2col, .map = map, .address = addr, .dtype = dtype, .rank = rank,
                         .dims = dims, .strides = strides, .elem_strides = elem, .lower = lower, .upper = upper,
                         .channels = channels, .pixels = pixels, .interleave = il, .swizzle = sw, .l2 = l2,
                         .oob = oob};
  capture_record(&c);
  return r;
}

static int call_wide(enum Path p, void* map, int dtype, uint32_t rank, void* addr, const uint64_t* dims,
                     const uint64_t* strides, int lower, int upper, uint32_t channels, uint32_t pixels,
                     const uint32_t* elem, int il, int mode, int sw, int l2, int oob) {
  const wide_fn real = (wide_fn)target(p, kWide);
  const int r = real ? real(map, dtype, rank, addr, dims, strides, lower, upper, channels, pixels, elem, il, mode,
                            sw, l2, oob)
                     : kCudaNoDriver;
  const CaptureCall c = {.call = kFnName[kWide], .via = kPathName[p], .result = r, .driver = real != NULL,
                         .kind = kCaptureIm2colWide, .map = map, .address = addr, .dtype = dtype, .rank = rank,
                         .dims = dims, .strides = strides, .elem_strides = elem, .lower = &lower, .upper = &upper,
                         .channels = channels, .pixels = pixels, .interleave = il, .swizzle = sw, .l2 = l2,
                         .oob = oob, .mode = mode};
  capture_record(&c);
  return r;
}

static int call_replace(enum Path p, void* map, void* addr) {
  const replace_fn real = (replace_fn)target(p, kReplace);
  const int r = real ? real(map, addr) : kCudaNoDriver;
  const CaptureCall c = {.call = kFnName[kReplace], .via = kPathName[p], .result = r, .driver = real != NULL,
                         .kind = kCaptureReplaceAddress, .map = map, .address = addr};
  capture_record(&c);
  return r;
}

// One wrapper of each function per way, so that a record says how the program reached it.
#define TILED_PARAMS                                                                                          \
  void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims, const uint64_t *strides,             \
      const uint32_t *box, const uint32_t *elem, int il, int sw, int l2, int oob
#define IM2COL_PARAMS                                                                                         \
  void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims, const uint64_t *strides,             \
      const int *lower, const int *upper, uint32_t ch, uint32_t px, const uint32_t *elem, int il, int sw, int l2, \
      int oob
#define WIDE_PARAMS                                                                                           \
  void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims, const uint64_t *strides, int lower,  \
      int upper, uint32_t ch, uint32_t px, const uint32_t *elem, int il, int mode, int sw, int l2, int oob
#define WRAPPERS(P)                                                                                           \
  static int tiled_##P(TILED_PARAMS) {                                                                        \
    return call_tiled(P, map, dtype, rank, addr, dims, strides, box, elem, il, sw, l2, oob);                  \
  }                                                                                                           \
  static int im2col_##P(IM2COL_PARAMS) {                                                                      \
    return call_im2col(P, map, dtype, rank, addr, dims, strides, lower, upper, ch, px, elem, il, sw, l2, oob); \
  }                                                                                                           \
  static int wide_##P(WIDE_PARAMS) {                                                                          \
    return call_wide(P, map, dtype, rank, addr, dims, strides, lower, upper, ch, px, elem, il, mode, sw, l2,  \
                     oob);                                                                                    \
  }                                                                                                           \
  static int replace_##P(void* map, void* addr) { return call_replace(P, map, addr); }
WRAPPERS(kDlsym)
WRAPPERS(kProcAddr)
WRAPPERS(kProcAddrV2)

static void* const kWrapper[kPaths][kFns] = {
    {NULL, NULL, NULL, NULL},  // linked: the exports below
    {(void*)tiled_kDlsym, (void*)im2col_kDlsym, (void*)wide_kDlsym, (void*)replace_kDlsym},
    {(void*)tiled_kProcAddr, (void*)im2col_kProcAddr, (void*)wide_kProcAddr, (void*)replace_kProcAddr},
    {(void*)tiled_kProcAddrV2, (void*)im2col_kProcAddrV2, (void*)wide_kProcAddrV2, (void*)replace_kProcAddrV2},
};

// ---- linked callers
EXPORT int cuTensorMapEncodeTiled(TILED_PARAMS) {
  return call_tiled(kLinked, map, dtype, rank, addr, dims, strides, box, elem, il, sw, l2, oob);
}
EXPORT int cuTensorMapEncodeIm2col(IM2COL_PARAMS) {
  return call_im2col(kLinked, map, dtype, rank, addr, dims, strides, lower, upper, ch, px, elem, il, sw, l2, oob);
}
EXPORT int cuTensorMapEncodeIm2colWide(WIDE_PARAMS) {
  return call_wide(kLinked, map, dtype, rank, addr, dims, strides, lower, upper, ch, px, elem, il, mode, sw, l2,
                   oob);
}
EXPORT int cuTensorMapReplaceAddress(void* map, void* addr) { return call_replace(kLinked, map, addr); }

// ---- callers that ask the driver: cuGetProcAddress (v1, four arguments) and _v2 (five)
EXPORT int cuGetProcAddress(const char* name, void** pfn, int version, uint64_t flags);
EXPORT int cuGetProcAddress_v2(const char* name, void** pfn, int version, uint64_t flags, void* status);

static int ask_driver(int v2, const char* name, void** pfn, int version, uint64_t flags, void* status) {
  void* real = __atomic_load_n(&found_procaddr[v2], __ATOMIC_ACQUIRE);
  if (!real) real = capture_driver_fn(v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress");
  if (!real) return kCudaNoDriver;
  if (v2) return ((procaddr_v2_fn)real)(name, pfn, version, flags, status);
  return ((procaddr_v1_fn)real)(name, pfn, version, flags);
}

// The driver's answer, with the encoders (and the lookup itself) swapped for this library's. Where
// no driver answers, the encoders and the lookup are handed out anyway (see the top of the file).
static int procaddr(int v2, const char* name, void** pfn, int version, uint64_t flags, void* status) {
  capture_trace_lookup(v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress", name);
  int r = ask_driver(v2, name, pfn, version, flags, status);
  const enum Path p = v2 ? kProcAddrV2 : kProcAddr;
  const int f = fn_index(name);
  const int lookup = name && !strcmp(name, "cuGetProcAddress");
  const int found_one = pfn && r == kCudaSuccess && *pfn;
  const int no_driver = pfn && capture_no_driver_result(r);
  if (capture_is_launch(name) && (found_one || no_driver)) {
    *pfn = capture_launch_wrapper(name, found_one ? *pfn : NULL, kPathName[p]);
    if (!*pfn) return r;
  } else if (f >= 0 && (found_one || no_driver)) {
    if (found_one) remember(p, (enum Fn)f, *pfn);
    *pfn = kWrapper[p][f];
  } else if (lookup && (found_one || no_driver)) {
    const int gets_v2 = version >= 12000;  // the driver hands out cuGetProcAddress_v2 from CUDA 12.0
    if (found_one) __atomic_store_n(&found_procaddr[gets_v2], *pfn, __ATOMIC_RELEASE);
    *pfn = gets_v2 ? (void*)cuGetProcAddress_v2 : (void*)cuGetProcAddress;
  } else {
    return r;
  }
  if (no_driver && v2 && status) *(int*)status = 0;  // CU_GET_PROC_ADDRESS_SUCCESS
  return kCudaSuccess;
}

int cuGetProcAddress(const char* name, void** pfn, int version, uint64_t flags) {
  return procaddr(0, name, pfn, version, flags, NULL);
}
int cuGetProcAddress_v2(const char* name, void** pfn, int version, uint64_t flags, void* status) {
  return procaddr(1, name, pfn, version, flags, status);
}

// ---- callers that look the driver up by name
static int is_ours(const void* fn) {
  Dl_info self, other;
  return dladdr((const void*)fn_index, &self) && dladdr(fn, &other) && self.dli_fbase == other.dli_fbase;
}

EXPORT void* dlsym(void* handle, const char* name) {
  capture_trace_lookup("dlsym", name);
  void* real = capture_real_dlsym()(handle, name);
  if (capture_is_launch(name) && (real || capture_driver_absent()) && !is_ours(real))
    return capture_launch_wrapper(name, real, kPathName[kDlsym]);
  const int f = fn_index(name);
  if (f >= 0) {
    // RTLD_DEFAULT finds this library's export first: then the wrapper asks the driver by name.
    if (real && !is_ours(real)) remember(kDlsym, (enum Fn)f, real);
    return real || capture_driver_absent() ? kWrapper[kDlsym][f] : NULL;
  }
  if (real && !is_ours(real)) {
    const int v2 = !strcmp(name, "cuGetProcAddress_v2");
    if (v2 || !strcmp(name, "cuGetProcAddress")) {
      __atomic_store_n(&found_procaddr[v2], real, __ATOMIC_RELEASE);
      return v2 ? (void*)cuGetProcAddress_v2 : (void*)cuGetProcAddress;
    }
  }
  return real;
}

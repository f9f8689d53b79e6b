// A program that encodes tensor maps every way a stack reaches the driver's encoders, for the
// capture tests (tools/capture/capture_test.py): linked, dlsym (RTLD_DEFAULT and a libcuda
// handle), cuGetProcAddress (v1, _v2, and _v2 found by asking cuGetProcAddress for
// "cuGetProcAddress"), and the CUDA runtime's cudaGetDriverEntryPoint[ByVersion]. Each way encodes
// the same bf16 4096 x N map with its own N (the tag below), so that its record can be told apart.
// It also "launches" through cuGetProcAddress_v2's cuLaunchKernel with a map in the parameter
// buffer (no kernel runs: the function is null), which the capture records as a kernel's map.
// It prints one line per way it tried: "<way> <tag> <result>" (result: what the encoder returned,
// or "lookup-failed <code>" when the lookup itself failed).
//
// Built with the CUDA toolkit (CAPTURE_PROBE_LINKED) it links libcuda (the toolkit's stub at link
// time) and the static CUDA runtime; without it, it tries the ways that need neither. Without a
// driver the encoders answer 999 (no libcuda.so.1) or 34 (the stub) and are still recorded; the
// runtime's lookup fails on the stub (cuInit answers 34), so that way is tried only with a driver.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "capture_probe_calls.h"

#ifdef CAPTURE_PROBE_LINKED
int cuTensorMapEncodeTiled(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*,
                           const uint32_t*, int, int, int, int);
int cuTensorMapEncodeIm2col(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const int*, const int*,
                            uint32_t, uint32_t, const uint32_t*, int, int, int, int);
int cuGetProcAddress_v2(const char*, void**, int, uint64_t, void*);
int cudaGetDriverEntryPoint(const char*, void**, unsigned long long, int*);
int cudaGetDriverEntryPointByVersion(const char*, void**, unsigned int, unsigned long long, int*);
#endif

// A context on device 0 where a driver answers (the encoders do not need one; a real program has one).
static void open_driver(void* cuda) {
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
  int (*retain)(void**, int) = (int (*)(void**, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
  int (*set_current)(void*) = (int (*)(void*))dlsym(cuda, "cuCtxSetCurrent");
  void* ctx = NULL;
  if (init && init(0) == 0 && retain && retain(&ctx, 0) == 0 && set_current) set_current(ctx);
}

// The ways through dlsym and the driver's lookup: they need no libcuda at link time.
static void by_name(void* cuda) {
  void* where = cuda ? cuda : RTLD_DEFAULT;
  probe_tiled("dlsym-default", kTagDlsymDefault, (tiled_fn)dlsym(RTLD_DEFAULT, "cuTensorMapEncodeTiled"));
  if (cuda) probe_tiled("dlsym-handle", kTagDlsymHandle, (tiled_fn)dlsym(cuda, "cuTensorMapEncodeTiled"));
  procaddr_v1_fn v1 = (procaddr_v1_fn)dlsym(where, "cuGetProcAddress");
  procaddr_v2_fn v2 = (procaddr_v2_fn)dlsym(where, "cuGetProcAddress_v2");
  probe_lookup_v1("procaddr-v1", kTagProcAddrV1, v1);
  probe_lookup_v2("procaddr-v2", kTagProcAddrV2, v2);
  probe_lookup_chain("procaddr-chain", kTagProcAddrChain, v2);
  probe_im2col_wide("procaddr-v2-wide", kTagWide, v2);
  probe_replace("dlsym-replace", kTagReplace, (replace_fn)dlsym(where, "cuTensorMapReplaceAddress"));
  probe_launch("procaddr-v2-launch", kTagLaunch, v2);
}

#ifdef CAPTURE_PROBE_LINKED
// The ways that link libcuda and the CUDA runtime.
static void linked(void) {
  probe_tiled("linked", kTagLinked, cuTensorMapEncodeTiled);
  probe_im2col("linked-im2col", kTagIm2col, cuTensorMapEncodeIm2col);
  probe_lookup_v2("linked-procaddr-v2", kTagLinkedProcAddr, cuGetProcAddress_v2);
  probe_runtime("runtime", kTagRuntime, cudaGetDriverEntryPoint, cudaGetDriverEntryPointByVersion);
}
#endif

int main(void) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (cuda) open_driver(cuda);
  by_name(cuda);
#ifdef CAPTURE_PROBE_LINKED
  linked();
#endif
  return 0;
}

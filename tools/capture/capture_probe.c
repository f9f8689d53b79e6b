// A program that encodes a tensor map the way a DSL's runtime does: it looks cuTensorMapEncodeTiled
// up by name (dlsym) and calls it. Run under LD_PRELOAD=libtmakit_capture.so by
// tools/capture/capture_test.sh; without a driver the call answers 999 (CUDA_ERROR_UNKNOWN) and the
// capture still records the arguments.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*tiled_fn)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*,
                        const uint32_t*, int, int, int, int);

int main(void) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (cuda) {  // the driver answers only once initialized, with a current context
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*retain)(void**, int) = (int (*)(void**, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int (*set_current)(void*) = (int (*)(void*))dlsym(cuda, "cuCtxSetCurrent");
    void* ctx = NULL;
    if (init && init(0) == 0 && retain && retain(&ctx, 0) == 0 && set_current) set_current(ctx);
  }
  tiled_fn f = (tiled_fn)dlsym(cuda ? cuda : RTLD_DEFAULT, "cuTensorMapEncodeTiled");
  if (!f) {
    fprintf(stderr, "capture_probe: no cuTensorMapEncodeTiled (is libtmakit_capture.so preloaded?)\n");
    return 1;
  }
  _Alignas(64) unsigned char map[128] = {0};
  static _Alignas(256) unsigned char data[4096 * 64 * 2];
  const uint64_t dims[2] = {4096, 4096}, strides[1] = {8192};
  const uint32_t box[2] = {64, 128}, elem[2] = {1, 1};
  // bf16 (9), 128B swizzle (3): tmakit encode tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 64,128 --swizzle 128B
  const int r = f(map, 9, 2, data, dims, strides, box, elem, 0, 3, 0, 0);
  printf("%d\n", r);
  return 0;
}

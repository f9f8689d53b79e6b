// The driver, found by the capture library itself (see capture_driver.h).
#define _GNU_SOURCE
#include "capture_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

capture_dlsym_fn capture_real_dlsym(void) {
  static capture_dlsym_fn real;
  capture_dlsym_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (!f) {
    // glibc >= 2.34 versions dlsym GLIBC_2.34 (older references stay GLIBC_2.2.5).
    f = (capture_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!f) f = (capture_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&real, f, __ATOMIC_RELEASE);
  }
  return f;
}

void* capture_driver_fn(const char* name) {
  static void* cuda;
  void* h = __atomic_load_n(&cuda, __ATOMIC_ACQUIRE);
  if (!h) {
    // RTLD_LOCAL: the driver's symbols are not added to the program's global scope by the capture.
    h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    __atomic_store_n(&cuda, h, __ATOMIC_RELEASE);
  }
  return capture_real_dlsym()(h, name);
}

int capture_driver_absent(void) {
  static int state;  // 0 unknown, 1 absent, 2 present
  int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
  if (!s) {
    int (*version)(int*) = (int (*)(int*))capture_driver_fn("cuDriverGetVersion");
    int v = 0;
    s = version && version(&v) != kCudaStubLibrary ? 2 : 1;
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
  }
  return s == 1;
}

int capture_no_driver_result(int result) { return result == kCudaNoDriver || result == kCudaStubLibrary; }

// Compute capability major -> the tmakit target whose rules apply (10.x, 11.x: sm_100; 12.x: sm_120).
static const char* arch_of(int major) {
  if (major == 9) return "sm_90";
  if (major == 10 || major == 11) return "sm_100";
  if (major == 12) return "sm_120";
  return NULL;
}

const char* capture_device_arch(char cc[8]) {
  cc[0] = 0;
  int (*get_device)(int*) = (int (*)(int*))capture_driver_fn("cuCtxGetDevice");
  int (*attribute)(int*, int, int) = (int (*)(int*, int, int))capture_driver_fn("cuDeviceGetAttribute");
  int dev = 0, major = 0, minor = 0;
  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
  if (!get_device || !attribute || get_device(&dev) != 0 || attribute(&major, 75, dev) != 0 ||
      attribute(&minor, 76, dev) != 0)
    return NULL;
  snprintf(cc, 8, "%d.%d", major % 100, minor % 100);
  return arch_of(major);
}

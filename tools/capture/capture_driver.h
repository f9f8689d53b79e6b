// The CUDA driver as the capture library sees it: its functions by name (never through the
// program's lookups, which the library intercepts), whether one is there, and the GPU it runs on.
#pragma once

#define CAPTURE_HIDDEN __attribute__((visibility("hidden")))

// CUresult values the capture library gives or recognises.
enum {
  kCudaSuccess = 0,
  kCudaStubLibrary = 34,  // CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda answered
  kCudaNoDriver = 999,    // CUDA_ERROR_UNKNOWN: no libcuda.so.1 to call (what a wrapper returns then)
};

typedef void* (*capture_dlsym_fn)(void*, const char*);

// glibc's dlsym (the library exports its own dlsym, which the program reaches instead).
CAPTURE_HIDDEN capture_dlsym_fn capture_real_dlsym(void);
// `name` in libcuda.so.1 (loaded on first use), or NULL when there is no driver library.
CAPTURE_HIDDEN void* capture_driver_fn(const char* name);
// 1 when no driver can answer: no libcuda.so.1, or the toolkit's stub (it answers
// CUDA_ERROR_STUB_LIBRARY to everything). Then the library hands out its wrappers even where the
// lookup failed, so that the program's arguments are still recorded.
CAPTURE_HIDDEN int capture_driver_absent(void);
// A driver result that means "no driver": kCudaNoDriver or kCudaStubLibrary.
CAPTURE_HIDDEN int capture_no_driver_result(int result);
// The tmakit target of the current context's GPU ("sm_90", "sm_100", "sm_120"), or NULL when no
// context is current or its compute capability is not one tmakit knows. `cc` gets "M.m" or "".
CAPTURE_HIDDEN const char* capture_device_arch(char cc[8]);

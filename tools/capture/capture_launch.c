// Kernel launches, their parameters searched for tensor maps (capture_launch.h).
#define _GNU_SOURCE
#include "capture_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_record.h"

// cuda.h's signatures with plain C types.
typedef int (*launch_fn)(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned smem, void* stream, void** params, void** extra);
typedef int (*launch_ex_fn)(const void* config, void* f, void** params, void** extra);
typedef int (*param_info_fn)(void* f, size_t index, size_t* offset, size_t* size);
typedef int (*func_name_fn)(const char** name, void* f);

enum { kSlots = 8 };  // distinct real functions per kind (the variants a process asks for)
enum LaunchKind { kLaunch, kLaunchEx, kKinds };

static void* real_fn[kKinds][kSlots];
static const char* via_of[kKinds][kSlots];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

// ---- contents already recorded: 64-bit digests, open addressing (full: record everything again)
enum { kSeen = 1 << 14 };
static uint64_t seen[kSeen];

static uint64_t digest(const unsigned char* b) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 128; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h | 1;  // never 0: 0 marks an empty slot
}

// 1 the first time these bytes are seen (the caller holds the lock).
static int first_sight(const unsigned char* b) {
  const uint64_t h = digest(b);
  for (unsigned i = 0, at = (unsigned)(h % kSeen); i < kSeen; ++i, at = (at + 1) % kSeen) {
    if (seen[at] == h) return 0;
    if (!seen[at]) {
      seen[at] = h;
      return 1;
    }
  }
  return 1;
}

// A CUtensorMap starts with the tensor's global address: nonzero, 16-byte aligned, a user address.
static int could_be_map(const unsigned char* b) {
  uint64_t a;
  memcpy(&a, b, sizeof a);
  return a != 0 && a % 16 == 0 && a < (1ull << 57);
}

static void record_window(const char* kernel, const char* via, int result, long param, size_t offset,
                          const unsigned char* b) {
  char line[640];
  int n = snprintf(line, sizeof line,
                   "{\"call\":\"kernel_parameter\",\"via\":\"%s\",\"result\":%d,\"driver\":true,\"pid\":%ld,"
                   "\"kernel\":\"%.200s\",\"param\":%ld,\"offset\":%zu,\"bytes\":\"",
                   via, result, (long)getpid(), kernel, param, offset);
  for (int i = 0; i < 128 && n > 0 && (size_t)n + 3 < sizeof line; ++i) n += snprintf(line + n, sizeof line - n, "%02x", b[i]);
  if (n <= 0 || (size_t)n + 3 >= sizeof line) return;
  n += snprintf(line + n, sizeof line - n, "\"}\n");
  capture_write_line(line, (size_t)n);
}

// Every 64-byte aligned window of `size` bytes at `base` (which lies `at` bytes into the parameter
// buffer) that could be a map and was not seen before.
static void scan(const char* kernel, const char* via, int result, long param, size_t at, const unsigned char* base,
                 size_t size) {
  for (size_t o = (64 - at % 64) % 64; o + 128 <= size; o += 64) {
    if (!could_be_map(base + o)) continue;
    pthread_mutex_lock(&lock);
    const int fresh = first_sight(base + o);
    pthread_mutex_unlock(&lock);
    if (fresh) record_window(kernel, via, result, param, at + o, base + o);
  }
}

// The parameters of one launch: through kernelParams (each parameter where the driver puts it; not
// searched without a driver that answers) or through `extra`'s one buffer.
static void* driver_once(void** slot, const char* name) {
  void* f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!f) {
    f = capture_driver_fn(name);
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

// A launch's handle is a CUfunction, or a CUkernel (what the CUDA runtime launches since 12.0, the
// driver taking it in a CUfunction's place): the cuFunc* queries answer the one, cuKernel* the other.
static const char* kernel_name(void* f, int status[2]) {
  static void* func_slot;
  static void* kernel_slot;
  const char* kernel = NULL;
  const func_name_fn by_func = (func_name_fn)driver_once(&func_slot, "cuFuncGetName");
  const func_name_fn by_kernel = (func_name_fn)driver_once(&kernel_slot, "cuKernelGetName");
  status[0] = by_func ? by_func(&kernel, f) : -1;
  if (status[0] == 0 && kernel) return kernel;
  status[1] = by_kernel ? by_kernel(&kernel, f) : -1;
  return status[1] == 0 && kernel ? kernel : "?";
}

// The query that places this handle's parameters (cuFuncGetParamInfo or cuKernelGetParamInfo), or
// NULL with `status` the first one's answer.
static param_info_fn param_info_for(void* f, int* status) {
  static void* func_slot;
  static void* kernel_slot;
  const param_info_fn by_func = (param_info_fn)driver_once(&func_slot, "cuFuncGetParamInfo");
  const param_info_fn by_kernel = (param_info_fn)driver_once(&kernel_slot, "cuKernelGetParamInfo");
  size_t offset = 0, size = 0;
  *status = by_func ? by_func(f, 0, &offset, &size) : -1;
  if (*status == 0) return by_func;
  if (by_kernel && by_kernel(f, 0, &offset, &size) == 0) return by_kernel;
  return NULL;
}

// Once per distinct handle: the kernel, how its parameters came and how many bytes were searched,
// so that a report can name the kernels that received no map as well as those that did.
static uint64_t launched[kSeen];
static int first_launch(void* f) {
  const uint64_t h = ((uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull) | 1;
  for (unsigned i = 0, at = (unsigned)(h % kSeen); i < kSeen; ++i, at = (at + 1) % kSeen) {
    if (launched[at] == h) return 0;
    if (!launched[at]) {
      launched[at] = h;
      return 1;
    }
  }
  return 0;  // full: no more launch records
}

static void record_launch(const char* kernel, const int name_status[2], const char* via, int result,
                          const char* parameters, int info_status, size_t count, size_t bytes) {
  char line[512];
  const int n = snprintf(line, sizeof line,
                         "{\"call\":\"kernel_launch\",\"via\":\"%s\",\"result\":%d,\"driver\":true,\"pid\":%ld,"
                         "\"kernel\":\"%.200s\",\"name_status\":[%d,%d],\"parameters\":\"%s\",\"info_status\":%d,"
                         "\"param_count\":%zu,\"param_bytes\":%zu}\n",
                         via, result, (long)getpid(), kernel, name_status[0], name_status[1], parameters,
                         info_status, count, bytes);
  if (n > 0 && (size_t)n < sizeof line) capture_write_line(line, (size_t)n);
}

static void scan_launch(void* f, void** params, void** extra, const char* via, int result) {
  int name_status[2] = {-1, -1};
  const char* kernel = kernel_name(f, name_status);
  const char* parameters = "none";
  int info_status = 0;
  size_t count = 0, bytes = 0;
  if (params) {
    const param_info_fn info = param_info_for(f, &info_status);
    parameters = info ? "kernelParams" : "kernelParams, not placed";
    // kernelParams holds one pointer per parameter and no terminator: the driver says how many
    for (size_t i = 0; info && i < 4096; ++i) {
      size_t offset = 0, size = 0;
      if (info(f, i, &offset, &size) != 0) break;
      ++count;
      bytes += size;
      if (size >= 128 && params[i]) scan(kernel, via, result, (long)i, offset, (const unsigned char*)params[i], size);
    }
  } else {
    // extra: {CU_LAUNCH_PARAM_BUFFER_POINTER (1), buffer, CU_LAUNCH_PARAM_BUFFER_SIZE (2), &size, END (0)}
    const unsigned char* buffer = NULL;
    size_t size = 0;
    for (int i = 0; extra && extra[i] && i < 16; i += 2) {
      if (extra[i] == (void*)1) buffer = (const unsigned char*)extra[i + 1];
      if (extra[i] == (void*)2 && extra[i + 1]) size = *(const size_t*)extra[i + 1];
    }
    if (buffer) {
      parameters = "extra";
      count = 1;
      bytes = size;
      if (size >= 128) scan(kernel, via, result, -1, 0, buffer, size);
    }
  }
  pthread_mutex_lock(&lock);
  const int fresh = first_launch(f);
  pthread_mutex_unlock(&lock);
  if (fresh) record_launch(kernel, name_status, via, result, parameters, info_status, count, bytes);
}

static int result_of_absent(void) { return capture_driver_absent() ? kCudaStubLibrary : kCudaNoDriver; }

#define LAUNCH_WRAPPER(I)                                                                                      \
  static int launch_##I(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
                        unsigned smem, void* stream, void** params, void** extra) {                            \
    const launch_fn real = (launch_fn)__atomic_load_n(&real_fn[kLaunch][I], __ATOMIC_ACQUIRE);                 \
    const int r = real ? real(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra) : result_of_absent();    \
    const int saved = errno;                                                                                   \
    scan_launch(f, params, extra, via_of[kLaunch][I], r);                                                      \
    errno = saved;                                                                                             \
    return r;                                                                                                  \
  }                                                                                                            \
  static int launch_ex_##I(const void* config, void* f, void** params, void** extra) {                         \
    const launch_ex_fn real = (launch_ex_fn)__atomic_load_n(&real_fn[kLaunchEx][I], __ATOMIC_ACQUIRE);         \
    const int r = real ? real(config, f, params, extra) : result_of_absent();                                  \
    const int saved = errno;                                                                                   \
    scan_launch(f, params, extra, via_of[kLaunchEx][I], r);                                                    \
    errno = saved;                                                                                             \
    return r;                                                                                                  \
  }
LAUNCH_WRAPPER(0)
LAUNCH_WRAPPER(1)
LAUNCH_WRAPPER(2)
LAUNCH_WRAPPER(3)
LAUNCH_WRAPPER(4)
LAUNCH_WRAPPER(5)
LAUNCH_WRAPPER(6)
LAUNCH_WRAPPER(7)

static void* const kWrappers[kKinds][kSlots] = {
    {(void*)launch_0, (void*)launch_1, (void*)launch_2, (void*)launch_3, (void*)launch_4, (void*)launch_5,
     (void*)launch_6, (void*)launch_7},
    {(void*)launch_ex_0, (void*)launch_ex_1, (void*)launch_ex_2, (void*)launch_ex_3, (void*)launch_ex_4,
     (void*)launch_ex_5, (void*)launch_ex_6, (void*)launch_ex_7},
};

static int kind_of(const char* name) {
  if (!name || strncmp(name, "cuLaunchKernel", 14) != 0) return -1;
  const char* rest = name + 14;
  if (!strncmp(rest, "Ex", 2)) return !rest[2] || rest[2] == '_' ? kLaunchEx : -1;
  return !rest[0] || rest[0] == '_' ? kLaunch : -1;
}

int capture_is_launch(const char* name) { return kind_of(name) >= 0; }

void* capture_launch_wrapper(const char* name, void* real, const char* via) {
  const int k = kind_of(name);
  if (k < 0) return real;
  for (int i = 0; i < kSlots; ++i) {
    if (real && __atomic_load_n(&real_fn[k][i], __ATOMIC_ACQUIRE) == real) return kWrappers[k][i];
  }
  pthread_mutex_lock(&lock);
  void* out = real;
  for (int i = 0; i < kSlots; ++i) {
    if (real_fn[k][i] == real && real) {  // another thread got here first
      out = kWrappers[k][i];
      break;
    }
    if (!real_fn[k][i] && !via_of[k][i]) {
      via_of[k][i] = via;
      __atomic_store_n(&real_fn[k][i], real, __ATOMIC_RELEASE);
      out = kWrappers[k][i];
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return out;
}

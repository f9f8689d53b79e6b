// NVML, loaded at run time (the toolkit here ships no nvml.h; the GPU machine has the library):
// the SM clock and board power of the current device, read by the benchmarks next to their timings.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace tmakit_bench {

struct Nvml {
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using Power = int (*)(void*, unsigned*);
  void* dev = nullptr;
  Clock clock = nullptr;
  Power power = nullptr;
  Nvml() {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) return;
    auto init = reinterpret_cast<Init>(dlsym(h, "nvmlInit_v2"));
    auto handle = reinterpret_cast<Handle>(dlsym(h, "nvmlDeviceGetHandleByIndex_v2"));
    clock = reinterpret_cast<Clock>(dlsym(h, "nvmlDeviceGetClockInfo"));
    power = reinterpret_cast<Power>(dlsym(h, "nvmlDeviceGetPowerUsage"));
    int d = 0;
    cudaGetDevice(&d);
    if (!init || !handle || init() != 0 || handle(static_cast<unsigned>(d), &dev) != 0) dev = nullptr;
  }
  unsigned sm_mhz() const {  // NVML_CLOCK_SM = 1
    unsigned v = 0;
    return dev && clock && clock(dev, 1, &v) == 0 ? v : 0;
  }
  unsigned watts() const {
    unsigned mw = 0;
    return dev && power && power(dev, &mw) == 0 ? mw / 1000 : 0;
  }
};

}  // namespace tmakit_bench

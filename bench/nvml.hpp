// NVML, loaded at run time (the toolkit here ships no nvml.h; the GPU machine has the library):
// the SM clock and board power of the current device, read by the benchmarks next to their timings,
// and its NVLink data counters per link (nvmlDeviceGetFieldValues, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
// / _RX with the link as scopeId; KiB of payload, read without root where the driver allows it).
// The device is found by its PCI bus id (CUDA's and NVML's device orders may differ).
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdint>
#include <vector>

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
    fields = reinterpret_cast<Fields>(dlsym(h, "nvmlDeviceGetFieldValues"));
    auto by_bus = reinterpret_cast<ByBus>(dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    int d = 0;
    cudaGetDevice(&d);
    char bus[32] = {};
    if (!init || !handle || init() != 0) return;
    if (!(by_bus && cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess && by_bus(bus, &dev) == 0) &&
        handle(static_cast<unsigned>(d), &dev) != 0)
      dev = nullptr;
  }

  // nvmlFieldValue_t (nvml.h): the value is a union of 8 bytes.
  struct FieldValue {
    unsigned field_id = 0, scope_id = 0;
    long long timestamp = 0, latency_us = 0;
    int value_type = 0, nvml_return = 0;
    unsigned long long value = 0;
  };
  using Fields = int (*)(void*, int, FieldValue*);
  using ByBus = int (*)(const char*, void**);
  Fields fields = nullptr;
  static constexpr unsigned kLinkCount = 91, kDataTx = 138, kDataRx = 139;  // NVML_FI_DEV_NVLINK_*

  // The device's NVLinks (0 where NVML does not say).
  unsigned nvlinks() const {
    FieldValue v;
    v.field_id = kLinkCount;
    return dev && fields && fields(dev, 1, &v) == 0 && v.nvml_return == 0 ? static_cast<unsigned>(v.value) : 0;
  }
  // Payload KiB sent (tx) and received (rx) per link so far; false, with the first failing NVML
  // return code in *why, when a link's counter cannot be read.
  bool nvlink_kib(unsigned links, std::vector<unsigned long long>& tx, std::vector<unsigned long long>& rx,
                  int* why) const {
    *why = -1;
    if (!dev || !fields || links == 0) return false;
    std::vector<FieldValue> v(2 * links);
    for (unsigned l = 0; l < links; ++l) {
      v[2 * l].field_id = kDataTx;
      v[2 * l + 1].field_id = kDataRx;
      v[2 * l].scope_id = v[2 * l + 1].scope_id = l;
    }
    const int r = fields(dev, static_cast<int>(v.size()), v.data());
    if (r != 0) {
      *why = r;
      return false;
    }
    tx.assign(links, 0);
    rx.assign(links, 0);
    for (unsigned l = 0; l < links; ++l) {
      if (v[2 * l].nvml_return != 0 || v[2 * l + 1].nvml_return != 0) {
        *why = v[2 * l].nvml_return != 0 ? v[2 * l].nvml_return : v[2 * l + 1].nvml_return;
        return false;
      }
      tx[l] = v[2 * l].value;
      rx[l] = v[2 * l + 1].value;
    }
    return true;
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

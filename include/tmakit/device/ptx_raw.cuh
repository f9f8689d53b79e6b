// Every raw inline-PTX statement of tmakit's device layer, gathered in one place. Everything else
// goes through CCCL's cuda::ptx wrappers (<cuda/ptx>); each function here says why cuda::ptx does
// not cover it.
#pragma once

#include <cstdint>

namespace tmakit::device::ptx_raw {

// ld.volatile.shared.b64: reads an mbarrier's 64-bit state word. cuda::ptx wraps instructions
// with special semantics, not plain loads; the explicit .shared space (instead of a generic load)
// keeps the read identical to the probe that measured it (tools/driver_sweep/mbarrier_probe.cu:
// on sm_90 the word reads 0 whatever the barrier awaits). Debug reporting only.
__device__ inline std::uint64_t ld_shared_volatile_b64(std::uint32_t smem_addr) {
  std::uint64_t v;
  asm volatile("ld.volatile.shared.b64 %0, [%1];" : "=l"(v) : "r"(smem_addr) : "memory");
  return v;
}

}  // namespace tmakit::device::ptx_raw

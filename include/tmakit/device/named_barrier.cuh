// Named barriers: a barrier over a subset of the CTA's warps (a warpgroup's epilogue, the
// consumers of a ring), named by an id 0..15 (0 is __syncthreads' own). cuda::ptx has no wrapper
// for the named forms of bar / barrier.
#pragma once

#include <cstdint>

namespace tmakit::device {

// bar.sync id, threads;  -- waits until `threads` threads (a multiple of 32) arrived at barrier id.
__device__ __forceinline__ void named_barrier_sync(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(threads) : "memory");
}
// bar.arrive id, threads;  -- counts this warp's arrival without waiting (the waiting side uses
// bar.sync with the same thread count).
__device__ __forceinline__ void named_barrier_arrive(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(threads) : "memory");
}

}  // namespace tmakit::device

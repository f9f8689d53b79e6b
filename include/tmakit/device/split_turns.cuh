// SplitTurns: the K slices of one output tile summed inside the kernel (split K without a second
// kernel). The slices of a tile are computed by different CTAs; each, once its accumulators hold
// its partial sums, takes a turn at the tile's counters in global memory:
//
//   turn 0          stores its partial sums into the fp32 workspace (TMA store), publishes
//   turn 1 .. S-2   waits until turn 0 has published, adds its sums into the workspace (TMA
//                   reductions), publishes
//   turn S-1        waits until all S - 1 have published, adds the workspace to its accumulators
//                   and writes the tile's output as an unsplit tile would; resets the counters
//
//   const std::uint32_t turn = take_turn(counters);               one thread per tile share
//   ... turn 0: TMA store; others: wait_published(counters, 1), TMA reduce-add ...
//   wait_group<0>(); publish(counters);                             (turns < S - 1)
//   wait_published(counters, S - 1); reset(counters); ... TMA load the workspace ...   (turn S - 1)
//
// No slice ever waits for one that has not taken its turn: a turn waits only for turns already
// taken, and those wait for nothing but turn 0, which waits for nothing. So no wait can deadlock,
// whichever CTAs are resident (a persistent grid or not). The workspace needs no zeroing: turn 0
// overwrites it. The counters are zero before the first launch (the host's memset) and after each
// (turn S - 1 resets them once every other turn has published and no one reads them again); launches
// of one GEMM must not overlap (one stream).
//
// Memory order: publish() follows the bulk group's completion (wait_group<0>: the TMA writes are
// performed) with a proxy fence (async -> generic) and a release increment; wait_published()'s
// acquire is followed by a proxy fence (generic -> async), so the TMA copies that come after it see
// every published write.
//
// With the watchdog compiled in (TMAKIT_WATCHDOG), a wait past watchdog::bound_ns() reports the
// tile's counters and traps instead of hanging.
#pragma once

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#include "tmakit/device/watchdog.cuh"

namespace tmakit::device {

// One tile share's counters (global memory, zero before the first launch).
struct SplitCounters {
  std::uint32_t turns = 0;      // turns taken
  std::uint32_t published = 0;  // partial sums in the workspace
};

namespace detail {
using SplitAtomic = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;
#if TMAKIT_WATCHDOG
__device__ __noinline__ inline void report_split_and_trap(const SplitCounters* c, std::uint32_t want, std::uint32_t got,
                                                          unsigned long long waited, unsigned long long bound) {
  watchdog::detail::claim_reporter();
  printf("tmakit watchdog: block (%u,%u,%u) thread %u: waited %llu ns (bound %llu ns) for %u published K slices of a "
         "split tile (counters at %p: %u turns taken, %u published)\n",
         blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, waited, bound, want, static_cast<const void*>(c),
         SplitAtomic(const_cast<std::uint32_t&>(c->turns)).load(cuda::memory_order_relaxed), got);
  printf("tmakit watchdog: diagnosis: a K slice took its turn and never published (its workspace copies never "
         "completed), or the counters were not zero at the launch (a launch overlapped another of the same GEMM)\n");
  __threadfence_system();
  __trap();
}
#endif
}  // namespace detail

// This slice's turn at the tile: 0, 1, ... in the order the slices come.
__device__ __forceinline__ std::uint32_t take_turn(SplitCounters* c) {
  return detail::SplitAtomic(c->turns).fetch_add(1u, cuda::memory_order_relaxed);
}

// After wait_group<0>() of the bulk group that wrote this slice's sums: they count.
__device__ __forceinline__ void publish(SplitCounters* c) {
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
  detail::SplitAtomic(c->published).fetch_add(1u, cuda::memory_order_release);
}

// Until at least n slices have published; then their writes are visible to this thread's TMA copies.
__device__ __forceinline__ void wait_published(SplitCounters* c, std::uint32_t n) {
  detail::SplitAtomic published(c->published);
  std::uint32_t v = published.load(cuda::memory_order_acquire);
  if (v < n) {
#if TMAKIT_WATCHDOG
    const unsigned long long bound = watchdog::bound_ns();
    const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
    while ((v = published.load(cuda::memory_order_acquire)) < n) {
      const unsigned long long dt = cuda::ptx::get_sreg_globaltimer() - t0;
      if (dt > bound) detail::report_split_and_trap(c, n, v, dt, bound);
      __nanosleep(32);
    }
#else
    while (published.load(cuda::memory_order_acquire) < n) __nanosleep(32);
#endif
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
}

// The last turn, once every other slice has published: the counters back to zero for the next launch.
__device__ __forceinline__ void reset(SplitCounters* c) {
  detail::SplitAtomic(c->turns).store(0u, cuda::memory_order_relaxed);
  detail::SplitAtomic(c->published).store(0u, cuda::memory_order_relaxed);
}

}  // namespace tmakit::device

// Counted signals between GPUs (tmakit/peer/signals.hpp), with bounded waits. One thread per block
// signals and waits; the counters live in NCCL symmetric memory, reached through load/store
// accessible peer pointers (NVLink), and are updated with system-scope atomics:
//
//   signal_arrival(s, to, block, call)    st.release.sys   the call number into rank `to`'s arrival slot
//   wait_arrival(s, from, block, call)    until this rank's slot from `from` holds `call` (or later)
//   publish_async_writes()                after wait_group<0>(): the TMA writes, ordered before
//                                         the signals that follow (async proxy -> generic, system)
//   signal_bytes(s, to, block, n)         red.release.sys  +n on rank `to`'s byte counter
//   wait_bytes(s, from, block, n)         until exactly n bytes from `from` are counted, then 0
//
// Watchdog (TMAKIT_WATCHDOG, watchdog.cuh): a wait past the bound (watchdog::bound_ns()) reports
// and traps, one reporter per grid:
//   tmakit watchdog: rank 0 block 3: waited 1000012345 ns (bound 1000000000 ns) for peer rank 1
//   tmakit watchdog: diagnosis: peer never arrived: peer rank 1 block 3 last entered call 0, this is call 1; it never called the collective, or it is stuck before it
//   tmakit watchdog: diagnosis: bytes missing: peer rank 1 block 3 delivered 32768 of the 65536 B its plan sends here; 32768 B missing (the peer's plan moves fewer bytes than this rank's, or its copies never completed)
// and a byte counter that passes its target does so at once, without waiting:
//   tmakit watchdog: diagnosis: byte count mismatch: peer rank 0 block 3 delivered 98304 B, more than the 65536 B this rank's plan expects (+32768 B); both sides must plan the same tensor
// With the watchdog compiled out the waits spin without a bound (and without the check).
#pragma once

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#include "tmakit/device/tma.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/peer/signals.hpp"

namespace tmakit::device {

namespace detail {
__device__ inline std::uint64_t* slot(std::uint64_t* base, PeerSignalKind k, std::int32_t from, std::uint32_t block) {
  return base + signal_slot(k, from, block);
}
__device__ inline void signal_add(std::uint64_t* p, std::uint64_t v) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> a(*p);
  a.fetch_add(v, cuda::memory_order_release);
}
__device__ inline std::uint64_t signal_load(std::uint64_t* p) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> a(*p);
  return a.load(cuda::memory_order_acquire);
}

#if TMAKIT_WATCHDOG
// kind 0: arrival (got = the peer's last call, want = this call); 1: bytes missing; 2: bytes beyond the plan.
__device__ __noinline__ inline void report_peer_and_trap(int kind, const PeerSignals& s, std::int32_t from,
                                                         std::uint32_t block, std::uint64_t got, std::uint64_t want,
                                                         unsigned long long waited, unsigned long long bound) {
  watchdog::detail::claim_reporter();
  if (kind != 2)
    printf("tmakit watchdog: rank %d block %u: waited %llu ns (bound %llu ns) for peer rank %d\n", s.rank, block,
           waited, bound, from);
  else
    printf("tmakit watchdog: rank %d block %u: byte counter of peer rank %d passed its target\n", s.rank, block, from);
  if (kind == 0)
    printf("tmakit watchdog: diagnosis: peer never arrived: peer rank %d block %u last entered call %llu, this is "
           "call %llu; it never called the collective, or it is stuck before it\n",
           from, block, static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
  else if (kind == 1)
    printf("tmakit watchdog: diagnosis: bytes missing: peer rank %d block %u delivered %llu of the %llu B its plan "
           "sends here; %llu B missing (the peer's plan moves fewer bytes than this rank's, or its copies never "
           "completed)\n",
           from, block, static_cast<unsigned long long>(got), static_cast<unsigned long long>(want),
           static_cast<unsigned long long>(want - got));
  else
    printf("tmakit watchdog: diagnosis: byte count mismatch: peer rank %d block %u delivered %llu B, more than the "
           "%llu B this rank's plan expects (+%llu B); both sides must plan the same tensor\n",
           from, block, static_cast<unsigned long long>(got), static_cast<unsigned long long>(want),
           static_cast<unsigned long long>(got - want));
  __threadfence_system();
  __trap();
}
#endif

// Spins until done(value); past the watchdog's bound, reports `kind` and traps.
template <class Done>
__device__ inline std::uint64_t wait_counter(std::uint64_t* p, Done done, [[maybe_unused]] int kind,
                                             [[maybe_unused]] const PeerSignals& s, [[maybe_unused]] std::int32_t from,
                                             [[maybe_unused]] std::uint32_t block,
                                             [[maybe_unused]] std::uint64_t want) {
  std::uint64_t v = signal_load(p);
  if (done(v)) return v;
#if TMAKIT_WATCHDOG
  const unsigned long long bound = watchdog::bound_ns();
  const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
  while (!done(v = signal_load(p))) {
    const unsigned long long dt = cuda::ptx::get_sreg_globaltimer() - t0;
    if (dt > bound) report_peer_and_trap(kind, s, from, block, v, want, dt, bound);
    __nanosleep(64);
  }
#else
  while (!done(v = signal_load(p))) __nanosleep(64);
#endif
  return v;
}
}  // namespace detail

// Arrival is a store of the call number (release, system scope), not an add: a block takes part
// only in the calls launched with more blocks than its index, so counting would drift.
__device__ inline void signal_arrival(const PeerSignals& s, std::int32_t to, std::uint32_t block, std::uint64_t call) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> a(
      *detail::slot(s.peer[to], PeerSignalKind::arrival, s.rank, block));
  a.store(call, cuda::memory_order_release);
}

// Waits until peer `from`'s block `block` has entered call number `call` (1, 2, ...).
__device__ inline void wait_arrival(const PeerSignals& s, std::int32_t from, std::uint32_t block, std::uint64_t call) {
  std::uint64_t* p = detail::slot(s.local, PeerSignalKind::arrival, from, block);
  detail::wait_counter(p, [call](std::uint64_t v) { return v >= call; }, 0, s, from, block, call);
}

// After cp.async.bulk.wait_group 0 (the TMA writes have completed): orders them, for every
// observer, before the signals this thread sends next.
__device__ inline void publish_async_writes() {
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
  __threadfence_system();
}

__device__ inline void signal_bytes(const PeerSignals& s, std::int32_t to, std::uint32_t block, std::uint64_t bytes) {
  detail::signal_add(detail::slot(s.peer[to], PeerSignalKind::bytes, s.rank, block), bytes);
}

// Waits until exactly `bytes` bytes from peer `from`'s block `block` are counted, then resets the
// counter for the next call (the peer adds to it again only after this rank's next arrival).
__device__ inline void wait_bytes(const PeerSignals& s, std::int32_t from, std::uint32_t block, std::uint64_t bytes) {
  std::uint64_t* p = detail::slot(s.local, PeerSignalKind::bytes, from, block);
#if TMAKIT_WATCHDOG
  const std::uint64_t v = detail::wait_counter(p, [bytes](std::uint64_t x) { return x >= bytes; }, 1, s, from, block, bytes);
  if (v != bytes) detail::report_peer_and_trap(2, s, from, block, v, bytes, 0, 0);
#else
  detail::wait_counter(p, [bytes](std::uint64_t x) { return x >= bytes; }, 1, s, from, block, bytes);
#endif
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*p).store(0, cuda::memory_order_relaxed);
}

// A block's arrival at call `call` with every peer: signals each (rank + 1 first, rotating), then
// waits for each.
__device__ inline void arrive_and_wait_all(const PeerSignals& s, std::uint32_t block, std::uint64_t call) {
  for (std::int32_t d = 1; d < s.world; ++d) signal_arrival(s, (s.rank + d) % s.world, block, call);
  for (std::int32_t d = 1; d < s.world; ++d) wait_arrival(s, (s.rank + s.world - d) % s.world, block, call);
}

// A block's end of a call: its bulk copies complete and published, it signals each peer the bytes
// sent(peer) (written into that peer's memory, or read from it), then waits for expected(peer) from
// each (both counts from the plan).
template <class Sent, class Expected>
__device__ inline void exchange_bytes_all(const PeerSignals& s, std::uint32_t block, Sent sent, Expected expected) {
  wait_group<0>();
  publish_async_writes();
  for (std::int32_t d = 1; d < s.world; ++d) {
    const std::int32_t to = (s.rank + d) % s.world;
    signal_bytes(s, to, block, sent(to));
  }
  for (std::int32_t d = 1; d < s.world; ++d) {
    const std::int32_t from = (s.rank + s.world - d) % s.world;
    wait_bytes(s, from, block, expected(from));
  }
}

}  // namespace tmakit::device

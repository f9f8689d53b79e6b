// mbarrier: the shared-memory barrier that TMA and bulk copies complete on. Built on CCCL's
// cuda::ptx wrappers. The Phase tracker holds the parity to wait for, so callers never compute it.
//
// Typical use (one producer thread issues a copy of `bytes` bytes, all threads wait):
//   __shared__ tmakit::device::Barrier bar;
//   tmakit::device::Phase phase;
//   if (threadIdx.x == 0) tmakit::device::init(bar, 1);
//   __syncthreads();
//   if (threadIdx.x == 0) { tmakit::device::arrive_expect_tx(bar, bytes); /* issue the copy */ }
//   tmakit::device::wait(bar, phase);   // then phase.parity has flipped for the next round
//
// Watchdog (watchdog.cuh, which this header includes): with TMAKIT_WATCHDOG=1 every
// Barrier carries a debug ledger next to its state word (what init/arrive/expect_tx armed and what
// copies were registered), and wait() reports and traps past a time bound. With TMAKIT_WATCHDOG=0
// (the default when NDEBUG is defined) a Barrier is the bare 8-byte word and none of it is compiled.
#pragma once

#include "tmakit/device/barrier_ops.cuh"
#include "tmakit/device/watchdog.cuh"  // wait(bar, phase) and its bounded forms

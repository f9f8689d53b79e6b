// The mbarrier watchdog: a wait that passes its time bound prints what is known about the barrier
// and traps, instead of hanging the GPU.
//
// Switch: the macro TMAKIT_WATCHDOG (define it to 0 or 1 before including any tmakit device header,
// consistently in every translation unit; default 1, or 0 when NDEBUG is defined). With 0, wait()
// is a bare try_wait loop, Barrier is the bare 8-byte word, and no watchdog code is compiled.
//
// Bound: %globaltimer nanoseconds. Per translation unit, a __constant__ holds the bound wait()
// uses (default TMAKIT_WATCHDOG_DEFAULT_NS = 1 s); set it from the host before a launch with
// tmakit::device::watchdog::set_bound_ns(ns), or pass one to wait(bar, phase, bound_ns).
//
// Message (one printing thread per grid; lines start with "tmakit watchdog:"):
//   tmakit watchdog: block (bx,by,bz) thread (tx,ty,tz): mbarrier at shared 0xADDR, parity P: phase not complete after N ns (bound B ns)
//   tmakit watchdog: state word 0x................ (the hardware's pending counts are not readable on sm_90: this word reads 0 there, measured)
//   tmakit watchdog: ledger (armed through tmakit since init, not what is still pending): I arrival(s) per phase, A arrival(s) made, T B tx armed, R B registered by copies
//   tmakit watchdog: expected: TMA load of box 64x32 bf16 = 4096 B from descriptor at 0x...
//   tmakit watchdog: diagnosis: <expect_tx too small | expect_tx too large | missing arrive | wrong parity>: ...
// The diagnosis is read off the ledger, so it is as good as the ledger is complete: every
// arrive/expect_tx must go through tmakit's wrappers, and every copy registered with expect_*().
// A wait that completes while copies registered more bytes than were armed (expect_tx too small:
// the phase completed before all bytes landed) is reported the same way, without waiting.
//
// TMA shared-memory alignment (tma.cuh's load / load_hint / load_multicast* / load_im2col / store /
// store_hint / reduce, with the switch on): before issuing, the calling thread reads the alignment
// the descriptor stores for its swizzle (tmap_fields::kSmemAlignment, bytes 72..79: 16, 256, 512
// or 1024, written by the driver and by tmakit's encoder), raises it to 128 (what tensor copies
// need: a 16-aligned unswizzled destination faults on the H100), and, when the shared address is
// not a multiple of it, reports and traps instead of issuing:
//   tmakit watchdog: block (bx,by,bz) thread (tx,ty,tz): TMA load into shared address 0x410 not aligned to the 1024 B its 128B swizzle needs (descriptor at 0x...)
//   tmakit watchdog: diagnosis: misaligned TMA buffer: shared 0x410 is 16 B past a 1024 B boundary; align the buffer (__align__(1024) / round the dynamic smem offset up)
// The word is read with a plain generic load (valid for descriptors in global, __constant__ and
// __grid_constant__ parameter memory, the only places a TMA copy takes them from). A word of 0
// (not a driver/tmakit-encoded map) skips the check.
#pragma once

#include "tmakit/device/barrier_ops.cuh"
#include "tmakit/device/ptx_raw.cuh"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#ifndef TMAKIT_WATCHDOG_DEFAULT_NS
#define TMAKIT_WATCHDOG_DEFAULT_NS 1000000000ull
#endif

namespace tmakit::device::watchdog {

inline constexpr bool kEnabled = TMAKIT_WATCHDOG != 0;

#if TMAKIT_WATCHDOG
namespace detail {
// Per translation unit (internal linkage): the bound in ns, and the "one reporter per grid" flag.
static __constant__ unsigned long long bound_ns_c = TMAKIT_WATCHDOG_DEFAULT_NS;
static __device__ unsigned int reporting = 0;

__device__ inline std::uint32_t read(std::uint32_t* p) { return atomicAdd(p, 0u); }

// One reporter per grid: returns in the first thread that reports; a later one gives it time to
// print (1 s), then traps without printing.
__device__ inline void claim_reporter() {
  if (atomicCAS(&reporting, 0u, 1u) != 0u) {
    const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
    while (cuda::ptx::get_sreg_globaltimer() - t0 < 1000000000ull) __nanosleep(1000);
    __trap();
  }
}

__device__ inline void print_expectation(const Expectation& e) {
  switch (e.kind) {
    case ExpectKind::tma_load:
      if (e.rank <= 1)
        printf("tmakit watchdog: expected: TMA load of box %u %s = %u B from descriptor at %p\n", e.box[0], e.dtype,
               e.bytes, e.source);
      else if (e.rank == 2)
        printf("tmakit watchdog: expected: TMA load of box %ux%u %s = %u B from descriptor at %p\n", e.box[0], e.box[1],
               e.dtype, e.bytes, e.source);
      else
        printf("tmakit watchdog: expected: TMA load of box %ux%ux%u %s = %u B from descriptor at %p\n", e.box[0],
               e.box[1], e.box[2], e.dtype, e.bytes, e.source);
      break;
    case ExpectKind::bulk_copy:
      printf("tmakit watchdog: expected: bulk copy of %u B from %p\n", e.bytes, e.source);
      break;
    case ExpectKind::note: printf("tmakit watchdog: expected: %s\n", e.text); break;
    default: printf("tmakit watchdog: expected: (nothing registered: name it with tmakit::device::watchdog::expect_*)\n");
  }
}

// Prints the report (timeout when elapsed_ns != 0, else the completed-too-early check) and traps.
__device__ __noinline__ inline void report_and_trap(Barrier& b, std::uint32_t parity, unsigned long long elapsed_ns,
                                                     unsigned long long bound_ns) {
  claim_reporter();  // another thread of the grid may be reporting: then this one traps
  const std::uint32_t addr = smem_address(b);
  Ledger& L = b.ledger;
  const std::uint32_t registered = read(&L.tx_registered);
  __threadfence_block();
  const std::uint32_t init_count = L.init_count, arrivals = read(&L.arrivals), armed = read(&L.tx_armed);
  const Expectation e = L.last;
  if (elapsed_ns)
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): mbarrier at shared 0x%x, parity %u: phase not complete "
           "after %llu ns (bound %llu ns)\n",
           blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, addr, parity, elapsed_ns, bound_ns);
  else
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): mbarrier at shared 0x%x, parity %u: phase completed with "
           "copies still in flight\n",
           blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, addr, parity);
  printf("tmakit watchdog: state word 0x%016llx (the hardware's pending counts are not readable on sm_90: this word "
         "reads 0 there, measured)\n",
         static_cast<unsigned long long>(ptx_raw::ld_shared_volatile_b64(addr)));
  printf("tmakit watchdog: ledger (armed through tmakit since init, not what is still pending): %u arrival(s) per phase, "
         "%u arrival(s) made, %u B tx armed, %u B registered by copies\n",
         init_count, arrivals, armed, registered);
  print_expectation(e);
  if (registered > armed) {
    printf("tmakit watchdog: diagnosis: expect_tx too small: copies registered %u B but only %u B were armed; the "
           "phase can complete before all bytes land\n",
           registered, armed);
  } else if (armed > registered) {
    printf("tmakit watchdog: diagnosis: expect_tx too large: %u B armed but copies registered only %u B (or a "
           "registered copy was never issued)\n",
           armed, registered);
  } else if (init_count != 0 && arrivals % init_count != 0) {
    printf("tmakit watchdog: diagnosis: missing arrive: %u of %u arrival(s) made in the current phase\n",
           arrivals % init_count, init_count);
  } else {
    const std::uint32_t done = init_count ? arrivals / init_count : 0;
    printf("tmakit watchdog: diagnosis: wrong parity (or a phase nobody arrives on): the ledger shows %u complete "
           "phase(s) and nothing armed for the awaited one (parity %u)\n",
           done, parity);
  }
  __threadfence_system();
  __trap();
}

// One field of a descriptor, read with plain generic 64-bit loads (fields within one word).
__device__ inline std::uint64_t descriptor_field(const void* map, tmap_fields::BitRange r) {
  const std::uint64_t w = static_cast<const std::uint64_t*>(map)[r.lo / 64];
  const int shift = r.lo % 64;
  return r.width >= 64 ? w : (w >> shift) & ((1ull << r.width) - 1ull);
}

// Prints the misaligned-TMA-buffer report and traps (one reporter per grid, as above).
__device__ __noinline__ inline void report_misaligned_and_trap(const char* what, const void* map,
                                                               std::uint32_t smem_addr, std::uint64_t align) {
  claim_reporter();
  // The swizzle named by the mode bits (the sm_90 mode of that width; the atomicity bits are not
  // read), or PTX's 96B mode, which has no CUtensorMapSwizzle value.
  const auto mode = static_cast<std::uint32_t>(descriptor_field(map, tmap_fields::kSwizzle));
  const bool b96 = descriptor_field(map, tmap_fields::kSwizzleMode96B) != 0;
  Swizzle s = Swizzle::none;
  const char* swizzle = b96 ? "96B" : swizzle_from_hw(mode, 0, s) && s != Swizzle::none ? swizzle_name(s) : nullptr;
  if (swizzle)
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): TMA %s shared address 0x%x not aligned to the %llu B "
           "its %s swizzle needs (descriptor at %p)\n",
           blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what, smem_addr,
           static_cast<unsigned long long>(align), swizzle, map);
  else
    printf("tmakit watchdog: block (%u,%u,%u) thread (%u,%u,%u): TMA %s shared address 0x%x not aligned to the %llu B "
           "an unswizzled TMA copy needs (descriptor at %p)\n",
           blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what, smem_addr,
           static_cast<unsigned long long>(align), map);
  printf("tmakit watchdog: diagnosis: misaligned TMA buffer: shared 0x%x is %llu B past a %llu B boundary; align the "
         "buffer (__align__(%llu) / round the dynamic smem offset up)\n",
         smem_addr, static_cast<unsigned long long>(smem_addr % align), static_cast<unsigned long long>(align),
         static_cast<unsigned long long>(align));
  __threadfence_system();
  __trap();
}
}  // namespace detail

// The check behind tma.cuh's tensor copies: `what` is "load into" / "store from" (a literal),
// `map` the descriptor's generic address, `smem_addr` the shared-window address of the buffer.
__device__ inline void check_tma_smem_alignment(const char* what, const void* map, std::uint32_t smem_addr) {
  // The descriptor's field (16 without swizzle) or 128 B, whichever is larger: tensor copies need
  // 128-byte aligned shared buffers (tensor_map/derived.hpp tma_smem_alignment).
  std::uint64_t align = detail::descriptor_field(map, tmap_fields::kSmemAlignment);
  if (align < 128) align = 128;
  if (smem_addr % align != 0) detail::report_misaligned_and_trap(what, map, smem_addr, align);
}

// Sets the bound wait() uses in kernels of this translation unit (host; before the launch).
static inline cudaError_t set_bound_ns(unsigned long long ns) {
  return cudaMemcpyToSymbol(detail::bound_ns_c, &ns, sizeof ns);
}
__device__ inline unsigned long long bound_ns() { return detail::bound_ns_c; }

// Registration of what is expected to arrive (call from the thread that issues the copy, before
// it issues it; after arming with expect_tx / arrive_expect_tx).
__device__ inline void expect_tma_load(Barrier& b, const void* descriptor, std::uint32_t bytes, const char* dtype,
                                       std::uint32_t box0, std::uint32_t box1 = 0, std::uint32_t box2 = 0) {
  Expectation e{};
  e.kind = ExpectKind::tma_load;
  e.bytes = bytes;
  e.box[0] = box0;
  e.box[1] = box1;
  e.box[2] = box2;
  e.rank = box2 ? 3 : (box1 ? 2 : 1);
  e.dtype = dtype;
  e.source = descriptor;
  b.ledger.last = e;
  atomicAdd(&b.ledger.registrations, 1u);
  atomicAdd(&b.ledger.tx_registered, bytes);
}
__device__ inline void expect_bulk_copy(Barrier& b, const void* source, std::uint32_t bytes) {
  Expectation e{};
  e.kind = ExpectKind::bulk_copy;
  e.bytes = bytes;
  e.source = source;
  b.ledger.last = e;
  atomicAdd(&b.ledger.registrations, 1u);
  atomicAdd(&b.ledger.tx_registered, bytes);
}
// A free-text note (e.g. "4 consumer warps arrive"); `text` must be a string literal.
__device__ inline void expect_note(Barrier& b, const char* text) {
  Expectation e{};
  e.kind = ExpectKind::note;
  e.text = text;
  b.ledger.last = e;
  atomicAdd(&b.ledger.registrations, 1u);
}

// The bounded wait behind tmakit::device::wait() (and wait_cluster(): acquire at cluster scope).
__device__ inline void wait_parity(Barrier& b, std::uint32_t parity, unsigned long long bound, bool cluster_scope = false) {
  auto probe = [&] { return cluster_scope ? try_wait_cluster(b, parity) : try_wait(b, parity); };
  if (!probe()) {
    const unsigned long long t0 = cuda::ptx::get_sreg_globaltimer();
    while (!probe()) {
      const unsigned long long dt = cuda::ptx::get_sreg_globaltimer() - t0;
      if (dt > bound) detail::report_and_trap(b, parity, dt ? dt : 1, bound);
    }
  }
  // Completed: were more bytes registered than armed? (Arming precedes registration in the
  // producer, so in a correct program armed >= registered whenever both are read in this order.)
  const std::uint32_t registered = detail::read(&b.ledger.tx_registered);
  __threadfence_block();
  if (registered > detail::read(&b.ledger.tx_armed)) detail::report_and_trap(b, parity, 0, bound);
}

#else  // !TMAKIT_WATCHDOG: everything is a no-op and compiles away.

static inline cudaError_t set_bound_ns(unsigned long long) { return cudaSuccess; }
__device__ inline unsigned long long bound_ns() { return 0; }
__device__ inline void expect_tma_load(Barrier&, const void*, std::uint32_t, const char*, std::uint32_t,
                                       std::uint32_t = 0, std::uint32_t = 0) {}
__device__ inline void expect_bulk_copy(Barrier&, const void*, std::uint32_t) {}
__device__ inline void expect_note(Barrier&, const char*) {}
__device__ inline void check_tma_smem_alignment(const char*, const void*, std::uint32_t) {}
__device__ inline void wait_parity(Barrier& b, std::uint32_t parity, unsigned long long, bool cluster_scope = false) {
  if (cluster_scope) {
    while (!try_wait_cluster(b, parity)) {
    }
  } else {
    while (!try_wait(b, parity)) {
    }
  }
}

#endif

}  // namespace tmakit::device::watchdog

namespace tmakit::device {

// Waits for the phase `phase` names, then advances `phase`. With the watchdog on, a wait past its
// bound reports and traps instead of hanging.
__device__ inline void wait(Barrier& b, Phase& phase) {
  watchdog::wait_parity(b, phase.parity, watchdog::bound_ns());
  phase.advance();
}

// Waits with acquire at CLUSTER scope (data handed over by another CTA's release.cluster arrive).
__device__ inline void wait_cluster(Barrier& b, Phase& phase) {
  watchdog::wait_parity(b, phase.parity, watchdog::bound_ns(), true);
  phase.advance();
}

// The same with an explicit bound (ns; ignored when the watchdog is compiled out).
__device__ inline void wait(Barrier& b, Phase& phase, unsigned long long bound_ns) {
  watchdog::wait_parity(b, phase.parity, bound_ns);
  phase.advance();
}

}  // namespace tmakit::device

// SM-to-SM copies (distributed shared memory), executing a host plan (plan/dsmem_copy.hpp):
//   bulk_single / bulk_multi  ONE thread issues cp.async.bulk.shared::cluster.shared::cta per piece,
//                             all completing on the destination CTA's barrier (tx = plan.tx_bytes).
//   st_async                  ALL threads: st.async of unit_bytes (4/8/16) with complete_tx on the
//                             destination barrier (tx = plan.tx_bytes).
//   st_cluster                ALL threads: mapa + st.shared::cluster of unit_bytes, then each thread
//                             arrives on the destination barrier with release at cluster scope
//                             (plan.remote_arrivals = threads); the receiver waits with wait_cluster().
// The receiver initializes its barrier with plan.receiver_init_count() arrivals (one source; with
// several: 1 + the sum of their plans' remote_arrivals, since it arms once per phase), arms with
// dsmem_arm() and then releases the source (ARM-BEFORE-ISSUE: an arrival on the source's barrier
// or a cluster barrier) before the source copies: dsmem_arm_and_release() (receiver) and
// dsmem_wait_released() (source) do both through a "ready" barrier per CTA (initialized with one
// arrival per receiver it copies into). `dst_buf` and `bar` are the addresses of the destination
// buffer and barrier in THIS CTA's shared memory: the peer's are at the same offsets (same kernel,
// same smem layout).
// Source data written by this CTA's threads: for bulk paths every writer fences for the async proxy
// and the CTA synchronizes first (tma.cuh's publish_smem_writes()); for element-wise paths a
// __syncthreads() suffices.
#pragma once

#include <cooperative_groups.h>
#include <cuda/ptx>

#include <cstdint>

#include "tmakit/device/cluster.cuh"
#include "tmakit/device/cluster_watchdog.cuh"
#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/ptx_raw.cuh"
#include "tmakit/cluster/dsmem_copy.hpp"

namespace tmakit::device {

// Receiver (one thread): arm `bar` for `copies` copies of this plan (from as many source CTAs).
__device__ inline void dsmem_arm(Barrier& bar, const DsmemPlan& plan, std::uint32_t copies = 1) {
  if (plan.tx_bytes) arrive_expect_tx(bar, plan.tx_bytes * copies);
  else arrive(bar);
}

// Receiver (one thread): arm `bar` for one copy of this plan from each CTA in `senders` (bit r =
// CTA r), THEN release each of them with a release.cluster arrival on its `ready` barrier (same
// offset): the senders' dsmem_wait_released() returns after it (ARM-BEFORE-ISSUE).
__device__ inline void dsmem_arm_and_release(Barrier& bar, Barrier& ready, const DsmemPlan& plan, std::uint16_t senders) {
  dsmem_arm(bar, plan, static_cast<std::uint32_t>(__popc(senders)));
  for (std::uint32_t r = 0; r < 16; ++r)
    if (senders >> r & 1u) arrive_remote(ready, r);
}

// Source (the threads that copy, all of them for element-wise paths): wait until the receiver
// armed (its release.cluster arrival on this CTA's `ready`; acquire at cluster scope).
__device__ inline void dsmem_wait_released(Barrier& ready, Phase& phase) { wait_cluster(ready, phase); }

// Source, bulk paths: exactly ONE thread. phase_index = how many phases of `bar` (on the receiver)
// completed before the one this copy is for.
__device__ inline void dsmem_copy_bulk(const DsmemPlan& plan, const void* src_buf, void* dst_buf, std::uint32_t dst_rank,
                                       Barrier& bar, std::uint32_t phase_index = 0) {
  const auto* src = static_cast<const std::uint8_t*>(src_buf);
  std::uint8_t* rdst = map_to_rank(static_cast<std::uint8_t*>(dst_buf), dst_rank);
  Barrier* rbar = map_to_rank(&bar, dst_rank);
  watchdog::check_single_issue(bar, dst_rank, static_cast<std::uint32_t>(__cvta_generic_to_shared(src)) + plan.pieces[0].src,
                               static_cast<std::uint32_t>(__cvta_generic_to_shared(dst_buf)) + plan.pieces[0].dst,
                               plan.tx_bytes);
  watchdog::register_cluster_copy(bar, dst_rank, plan.tx_bytes, phase_index);
  for (std::uint32_t i = 0; i < plan.piece_count; ++i) {
    const BulkPiece pc = plan.pieces[i];
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_shared, rdst + pc.dst, src + pc.src, pc.bytes,
                             raw(*rbar));
  }
}

namespace detail {
__device__ inline std::uint32_t linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
}  // namespace detail

// Source, element-wise paths: ALL threads of the CTA call it (it takes a __syncthreads()). The
// units are spread over the block's real size (blockDim), each written once. st_async: any block
// size. st_cluster: every thread makes one remote arrival and the receiver's init count has
// plan.spec.threads of them, so the block must have exactly plan.spec.threads threads (with the
// watchdog on, a mismatch traps with "diagnosis: wrong thread count"; without it, the receiver's
// phase completes early or never).
__device__ inline void dsmem_copy_elementwise(const DsmemPlan& plan, const void* src_buf, void* dst_buf,
                                              std::uint32_t dst_rank, Barrier& bar, std::uint32_t phase_index = 0) {
  const auto* src = static_cast<const std::uint8_t*>(src_buf);
  const std::uint32_t tid = detail::linear_thread(), nthr = blockDim.x * blockDim.y * blockDim.z;
  if (plan.path == DsmemPath::st_async) {
    if (tid == 0) watchdog::register_cluster_copy(bar, dst_rank, plan.tx_bytes, phase_index);
    __syncthreads();  // the checks above come before any store
    std::uint8_t* rdst = map_to_rank(static_cast<std::uint8_t*>(dst_buf), dst_rank);
    std::uint64_t* rbar = raw(*map_to_rank(&bar, dst_rank));
    for (std::uint32_t u = tid; u < plan.units; u += nthr) {
      const std::uint64_t i = std::uint64_t{u} * plan.unit_elems;
      const std::uint64_t so = plan.spec.src.offset(i), d = plan.spec.dst.offset(i);
      if (plan.unit_bytes == 16) {
        const uint4 v = *reinterpret_cast<const uint4*>(src + so);
        const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
        cuda::ptx::st_async(reinterpret_cast<std::uint32_t*>(rdst + d), w, rbar);
      } else if (plan.unit_bytes == 8) {
        cuda::ptx::st_async(reinterpret_cast<std::uint64_t*>(rdst + d), *reinterpret_cast<const std::uint64_t*>(src + so),
                            rbar);
      } else {
        cuda::ptx::st_async(reinterpret_cast<std::uint32_t*>(rdst + d), *reinterpret_cast<const std::uint32_t*>(src + so),
                            rbar);
      }
    }
    return;
  }
  // st_cluster: weak stores to the peer, then one release.cluster arrival per thread.
  if (tid == 0) {
    watchdog::check_block_threads(bar, dst_rank, plan.spec.threads, nthr);
    watchdog::register_cluster_copy(bar, dst_rank, 0, phase_index);
  }
  __syncthreads();
  const std::uint32_t rdst = mapa(dst_buf, dst_rank);
  for (std::uint32_t u = tid; u < plan.units; u += nthr) {
    const std::uint64_t i = std::uint64_t{u} * plan.unit_elems;
    const std::uint32_t so = static_cast<std::uint32_t>(plan.spec.src.offset(i));
    const std::uint32_t d = rdst + static_cast<std::uint32_t>(plan.spec.dst.offset(i));
    switch (plan.unit_bytes) {
      case 16: {
        const uint4 v = *reinterpret_cast<const uint4*>(src + so);
        ptx_raw::st_shared_cluster_v4_b32(d, v.x, v.y, v.z, v.w);
        break;
      }
      case 8: ptx_raw::st_shared_cluster_b64(d, *reinterpret_cast<const std::uint64_t*>(src + so)); break;
      case 4: ptx_raw::st_shared_cluster_b32(d, *reinterpret_cast<const std::uint32_t*>(src + so)); break;
      case 2: ptx_raw::st_shared_cluster_b16(d, *reinterpret_cast<const std::uint16_t*>(src + so)); break;
      default: ptx_raw::st_shared_cluster_b8(d, src[so]); break;
    }
  }
  arrive_remote(bar, dst_rank);  // release at cluster scope orders this thread's stores
}

// Either path: bulk from thread 0 only (the others return at once), element-wise from all.
__device__ inline void dsmem_copy(const DsmemPlan& plan, const void* src_buf, void* dst_buf, std::uint32_t dst_rank,
                                  Barrier& bar, std::uint32_t phase_index = 0) {
  if (plan.path == DsmemPath::bulk_single || plan.path == DsmemPath::bulk_multi) {
    if (detail::linear_thread() == 0) dsmem_copy_bulk(plan, src_buf, dst_buf, dst_rank, bar, phase_index);
  } else {
    dsmem_copy_elementwise(plan, src_buf, dst_buf, dst_rank, bar, phase_index);
  }
}

// Receiver, all threads: wait for the copy (cluster-scope acquire: right for every path).
__device__ inline void dsmem_wait(Barrier& bar, Phase& phase) { wait_cluster(bar, phase); }

}  // namespace tmakit::device

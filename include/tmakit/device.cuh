// tmakit's device layer, all of it: mbarrier + watchdog, device-side tensor maps, the TMA copies
// (tma.cuh), cluster copies (cluster.cuh, multicast.cuh, dsmem.cuh), planned tile loads and stores
// (load_tile.cuh, store_tile.cuh), compile-time copy programs and the one ring of stages
// (copy_program.cuh, ring.cuh), the persistent tile order (tile_scheduler.cuh), named barriers,
// register reallocation and fast math (named_barrier.cuh, registers.cuh, fast_math.cuh), where an
// accumulator register sits (fragment.cuh), WGMMA (wgmma.cuh, sm_90a) and the
// planned register -> shared-memory stores (smem_store.cuh); on the host, cluster launches
// (launch.cuh) and CUtensorMap kernel parameters from the encoder (cu_tensor_map.cuh); counted
// signals between GPUs with bounded waits (peer_signal.cuh).
#pragma once

#include "tmakit/device/mbarrier.cuh"
#include "tmakit/device/barrier_ops.cuh"
#include "tmakit/device/watchdog.cuh"
#include "tmakit/device/descriptor.cuh"
#include "tmakit/device/ptx_raw.cuh"
#include "tmakit/device/tma.cuh"
#include "tmakit/device/cluster.cuh"
#include "tmakit/device/cluster_watchdog.cuh"
#include "tmakit/device/dsmem.cuh"
#include "tmakit/device/multicast.cuh"
#include "tmakit/device/smem_store.cuh"
#include "tmakit/device/load_tile.cuh"
#include "tmakit/device/store_tile.cuh"
#include "tmakit/device/wgmma.cuh"
#include "tmakit/device/copy_program.cuh"
#include "tmakit/device/ring.cuh"
#include "tmakit/device/tile_scheduler.cuh"
#include "tmakit/device/named_barrier.cuh"
#include "tmakit/device/registers.cuh"
#include "tmakit/device/fast_math.cuh"
#include "tmakit/device/fragment.cuh"
#include "tmakit/device/matrix.cuh"
#include "tmakit/device/element_bits.cuh"
#include "tmakit/device/launch.cuh"
#include "tmakit/device/grid_dependency.cuh"
#include "tmakit/device/cu_tensor_map.cuh"
#include "tmakit/device/peer_signal.cuh"

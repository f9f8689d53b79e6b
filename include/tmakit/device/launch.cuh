// Host-side launch of kernels that run in thread-block clusters, and the alignment of dynamic
// shared memory they carve TMA buffers from:
//   launch_cluster(kernel, ClusterShape{2, 1, 1}, grid, block, smem, args...)   cudaLaunchKernelEx
//   max_active_clusters(kernel, shape, block, smem, &n)                          occupancy, in clusters
//   align_smem(dyn, tma_smem_alignment(swizzle))                                 (device)
// The cluster shape is a runtime value (tmakit::ClusterShape), so one kernel serves every shape the
// planner picks. Clusters of more than 8 CTAs (non-portable, up to 16 on Hopper) and more than
// 48 KiB of dynamic shared memory get the kernel attributes they need before the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tmakit/cluster/shape.hpp"

namespace tmakit::device {

// The kernel attributes a cluster launch needs: cudaFuncAttributeNonPortableClusterSizeAllowed for
// clusters of more than 8 CTAs, the dynamic shared-memory limit past 48 KiB.
template <class... KArgs>
cudaError_t set_cluster_attributes(void (*kernel)(KArgs...), ClusterShape c, std::size_t smem) {
  cudaError_t e = cudaSuccess;
  if (c.size() > 8) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e != cudaSuccess) return e;
  if (smem > 48 * 1024) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  return e;
}

// A launch configuration with cluster dims `c` (not copyable: cfg points at attr).
struct ClusterLaunchConfig {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[2]{};
  ClusterLaunchConfig(ClusterShape c, dim3 grid, dim3 block, std::size_t smem) {
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = c.x;
    attr[0].val.clusterDim.y = c.y;
    attr[0].val.clusterDim.z = c.z;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  // Early start (programmatic dependent launch): the kernel may begin while the grid before it on
  // the stream still runs; it must call wait_for_prior_grids() (grid_dependency.cuh) before it
  // touches global memory.
  void allow_early_start() {
    attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[1].val.programmaticStreamSerializationAllowed = 1;
    cfg.numAttrs = 2;
  }
  ClusterLaunchConfig(const ClusterLaunchConfig&) = delete;
  ClusterLaunchConfig& operator=(const ClusterLaunchConfig&) = delete;
};

// Launches kernel<<<grid, block, smem>>> with cluster dims `c` (grid.x must be a multiple of c.x
// etc.), after set_cluster_attributes.
template <class... KArgs, class... Args>
cudaError_t launch_cluster(void (*kernel)(KArgs...), ClusterShape c, dim3 grid, dim3 block, std::size_t smem,
                           Args&&... args) {
  const cudaError_t e = set_cluster_attributes(kernel, c, smem);
  if (e != cudaSuccess) return e;
  const ClusterLaunchConfig l(c, grid, block, smem);
  return cudaLaunchKernelEx(&l.cfg, kernel, std::forward<Args>(args)...);
}

// How many clusters of shape `c` of this kernel (block, smem) can be resident at once
// (cudaOccupancyMaxActiveClusters), in *n.
template <class... KArgs>
cudaError_t max_active_clusters(void (*kernel)(KArgs...), ClusterShape c, dim3 block, std::size_t smem, int* n) {
  const cudaError_t e = set_cluster_attributes(kernel, c, smem);
  if (e != cudaSuccess) return e;
  const ClusterLaunchConfig l(c, dim3(c.x * 32, c.y, c.z), block, smem);
  return cudaOccupancyMaxActiveClusters(n, kernel, &l.cfg);
}

// The first address at or after p (in shared memory) aligned to `align` bytes (a power of two),
// e.g. tma_smem_alignment() of a map whose copies land there. Dynamic shared memory is only
// guaranteed 16-byte aligned; a 128B swizzle needs 1024.
__device__ inline std::uint8_t* align_smem(std::uint8_t* p, std::uint32_t align) {
  const std::uint32_t s = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return p + ((align - (s & (align - 1u))) & (align - 1u));
}

}  // namespace tmakit::device

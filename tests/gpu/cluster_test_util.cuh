// Shared helpers of the cluster GPU tests (not a test itself): cluster launches with a runtime
// cluster shape (16 CTAs with the non-portable attribute), the occupancy of such launches, tensor
// maps from tmakit's encoder, aligned shared-memory buffers. No gtest: bench/bench_cluster.cu
// includes it too.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "tmakit/cluster/shape.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace tmakit_test {

// The kernel attributes a cluster launch needs: cudaFuncAttributeNonPortableClusterSizeAllowed for
// clusters of more than 8 CTAs, the dynamic shared-memory limit past 48 KiB.
template <class... KArgs>
cudaError_t set_cluster_attributes(void (*kernel)(KArgs...), tmakit::ClusterShape c, std::size_t smem) {
  cudaError_t e = cudaSuccess;
  if (c.size() > 8) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e != cudaSuccess) return e;
  if (smem > 48 * 1024) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  return e;
}

// A launch configuration with cluster dims `c` (not copyable: cfg points at attr).
struct ClusterLaunchConfig {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};
  ClusterLaunchConfig(tmakit::ClusterShape c, dim3 grid, dim3 block, std::size_t smem) {
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
  ClusterLaunchConfig(const ClusterLaunchConfig&) = delete;
  ClusterLaunchConfig& operator=(const ClusterLaunchConfig&) = delete;
};

// Launches kernel<<<grid, block, smem>>> with cluster dims `c` (grid.x must be a multiple of c.x
// etc.). Clusters of more than 8 CTAs get cudaFuncAttributeNonPortableClusterSizeAllowed.
template <class... KArgs, class... Args>
cudaError_t launch_cluster(void (*kernel)(KArgs...), tmakit::ClusterShape c, dim3 grid, dim3 block, std::size_t smem,
                           Args&&... args) {
  const cudaError_t e = set_cluster_attributes(kernel, c, smem);
  if (e != cudaSuccess) return e;
  const ClusterLaunchConfig l(c, grid, block, smem);
  return cudaLaunchKernelEx(&l.cfg, kernel, std::forward<Args>(args)...);
}

// How many clusters of shape `c` of this kernel (block, smem) can be resident at once
// (cudaOccupancyMaxActiveClusters), in *n.
template <class... KArgs>
cudaError_t max_active_clusters(void (*kernel)(KArgs...), tmakit::ClusterShape c, dim3 block, std::size_t smem, int* n) {
  const cudaError_t e = set_cluster_attributes(kernel, c, smem);
  if (e != cudaSuccess) return e;
  const ClusterLaunchConfig l(c, dim3(c.x * 32, c.y, c.z), block, smem);
  return cudaOccupancyMaxActiveClusters(n, kernel, &l.cfg);
}

// The first address at or after p (in shared memory) aligned to `align` bytes (a power of two),
// e.g. tma_smem_alignment() of a map whose copies land there.
__device__ inline std::uint8_t* align_smem(std::uint8_t* p, std::uint32_t align) {
  const std::uint32_t s = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return p + ((align - (s & (align - 1u))) & (align - 1u));
}

// A CUtensorMap from tmakit's encoder (false when the parameters are invalid).
inline bool make_map(const tmakit::TensorMapParams& p, CUtensorMap* out) {
  tmakit::TensorMapBytes bytes{};
  if (!tmakit::encode_into(p, bytes)) return false;
  std::memcpy(out, &bytes, sizeof *out);
  return true;
}

}  // namespace tmakit_test

// Shared helpers of the cluster GPU tests (not a test itself): cluster launches with a runtime
// cluster shape (16 CTAs with the non-portable attribute), tensor maps from tmakit's encoder.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "tmakit/plan/cluster_shape.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace tmakit_test {

// Launches kernel<<<grid, block, smem>>> with cluster dims `c` (grid.x must be a multiple of c.x
// etc.). Clusters of more than 8 CTAs get cudaFuncAttributeNonPortableClusterSizeAllowed.
template <class... KArgs, class... Args>
cudaError_t launch_cluster(void (*kernel)(KArgs...), tmakit::ClusterShape c, dim3 grid, dim3 block, std::size_t smem,
                           Args&&... args) {
  cudaError_t e = cudaSuccess;
  if (c.size() > 8) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e != cudaSuccess) return e;
  if (smem > 48 * 1024) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = c.x;
  attr[0].val.clusterDim.y = c.y;
  attr[0].val.clusterDim.z = c.z;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

// A CUtensorMap from tmakit's encoder (false when the parameters are invalid).
inline bool make_map(const tmakit::TensorMapParams& p, CUtensorMap* out) {
  tmakit::TensorMapBytes bytes{};
  if (!tmakit::encode_into(p, bytes)) return false;
  std::memcpy(out, &bytes, sizeof *out);
  return true;
}

}  // namespace tmakit_test

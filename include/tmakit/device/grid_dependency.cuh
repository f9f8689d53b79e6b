// Programmatic dependent launch (sm_90): a kernel launched with early start
// (ClusterLaunchConfig::allow_early_start, launch.cuh) may begin while the grid before it on the
// stream is still running, and must not touch global memory that grid writes or reads until it has
// finished. The CUDA runtime's device functions, each one PTX instruction:
//
//   wait_for_prior_grids();     griddepcontrol.wait;  -- until every grid this one depends on has
//                               completed and its writes are visible; at once when the kernel was
//                               not launched with early start
//   allow_dependent_grids();    griddepcontrol.launch_dependents;  -- this CTA lets the next grid on
//                               the stream start (once every CTA has said so or exited); that grid
//                               still waits for this one's completion before it reads memory
//
// What may come before wait_for_prior_grids(): whatever reads only the kernel's parameters and its
// own shared memory (barrier initialization, cluster synchronization, tensor-map prefetches).
#pragma once

#include <cuda_runtime.h>

namespace tmakit::device {

__device__ __forceinline__ void wait_for_prior_grids() { cudaGridDependencySynchronize(); }
__device__ __forceinline__ void allow_dependent_grids() { cudaTriggerProgrammaticLaunchCompletion(); }

}  // namespace tmakit::device

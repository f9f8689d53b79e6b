// What every kernel launcher reports (kernels/*_sm90): whether the kernel can launch, every
// refusal, the CUDA error where a runtime call failed, and what the launcher chose. GemmStatus,
// AttentionStatus and AllGatherGemmStatus are this status with their kernel's config.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/rules.hpp"

namespace tmakit::kernels {

template <class Config>
struct KernelStatus {
  bool ok = false;
  // Every refusal, one line each, as refusal() writes it ("error [gemm.tile_n] ...; fix: ..."); an
  // operand the planner refused has its name first ("A: error [gmem.stride_align] ...").
  std::vector<std::string> errors;
  cudaError_t cuda = cudaSuccess;  // the failed runtime call's error (kernel.cuda), else cudaSuccess
  Config config{};
};

// A failed CUDA runtime call as a refusal (kernel.cuda): `call` names what the launcher asked for.
inline std::string cuda_refusal(std::string_view call, cudaError_t e) {
  return refusal(KernelRule::cuda, std::string(call) + ": " + cudaGetErrorString(e));
}

}  // namespace tmakit::kernels

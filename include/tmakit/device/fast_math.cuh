// Special-function instructions with the rounding a kernel asks for, where the CUDA math library
// would add range handling the kernel does not need. cuda::ptx has no ex2 wrapper.
#pragma once

namespace tmakit::device {

// ex2.approx.ftz.f32 y, x;  -- 2^x in one MUFU.EX2, subnormal inputs and results flushed to zero
// (exp2f without -ftz=true adds a range test and two multiplies around it to keep subnormal
// results). For softmax probabilities, where a value below 2^-126 is as good as zero.
__device__ __forceinline__ float ex2_approx_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace tmakit::device

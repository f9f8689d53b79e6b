// Register reallocation between warpgroups (sm_90a): a warp-specialized kernel hands the
// producer's unneeded registers to its consumers. Takes effect only when the kernel has a register
// cap at entry (__launch_bounds__(threads, 1) or -maxrregcount) and each warpgroup's role is one
// branch of an if/else (otherwise ptxas ignores it with warning C7508). cuda::ptx has no
// setmaxnreg wrapper.
#pragma once

namespace tmakit::device {

// setmaxnreg.inc.sync.aligned.u32 N;  -- every thread of the warpgroup; N a multiple of 8 in 24..256.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" : : "n"(N));
}
// setmaxnreg.dec.sync.aligned.u32 N;
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" : : "n"(N));
}

}  // namespace tmakit::device

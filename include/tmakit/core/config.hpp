// Host/device annotations shared by every tmakit header.
#pragma once

#if defined(__CUDACC__)
#define TMAKIT_HD __host__ __device__
#else
#define TMAKIT_HD
#endif

// Keeps a host function out of its callers (g++, clang): for slow paths whose registers would
// otherwise make every call of the fast path save and restore them. No effect in device code.
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
#define TMAKIT_HOST_NOINLINE __attribute__((noinline))
#else
#define TMAKIT_HOST_NOINLINE
#endif

// Asks nvcc to unroll the loop that follows completely (its trip count is a compile-time bound):
// device code then indexes its small arrays with constants and keeps them in registers. Nothing on
// the host.
#if defined(__CUDA_ARCH__)
#define TMAKIT_UNROLL _Pragma("unroll")
#else
#define TMAKIT_UNROLL
#endif

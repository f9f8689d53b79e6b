// The 16-bit element types a kernel writes (bf16, f16) as raw bits, and a shared-memory address in
// the 32-bit window that WGMMA descriptors and shared-memory PTX take:
//   to_bits<DataType::bfloat16>(x)     float -> the element's 16 bits (round to nearest even)
//   from_bits<DataType::float16>(b)    the element's 16 bits -> float
//   shared_address(p)                  a generic pointer into shared memory -> its .shared address
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "tmakit/core/dtype.hpp"

namespace tmakit::device {

template <DataType T>
__device__ __forceinline__ std::uint16_t to_bits(float x) {
  static_assert(T == DataType::bfloat16 || T == DataType::float16, "to_bits: bf16 or f16");
  if constexpr (T == DataType::bfloat16) return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  else return __half_as_ushort(__float2half_rn(x));
}

template <DataType T>
__device__ __forceinline__ float from_bits(std::uint16_t b) {
  static_assert(T == DataType::bfloat16 || T == DataType::float16, "from_bits: bf16 or f16");
  if constexpr (T == DataType::bfloat16) return __bfloat162float(__ushort_as_bfloat16(b));
  else return __half2float(__ushort_as_half(b));
}

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace tmakit::device

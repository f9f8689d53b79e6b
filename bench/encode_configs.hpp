// The encode benchmark's parameter sets and its way of keeping results alive, shared by
// bench_encode.cpp (timing) and icount_encode.cpp (instruction counts).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit_bench {

using namespace tmakit;

// Makes the compiler treat `v` as read, through its address: an "r,m" operand of a 128-byte map
// made g++ copy the whole map per call, about 5 ns charged to every encoder alike.
template <class T>
inline void keep(T const& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

// mixed: rank, type, swizzle and L2 vary from one map to the next. uniform: one rank (3), type
// (bf16) and swizzle (128B), with shapes and addresses varying, as in a grouped GEMM or a
// mixture-of-experts layer that encodes a map per expert.
inline std::vector<TensorMapParams> make_configs(int n, bool uniform) {
  std::mt19937_64 rng(uniform ? 11 : 7);
  const DataType types[] = {DataType::bfloat16, DataType::float16, DataType::float32, DataType::uint8, DataType::float64};
  std::vector<TensorMapParams> out;
  while (int(out.size()) < n) {
    TensorMapParams p;
    p.dtype = uniform ? DataType::bfloat16 : types[rng() % 5];
    const std::uint32_t esize = element_bits(p.dtype) / 8;
    p.rank = uniform ? 3 : 2 + rng() % 4;
    p.swizzle = uniform ? Swizzle::b128 : static_cast<Swizzle>(rng() % 4);
    p.l2 = uniform ? L2Promotion::b256 : static_cast<L2Promotion>(rng() % 4);
    const std::uint32_t span = p.swizzle == Swizzle::none ? 128 : swizzle_span_bytes(p.swizzle);
    p.address = (std::uint64_t{0x7f00} << 32) + (rng() % (1u << 20)) * 1024;
    std::uint64_t pitch = 0;
    for (std::uint32_t i = 0; i < p.rank; ++i) {
      p.dims[i] = 64 + rng() % 8192;
      p.box[i] = i == 0 ? span / esize : (uniform ? 64 : 1 + rng() % 128);
      if (uniform && i == 2) p.box[i] = 1;
      if (i == 0) {
        pitch = (p.dims[0] * esize + 127) / 128 * 128;
      } else {
        p.strides[i - 1] = pitch;
        pitch *= p.dims[i];
        if (pitch > (std::uint64_t{1} << 39)) p.dims[i] = 1, pitch = p.strides[i - 1];
      }
    }
    if (encode(p).ok()) out.push_back(p);
  }
  return out;
}

}  // namespace tmakit_bench

// encode_many(): encode() over an array of parameter sets, for callers that build many maps at once
// (a JIT compiling a kernel's maps, a grouped GEMM or mixture-of-experts layer with a map per
// expert, `tmakit encode --jsonl`).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_fast_block.hpp"

namespace tmakit {

// For every i < n: ok[i] = is_valid(params[i]), and out[i] = the map encode(params[i]) writes (all
// zero on a refusal; call validate() for the reasons). Returns how many were encoded.
//
// Same results as calling encode() on each. On x86-64 hosts with AVX-512 VBMI, maps go 16 at a
// time through encode_fast_block16 (encode_fast_block.hpp), which checks the rules that need
// tables and products once per 16 maps instead of once per map (bench/bench_encode.cpp times it);
// elsewhere, and at compile time, it is a loop over encode_into.
TMAKIT_HD constexpr std::size_t encode_many(const TensorMapParams* params, TensorMapBytes* out, bool* ok, std::size_t n) {
  std::size_t encoded = 0;
  auto general = [&](std::size_t i) {  // outside the fast path's domain, or refused by it
    ok[i] = is_valid(params[i]);
    out[i] = ok[i] ? encode_unchecked(params[i]) : TensorMapBytes{};
    encoded += ok[i];
  };
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (!std::is_constant_evaluated() && fast_detail::kCpuRunsAvx512Form) {
    for (std::size_t first = 0; first < n; first += 16) {
      const int count = n - first < 16 ? static_cast<int>(n - first) : 16;
      const std::uint32_t done = encode_fast_block16(params + first, out + first, count);
      for (int j = 0; j < count; ++j) {
        if (done >> j & 1) {
          ok[first + j] = true;
          ++encoded;
        } else {
          general(first + j);
        }
      }
    }
    return encoded;
  }
#endif
  for (std::size_t i = 0; i < n; ++i) {
    if (encode_fast(params[i], out[i])) {
      ok[i] = true;
      ++encoded;
    } else {
      general(i);
    }
  }
  return encoded;
}

}  // namespace tmakit

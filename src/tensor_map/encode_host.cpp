// The host library's encoders (see tmakit/tensor_map/encode_host.hpp). Each tests a flag set when
// the program loads (fast_detail::kCpuRunsAvx512Form) and jumps to its form for the CPU, compiled
// in a file of its own (encode_fast_avx512.cpp, encode_fast_block.cpp, encode_fast_sse2.cpp): the
// test and the jump are all a call adds, no registers of its own to save.
#include "tmakit/tensor_map/encode_host.hpp"

#include "encode_fast_avx512.hpp"
#include "encode_fast_block.hpp"
#include "encode_fast_forms.hpp"
#include "encode_fast_sse2.hpp"

namespace tmakit {

const char* encode_fast_host_form() {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (fast_detail::kCpuRunsAvx512Form) return "AVX-512";
#endif
  return TMAKIT_ENCODE_FAST_USES_SSE2 ? "SSE2" : "portable";
}

bool encode_into_host(const TensorMapParams& p, TensorMapBytes& out) {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (fast_detail::kCpuRunsAvx512Form) return fast_detail::encode_into_avx512(p, out);
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2
  return fast_detail::encode_into_sse2(p, out);
#else
  return encode_into(p, out);
#endif
}

bool fast_detail::encode_fast_host(const TensorMapParams& p, TensorMapBytes& out) {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (kCpuRunsAvx512Form) return encode_fast_avx512(p, out);  // its out-of-line copy
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2
  return encode_fast_sse2(p, out);
#else
  return encode_fast_portable(p, out);
#endif
}

namespace many_detail {

std::size_t encode_many_host(const TensorMapParams* params, TensorMapBytes* out, bool* ok, std::size_t n) {
#if TMAKIT_ENCODE_FAST_USES_AVX512
  if (fast_detail::kCpuRunsAvx512Form) return encode_many_avx512(params, out, ok, n);
#endif
  std::size_t encoded = 0;
  for (std::size_t i = 0; i < n; ++i) {
#if TMAKIT_ENCODE_FAST_USES_SSE2
    ok[i] = encode_fast_sse2(params[i], out[i]) || encode_detail::encode_general(params[i], out[i]);
#else
    ok[i] = encode_fast_portable(params[i], out[i]) || encode_detail::encode_general(params[i], out[i]);
#endif
    encoded += ok[i];
  }
  return encoded;
}

}  // namespace many_detail

}  // namespace tmakit

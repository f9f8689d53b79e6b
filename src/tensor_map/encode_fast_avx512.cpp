// The fast path's AVX-512 form as the host library calls it (see encode_fast_avx512.hpp).
#include "encode_fast_avx512.hpp"

#if TMAKIT_ENCODE_FAST_USES_AVX512

namespace tmakit::fast_detail {
namespace {

bool cpu_runs_avx512_form() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512dq");
}

}  // namespace

const bool kCpuRunsAvx512Form = cpu_runs_avx512_form();

TMAKIT_ENCODE_AVX512_TARGET bool encode_into_avx512(const TensorMapParams& p, TensorMapBytes& out) {
  return encode_fast_avx512(p, out) || encode_detail::encode_into_general(p, out);
}

}  // namespace tmakit::fast_detail

#endif  // TMAKIT_ENCODE_FAST_USES_AVX512

// The host library's encoders (tmakit::host, src/tensor_map/encode_host.cpp): the same decisions
// and bytes as encode() and encode_into() (encode.hpp), with the fast path (encode_fast.hpp) in the
// SIMD form this CPU runs, picked once per process: AVX-512 on x86-64 CPUs with AVX-512 F, VL, BW,
// DQ and VBMI (Ice Lake and later Xeons, Zen 4 and later; built with g++ or clang), SSE2 on other
// x86-64 CPUs, the portable form elsewhere. And encode_many(), for callers that build many maps at
// once (a JIT compiling a kernel's maps, a grouped GEMM or mixture-of-experts layer with a map per
// expert, `tmakit encode --jsonl`).
//
// Which to call:
//   encode(), encode_into()            encode.hpp: constexpr, host and device code, no dispatch.
//   encode_host(), encode_into_host()  here: host code at run time, one map per call.
//   encode_many()                      here: host code, an array of maps per call; also at compile
//                                      time (then a loop over encode()'s paths).
// Host code only: device code calls encode() / encode_into().
#pragma once

#include <cstddef>
#include <type_traits>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_fast.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

// encode_into() with the fast path's SIMD form: writes `out` and returns true when the parameters
// are valid; returns false and leaves `out` untouched otherwise (call validate() for the reasons).
bool encode_into_host(const TensorMapParams& p, TensorMapBytes& out);

namespace fast_detail {
// The fast path (encode_fast_portable's contract) in the form this CPU runs.
bool encode_fast_host(const TensorMapParams& p, TensorMapBytes& out);
}  // namespace fast_detail

// encode() with the fast path's SIMD form: on refusal `map` is all zero and `violations` lists
// every violated rule. Inline, as encode() is: the result is built in the caller's frame and only
// the fast path is a call (out of line, encode_host set up a frame of its own for the 700-byte
// result on every call: about 6 more instructions per map, counted with bench/icount_encode.cpp).
inline EncodeResult encode_host(const TensorMapParams& p) {
  EncodeResult r{TensorMapBytes(TensorMapBytes::Unwritten{}), {}};  // every path below writes r.map whole
  if (!fast_detail::encode_fast_host(p, r.map)) encode_detail::encode_declined(p, r);
  return r;
}

// Which form of the fast path the host library runs on this CPU: "AVX-512", "SSE2" or "portable".
const char* encode_fast_host_form();

namespace many_detail {
std::size_t encode_many_host(const TensorMapParams* params, TensorMapBytes* out, bool* ok, std::size_t n);
}  // namespace many_detail

// For every i < n: ok[i] = is_valid(params[i]), and out[i] = the map encode(params[i]) writes (all
// zero on a refusal; call validate() for the reasons). Returns how many were encoded.
//
// Same results as calling encode() on each. On CPUs that run the AVX-512 form, maps go 16 at a
// time through its block form (src/tensor_map/encode_fast_block.hpp), which checks the rules that
// need tables and products once per 16 maps instead of once per map (bench/bench_encode.cpp times
// it), and 1 to 3 maps one at a time through the AVX-512 form; on other CPUs it is a loop over the
// fast path's form for the CPU and the general path. At compile time: a loop over the portable
// fast path and the general path.
constexpr std::size_t encode_many(const TensorMapParams* params, TensorMapBytes* out, bool* ok, std::size_t n) {
  if (!std::is_constant_evaluated()) return many_detail::encode_many_host(params, out, ok, n);
  std::size_t encoded = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ok[i] = encode_fast_portable(params[i], out[i]) || encode_detail::encode_general(params[i], out[i]);
    encoded += ok[i];
  }
  return encoded;
}

}  // namespace tmakit

// The fast path's SSE2 form (x86-64 hosts: every x86-64 CPU has SSE2): encode_fast_portable
// (encode_fast.hpp) with dims, strides, box and element strides checked and packed two or four at
// a time. Equal to encode_fast_portable on every input (tests/test_encode_fast.cpp). Host library
// code; encode_host.cpp runs it on x86-64 CPUs without the AVX-512 form.
#pragma once

#include "encode_fast_forms.hpp"
#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/params.hpp"

#if TMAKIT_ENCODE_FAST_USES_SSE2

namespace tmakit {

// Writes `out` and returns true exactly when encode_fast_portable(p, out) would.
bool encode_fast_sse2(const TensorMapParams& p, TensorMapBytes& out);

namespace fast_detail {
// encode_into_host() on CPUs that run the SSE2 form: the form inlined, then the general path.
bool encode_into_sse2(const TensorMapParams& p, TensorMapBytes& out);
}  // namespace fast_detail

}  // namespace tmakit

#endif  // TMAKIT_ENCODE_FAST_USES_SSE2

// A CUtensorMap (cuda.h's type, what a kernel takes as a `const __grid_constant__ CUtensorMap`
// parameter) from tmakit's encoder, on the host: no driver call, the same bytes
// cuTensorMapEncode* writes (tests/test_driver_vectors.cpp).
#pragma once

#include <cuda.h>

#include <cstring>

#include "tmakit/tensor_map/encode.hpp"

namespace tmakit::device {

// Encodes `p` into *out. Returns false (and leaves *out unchanged) when validate refuses `p`.
inline bool encode_cu_tensor_map(const TensorMapParams& p, CUtensorMap* out) {
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes), "CUtensorMap is 128 bytes");
  TensorMapBytes bytes{};
  if (!encode_into(p, bytes)) return false;
  std::memcpy(out, &bytes, sizeof *out);
  return true;
}

}  // namespace tmakit::device

// A thread-block cluster's shape and the rank <-> coordinate map the hardware uses:
// %cluster_ctarank = x + y * X + z * X * Y (x fastest), and the 16-bit CTA masks of multicast
// copies (bit r = the CTA of rank r).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// Largest cluster on sm_90: 8 CTAs portably, 16 with cudaFuncAttributeNonPortableClusterSizeAllowed.
inline constexpr std::uint32_t kMaxClusterSize = 16;
inline constexpr std::uint32_t kMaxPortableClusterSize = 8;

struct ClusterCoord {
  std::uint32_t x = 0, y = 0, z = 0;
  TMAKIT_HD constexpr std::uint32_t operator[](int d) const { return d == 0 ? x : d == 1 ? y : z; }
};

struct ClusterShape {
  std::uint32_t x = 1, y = 1, z = 1;
  TMAKIT_HD constexpr std::uint32_t extent(int d) const { return d == 0 ? x : d == 1 ? y : z; }
  TMAKIT_HD constexpr std::uint32_t size() const { return x * y * z; }
  // Each extent is bounded before the product is taken: {65536, 65536, 1} must not wrap to size 0.
  TMAKIT_HD constexpr bool valid() const {
    return x >= 1 && y >= 1 && z >= 1 && x <= kMaxClusterSize && y <= kMaxClusterSize && z <= kMaxClusterSize &&
           size() <= kMaxClusterSize;
  }
  TMAKIT_HD constexpr std::uint32_t rank_of(ClusterCoord c) const { return c.x + c.y * x + c.z * x * y; }
  TMAKIT_HD constexpr ClusterCoord coord_of(std::uint32_t r) const { return {r % x, (r / x) % y, r / (x * y)}; }
  // Mask with a bit for every rank of the cluster.
  TMAKIT_HD constexpr std::uint16_t full_mask() const {
    return static_cast<std::uint16_t>(size() >= 16 ? 0xFFFFu : (1u << size()) - 1u);
  }
};

TMAKIT_HD constexpr int popcount16(std::uint16_t m) {
  int n = 0;
  for (; m; m = static_cast<std::uint16_t>(m & (m - 1))) ++n;
  return n;
}

// Rank of the k-th set bit of m (k from 0), or -1.
TMAKIT_HD constexpr int nth_set_bit(std::uint16_t m, int k) {
  for (int r = 0; r < 16; ++r)
    if (m >> r & 1u) {
      if (k == 0) return r;
      --k;
    }
  return -1;
}

// Position of rank r among the set bits of m (number of set bits below r).
TMAKIT_HD constexpr int bit_index(std::uint16_t m, std::uint32_t r) {
  return popcount16(static_cast<std::uint16_t>(m & ((1u << r) - 1u)));
}

}  // namespace tmakit

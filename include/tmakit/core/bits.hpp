// Small bit helpers shared by tmakit headers (constexpr, host and device).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// log2 of v when v is a power of two, else -1 (also for v <= 0).
TMAKIT_HD constexpr int log2_exact(std::int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int b = 0;
  while ((std::int64_t{1} << b) < v) ++b;
  return b;
}

}  // namespace tmakit

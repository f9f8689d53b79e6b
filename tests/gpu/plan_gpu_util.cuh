// Helpers of the GPU tests that execute TMA plans (test_plan_load.cu, test_plan_store.cu): the
// plan's descriptor for a device buffer, and the first byte where a buffer differs from the model.
#pragma once

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tmakit/plan/tma_plan.hpp"
#include "tmakit/tensor_map/encode.hpp"

namespace tmakit_test {

// The plan's tensor map pointed at `dev` (tmakit's encoder: the same bytes the driver would write).
inline CUtensorMap descriptor_for(const tmakit::TmaPlan& plan, const void* dev) {
  tmakit::TensorMapParams q = plan.params;
  q.address = reinterpret_cast<std::uint64_t>(dev);
  const tmakit::EncodeResult e = tmakit::encode(q);
  EXPECT_TRUE(e.ok());
  CUtensorMap m;
  static_assert(sizeof(m) == sizeof(e.map));
  std::memcpy(&m, &e.map, sizeof m);
  return m;
}

// "" when equal; otherwise how many bytes differ and the first of them.
inline std::string first_difference(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want) {
  std::size_t n = 0, first = want.size();
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (first == want.size()) first = i;
      ++n;
    }
  if (!n) return "";
  return std::to_string(n) + " bytes differ, first at " + std::to_string(first) + ": got " + std::to_string(got[first]) +
         ", predicted " + std::to_string(want[first]);
}

}  // namespace tmakit_test

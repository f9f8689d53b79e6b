// Host only, against the installed package (tmakit::host): plan a 128 x 64 bf16 tile of a K-major
// 4096 x 4096 matrix into a 128B-swizzled shared buffer, encode its descriptor without the driver,
// and print the plan (descriptor dims, instructions, bytes) and the descriptor's 128 bytes.
#include <cstdio>

#include "tmakit/layout/notation.hpp"      // parse_swizzled_layout()
#include "tmakit/plan/describe.hpp"        // describe_plan()
#include "tmakit/plan/explain.hpp"         // explain_plan(): a refusal, rule by rule, with its fix
#include "tmakit/plan/make_problem.hpp"    // plan_tile()
#include "tmakit/plan/notation.hpp"        // parse_global_tensor(), parse_tile_extents()
#include "tmakit/tensor_map/encode.hpp"    // encode(): the driver's 128 bytes, no driver

int main() {
  const auto g = tmakit::parse_global_tensor("bf16 (4096,4096):(4096,1)");
  const auto s = tmakit::parse_swizzled_layout("Sw<3,4,3> o (128,64):(64,1)");
  const auto t = tmakit::parse_tile_extents("M=128,K=64");
  if (!g.ok || !s.ok || !t.ok) {
    std::fprintf(stderr, "notation: %s%s%s\n", g.error.c_str(), s.error.message.c_str(), t.error.c_str());
    return 1;
  }
  const tmakit::PlanResult r = tmakit::plan_tile(g.value, s.value, t.value);
  if (!r.ok()) {
    for (const auto& d : tmakit::explain_plan(r.issues, r.problem, t.names)) std::fprintf(stderr, "%s\n", d.message().c_str());
    return 1;
  }
  std::printf("%s\n", tmakit::describe_plan(r.plan, t.names).c_str());

  tmakit::TensorMapParams p = r.plan.params;
  p.address = 0x7f0000000000;  // the tensor's device address (16-byte aligned)
  const tmakit::EncodeResult e = tmakit::encode(p);
  if (!e.ok()) return 1;
  std::printf("descriptor (CUtensorMap, 128 bytes):\n");
  for (int i = 0; i < 128; ++i) std::printf("%02x%s", e.map.byte(i), i % 16 == 15 ? "\n" : " ");
  return r.plan.expect_tx_bytes == 128 * 64 * 2 ? 0 : 1;  // one tile: 16384 bytes
}

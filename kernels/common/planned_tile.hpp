// Host side, shared by the kernels built from tmakit (kernels/*_sm90): one tile of a global tensor
// planned with plan_tile against the shared layout the kernel reads it through, and its descriptor
// encoded. A refusal comes back as the planner's own words, one line per reason, each prefixed with
// the operand's name: "Q: error [gmem.stride_align] ...; fix: ...".
#pragma once

#include <cuda.h>

#include <cstring>
#include <string>
#include <vector>

#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/explain.hpp"

namespace tmakit::kernels {

struct PlannedTile {
  TmaPlan plan{};
  CUtensorMap map{};
};

// Plans the tile (extents per global mode, mode_names for the messages) and encodes its
// descriptor; on refusal appends every reason to `errors` and returns false.
inline bool plan_and_encode(const char* name, const GlobalTensor& g, const SwizzledLayout& smem, const TileExtents& tile,
                            const std::vector<std::string>& mode_names, PlannedTile& out,
                            std::vector<std::string>& errors, const PlanOptions& options = {}) {
  const PlanResult r = plan_tile(g, smem, tile, options);
  if (!r.ok()) {
    for (const PlanDiagnostic& d : explain_plan(r.issues, r.problem, mode_names))
      errors.push_back(std::string(name) + ": " + d.message());
    return false;
  }
  const EncodeResult e = encode(r.plan.params);
  if (!e.ok()) {
    for (const Diagnostic& x : explain(r.plan.params, e.violations))
      errors.push_back(std::string(name) + ": descriptor: " + x.message());
    return false;
  }
  out.plan = r.plan;
  static_assert(sizeof(out.map) == sizeof(e.map));
  std::memcpy(&out.map, &e.map, sizeof out.map);
  return true;
}

}  // namespace tmakit::kernels

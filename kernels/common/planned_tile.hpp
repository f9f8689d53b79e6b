// Host side, shared by the kernels built from tmakit (kernels/*_sm90): one tile of a global tensor
// planned with plan_tile against the shared layout the kernel reads it through, and its descriptor
// encoded. A refusal comes back as the planner's own words, one line per reason, each prefixed with
// the operand's name: "Q: error [gmem.stride_align] ...; fix: ...".
#pragma once

#include <cuda.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/common/rules.hpp"
#include "tmakit/plan/copy_shape.hpp"
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

// plan_and_encode, then the check that the plan has the shape the kernel's copy program was
// compiled from (plan/copy_shape.hpp). A fixed-shape plan of a layout the kernel compiles always
// has it: a difference is a defect of the kernel's tables, refused under `rule` (e.g.
// KernelRule::gemm_plan_shape) with the field that differs rather than launched.
inline bool plan_compiled_tile(const char* name, const GlobalTensor& g, const SwizzledLayout& smem,
                               const TileExtents& tile, const std::vector<std::string>& mode_names,
                               const PlanOptions& options, const TmaPlan& compiled, KernelRule rule,
                               PlannedTile& out, std::vector<std::string>& errors) {
  if (!plan_and_encode(name, g, smem, tile, mode_names, out, errors, options)) return false;
  const ShapeDifference d = shape_difference(compiled, plan_shape(out.plan));
  if (d.same) return true;
  errors.push_back(std::string(name) + ": " +
                   refusal(rule, "the plan's " + std::string(d.field) + " is " + std::to_string(d.planned) +
                                     " where the kernel's compiled copy program has " + std::to_string(d.compiled)));
  return false;
}

}  // namespace tmakit::kernels

#include "plan_operands.hpp"

namespace tmakit::cli {

int parse_plan_operands(const std::string& gmem, const std::string& smem, const std::string& tile, const Reporter& rep,
                        PlanOperands& out) {
  out.gmem = parse_global_tensor(gmem);
  if (!out.gmem.ok) return rep.bad_value("--gmem", out.gmem.error);
  out.smem = parse_swizzled_layout(smem);
  if (!out.smem.ok) return rep.bad_value("--smem", out.smem.error.message);
  out.tile = parse_tile_extents(tile);
  if (!out.tile.ok) return rep.bad_value("--tile", out.tile.error);
  return -1;
}

}  // namespace tmakit::cli

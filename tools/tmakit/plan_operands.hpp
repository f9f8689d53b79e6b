// The three operands of every command that plans a tile (--gmem, --smem, --tile), parsed in one
// place so that each command refuses a bad one with the same words: the first that does not parse
// is reported as a bad value of its option.
#pragma once

#include <string>

#include "options.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/notation.hpp"

namespace tmakit::cli {

struct PlanOperands {
  ParsedGlobalTensor gmem;
  Parsed<SwizzledLayout> smem;
  ParsedTileExtents tile;
};

// -1 when all three parse (then `out` holds them), else the exit status of the bad-value report.
int parse_plan_operands(const std::string& gmem, const std::string& smem, const std::string& tile, const Reporter& rep,
                        PlanOperands& out);

}  // namespace tmakit::cli

// A plan the planner refused, reported as every command that plans reports it: each diagnostic's
// message on stderr, or with --json the result object {"result": 1, "errors": [{rule, where,
// message, fix}, ...]} on stdout. Returns the exit status (kExitRefused).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "options.hpp"
#include "tmakit/plan/make_problem.hpp"

namespace tmakit::cli {

int report_plan_refusal(const PlanResult& r, const std::vector<std::string>& tile_names, const Reporter& rep,
                        std::ostream& err, bool json);

}  // namespace tmakit::cli

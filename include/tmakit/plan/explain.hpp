// Refusals in words (host only; src/plan/explain.cpp): every PlanIssue becomes one line naming the
// rule id, the user's mode (index and name), the numbers and a concrete fix, e.g.
//   error [plan.inner_contiguous] tile mode 0 (M) is contiguous in shared memory but has global
//   stride 4096: TMA's innermost box dimension must be contiguous in global memory; fix: make tile
//   mode 1 (K) the innermost shared mode (shared stride 1), e.g. smem (128,64):(64,1)
#pragma once

#include <string>
#include <vector>

#include "tmakit/core/finding.hpp"
#include "tmakit/plan/rules.hpp"
#include "tmakit/plan/tile_problem.hpp"

namespace tmakit {

// A refusal in the library's one shape (core/finding.hpp): rule_id stable (rule_id(PlanRule)); where
// "tile mode 0 (M)", "tile mode 1 (d), shared piece 1", or "" for the whole plan; what the violated
// rule with the numbers, naming the mode itself; fix a concrete fix.
using PlanDiagnostic = Finding;

// names: one per global mode (may be empty or shorter; unnamed modes print as "tile mode i").
// problem: the problem as planned (for the numbers of the fixes); may be default when the issues
// came from parsing/conversion.
std::vector<PlanDiagnostic> explain_plan(const PlanIssues& issues, const TileProblem& problem,
                                         const std::vector<std::string>& names = {});

}  // namespace tmakit

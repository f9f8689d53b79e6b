// report_plan_refusal (plan_refusal.hpp).
#include "plan_refusal.hpp"

#include "tmakit/host/json.hpp"
#include "tmakit/plan/explain.hpp"

namespace tmakit::cli {

int report_plan_refusal(const PlanResult& r, const std::vector<std::string>& tile_names, const Reporter& rep,
                        std::ostream& err, bool json) {
  const auto ds = explain_plan(r.issues, r.problem, tile_names);
  if (json) {
    nlohmann::json e = nlohmann::json::array();
    for (const auto& d : ds) e.push_back(finding_json<nlohmann::json>(d));
    return rep.json_result(nlohmann::json{{"result", 1}, {"errors", e}}, kExitRefused, false);
  }
  for (const auto& d : ds) err << d.message() << '\n';
  return kExitRefused;
}

}  // namespace tmakit::cli

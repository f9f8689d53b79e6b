// A finding of a kernel's numbers against a cluster stage, in words (see
// tmakit/cluster/stage_check.hpp): its rule's id, the CTA, the numbers and the rule's fix.
#include <string>
#include <utility>

#include "tmakit/cluster/stage_check.hpp"

namespace tmakit {

StageFinding::StageFinding(ClusterRule r, std::int32_t c, std::string d)
    : Finding(make_finding(r, c >= 0 ? "CTA " + std::to_string(c) : std::string(), {})),
      rule(r),
      cta(c),
      detail(std::move(d)) {
  what = what_at(where, detail);
}

}  // namespace tmakit

// A finding of a kernel's numbers against a cluster stage, in words (see
// tmakit/cluster/stage_check.hpp): its rule's id, the CTA, the numbers and the rule's fix.
#include <string>

#include "tmakit/cluster/stage_check.hpp"

namespace tmakit {

std::string StageFinding::fix() const { return rule_fix(rule); }

std::string StageFinding::message() const {
  return std::string(is_note(rule) ? "note [" : "error [") + rule_id(rule) + "]" +
         (cta >= 0 ? " CTA " + std::to_string(cta) : std::string()) + ": " + detail + "; fix: " + fix();
}

}  // namespace tmakit

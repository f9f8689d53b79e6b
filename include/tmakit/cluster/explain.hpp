// Words for cluster diagnostics (host only): "error [expect.fan_in] CTA 1: ... fix: ...". The
// finding's words are its rule's text (tmakit/cluster/rules.hpp) with {value} and {expected}
// replaced by the violation's numbers; the fix is the rule's fix.
#pragma once

#include <string>
#include <string_view>

#include "tmakit/cluster/rules.hpp"

namespace tmakit {

inline std::string explain(const ClusterViolation& v) {
  const RuleInfo<ClusterRule> info = rule_info(v.rule);
  std::string s = info.severity == Severity::note ? "note [" : "error [";
  s += info.id;
  s += "]";
  if (v.cta >= 0) s += " CTA " + std::to_string(v.cta);
  s += ": ";
  constexpr std::string_view kValue = "{value}", kExpected = "{expected}";
  for (std::string_view text = info.text; !text.empty();) {
    if (text.substr(0, kValue.size()) == kValue) {
      s += std::to_string(v.value);
      text.remove_prefix(kValue.size());
    } else if (text.substr(0, kExpected.size()) == kExpected) {
      s += std::to_string(v.expected);
      text.remove_prefix(kExpected.size());
    } else {
      s += text.front();
      text.remove_prefix(1);
    }
  }
  s += "; fix: ";
  s += info.fix;
  return s;
}

}  // namespace tmakit

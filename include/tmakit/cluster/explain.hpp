// Words for cluster diagnostics (host only): "error [expect.fan_in] CTA 1: ...; fix: ...". The
// finding's words are its rule's text (tmakit/cluster/rules.hpp) with {value} and {expected}
// replaced by the violation's numbers; the fix is the rule's fix.
#pragma once

#include <string>
#include <string_view>

#include "tmakit/cluster/rules.hpp"
#include "tmakit/core/finding.hpp"

namespace tmakit {

// The violation in the library's one shape (core/finding.hpp): where "CTA 1" ("" for a finding of
// the whole cluster), what "<where>: <the rule's text with the numbers>", fix the rule's fix.
inline Finding to_finding(const ClusterViolation& v) {
  const RuleInfo<ClusterRule> info = rule_info(v.rule);
  std::string text;
  constexpr std::string_view kValue = "{value}", kExpected = "{expected}";
  for (std::string_view t = info.text; !t.empty();) {
    if (t.substr(0, kValue.size()) == kValue) {
      text += std::to_string(v.value);
      t.remove_prefix(kValue.size());
    } else if (t.substr(0, kExpected.size()) == kExpected) {
      text += std::to_string(v.expected);
      t.remove_prefix(kExpected.size());
    } else {
      text += t.front();
      t.remove_prefix(1);
    }
  }
  Finding f = make_finding(v.rule, v.cta >= 0 ? "CTA " + std::to_string(v.cta) : std::string(), {});
  f.what = what_at(f.where, text);
  return f;
}

// One line: to_finding(v).message().
inline std::string explain(const ClusterViolation& v) { return to_finding(v).message(); }

}  // namespace tmakit
